/**
 * The per-call stereo recording: agent on the left, caller on the right, one clock. Samples land
 * where they play, so the recording is the timeline the metrics were measured on.
 *
 * Storage grows in one-second blocks as time is written, never past `maxMs`, so a call's memory is
 * bounded by its duration limit and proportional to what was actually recorded. Blocks nothing
 * was written to stay unallocated (they read as silence).
 */
import { bytesFromPcm } from './pcm.js';
import { WAV_HEADER_BYTES, writeWavHeader } from './wav-header.js';

export type RecordingSide = 'agent' | 'caller';

export interface StereoRecordingOptions {
  sampleRate: number;
  /** The longest recording kept; anything put later is dropped. */
  maxMs: number;
}

const CHANNELS = 2;

export class StereoRecording {
  readonly sampleRate: number;
  private readonly maxFrames: number;
  private readonly blockFrames: number;
  /** Interleaved stereo blocks of `blockFrames` frames (the last may be shorter); null = silent. */
  private readonly blocks: (Int16Array | null)[] = [];
  private endFrame = 0;

  constructor(opts: StereoRecordingOptions) {
    if (!(opts.sampleRate > 0)) throw new RangeError('sampleRate must be positive');
    if (!(opts.maxMs >= 0)) throw new RangeError('maxMs must be zero or more');
    this.sampleRate = opts.sampleRate;
    this.maxFrames = Math.floor((opts.maxMs * opts.sampleRate) / 1000);
    this.blockFrames = Math.round(opts.sampleRate);
  }

  /**
   * Writes `pcm` on one side starting at `atMs` (rounded to the nearest sample), mixed with
   * saturation into whatever is already there. Samples before 0 or past `maxMs` are dropped.
   */
  put(side: RecordingSide, atMs: number, pcm: Int16Array): void {
    const channel = side === 'agent' ? 0 : 1;
    const startFrame = Math.round((atMs * this.sampleRate) / 1000);
    const from = Math.max(0, -startFrame);
    const to = Math.min(pcm.length, this.maxFrames - startFrame);
    let i = from;
    while (i < to) {
      const frame = startFrame + i;
      const blockIndex = Math.floor(frame / this.blockFrames);
      const block = this.blockAt(blockIndex);
      const blockStart = blockIndex * this.blockFrames;
      const count = Math.min(to - i, blockStart + block.length / CHANNELS - frame);
      let at = (frame - blockStart) * CHANNELS + channel;
      for (let k = 0; k < count; k++, at += CHANNELS) {
        const sum = block[at]! + pcm[i + k]!;
        block[at] = sum > 32767 ? 32767 : sum < -32768 ? -32768 : sum;
      }
      i += count;
    }
    if (to > from) this.endFrame = Math.max(this.endFrame, startFrame + to);
  }

  /** How far the recording reaches: the end of the last sample put, in ms. */
  durationMs(): number {
    return (this.endFrame * 1000) / this.sampleRate;
  }

  /** Bytes of sample storage allocated so far (for memory accounting and tests). */
  allocatedBytes(): number {
    let bytes = 0;
    for (const block of this.blocks) bytes += block ? block.byteLength : 0;
    return bytes;
  }

  /** The recording so far as a stereo PCM16 WAV file (agent left, caller right). */
  toWav(): Buffer {
    const frameBytes = CHANNELS * 2;
    const dataBytes = this.endFrame * frameBytes;
    const out = Buffer.alloc(WAV_HEADER_BYTES + dataBytes);
    writeWavHeader(out, { sampleRate: this.sampleRate, channels: CHANNELS, dataBytes });
    this.blocks.forEach((block, index) => {
      if (!block) return;
      const at = WAV_HEADER_BYTES + index * this.blockFrames * frameBytes;
      const frames = Math.min(block.length / CHANNELS, this.endFrame - index * this.blockFrames);
      if (frames > 0) bytesFromPcm(block.subarray(0, frames * CHANNELS)).copy(out, at);
    });
    return out;
  }

  private blockAt(index: number): Int16Array {
    while (this.blocks.length <= index) this.blocks.push(null);
    let block = this.blocks[index];
    if (!block) {
      const frames = Math.min(this.blockFrames, this.maxFrames - index * this.blockFrames);
      block = new Int16Array(frames * CHANNELS);
      this.blocks[index] = block;
    }
    return block;
  }
}
