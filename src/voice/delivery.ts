import { DEFAULT_VOICE, type PersonaVoice } from '../domain/audio.js';
import type { VoiceChoice } from '../speech/types.js';
import { VOICE_SPEEDS } from '../domain/audio.js';

/**
 * How a persona's emotion and difficulty shape its delivery: speaking rate and pitch (where the
 * engine has them), and how soon it answers once the agent stops. Angry and impatient callers
 * speak fast and answer at once; sad and confused ones slow down and hesitate.
 */
const EMOTION_DELIVERY: Record<string, { rate: number; pitch: number; pause: number }> = {
  neutral: { rate: 1, pitch: 1, pause: 1 },
  happy: { rate: 1.08, pitch: 1.12, pause: 0.9 },
  calm: { rate: 0.92, pitch: 0.96, pause: 1.3 },
  confused: { rate: 0.9, pitch: 1.04, pause: 1.6 },
  frustrated: { rate: 1.08, pitch: 1.06, pause: 0.7 },
  angry: { rate: 1.15, pitch: 0.9, pause: 0.5 },
  anxious: { rate: 1.15, pitch: 1.16, pause: 0.8 },
  impatient: { rate: 1.2, pitch: 1, pause: 0.35 },
  sad: { rate: 0.85, pitch: 0.86, pause: 1.4 },
  skeptical: { rate: 0.95, pitch: 0.96, pause: 1.2 },
};

/** The pause before the caller answers, by difficulty: harder callers leave the agent less room. */
const PAUSE_MS: Record<string, number> = { easy: 500, medium: 350, hard: 200, very_hard: 100 };

const deliveryOf = (emotion: string) => EMOTION_DELIVERY[emotion] ?? EMOTION_DELIVERY.neutral!;

/** The persona's voice as its emotion delivers it: its own speed scaled, its pitch moved. */
export function deliveredVoice(voice: PersonaVoice | null, emotion: string): VoiceChoice {
  const v = voice ?? DEFAULT_VOICE;
  const d = deliveryOf(emotion);
  const speed = Math.min(VOICE_SPEEDS.max, Math.max(VOICE_SPEEDS.min, (v.speed ?? 1) * d.rate));
  return { ...v, speed: Math.round(speed * 100) / 100, pitch: d.pitch };
}

/** Ms the caller waits after the agent's turn ends before it answers. */
export function answerPauseMs(persona: { emotion: string; difficulty: string }): number {
  return Math.round(
    (PAUSE_MS[persona.difficulty] ?? PAUSE_MS.medium!) * deliveryOf(persona.emotion).pause,
  );
}
