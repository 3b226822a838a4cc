import { alertSpec, toolSpec } from './kind-engine.js';
import { personaSpec, scenarioSpec, scheduleSpec, scorecardSpec } from './kind-workspace.js';
import { SUITE_KINDS, type KindSpec, type SuiteKind } from './file-common.js';

/**
 * The kinds of resource a suite holds, each with its file format (#38): the file's strict schema,
 * the fields that hold other resources' keys, the secret fields, and the two conversions (a stored
 * resource to its file, a validated file to its create operation's input). The export, the plan
 * and apply, the JSON Schemas and the CLI all read the format from here.
 */

export {
  SUITE_KINDS,
  SuiteKey,
  fileHead,
  inputFields,
  mapReferences,
  placeholder,
  placeholderName,
  readPath,
  secretName,
  SECRET_PLACEHOLDER,
  type FileObject,
  type FileRefs,
  type InputRefs,
  type KindSpec,
  type Reference,
  type RefKind,
  type SuiteKind,
} from './file-common.js';
export { ordered } from './file-order.js';
export { schemaRef } from './kind-spec.js';
export { casesFileName, scenarioCasesFile } from './kind-workspace.js';

/** Each kind's spec; the order is the order a suite is applied in is P's (tools first). */
export const KIND_SPECS = {
  persona: personaSpec,
  scorecard: scorecardSpec,
  scenario: scenarioSpec,
  schedule: scheduleSpec,
  tool: toolSpec,
  alert: alertSpec,
} satisfies Record<SuiteKind, KindSpec<never>>;

export const kindSpecOf = (kind: SuiteKind): KindSpec<never> => KIND_SPECS[kind];

/** The folder of each kind's files in a suite. */
export const SUITE_DIRS = Object.fromEntries(
  SUITE_KINDS.map((kind) => [kind, KIND_SPECS[kind].dir]),
) as Record<SuiteKind, string>;

/** A resource file's path in the suite: `personas/<key>.yaml`. */
export const filePath = (kind: SuiteKind, key: string): string => `${SUITE_DIRS[kind]}/${key}.yaml`;

/** The suite's own file and where the JSON Schemas are written. */
export const MANIFEST_FILE = 'callbench.yaml';
export const SCHEMAS_DIR = '.callbench/schemas';
