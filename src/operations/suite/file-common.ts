import { z } from 'zod';
import { SuiteKey } from '../../domain/suite-keys.js';

export { SuiteKey };

/**
 * What every kind of suite file shares: the key and `$schema` fields, secret placeholders and
 * their names, and the shape of a kind's spec (kinds.ts lists them).
 */

export const SUITE_KINDS = [
  'persona',
  'scorecard',
  'scenario',
  'schedule',
  'tool',
  'alert',
] as const;
export type SuiteKind = (typeof SUITE_KINDS)[number];
/** What a file may refer to by key: the suite's kinds, and the agents of callbench.yaml. */
export type RefKind = SuiteKind | 'agent';

/** The first fields of every file: where its JSON Schema is, and the resource's key. */
export const fileHead = {
  $schema: z.string().max(1_000).optional().describe('Where the JSON Schema of this file is'),
  key: SuiteKey,
};

/** `${secret:NAME}`: a secret field's value in a file, filled from the plan's `secrets` at import. */
export const SECRET_PLACEHOLDER = /^\$\{secret:([A-Za-z_][A-Za-z0-9_]*)\}$/;
export const placeholder = (name: string): string => `\${secret:${name}}`;
/** The name a placeholder refers to, or null when the value is not one. */
export const placeholderName = (value: unknown): string | null =>
  typeof value === 'string' ? (SECRET_PLACEHOLDER.exec(value)?.[1] ?? null) : null;

const wordsOf = (text: string): string =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();

/** Field groups left out of secret names: `config.auth.token` reads AUTH_TOKEN. */
const GROUPS = new Set(['config', 'notifications']);

/**
 * The placeholder name of a secret field: kind, key and field path in upper snake case, such as
 * `TOOL_ORD_LOOKUP_AUTH_TOKEN` (tool `ord-lookup`, `config.auth.token`).
 */
export function secretName(kind: RefKind, key: string, path: string): string {
  const parts = path.split('.');
  if (parts.length > 1 && GROUPS.has(parts[0]!)) parts.shift();
  return [kind, key, ...parts].map(wordsOf).filter(Boolean).join('_');
}

/** Ids to keys, for writing a file (the export's view of the workspace). */
export interface FileRefs {
  keyOf(kind: RefKind, id: string): string;
}

/** Keys to ids and placeholders to values, for turning a validated file into an operation input. */
export interface InputRefs {
  idOf(kind: RefKind, key: string): string;
  /** The value a `${secret:NAME}` stands for (the importer decides what an unset one becomes). */
  secret(name: string): string;
  /** A scenario's cases CSV beside it (`<key>.cases.csv`), read. */
  cases(fileName: string): { variables: Record<string, string> }[];
}

/** A field of a file that holds keys of another kind: `path` dotted, `many` for a list of keys. */
export interface Reference {
  path: string;
  kind: RefKind;
  many: boolean;
}

/** A file object: the file schema's output. */
export type FileObject = Record<string, unknown>;

export interface KindSpec<R = unknown, I = unknown> {
  kind: SuiteKind;
  /** The folder of its files (`personas`). */
  dir: string;
  /** The strict schema of its files: `$schema`, `key`, then the create input's fields in order. */
  fileSchema: z.ZodObject;
  references: Reference[];
  /** The dotted paths of the secret fields present in a file object. */
  secretPaths(file: FileObject): string[];
  /** The resource as its file object, in the schema's key order (ids as keys, secrets as placeholders). */
  toFile(resource: R, refs: FileRefs): FileObject;
  /** A validated file object as the create operation's input (keys as ids, placeholders filled). */
  toInput(file: FileObject, refs: InputRefs): I;
}

/** A dotted path's value in an object (`condition.toolId`), or undefined. */
export function readPath(object: unknown, path: string): unknown {
  let current = object;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A copy of the object with the value at a dotted path replaced (the path's objects copied). */
export function writePath(object: FileObject, path: string, value: unknown): FileObject {
  const [head, ...rest] = path.split('.');
  if (!rest.length) return { ...object, [head!]: value };
  const child = object[head!];
  if (typeof child !== 'object' || child === null) return object;
  return { ...object, [head!]: writePath(child as FileObject, rest.join('.'), value) };
}

/** The object with each of these paths' values mapped (a path that is absent is left alone). */
export function mapPaths(
  object: FileObject,
  paths: string[],
  fn: (value: unknown, path: string) => unknown,
): FileObject {
  return paths.reduce(
    (out, path) =>
      readPath(out, path) === undefined ? out : writePath(out, path, fn(readPath(out, path), path)),
    object,
  );
}

/** Each secret field as its placeholder: what a file holds instead of a secret's value. */
export const withPlaceholders = (
  file: FileObject,
  paths: string[],
  kind: SuiteKind,
  key: string,
): FileObject => mapPaths(file, paths, (_v, path) => placeholder(secretName(kind, key, path)));

/** Each placeholder of a secret field replaced by the value it stands for. */
export const withSecrets = (file: FileObject, paths: string[], refs: InputRefs): FileObject =>
  mapPaths(file, paths, (value) => {
    const name = placeholderName(value);
    return name === null ? value : refs.secret(name);
  });

/** Keys to ids (or back) at each reference of a file object. */
export function mapReferences(
  file: FileObject,
  references: Reference[],
  fn: (kind: RefKind, value: string) => string,
): FileObject {
  return references.reduce(
    (out, ref) =>
      mapPaths(out, [ref.path], (value) => {
        if (ref.many && Array.isArray(value)) return value.map((v) => fn(ref.kind, String(v)));
        return typeof value === 'string' ? fn(ref.kind, value) : value;
      }),
    file,
  );
}

/** The create input's fields of a file object: everything but `$schema` and `key`. */
export function inputFields(file: FileObject): FileObject {
  const { $schema: _schema, key: _key, ...rest } = file;
  return rest;
}
