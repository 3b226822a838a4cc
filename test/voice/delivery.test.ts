import { describe, expect, it } from 'vitest';
import { systemVoiceCommand } from '../../src/speech/system-voice.js';
import { answerPauseMs, deliveredVoice } from '../../src/voice/delivery.js';

describe('delivery by emotion and difficulty', () => {
  it('angry callers speak faster and lower; sad ones slower; the voice’s own speed is kept in scale', () => {
    const angry = deliveredVoice(null, 'angry');
    const sad = deliveredVoice({ engine: 'system', voiceId: 'en-gb', speed: 1.2 }, 'sad');
    expect(angry.speed).toBeGreaterThan(1);
    expect(angry.pitch).toBeLessThan(1);
    expect(sad).toMatchObject({ voiceId: 'en-gb', speed: 1.02 });
    expect(deliveredVoice({ engine: 'openai', voiceId: null, speed: 2 }, 'impatient').speed).toBe(
      2,
    );
  });

  it('espeak-ng is asked for the pitch; the voice’s own pitch asks for nothing', () => {
    const low = systemVoiceCommand(
      'linux',
      { text: 'Hi', voiceId: null, speed: 1, pitch: 0.9 },
      '',
    );
    expect(low.args).toEqual(expect.arrayContaining(['-p', '45']));
    const own = systemVoiceCommand('linux', { text: 'Hi', voiceId: null, speed: 1, pitch: 1 }, '');
    expect(own.args).not.toContain('-p');
  });

  it('impatient and hard callers leave the agent less room than calm and easy ones', () => {
    const quick = answerPauseMs({ emotion: 'impatient', difficulty: 'hard' });
    const slow = answerPauseMs({ emotion: 'calm', difficulty: 'easy' });
    expect(quick).toBeLessThan(100);
    expect(slow).toBeGreaterThan(600);
  });
});
