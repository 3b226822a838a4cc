import { isCredentialHeader } from '../net/outbound.js';
import { isSealed, mask, type Sealed, type SecretBox } from '../kernel/secret-box.js';
import { maskConnection } from './database.js';
import { SECRET_AUTH_FIELDS } from './definition.js';

type Config = Record<string, unknown>;
type Auth = Record<string, unknown>;

/**
 * The secrets of a tool config: the fields of config.auth (token, key, clientSecret, password),
 * headers named like credentials (Authorization, X-Api-Key, Cookie, *token, *secret) and a
 * database tool's connection string (which may carry a password). Each is sealed at rest,
 * answered masked, and opened only to make a call.
 */
interface SecretField {
  read(config: Config): unknown;
  write(config: Config, value: unknown): Config;
  mask(plain: string): string;
}

const authField = (name: string): SecretField => ({
  read: (c) => (c.auth as Auth | undefined)?.[name],
  write: (c, v) => ({ ...c, auth: { ...(c.auth as Auth), [name]: v } }),
  mask,
});

const headerField = (name: string): SecretField => ({
  read: (c) => (c.headers as Record<string, unknown> | undefined)?.[name],
  write: (c, v) => ({ ...c, headers: { ...(c.headers as Record<string, unknown>), [name]: v } }),
  mask,
});

const connectionField: SecretField = {
  read: (c) => (c.driver ? c.connection : undefined),
  write: (c, v) => ({ ...c, connection: v }),
  mask: maskConnection,
};

/** The secret fields of one config: the fixed ones, and its headers that carry credentials. */
const fieldsOf = (config: Config): SecretField[] => [
  ...SECRET_AUTH_FIELDS.map(authField),
  ...Object.keys((config.headers as Record<string, unknown> | undefined) ?? {})
    .filter(isCredentialHeader)
    .map(headerField),
  connectionField,
];

/** Seals every secret; a value equal to the mask of the stored one means "unchanged". */
export function sealConfig(
  config: Config | undefined,
  previous: Config | undefined,
  box: SecretBox,
): Config | undefined {
  if (!config) return config;
  let out = config;
  for (const field of fieldsOf(config)) {
    const value = field.read(config);
    if (typeof value !== 'string') continue;
    const before = previous ? field.read(previous) : undefined;
    const stored = isSealed(before) ? box.open(before) : undefined;
    const unchanged = stored !== undefined && (value === stored || value === field.mask(stored));
    out = field.write(out, unchanged ? before : box.seal(value));
  }
  return out;
}

function transform(
  config: Config | undefined,
  fn: (field: SecretField, sealed: Sealed) => string,
): Config | undefined {
  if (!config) return config;
  let out = config;
  for (const field of fieldsOf(config)) {
    const value = field.read(config);
    if (isSealed(value)) out = field.write(out, fn(field, value));
  }
  return out;
}

export const maskConfig = (config: Config | undefined, box: SecretBox): Config | undefined =>
  transform(config, (field, sealed) => field.mask(box.open(sealed)));

/** The clear config for making a call (never answered, never logged). */
export const openConfig = (config: Config | undefined, box: SecretBox): Config | undefined =>
  transform(config, (_field, sealed) => box.open(sealed));

/** The clear secrets of a config, to take out of anything a target echoes back. */
export function secretValues(config: Config | undefined, box: SecretBox): string[] {
  if (!config) return [];
  const values: string[] = [];
  for (const field of fieldsOf(config)) {
    const value = field.read(config);
    if (isSealed(value)) values.push(box.open(value));
  }
  // Short values would blank out ordinary text; secrets are longer than this.
  return values.filter((v) => v.length >= 6);
}

/**
 * The value with every occurrence of these secrets replaced by a mask. Only what holds a secret is
 * copied: an answer without one (nearly every answer) comes back as it was, at the cost of a scan.
 */
export function redact<T>(value: T, secrets: string[]): T {
  if (!secrets.length) return value;
  const leaks = (text: string): boolean => secrets.some((secret) => text.includes(secret));
  // Almost every answer carries no secret: it is searched without copying anything first (the
  // copying walk's arrays were a large part of a tool call's garbage).
  if (!carries(value, leaks)) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string')
      return leaks(v) ? secrets.reduce((text, secret) => text.split(secret).join('****'), v) : v;
    if (Array.isArray(v)) {
      const items = v.map(walk);
      return items.some((item, i) => item !== v[i]) ? items : v;
    }
    if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      const walked = entries.map(([, x]) => walk(x));
      return walked.some((x, i) => x !== entries[i]![1])
        ? Object.fromEntries(entries.map(([k], i) => [k, walked[i]]))
        : v;
    }
    return v;
  };
  return walk(value) as T;
}

/** Whether any string in the value (keys aside) is one `leaks` finds a secret in. */
function carries(v: unknown, leaks: (text: string) => boolean): boolean {
  if (typeof v === 'string') return leaks(v);
  if (Array.isArray(v)) {
    for (const item of v) if (carries(item, leaks)) return true;
    return false;
  }
  if (v && typeof v === 'object') {
    for (const key in v) if (carries((v as Record<string, unknown>)[key], leaks)) return true;
  }
  return false;
}
