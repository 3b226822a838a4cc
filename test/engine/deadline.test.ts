import { describe, expect, it } from 'vitest';
import { Deadline } from '../../src/net/deadline.js';

/** Resolves with the time the deadline told its listener it passed. */
const passed = (deadline: Deadline) =>
  new Promise<number>((resolve) => deadline.once('abort', () => resolve(performance.now())));

describe('deadlines sharing one timer per length', () => {
  it('passes a deadline not before its time, and tells each listener once', async () => {
    const deadline = new Deadline(30);
    let told = 0;
    deadline.on('abort', () => told++);
    expect(deadline.aborted).toBe(false);
    const at = await passed(deadline);
    expect(at).toBeGreaterThanOrEqual(deadline.endsAt);
    expect(deadline.aborted).toBe(true);
    expect(told).toBe(1);
  });

  it('never passes a cleared deadline, while a later one of the same length still passes', async () => {
    const cleared = new Deadline(20);
    let clearedTold = false;
    cleared.on('abort', () => (clearedTold = true));
    cleared.clear();
    const later = new Deadline(20);
    await passed(later);
    // The cleared one was due first on the same timer: had it been kept, it would have passed.
    expect(clearedTold).toBe(false);
    expect(cleared.aborted).toBe(false);
  });

  it('passes deadlines of one length in the order they were made, each at its own time', async () => {
    const first = new Deadline(25);
    await new Promise((resolve) => setTimeout(resolve, 15));
    const second = new Deadline(25);
    const [firstAt, secondAt] = await Promise.all([passed(first), passed(second)]);
    expect(firstAt).toBeGreaterThanOrEqual(first.endsAt);
    expect(secondAt).toBeGreaterThanOrEqual(second.endsAt);
    expect(secondAt).toBeGreaterThanOrEqual(firstAt);
  });

  it('does not tell a listener that was removed', async () => {
    const deadline = new Deadline(10);
    let told = false;
    const listener = () => (told = true);
    deadline.on('abort', listener);
    deadline.removeListener('abort', listener);
    await passed(deadline);
    expect(told).toBe(false);
  });

  it('tells a listener added after it passed nothing (undici checks `aborted` first)', async () => {
    const deadline = new Deadline(5);
    await passed(deadline);
    let told = false;
    deadline.on('abort', () => (told = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(told).toBe(false);
  });
});
