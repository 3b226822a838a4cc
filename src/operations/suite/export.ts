import { AppError } from '../../errors.js';
import { openCredentials } from '../../providers/credentials.js';
import type { Agent } from '../../domain/agents.js';
import type { OperationContext } from '../types.js';
import { exportScope, type ExportScope } from './export-scope.js';
import { jsonSchemaText, SCHEMA_NAMES } from './json-schemas.js';
import {
  filePath,
  KIND_SPECS,
  MANIFEST_FILE,
  placeholderName,
  readPath,
  scenarioCasesFile,
  SCHEMAS_DIR,
  SUITE_DIRS,
  SUITE_KINDS,
  type FileObject,
  type FileRefs,
  type RefKind,
  type SuiteKind,
} from './kinds.js';
import { agentKeys, manifestAgent, manifestFile, type ExportedAgent } from './manifest.js';
import { toYaml } from './yaml-out.js';

/**
 * The export of a workspace's suite (#38): one YAML file per resource, the scenarios' cases CSVs,
 * callbench.yaml and the JSON Schemas, sorted by path. The same workspace always gives the same
 * bytes. The keys it gives resources that had none are stored, so they keep them from now on.
 */

export interface SuiteFile {
  path: string;
  content: string;
}

type Keys = Record<RefKind, Map<string, string>>;

/** Ids to keys over the exported resources; an id outside them is a bug, never a guessed key. */
function refsOf(keys: Keys): FileRefs {
  return {
    keyOf(kind, id) {
      const key = keys[kind].get(id);
      if (key === undefined)
        throw new AppError('internal', 500, `suite export: no ${kind} ${id} among those exported`);
      return key;
    },
  };
}

const resourcesOf = (scope: ExportScope, kind: SuiteKind): { id: string }[] =>
  ({
    persona: scope.personas,
    scorecard: scope.scorecards,
    scenario: scope.scenarios,
    schedule: scope.schedules,
    tool: scope.tools,
    alert: scope.alerts,
  })[kind];

/** An agent as callbench.yaml needs it: an http agent's URL, format and whether it has a key. */
function exportedAgent(ctx: OperationContext, agent: Agent): ExportedAgent {
  const base = {
    id: agent.id,
    name: agent.name,
    provider: agent.provider,
    providerAgentId: agent.providerAgentId,
    created_at: agent.created_at,
  };
  if (agent.provider !== 'http') return base;
  const creds = openCredentials(ctx.secrets, agent) ?? {};
  return {
    ...base,
    http: { url: creds.baseUrl, format: creds.format, hasApiKey: !!creds.apiKey },
  };
}

/** Keys of the exported resources of each kind (stored, or derived among the kind's scope). */
async function keysOf(ctx: OperationContext, ws: string, scope: ExportScope): Promise<Keys> {
  const keys = {} as Keys;
  for (const kind of SUITE_KINDS) {
    const all = await ctx.store.suiteKeys.keys(kind, ws);
    keys[kind] = new Map(resourcesOf(scope, kind).map((r) => [r.id, all.get(r.id)!]));
  }
  keys.agent = agentKeys(scope.agents.map((a) => exportedAgent(ctx, a)));
  return keys;
}

/** The secret names a file's placeholders use. */
const secretsIn = (kind: SuiteKind, file: FileObject): string[] =>
  KIND_SPECS[kind]
    .secretPaths(file)
    .map((path) => placeholderName(readPath(file, path)))
    .filter((name): name is string => name !== null);

function resourceFiles(scope: ExportScope, keys: Keys): { files: SuiteFile[]; secrets: string[] } {
  const refs = refsOf(keys);
  const files: SuiteFile[] = [];
  const secrets: string[] = [];
  for (const kind of SUITE_KINDS) {
    const spec = KIND_SPECS[kind] as { toFile(r: unknown, refs: FileRefs): FileObject };
    for (const resource of resourcesOf(scope, kind)) {
      const file = spec.toFile(resource, refs);
      const key = String(file.key);
      files.push({ path: filePath(kind, key), content: toYaml(file) });
      secrets.push(...secretsIn(kind, file));
    }
  }
  for (const scenario of scope.scenarios) {
    const cases = scenarioCasesFile(scenario, keys.scenario.get(scenario.id)!);
    if (cases) files.push({ path: `${SUITE_DIRS.scenario}/${cases.name}`, content: cases.content });
  }
  return { files, secrets };
}

const byPath = (a: SuiteFile, b: SuiteFile): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0;

/** The suite files of a workspace (see the module's comment). */
export async function exportSuite(
  ctx: OperationContext,
  workspaceId: string,
  excludeTags: string[],
): Promise<SuiteFile[]> {
  const scope = await exportScope(ctx, workspaceId, excludeTags);
  const keys = await keysOf(ctx, workspaceId, scope);
  const { files, secrets } = resourceFiles(scope, keys);
  const agents = scope.agents.map((a) =>
    manifestAgent(exportedAgent(ctx, a), keys.agent.get(a.id)!),
  );
  const agentSecrets = agents.flatMap((a) => placeholderName(a.apiKey) ?? []);
  const workspace = await ctx.store.workspaces.get(workspaceId);
  const name = (await ctx.store.workspaces.suiteName(workspaceId)) ?? workspace!.name;
  const manifest = manifestFile({ name, agents, secrets: [...secrets, ...agentSecrets] });
  files.push({ path: MANIFEST_FILE, content: toYaml(manifest) });
  for (const schema of SCHEMA_NAMES)
    files.push({ path: `${SCHEMAS_DIR}/${schema}.json`, content: jsonSchemaText(schema) });
  for (const kind of SUITE_KINDS) await ctx.store.suiteKeys.persist(kind, keys[kind]);
  return files.sort(byPath);
}
