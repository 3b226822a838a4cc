import { z } from 'zod';
import { CONFIG_BY_TYPE } from '../../tools/definition.js';
import { KIND_SPECS, SUITE_KINDS } from './kinds.js';
import { ManifestSchema } from './manifest.js';

/**
 * The JSON Schema of each suite file, generated from the same strict zod schemas the import
 * validates with (so an editor's checks and the engine's cannot disagree): unknown properties are
 * refused at every depth. Published at `GET /schemas/{kind}.json` and written by the export under
 * `.callbench/schemas/`.
 */

export const SCHEMA_NAMES = ['suite', ...SUITE_KINDS] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];

type JsonSchema = Record<string, unknown>;

/** What a file may hold (`io: input`: a field with a default may be left out). */
const toJson = (schema: z.ZodType): JsonSchema =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });

/** A tool's `config` by its `type`: one `if type is T then config is T's` per configured type. */
function toolConfigRules(): JsonSchema[] {
  return Object.entries(CONFIG_BY_TYPE).map(([type, schema]) => {
    const { $schema: _drop, ...config } = toJson(schema);
    return {
      if: { properties: { type: { const: type } }, required: ['type'] },
      then: { properties: { config } },
    };
  });
}

const TITLES: Record<SchemaName, string> = {
  suite: 'callbench.yaml: a Callbench test suite',
  persona: 'A Callbench persona (a simulated caller)',
  scorecard: 'A Callbench scorecard',
  scenario: 'A Callbench scenario',
  schedule: 'A Callbench schedule',
  tool: 'A Callbench tool',
  alert: 'A Callbench alert',
};

const cache = new Map<SchemaName, JsonSchema>();

function build(name: SchemaName): JsonSchema {
  const schema = name === 'suite' ? ManifestSchema : KIND_SPECS[name].fileSchema;
  const json = toJson(schema);
  const out: JsonSchema = {
    $schema: json.$schema,
    title: TITLES[name],
    ...json,
  };
  if (name === 'tool') out.allOf = toolConfigRules();
  return out;
}

/** The JSON Schema of a suite file kind (`suite`: callbench.yaml). */
export function suiteJsonSchema(name: SchemaName): JsonSchema {
  let schema = cache.get(name);
  if (!schema) {
    schema = build(name);
    cache.set(name, schema);
  }
  return schema;
}

/** A schema as the export writes it: two-space JSON, LF, a final newline. */
export const jsonSchemaText = (name: SchemaName): string =>
  `${JSON.stringify(suiteJsonSchema(name), null, 2)}\n`;
