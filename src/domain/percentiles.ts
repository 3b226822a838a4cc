import { z } from 'zod';

/** p50, p90 and max of a figure over a call's turns (null when no turn had one). */
export const Percentiles = z.object({
  p50: z.number().nullable(),
  p90: z.number().nullable(),
  max: z.number().nullable(),
});
export type Percentiles = z.infer<typeof Percentiles>;
