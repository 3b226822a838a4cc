import { z } from 'zod';
import { Timestamp } from './records.js';

/**
 * The scorecard, defined once: the store reads and writes it through a column map typed by this
 * record, and the operations build their schemas from it. A stored metric's `type` is any text
 * (the operations answer and accept only the types the scorer knows).
 */

export const Metric = z.object({
  id: z.string(),
  name: z.string(),
  category: z.string(),
  type: z.string(),
  description: z.string().nullable(),
  weight: z.number(),
  critical: z.boolean(),
  config: z.record(z.string(), z.unknown()),
});
export type Metric = z.infer<typeof Metric>;

export const Scorecard = z.object({
  id: z.string(),
  /** The suite key when stored (first export or import); null: not yet (answers derive it). */
  key: z.string().nullable(),
  name: z.string(),
  description: z.string().nullable(),
  metrics: z.array(Metric),
  passThreshold: z.number(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Scorecard = z.infer<typeof Scorecard>;

/** What a change may set: everything but the identity and the bookkeeping. */
export const ScorecardEditable = Scorecard.omit({
  id: true,
  key: true,
  created_at: true,
  updated_at: true,
});
export type ScorecardPatch = Partial<z.infer<typeof ScorecardEditable>>;
