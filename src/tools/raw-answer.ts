import type { IncomingHttpHeaders } from 'node:http';
import { RAW_BODY_LIMIT_BYTES, type RawToolAnswer } from '../domain/tool-raw.js';

/** What the exchange read, as the runtime keeps it for a tool test's raw view. */
export interface ReadAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The decoded body, as read (never copied for the raw view unless it is cut). */
  body: Buffer;
  /** The same body as text, decoded once for parsing. */
  text: string;
}

/** The headers as name → text; the client's own object when no header repeats (nearly always). */
const headerRecord = (headers: IncomingHttpHeaders): Record<string, string> => {
  let repeated = false;
  for (const name in headers) if (typeof headers[name] !== 'string') repeated = true;
  if (!repeated) return headers as Record<string, string>;
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
};

/**
 * The raw view of an answer: its text as already decoded (the same string, not a copy) unless it
 * is longer than the limit, when only the first bytes are decoded again.
 */
export function rawAnswer(answer: ReadAnswer): RawToolAnswer {
  const bytes = answer.body.length;
  const truncated = bytes > RAW_BODY_LIMIT_BYTES;
  return {
    status: answer.status,
    headers: headerRecord(answer.headers),
    body: truncated ? answer.body.subarray(0, RAW_BODY_LIMIT_BYTES).toString('utf8') : answer.text,
    bytes,
    truncated,
  };
}
