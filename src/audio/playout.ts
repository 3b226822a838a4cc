/**
 * The agent's playout timeline: when each piece of agent audio would actually be heard.
 *
 * Providers send agent audio faster than real time, so arrival times say little about when the
 * caller hears it. A player queues it: each chunk starts at the later of its arrival and the end
 * of the chunk before it. Latency and overlap are measured on this timeline, and the provider's
 * interruption/clear events drop what has not been played yet, as a real client's player would.
 *
 * Positions are kept in whole samples (sample-accurate placement); the API speaks float ms.
 *
 * What it holds is bounded for an agent that floods it: audio that would end more than
 * `maxAheadMs` after it arrived is refused, and tiny chunks are joined to the one before them up
 * to a frame, so a stream of one-sample messages queues no more chunk objects than 20 ms frames.
 */

interface Chunk {
  pcm: Int16Array;
  /** Sample at which it arrived: it can never start before this. */
  arrival: number;
  start: number;
  eventId: number | undefined;
}

export interface PlacedChunk {
  startMs: number;
  endMs: number;
}

export interface PlayoutOptions {
  /** The furthest past its arrival a chunk may end; one that would end later is refused. */
  maxAheadMs?: number;
}

/** Chunks are joined up to this many ms (a frame): the queue holds at most one per ~10 ms. */
const JOIN_UP_TO_MS = 20;

export class PlayoutTimeline {
  /** Queued chunks in play order (non-overlapping, ascending start). */
  private chunks: Chunk[] = [];
  /** End sample of the last audio scheduled (after any truncation); -Infinity before any. */
  private end = -Infinity;
  private readonly maxAhead: number;
  private readonly joinUpTo: number;

  constructor(
    readonly sampleRate: number,
    options: PlayoutOptions = {},
  ) {
    if (!(sampleRate > 0)) throw new RangeError('sampleRate must be positive');
    this.maxAhead = this.toSample(options.maxAheadMs ?? Infinity);
    this.joinUpTo = this.toSample(JOIN_UP_TO_MS);
  }

  /**
   * Queues a chunk that arrived at `arrivalMs`; says when it will play. Null, with nothing
   * queued, when it would end more than `maxAheadMs` after its arrival.
   */
  push(pcm: Int16Array, arrivalMs: number, eventId?: number): PlacedChunk | null {
    const arrival = this.toSample(arrivalMs);
    const start = Math.max(arrival, this.end);
    if (start + pcm.length - arrival > this.maxAhead) return null;
    if (pcm.length > 0) {
      if (!this.joined(pcm, arrival, eventId)) this.chunks.push({ pcm, arrival, start, eventId });
      this.end = start + pcm.length;
    }
    return { startMs: this.toMs(start), endMs: this.toMs(start + pcm.length) };
  }

  /**
   * Joins `pcm` to the last chunk when it plays right after it, for the same event, and both fit
   * in a frame. The joined chunk's arrival is moved so that no part of it can be moved up (by a
   * flush) to play before that part arrived.
   */
  private joined(pcm: Int16Array, arrival: number, eventId: number | undefined): boolean {
    const last = this.chunks.at(-1);
    if (!last || last.eventId !== eventId || this.chunkEnd(last) !== this.end) return false;
    if (arrival > this.end || last.pcm.length + pcm.length > this.joinUpTo) return false;
    const both = new Int16Array(last.pcm.length + pcm.length);
    both.set(last.pcm);
    both.set(pcm, last.pcm.length);
    last.arrival = Math.max(last.arrival, arrival - last.pcm.length);
    last.pcm = both;
    return true;
  }

  /**
   * Drops audio not yet played at `atMs`: chunks tagged `eventId <= uptoEventId` when an id is
   * given, every chunk otherwise. A chunk playing at `atMs` is cut there. Kept chunks that were
   * waiting behind dropped ones move up (a player plays its queue back to back). Returns the ms of
   * audio dropped.
   */
  flush(atMs: number, uptoEventId?: number): number {
    const at = this.toSample(atMs);
    const dropped = (chunk: Chunk): boolean =>
      uptoEventId === undefined || (chunk.eventId !== undefined && chunk.eventId <= uptoEventId);
    let droppedSamples = 0;
    const kept: Chunk[] = [];
    let end = -Infinity;
    for (const chunk of this.chunks) {
      const chunkEnd = this.chunkEnd(chunk);
      if (chunkEnd <= at || !dropped(chunk)) {
        if (chunk.start >= at) chunk.start = Math.max(chunk.arrival, end, at);
        kept.push(chunk);
        end = chunk.start + chunk.pcm.length;
      } else if (chunk.start < at) {
        droppedSamples += chunkEnd - at;
        chunk.pcm = chunk.pcm.subarray(0, at - chunk.start);
        kept.push(chunk);
        end = at;
      } else {
        droppedSamples += chunk.pcm.length;
      }
    }
    this.chunks = kept;
    if (kept.length > 0) this.end = end;
    else if (droppedSamples > 0) this.end = Math.min(this.end, at);
    return this.toMs(droppedSamples);
  }

  /**
   * The samples that play in [fromMs, toMs), zeros where nothing plays. Chunks that end before
   * `fromMs` are released: callers take consecutive windows and never look back.
   */
  take(fromMs: number, toMs: number): Int16Array {
    const from = this.toSample(fromMs);
    const to = this.toSample(toMs);
    const out = new Int16Array(Math.max(0, to - from));
    let played = 0;
    while (played < this.chunks.length && this.chunkEnd(this.chunks[played]!) <= from) played++;
    if (played > 0) this.chunks.splice(0, played);
    for (const chunk of this.chunks) {
      if (chunk.start >= to) break;
      const lo = Math.max(from, chunk.start);
      const hi = Math.min(to, chunk.start + chunk.pcm.length);
      if (hi > lo) out.set(chunk.pcm.subarray(lo - chunk.start, hi - chunk.start), lo - from);
    }
    return out;
  }

  /** How many chunks are queued (joined ones count once). */
  get queuedChunks(): number {
    return this.chunks.length;
  }

  /**
   * Everything queued, in play order, with its event id; the timeline then holds nothing (a
   * holder of audio that came before the call hands it to the call's own timeline).
   */
  drain(): { pcm: Int16Array; eventId: number | undefined }[] {
    const all = this.chunks.map(({ pcm, eventId }) => ({ pcm, eventId }));
    this.chunks = [];
    return all;
  }

  /** When the last queued audio ends, in ms; -Infinity when nothing was ever queued. */
  endMs(): number {
    return this.end === -Infinity ? -Infinity : this.toMs(this.end);
  }

  /** Whether any queued audio still plays after `atMs`. */
  bufferedAfter(atMs: number): boolean {
    return this.end > this.toSample(atMs);
  }

  private chunkEnd(chunk: Chunk): number {
    return chunk.start + chunk.pcm.length;
  }

  private toSample(ms: number): number {
    return Math.round((ms * this.sampleRate) / 1000);
  }

  private toMs(samples: number): number {
    return (samples * 1000) / this.sampleRate;
  }
}
