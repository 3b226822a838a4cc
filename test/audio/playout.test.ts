import { describe, expect, it } from 'vitest';
import { PlayoutTimeline } from '../../src/audio/playout.js';

/** `ms` of a constant sample value at 1 kHz (one sample per ms keeps the arithmetic readable). */
const chunk = (ms: number, value: number): Int16Array => new Int16Array(ms).fill(value);

describe('PlayoutTimeline', () => {
  it('lays audio that arrives faster than real time end to end', () => {
    const timeline = new PlayoutTimeline(1000);
    expect(timeline.endMs()).toBe(-Infinity);
    expect(timeline.push(chunk(100, 1), 10)).toEqual({ startMs: 10, endMs: 110 });
    expect(timeline.push(chunk(100, 2), 12)).toEqual({ startMs: 110, endMs: 210 });
    expect(timeline.push(chunk(50, 3), 20)).toEqual({ startMs: 210, endMs: 260 });
    // After a gap the next chunk starts when it arrives.
    expect(timeline.push(chunk(10, 4), 400)).toEqual({ startMs: 400, endMs: 410 });
    expect(timeline.endMs()).toBe(410);
    expect(timeline.bufferedAfter(409)).toBe(true);
    expect(timeline.bufferedAfter(410)).toBe(false);
  });

  it('places chunks to the sample at fractional times', () => {
    const timeline = new PlayoutTimeline(16000);
    expect(timeline.push(new Int16Array(320), 1.25)).toEqual({ startMs: 1.25, endMs: 21.25 });
    const window = new PlayoutTimeline(16000);
    window.push(new Int16Array([7]), 0.0625);
    expect([...window.take(0, 0.25)]).toEqual([0, 7, 0, 0]);
  });

  it('gives consecutive take() windows with silence where nothing plays', () => {
    const timeline = new PlayoutTimeline(1000);
    timeline.push(chunk(15, 1), 5);
    timeline.push(chunk(10, 2), 6);
    timeline.push(chunk(5, 3), 40);
    const windows = [0, 20, 40].map((from) => [...timeline.take(from, from + 20)]);
    expect(windows[0]).toEqual([...chunk(5, 0), ...chunk(15, 1)]);
    expect(windows[1]).toEqual([...chunk(10, 2), ...chunk(10, 0)]);
    expect(windows[2]).toEqual([...chunk(5, 3), ...chunk(15, 0)]);
    expect(timeline.endMs()).toBe(45);
  });

  it('flushes everything unplayed, cutting the chunk that is playing', () => {
    const timeline = new PlayoutTimeline(1000);
    timeline.push(chunk(100, 1), 0);
    timeline.push(chunk(100, 2), 0);
    expect(timeline.take(0, 40)).toEqual(chunk(40, 1));
    expect(timeline.flush(50)).toBe(150);
    expect(timeline.endMs()).toBe(50);
    expect(timeline.bufferedAfter(50)).toBe(false);
    expect([...timeline.take(40, 60)]).toEqual([...chunk(10, 1), ...chunk(10, 0)]);
    expect(timeline.push(chunk(10, 5), 55)).toEqual({ startMs: 55, endMs: 65 });
  });

  it('flushes by event id and moves the audio that is kept up', () => {
    const timeline = new PlayoutTimeline(1000);
    timeline.push(chunk(100, 1), 0, 1);
    timeline.push(chunk(100, 2), 1, 2);
    timeline.push(chunk(100, 3), 2, 3);
    timeline.push(chunk(100, 4), 3); // untagged audio is kept by an id-bounded flush
    expect(timeline.flush(150, 2)).toBe(50 + 0);
    // Chunk 1 played in full, chunk 2 cut at 150, 3 and the untagged one move up behind it.
    expect(timeline.endMs()).toBe(350);
    const heard = timeline.take(0, 360);
    expect(heard.subarray(0, 100)).toEqual(chunk(100, 1));
    expect(heard.subarray(100, 150)).toEqual(chunk(50, 2));
    expect(heard.subarray(150, 250)).toEqual(chunk(100, 3));
    expect(heard.subarray(250, 350)).toEqual(chunk(100, 4));
    expect(heard.subarray(350)).toEqual(chunk(10, 0));
  });

  it('cuts the playing chunk of a flushed event and plays the next event right after', () => {
    const timeline = new PlayoutTimeline(1000);
    timeline.push(chunk(100, 1), 0, 7);
    timeline.push(chunk(100, 2), 0, 8);
    timeline.push(chunk(100, 3), 0, 9);
    expect(timeline.flush(120, 8)).toBe(80);
    // Event 9 was due at 200; with 8 cut at 120 it plays from 120, and new audio queues after it.
    expect(timeline.push(chunk(10, 4), 130)).toEqual({ startMs: 220, endMs: 230 });
    expect([...timeline.take(110, 235)]).toEqual([
      ...chunk(10, 2),
      ...chunk(100, 3),
      ...chunk(10, 4),
      ...chunk(5, 0),
    ]);
    expect(timeline.flush(300)).toBe(0);
  });

  it('drops whole chunks that had not started and keeps the end where the audio stops', () => {
    const timeline = new PlayoutTimeline(1000);
    timeline.push(chunk(100, 1), 0, 1);
    timeline.push(chunk(100, 2), 500, 2);
    expect(timeline.flush(300, 2)).toBe(100);
    expect(timeline.endMs()).toBe(100);
    expect(timeline.bufferedAfter(99)).toBe(true);
    expect(timeline.flush(100, 5)).toBe(0);
  });

  it('releases chunks that have been taken', () => {
    const timeline = new PlayoutTimeline(1000);
    for (let i = 0; i < 1000; i++) timeline.push(chunk(20, 1), i * 20);
    for (let from = 0; from < 20_000; from += 20) timeline.take(from, from + 20);
    // Everything played: an id-less flush now has nothing left to drop.
    expect(timeline.flush(20_000)).toBe(0);
    expect(timeline.endMs()).toBe(20_000);
  });

  it('refuses audio that would end more than maxAheadMs after it arrived, queueing none of it', () => {
    const timeline = new PlayoutTimeline(1000, { maxAheadMs: 30_000 });
    expect(timeline.push(chunk(20_000, 1), 0)).toEqual({ startMs: 0, endMs: 20_000 });
    expect(timeline.push(chunk(10_000, 2), 5)).toEqual({ startMs: 20_000, endMs: 30_000 });
    // Exactly 30 s ahead of its arrival is allowed; one sample more is not.
    expect(timeline.push(chunk(10, 3), 10)).toEqual({ startMs: 30_000, endMs: 30_010 });
    expect(timeline.push(chunk(11, 4), 10)).toBeNull();
    expect(timeline.endMs()).toBe(30_010);
    // As the clock moves on, room opens again.
    expect(timeline.push(chunk(100, 5), 200)).toEqual({ startMs: 30_010, endMs: 30_110 });
  });

  it('joins tiny contiguous chunks, so a flood of them keeps few chunks queued', () => {
    const timeline = new PlayoutTimeline(1000);
    for (let i = 0; i < 10_000; i++) timeline.push(new Int16Array([i % 7]), 0, 1);
    // At 1 kHz a frame is 20 samples: joined chunks grow to a frame, never past it.
    expect(timeline.queuedChunks).toBe(500);
    const heard = timeline.take(0, 10_000);
    expect(heard.every((v, i) => v === i % 7)).toBe(true);
    // Chunks of another event are kept apart, so a flush by id still drops exactly its own.
    timeline.push(chunk(1, 8), 0, 2);
    timeline.push(chunk(1, 9), 0, 3);
    expect(timeline.flush(10_000, 2)).toBe(1);
    expect([...timeline.take(10_000, 10_002)]).toEqual([9, 0]);
  });

  it('keeps a joined chunk from playing any part before it arrived', () => {
    const timeline = new PlayoutTimeline(1000);
    timeline.push(chunk(100, 1), 0, 1);
    timeline.push(chunk(5, 2), 90, 2);
    timeline.push(chunk(5, 3), 100, 2); // joined to the one before (contiguous, same event)
    expect(timeline.queuedChunks).toBe(2);
    // Event 1 is dropped at 50: the joined chunk moves up, but its second part arrived at 100.
    expect(timeline.flush(50, 1)).toBe(50);
    expect(timeline.endMs()).toBe(105);
    const heard = [...timeline.take(50, 110)];
    expect(heard.slice(45, 55)).toEqual([...chunk(5, 2), ...chunk(5, 3)]);
  });

  it('hands over what is queued, in play order, and keeps nothing', () => {
    const timeline = new PlayoutTimeline(1000);
    timeline.push(chunk(30, 1), 0, 4);
    timeline.push(chunk(30, 2), 0);
    expect(timeline.drain()).toEqual([
      { pcm: chunk(30, 1), eventId: 4 },
      { pcm: chunk(30, 2), eventId: undefined },
    ]);
    expect(timeline.queuedChunks).toBe(0);
  });
});
