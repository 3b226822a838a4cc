// Generated from the engine's catalogue by scripts/operation-names.ts: do not edit.

/** personas.create: emotion. */
export const PERSONA_EMOTIONS = [
  'neutral',
  'happy',
  'calm',
  'confused',
  'frustrated',
  'angry',
  'anxious',
  'impatient',
  'sad',
  'skeptical',
] as const;

/** personas.create: difficulty. */
export const PERSONA_DIFFICULTIES = ['easy', 'medium', 'hard', 'very_hard'] as const;

/** personas.create: backgroundNoise. */
export const PERSONA_BACKGROUND_NOISES = [
  'none',
  'office',
  'call_center',
  'home',
  'street',
  'traffic',
  'car',
  'train',
  'airport',
  'cafe',
  'restaurant',
  'crowd',
  'construction',
  'wind',
] as const;
