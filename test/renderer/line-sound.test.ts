import { describe, expect, it } from 'vitest';
import { lineSound, type CallLine } from '../../renderer/src/ui/lineSound.js';

const line = (profile: string, codec: CallLine['codec'], rate: number): CallLine => ({
  profile,
  codec,
  sample_rate: rate,
  loss_percent: 0,
  jitter_ms: 0,
  latency_ms: 0,
  seed: 1,
  frames: 10,
  frames_lost: 0,
});

describe('the line a caller panel names', () => {
  it("says a studio line carried the call's own audio", () => {
    expect(lineSound(line('studio', 'pcm16', 8000))).toBe("the call's own audio at 8 kHz");
    expect(lineSound(line('studio', 'pcm16', 16000))).toBe("the call's own audio at 16 kHz");
  });

  it('names any other line by its codec and the rate it carried', () => {
    expect(lineSound(line('phone', 'mulaw', 8000))).toBe('μ-law at 8 kHz');
    expect(lineSound(line('custom', 'pcm16', 16000))).toBe('PCM 16-bit at 16 kHz');
  });
});
