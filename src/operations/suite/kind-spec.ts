import type { z } from 'zod';
import { ordered } from './file-order.js';
import {
  inputFields,
  mapReferences,
  withPlaceholders,
  withSecrets,
  type FileObject,
  type FileRefs,
  type InputRefs,
  type KindSpec,
  type Reference,
  type SuiteKind,
} from './file-common.js';

/** Where a resource file of a kind finds its JSON Schema (resource files sit one folder down). */
export const schemaRef = (kind: SuiteKind): string => `../.callbench/schemas/${kind}.json`;

interface SpecParts<R> {
  kind: SuiteKind;
  dir: string;
  /** The create operation's input: the file's fields and their order come from it. */
  input: z.ZodObject;
  fileSchema: z.ZodObject;
  references: Reference[];
  secretPaths?: (file: FileObject) => string[];
  /** The resource's fields as the input schema orders them (default: `ordered(input, resource)`). */
  fields?: (resource: R, key: string) => FileObject;
  /** The file's fields as the operation takes them, after keys and secrets (default: as they are). */
  inputOf?: (fields: FileObject, refs: InputRefs) => FileObject;
}

/**
 * A kind's spec from its parts: a file is `$schema`, `key`, then the resource in its input's
 * order with ids as keys and secrets as placeholders; a file back to an input undoes the two.
 */
export function kindSpec<R extends { id: string }, I = FileObject>(
  parts: SpecParts<R>,
): KindSpec<R, I> {
  const secretPaths = parts.secretPaths ?? (() => []);
  const fieldsOf = parts.fields ?? ((resource: R) => ordered(parts.input, resource) as FileObject);
  return {
    kind: parts.kind,
    dir: parts.dir,
    fileSchema: parts.fileSchema,
    references: parts.references,
    secretPaths,
    toFile(resource: R, refs: FileRefs): FileObject {
      const key = refs.keyOf(parts.kind, resource.id);
      const file = { $schema: schemaRef(parts.kind), key, ...fieldsOf(resource, key) };
      const keyed = mapReferences(file, parts.references, (kind, id) => refs.keyOf(kind, id));
      return withPlaceholders(keyed, secretPaths(keyed), parts.kind, key);
    },
    toInput(file: FileObject, refs: InputRefs): I {
      const ids = mapReferences(file, parts.references, (kind, key) => refs.idOf(kind, key));
      const filled = inputFields(withSecrets(ids, secretPaths(ids), refs));
      return (parts.inputOf ? parts.inputOf(filled, refs) : filled) as I;
    },
  };
}
