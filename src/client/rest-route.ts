import { catalogue } from '../operations/catalogue.js';
import type { Route } from './api-client.js';

const byName = new Map(catalogue.map((op) => [op.name, op]));

/** A query field as the engine reads it: scalars as written, lists comma-separated. */
const queryText = (value: unknown): string =>
  Array.isArray(value)
    ? value.join(',')
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

/**
 * Each operation at its REST path, for callers that reach an API without the operations route
 * (the desktop app's local API serves REST only): path parameters in the path, query fields in the
 * query, the rest as the JSON body; the answer bare, or `{success, data}` under `/api/`.
 */
export function restRoute(name: string, input: unknown): Route {
  const op = byName.get(name);
  if (!op?.http) throw new Error(`The operation ${name} has no REST path`);
  const fields = (input ?? {}) as Record<string, unknown>;
  const path = op.http.path.replace(/:([a-z_]+)/g, (_, key: string) =>
    encodeURIComponent(String(fields[key])),
  );
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || key in op.params) continue;
    if (key in op.query) query.set(key, queryText(value));
    else body[key] = value;
  }
  const search = query.size ? `?${query.toString()}` : '';
  return {
    method: op.http.method,
    path: path + search,
    body: op.body ? body : undefined,
    bare: !path.startsWith('/api/'),
  };
}
