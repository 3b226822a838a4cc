import { z } from 'zod';

/** How much of a target's body a tool test shows: enough to read, never a whole download. */
export const RAW_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * The target's answer as it came (the last attempt's), shown beside the mapped result so that a
 * tester can see why a mapping found nothing. The tool's secrets are masked in it like everywhere.
 */
export const RawToolAnswer = z
  .object({
    status: z.number().int(),
    headers: z
      .record(z.string(), z.string())
      .describe('Response headers by lower-case name; repeated ones joined with ", "'),
    body: z.string().describe(`The decoded body as text, its first ${RAW_BODY_LIMIT_BYTES} bytes`),
    bytes: z.number().int().describe('Size of the whole decoded body'),
    truncated: z.boolean().describe('True when body holds only the first part'),
  })
  .describe('HTTP tools: the raw answer of the target, secrets masked');
export type RawToolAnswer = z.infer<typeof RawToolAnswer>;
