import { z } from 'zod';

/** A plain JSON object (not an array, not null): what can be walked key by key. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const Timestamp = z.string().describe('ISO 8601 UTC timestamp');

/** Who made a record, as answered: the user's id and the name they had then. */
export const UserRef = z.object({ id: z.string(), name: z.string() });
export type UserRef = z.infer<typeof UserRef>;
