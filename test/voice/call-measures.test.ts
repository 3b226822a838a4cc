import { describe, expect, it } from 'vitest';
import { measureCall } from '../../src/voice/call-measures.js';

const span = (start: number, end: number) => ({ start, end });

describe('measuring a call from when each side spoke', () => {
  it('times each reply from the end of the caller’s speech, and the first sound from connect', () => {
    const m = measureCall(
      [span(3_000, 5_000), span(8_000, 9_000)],
      [span(500, 2_000), span(5_700, 7_000), span(9_400, 10_000)],
    );
    expect(m.timeToFirstAudioMs).toBe(500);
    expect(m.perAgent.map((a) => a.latencyMs)).toEqual([null, 700, 400]);
    expect(m.responseLatency).toEqual({ p50: 400, p90: 700, max: 700 });
    expect(m.talkOver).toEqual({ count: 0, totalMs: 0 });
    expect(m.agentSpeechMs).toBe(3_400);
    expect(m.callerSpeechMs).toBe(3_000);
    expect(m.talkRatio).toBe(1.13);
  });

  it('counts agent speech that starts 200 ms or more into the caller’s as talking over, with no latency', () => {
    const m = measureCall([span(1_000, 4_000)], [span(3_500, 5_000), span(3_900, 3_950)]);
    expect(m.perAgent[0]).toEqual({ latencyMs: null, talkOverMs: 500 });
    // 50 ms of overlap is a blip, not a talk-over.
    expect(m.talkOver).toEqual({ count: 1, totalMs: 500 });
  });

  it('counts pauses of both sides over 3 s, and answers nothing where no one spoke', () => {
    expect(
      measureCall([span(0, 1_000), span(5_000, 6_000)], [span(1_500, 1_800)]).longSilences,
    ).toBe(1);
    const none = measureCall([], []);
    expect(none.timeToFirstAudioMs).toBeNull();
    expect(none.responseLatency).toEqual({ p50: null, p90: null, max: null });
    expect(none.talkRatio).toBeNull();
  });

  it('a second agent span without the caller in between is no new reply', () => {
    const m = measureCall([span(0, 1_000)], [span(1_500, 2_000), span(2_900, 3_500)]);
    expect(m.perAgent.map((a) => a.latencyMs)).toEqual([500, null]);
  });
});
