import { z } from 'zod';
import { CommaList, WorkspaceParams } from '../common.js';
import { defineOperation } from '../types.js';
import { exportSuite } from './export.js';
import { SCHEMA_NAMES, suiteJsonSchema } from './json-schemas.js';
import { suitePlanOperations } from './plan-operations.js';

/**
 * Tests as code (#38): a workspace's suite as files, and the JSON Schemas of those files. The
 * plan and apply of a suite are appended here too.
 */

const SuiteFileSchema = z.object({
  path: z.string().describe('Relative to the suite folder, with / separators'),
  content: z.string().describe('The whole file: UTF-8 text, LF line ends, a final newline'),
});

export const suiteOperations = [
  defineOperation({
    name: 'suite.export',
    summary:
      "Export the workspace's suite as files: callbench.yaml, one YAML per resource, cases CSVs and the JSON Schemas, sorted by path",
    http: { method: 'POST', path: '/api/v1/workspaces/:workspace_id/suite/export' },
    params: WorkspaceParams,
    body: {
      excludeTags: CommaList.optional().describe(
        'Leave out scenarios carrying any of these tags, with their schedules and alerts',
      ),
    },
    output: z.object({ files: z.array(SuiteFileSchema) }),
    async handler({ workspace_id, excludeTags }, ctx) {
      return { files: await exportSuite(ctx, workspace_id, excludeTags ?? []) };
    },
  }),
  defineOperation({
    name: 'schemas.get',
    summary:
      'The JSON Schema of a suite file (suite: callbench.yaml); public, as editors fetch it without a credential',
    http: { method: 'GET', path: '/schemas/:kind.json', public: true },
    params: { kind: z.enum(SCHEMA_NAMES) },
    output: z.record(z.string(), z.unknown()).describe('A JSON Schema (draft 2020-12)'),
    handler({ kind }) {
      return suiteJsonSchema(kind);
    },
  }),
  ...suitePlanOperations,
];
