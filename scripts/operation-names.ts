// Writes preload/operations.ts, the names of the engine's operations, and
// renderer/src/generated/catalogue-enums.ts, the enum lists of their inputs that screens offer, so
// that the bridge and the renderer are typed from the catalogue without importing the engine. `npm run gen:operations`;
// a test fails when the file and the catalogue differ.
import { mkdirSync, writeFileSync } from 'node:fs';
import { catalogue } from '../src/operations/catalogue.js';
import type { Operation } from '../src/operations/types.js';

export const renderOperationNames = (names: string[]): string =>
  `// Generated from the engine's catalogue by scripts/operation-names.ts: do not edit.\nexport const OPERATION_NAMES = [\n${names.map((n) => `  '${n}',`).join('\n')}\n] as const;\n\nexport type OperationName = (typeof OPERATION_NAMES)[number];\n`;

/** The enum lists the renderer offers, each taken from the input schema of one operation. */
const ENUM_LISTS = [
  ['PERSONA_EMOTIONS', 'personas.create', 'emotion'],
  ['PERSONA_DIFFICULTIES', 'personas.create', 'difficulty'],
  ['PERSONA_BACKGROUND_NOISES', 'personas.create', 'backgroundNoise'],
] as const;

interface EnumField {
  unwrap?: () => EnumField;
  options?: readonly string[];
}

function enumOptions(ops: readonly Operation[], operation: string, field: string): string[] {
  const op = ops.find((o) => o.name === operation);
  let schema = (op?.body as Record<string, EnumField> | undefined)?.[field];
  while (schema && !schema.options && schema.unwrap) schema = schema.unwrap();
  if (!schema?.options) throw new Error(`${operation} has no enum field ${field}`);
  return [...schema.options];
}

/** One list as Prettier prints it: on one line when it fits in the print width of 100. */
function renderList(name: string, values: string[]): string {
  const line = `export const ${name} = [${values.map((v) => `'${v}'`).join(', ')}] as const;`;
  if (line.length <= 100) return `${line}\n`;
  return `export const ${name} = [\n${values.map((v) => `  '${v}',`).join('\n')}\n] as const;\n`;
}

// Values, not types, so the renderer cannot import them from src/: it imports this generated copy.
export const renderCatalogueEnums = (ops: readonly Operation[]): string =>
  `// Generated from the engine's catalogue by scripts/operation-names.ts: do not edit.\n` +
  ENUM_LISTS.map(
    ([name, operation, field]) =>
      `\n/** ${operation}: ${field}. */\n${renderList(name, enumOptions(ops, operation, field))}`,
  ).join('');

if (process.argv[1]?.endsWith('operation-names.ts')) {
  writeFileSync(
    'preload/operations.ts',
    renderOperationNames(catalogue.map((op) => op.name).sort()),
  );
  mkdirSync('renderer/src/generated', { recursive: true });
  writeFileSync('renderer/src/generated/catalogue-enums.ts', renderCatalogueEnums(catalogue));
}
