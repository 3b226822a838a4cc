// Writes preload/operations.ts: the names of the engine's operations, so that the bridge and the
// renderer are typed from the catalogue without importing the engine. `npm run gen:operations`;
// a test fails when the file and the catalogue differ.
import { writeFileSync } from 'node:fs';
import { catalogue } from '../src/operations/catalogue.js';

export const renderOperationNames = (names: string[]): string =>
  `// Generated from the engine's catalogue by scripts/operation-names.ts: do not edit.\nexport const OPERATION_NAMES = [\n${names.map((n) => `  '${n}',`).join('\n')}\n] as const;\n\nexport type OperationName = (typeof OPERATION_NAMES)[number];\n`;

if (process.argv[1]?.endsWith('operation-names.ts')) {
  writeFileSync(
    'preload/operations.ts',
    renderOperationNames(catalogue.map((op) => op.name).sort()),
  );
}
