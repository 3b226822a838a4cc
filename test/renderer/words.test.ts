import { describe, expect, it } from 'vitest';
import { END_REASONS } from '../../src/domain/simulations.js';
import { tickLabel, tickStepMs } from '../../renderer/src/ui/timeAxis.js';
import { endReasonWords, plural } from '../../renderer/src/ui/words.js';

describe('the English of the screens', () => {
  it('counts with the right plural', () => {
    expect(plural(1, 'call')).toBe('1 call');
    expect(plural(2, 'call')).toBe('2 calls');
    expect(plural(0, 'audio call')).toBe('0 audio calls');
    expect(plural(3, 'try', 'tries')).toBe('3 tries');
  });

  it("says every end reason of the engine's in words, never its code", () => {
    expect(endReasonWords('agent_ended')).toBe('the agent ended the call');
    for (const reason of END_REASONS) expect(endReasonWords(reason)).not.toContain('_');
    expect(endReasonWords(null)).toBe('not ended yet');
  });

  it('puts a round tick every few seconds on the timeline, at most about eight', () => {
    expect(tickStepMs(10_000)).toBe(2_000);
    expect(tickStepMs(20_500)).toBe(5_000);
    expect(tickStepMs(3_000)).toBe(1_000);
    expect(tickLabel(15_000)).toBe('15 s');
    expect(tickLabel(90_000)).toBe('1:30');
  });
});
