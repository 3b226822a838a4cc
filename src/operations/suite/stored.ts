import type { Agent } from '../../domain/agents.js';
import type { StoredNotifications } from '../../domain/alerts.js';
import { isSealed } from '../../kernel/secret-box.js';
import type { Store } from '../../store/index.js';
import { openConfig } from '../../tools/secrets.js';
import type { OperationContext } from '../types.js';
import { SUITE_KINDS, type FileObject, type SuiteKind } from './kinds.js';
import { everyPage } from './every-page.js';

/**
 * What a workspace holds of a suite's kinds, read once for a plan (#38): its personas, scorecards,
 * scenarios and schedules, every tool and alert (engine-wide: a file matches one by key), each
 * with its key (stored or derived) and its secrets in clear (compared with the plan's values,
 * never answered), and the connected agents.
 */

export interface StoredResource {
  kind: SuiteKind;
  id: string;
  key: string;
  name: string;
  /** The resource as the kind's `toFile` takes it (secrets in clear: they become placeholders). */
  resource: { id: string; name: string } & Record<string, unknown>;
  /** The clear value of each secret field by its dotted path (`config.auth.token`). */
  secrets: Map<string, string>;
}

export interface StoredSuite {
  byKind: Record<SuiteKind, StoredResource[]>;
  /** Resources by kind and key. */
  find(kind: SuiteKind, key: string): StoredResource | undefined;
  keyOf(kind: SuiteKind, id: string): string | undefined;
  agents: Agent[];
}

/** The leaves of a value by dotted path, where they are strings (secret values). */
function secretsAt(value: unknown, paths: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const path of paths) {
    let current = value;
    for (const part of path.split('.'))
      current =
        typeof current === 'object' && current !== null
          ? (current as Record<string, unknown>)[part]
          : undefined;
    if (typeof current === 'string') out.set(path, current);
  }
  return out;
}

/** Every string leaf's dotted path: where a clear resource may hold a secret. */
function leafPaths(value: unknown, prefix = ''): string[] {
  if (typeof value === 'string') return [prefix];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
}

function openNotifications(ctx: OperationContext, n: StoredNotifications): FileObject {
  const open = (v: unknown) => (isSealed(v) ? ctx.secrets.open(v) : v);
  return {
    ...n,
    ...(n.slack && { slack: { ...n.slack, webhookUrl: open(n.slack.webhookUrl) } }),
    ...(n.webhook && { webhook: { ...n.webhook, secret: open(n.webhook.secret) } }),
  };
}

type Loaded = Omit<StoredResource, 'kind' | 'key'>;

async function loadKind(
  ctx: OperationContext,
  store: Store,
  kind: SuiteKind,
  ws: string,
): Promise<Loaded[]> {
  const plain = (r: { id: string; name: string }): Loaded => ({
    id: r.id,
    name: r.name,
    resource: r,
    secrets: new Map(),
  });
  switch (kind) {
    case 'persona':
      return (await store.personas.all(ws)).map(plain);
    case 'scorecard':
      return (await everyPage((l, o) => store.scorecards.list(ws, l, o))).map(plain);
    case 'scenario':
      return (
        await everyPage((limit, offset) =>
          store.scenarios.list(ws, { sortBy: 'createdAt', sortOrder: 'asc', limit, offset }),
        )
      ).map(plain);
    case 'schedule':
      return (await everyPage((l, o) => store.schedules.list(ws, l, o))).map(plain);
    case 'tool':
      return (await store.tools.list()).map((t) => {
        const config = openConfig(t.definition.config, ctx.secrets);
        const resource = { id: t.id, ...t.definition, config, version: t.version };
        return {
          id: t.id,
          name: t.name,
          resource,
          secrets: secretsAt({ config }, leafPaths({ config })),
        };
      });
    case 'alert':
      return (await store.alerts.list()).map((a) => {
        const notifications = openNotifications(ctx, a.definition.notifications);
        const resource = { id: a.id, ...a.definition, notifications, isActive: a.isActive };
        const secrets = secretsAt({ notifications }, leafPaths({ notifications }));
        return { id: a.id, name: a.definition.name, resource, secrets };
      });
  }
}

/** Reads the workspace's side of a plan (see the module's comment). */
export async function loadStored(
  ctx: OperationContext,
  store: Store,
  workspaceId: string,
): Promise<StoredSuite> {
  const byKind = {} as Record<SuiteKind, StoredResource[]>;
  const index = new Map<string, StoredResource>();
  const keyIndex = new Map<string, string>();
  for (const kind of SUITE_KINDS) {
    const keys = await store.suiteKeys.keys(kind, workspaceId);
    byKind[kind] = (await loadKind(ctx, store, kind, workspaceId)).map((r) => {
      const resource = { ...r, kind, key: keys.get(r.id) ?? r.id };
      index.set(`${kind}:${resource.key}`, resource);
      keyIndex.set(`${kind}:${r.id}`, resource.key);
      return resource;
    });
  }
  return {
    byKind,
    find: (kind, key) => index.get(`${kind}:${key}`),
    keyOf: (kind, id) => keyIndex.get(`${kind}:${id}`),
    agents: await store.agents.list(),
  };
}
