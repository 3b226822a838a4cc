import type { AGENT_PROVIDERS } from '../domain/agents.js';
import { canonicalHash } from '../kernel/canonical-hash.js';
import type { AgentRecord } from '../store/agents.js';
import type { AgentCredentials } from './credentials.js';
import { changedPaths } from './diff.js';
import type { AgentSnapshot } from './types.js';

/*
 * The provider's own agent record as a sync read it, kept beside the snapshot (`snapshot.raw`):
 * our normalised configuration names a model, a voice and a prompt, but the voice pipeline the
 * provider runs (transcriber, endpointing, interruption, silence, voice speed, background sound)
 * lives only there. What changes per fetch (timestamps, counters, the record's own ids) and what
 * is a secret is left out, so that the record changes when the agent does, and is safe to store.
 */

/** The providers a sync reads (registry.ts; named here from the domain, which the adapters use). */
type SyncedProvider = Exclude<(typeof AGENT_PROVIDERS)[number], 'http' | 'demo'>;

type Json = Record<string, unknown>;

/**
 * Per provider, the dotted paths (from the record's root) that change without the agent changing:
 * timestamps, counters and ids of the record itself. Written once, here.
 */
export const VOLATILE_PATHS: Record<SyncedProvider, readonly string[]> = {
  vapi: ['id', 'orgId', 'createdAt', 'updatedAt'],
  // A Retell LLM is kept under the agent's response_engine, where the agent refers to it.
  retell: [
    'agent_id',
    'version',
    'is_published',
    'last_modification_timestamp',
    'response_engine.version',
    'response_engine.llm.version',
    'response_engine.llm.is_published',
    'response_engine.llm.last_modification_timestamp',
  ],
  // access_info describes the key that asked (its creator, its role), not the agent.
  elevenlabs: [
    'agent_id',
    'access_info',
    'metadata.created_at_unix_secs',
    'metadata.updated_at_unix_secs',
  ],
  bland: ['agent_id', 'created_at', 'updated_at'],
};

/**
 * Keys whose values are secrets, at any depth (a tool's request headers, a server secret): never
 * stored here, never hashed. A rotated key is no change in what is tested. Lowercase: keys are
 * compared without case (`Authorization`, `apiKey`).
 */
const SECRET_KEYS = new Set([
  'secret',
  'serverurlsecret',
  'headers',
  'request_headers',
  'authorization',
  'apikey',
  'api_key',
  'token',
  'password',
  'credentials',
]);

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy without the secret-bearing keys, at every depth. */
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value))
    if (!SECRET_KEYS.has(k.toLowerCase())) out[k] = withoutSecrets(v);
  return out;
}

/** Removes one dotted path from a record (copied beforehand), when it is there. */
function dropPath(record: Json, path: string): void {
  const keys = path.split('.');
  let at: unknown = record;
  for (const key of keys.slice(0, -1)) at = isObject(at) ? at[key] : undefined;
  if (isObject(at)) delete at[keys[keys.length - 1]!];
}

/** The provider's record as kept: without its volatile paths and without secrets. */
export function rawRecord(provider: SyncedProvider, record: Json): Json {
  const kept = withoutSecrets(record) as Json;
  for (const path of VOLATILE_PATHS[provider]) dropPath(kept, path);
  return kept;
}

/** Host and path of a URL, never its query (tokens travel there) nor its credentials. */
function hostAndPath(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return null;
  }
}

/**
 * What an agent at its own URL is, for its provider hash: how it is spoken to and where, never
 * a key, a header or a query token.
 */
export const httpAgentRecord = (credentials: AgentCredentials): Json => ({
  provider: 'http',
  format: credentials.format ?? null,
  url: hostAndPath(credentials.baseUrl),
  model: credentials.model ?? null,
  websocketUrl: hostAndPath(credentials.websocketUrl),
});

/**
 * SHA-256 of the provider's raw record of the agent; null where none is kept (a snapshot synced
 * before raw records were, the demo agent) or an http agent's credentials do not open.
 */
export function providerHash(
  agent: AgentRecord,
  credentials: AgentCredentials | null,
): string | null {
  if (agent.provider === 'http')
    return credentials ? canonicalHash(httpAgentRecord(credentials)) : null;
  const raw = agent.snapshot.raw;
  return raw ? canonicalHash(raw) : null;
}

/**
 * What a sync changed, against the latest version's snapshot: the paths of our normalised
 * snapshot; when nothing there changed, the raw record's paths (`raw.transcriber.model`), so that
 * a change only the provider's own record shows is a version too. (Raw paths are not added to a
 * normalised change: a prompt edit would name `raw.model.messages` beside `configuration.prompt`.)
 * `backfill`: the latest version was recorded before raw records were kept, and this sync only
 * adds the raw record: it belongs to that version, and is no change.
 */
export function snapshotChange(
  before: AgentSnapshot,
  after: AgentSnapshot,
): { paths: string[]; backfill: boolean } {
  const { raw: rawBefore, ...normalisedBefore } = before;
  const { raw: rawAfter, ...normalisedAfter } = after;
  const normalised = changedPaths(normalisedBefore, normalisedAfter);
  if (normalised.length) return { paths: normalised, backfill: false };
  if (rawBefore === undefined) return { paths: [], backfill: rawAfter !== undefined };
  return { paths: changedPaths(rawBefore, rawAfter ?? {}, 'raw'), backfill: false };
}
