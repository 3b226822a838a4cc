/** Tolerant readers for provider payloads: a missing or mistyped field is null, never invented. */
import type { CallToolCall } from '../domain/providers.js';

export type Json = Record<string, unknown>;

export const obj = (v: unknown): Json =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
/** A field as text for ids and names: strings as they are, numbers written out, anything else empty. */
export const text = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
export const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : null;

/** ISO 8601 UTC from an ISO string, epoch milliseconds or (with `seconds`) epoch seconds. */
export function iso(v: unknown, seconds = false): string | null {
  if (typeof v === 'number' && Number.isFinite(v))
    return new Date(seconds ? v * 1000 : v).toISOString();
  if (typeof v === 'string') {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? null : new Date(ms).toISOString();
  }
  return null;
}

export const msOf = (isoText: string | null): number | null =>
  isoText ? Date.parse(isoText) : null;

/** Tool call arguments often arrive as JSON text: parsed when they are JSON, kept as given otherwise. */
export function parsedWhenJson(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

export function bool(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'success' || v === 'pass') return true;
  if (v === 'false' || v === 'failure' || v === 'fail') return false;
  return null;
}

export const durationBetween = (start: string | null, end: string | null): number | null =>
  start && end ? Math.max(0, Date.parse(end) - Date.parse(start)) : null;

/** An OpenAI-style tool call (`{function: {name, arguments}}`) as an agent reports it: no result yet. */
export const functionToolCall = (tc: Json): CallToolCall => ({
  name: str(obj(tc.function).name) ?? 'unknown',
  arguments: parsedWhenJson(obj(tc.function).arguments),
  result: null,
  success: null,
  latencyMs: null,
});
