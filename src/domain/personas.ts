import { z } from 'zod';
import { PersonaVoice } from './audio.js';
import { CallerBehaviours, PersonaNoise } from './callers.js';
import { Timestamp, UserRef } from './records.js';

/**
 * The persona (a simulated caller), defined once: the store reads and writes it through a column
 * map typed by this record, the operations build their schemas from it, and the renderer takes its
 * enum lists from here through the generated `renderer/src/generated/enums.ts`.
 */

export const EMOTIONS = [
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
export const DIFFICULTIES = ['easy', 'medium', 'hard', 'very_hard'] as const;
export const BACKGROUND_NOISES = [
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

// The order of the fields is the order the API publishes them in (the list's fields first).
export const Persona = z.object({
  id: z.string(),
  /** The suite key when stored (first export or import); null: not yet (answers derive it). */
  key: z.string().nullable(),
  name: z.string(),
  language: z.string(),
  emotion: z.enum(EMOTIONS),
  difficulty: z.enum(DIFFICULTIES),
  backgroundNoise: z.enum(BACKGROUND_NOISES),
  tags: z.array(z.string()),
  created_at: Timestamp,
  updated_at: Timestamp,
  created_by: UserRef,
  prompt: z.string(),
  /** How the persona sounds in audio mode; null: the offline system voice. */
  voice: PersonaVoice.nullable(),
  /** Audio mode: speech over the background noise; null: the default of its difficulty. */
  noise: PersonaNoise.nullable(),
  /** Audio mode: barge-ins, silences, backchannels and hang-ups, by chance; null: none. */
  behaviours: CallerBehaviours.nullable(),
});
export type Persona = z.infer<typeof Persona>;

/** A row of the persona list: the long and audio-only fields are in the persona's own page. */
export const PersonaListFields = Persona.omit({
  prompt: true,
  voice: true,
  noise: true,
  behaviours: true,
});

/** What a change may set: everything but the identity and the bookkeeping. */
export const PersonaEditable = Persona.omit({
  id: true,
  key: true,
  created_at: true,
  updated_at: true,
  created_by: true,
});
export type PersonaPatch = Partial<z.infer<typeof PersonaEditable>>;
