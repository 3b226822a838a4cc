// Writes preload/operations.ts, the names of the engine's operations, and
// renderer/src/generated/catalogue-enums.ts, the enum lists of their inputs that screens offer, so
// that the bridge and the renderer are typed from the catalogue without importing the engine. `npm run gen:operations`;
// a test fails when the file and the catalogue differ.
import { mkdirSync, writeFileSync } from 'node:fs';
import { THRESHOLD_RANGES, TOOL_METRICS } from '../src/domain/alerts.js';
import { catalogue } from '../src/operations/catalogue.js';
import type { Operation } from '../src/operations/types.js';

export const renderOperationNames = (names: string[]): string =>
  `// Generated from the engine's catalogue by scripts/operation-names.ts: do not edit.\nexport const OPERATION_NAMES = [\n${names.map((n) => `  '${n}',`).join('\n')}\n] as const;\n\nexport type OperationName = (typeof OPERATION_NAMES)[number];\n`;

/**
 * The enum lists the renderer offers, each taken from one operation's input schema (or, marked
 * 'output', its answer's, for a list no input declares as an enum); a dotted field path reaches
 * into object fields.
 */
const ENUM_LISTS: readonly (readonly [string, string, string, ('body' | 'output')?])[] = [
  ['PERSONA_EMOTIONS', 'personas.create', 'emotion'],
  ['PERSONA_DIFFICULTIES', 'personas.create', 'difficulty'],
  ['PERSONA_BACKGROUND_NOISES', 'personas.create', 'backgroundNoise'],
  // agents.connect takes any provider name (and names the supported ones in its error).
  ['AGENT_PROVIDERS', 'agents.get', 'provider', 'output'],
  ['EXECUTION_CHANNELS', 'scenarios.execute', 'channel'],
  ['EXECUTION_MODES', 'scenarios.execute', 'mode'],
  // Worked out from the simulations: only answers carry it.
  ['EXECUTION_STATUSES', 'executions.get', 'execution.status', 'output'],
  ['TOOL_TYPES', 'tools.create', 'type'],
  ['ALERT_CONDITION_TYPES', 'alerts.create', 'condition.type'],
  ['ALERT_OPERATORS', 'alerts.create', 'condition.operator'],
  ['ALERT_SEVERITIES', 'alerts.create', 'severity'],
  // The input is a union per type, so the answer's list (the scorer's types) is taken.
  ['METRIC_TYPES', 'scorecards.get', 'scorecard.metrics.type', 'output'],
];

interface EnumField {
  unwrap?: () => EnumField;
  options?: readonly string[];
  shape?: Record<string, EnumField>;
}

/** The schema at a dotted path of fields, through optional, nullable and array wrappers. */
function fieldAt(fields: Record<string, EnumField> | undefined, path: string) {
  let schema: EnumField | undefined;
  for (const name of path.split('.')) {
    schema = fields?.[name];
    while (schema && !schema.options && !schema.shape && schema.unwrap) schema = schema.unwrap();
    fields = schema?.shape;
  }
  return schema;
}

function enumOptions(
  ops: readonly Operation[],
  [, operation, field, from = 'body']: (typeof ENUM_LISTS)[number],
): string[] {
  const op = ops.find((o) => o.name === operation);
  const root = from === 'body' ? op?.body : (op?.output as EnumField | undefined)?.shape;
  const schema = fieldAt(root as Record<string, EnumField> | undefined, field);
  if (!schema?.options) throw new Error(`${operation} has no enum field ${field}`);
  return [...schema.options];
}

/** One list as Prettier prints it: on one line when it fits in the print width of 100. */
function renderList(name: string, values: string[]): string {
  const line = `export const ${name} = [${values.map((v) => `'${v}'`).join(', ')}] as const;`;
  if (line.length <= 100) return `${line}\n`;
  return `export const ${name} = [\n${values.map((v) => `  '${v}',`).join('\n')}\n] as const;\n`;
}

/**
 * What the alert editor offers and says that no schema holds as an enum: a tool condition's
 * metrics, and the range a threshold may take per metric (the engine refuses one outside).
 */
const renderAlertFigures = (): string =>
  `\n/** alerts.create: condition.metric of a tool_performance condition. */\n` +
  renderList('ALERT_TOOL_METRICS', [...TOOL_METRICS]) +
  `\n/** alerts.create: condition.threshold's range per metric (no max: unbounded). */\n` +
  `export const ALERT_THRESHOLD_RANGES: Readonly<Record<string, { min: number; max?: number }>> = {\n` +
  Object.entries(THRESHOLD_RANGES)
    .map(([m, r]) => `  ${m}: { min: ${r.min}${r.max === undefined ? '' : `, max: ${r.max}`} },\n`)
    .join('') +
  `};\n`;

// Values, not types, so the renderer cannot import them from src/: it imports this generated copy.
export const renderCatalogueEnums = (ops: readonly Operation[]): string =>
  `// Generated from the engine's catalogue by scripts/operation-names.ts: do not edit.\n` +
  ENUM_LISTS.map((row) => {
    const [name, operation, field, from] = row;
    const where = from === 'output' ? `${field} (answer)` : field;
    return `\n/** ${operation}: ${where}. */\n${renderList(name, enumOptions(ops, row))}`;
  }).join('') +
  renderAlertFigures();

if (process.argv[1]?.endsWith('operation-names.ts')) {
  writeFileSync(
    'preload/operations.ts',
    renderOperationNames(catalogue.map((op) => op.name).sort()),
  );
  mkdirSync('renderer/src/generated', { recursive: true });
  writeFileSync('renderer/src/generated/catalogue-enums.ts', renderCatalogueEnums(catalogue));
}
