/** A plain JSON object (not an array, not null): what can be walked key by key. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
