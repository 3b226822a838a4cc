import { mask, type Sealed, type SecretBox } from '../kernel/secret-box.js';
import type { Store } from '../store/index.js';
import { ROLES, type ModelConnection, type Role } from './types.js';

type StoredConnection = Omit<ModelConnection, 'apiKey'> & { apiKey: Sealed };
type StoredRoles = Partial<Record<Role, StoredConnection>>;

/** The connection a role uses: its own setting, else the engine's default (CALLBENCH_LLM_*), else none. */
export async function connectionFor(
  store: Store,
  secrets: SecretBox,
  role: Role,
  fallback: ModelConnection | null,
): Promise<ModelConnection | null> {
  return (await connectionsFor(store, secrets, fallback))[role];
}

/** Every role's connection, read (and its key opened) once for work that needs several. */
export async function connectionsFor(
  store: Store,
  secrets: SecretBox,
  fallback: ModelConnection | null,
): Promise<Record<Role, ModelConnection | null>> {
  const stored = (await store.settings.get<StoredRoles>('llm')) ?? {};
  const of = (role: Role): ModelConnection | null => {
    const own = stored[role];
    return own ? { ...own, apiKey: secrets.open(own.apiKey) } : fallback;
  };
  return { caller: of('caller'), judge: of('judge'), replica: of('replica') };
}

export async function presentRoles(
  store: Store,
  secrets: SecretBox,
  fallback: ModelConnection | null,
) {
  const stored = (await store.settings.get<StoredRoles>('llm')) ?? {};
  return Object.fromEntries(
    ROLES.map((role) => {
      const own = stored[role];
      const conn = own ? { ...own, apiKey: secrets.open(own.apiKey) } : fallback;
      return [
        role,
        conn && {
          kind: conn.kind,
          baseUrl: conn.baseUrl ?? null,
          model: conn.model,
          apiKey: mask(conn.apiKey),
          source: own ? 'settings' : 'environment',
        },
      ];
    }),
  ) as Record<
    Role,
    { kind: string; baseUrl: string | null; model: string; apiKey: string; source: string } | null
  >;
}

export type RolePatch = {
  kind?: 'openai' | 'anthropic';
  baseUrl?: string | null;
  apiKey?: string;
  model?: string;
} | null;

/** Merges a role's patch into what is stored; a masked apiKey sent back keeps the stored key. */
export async function patchRoles(
  store: Store,
  secrets: SecretBox,
  patch: Partial<Record<Role, RolePatch>>,
): Promise<{ errors: { path: string; message: string }[]; roles: StoredRoles }> {
  const roles: StoredRoles = { ...((await store.settings.get<StoredRoles>('llm')) ?? {}) };
  const errors: { path: string; message: string }[] = [];
  for (const role of ROLES) {
    const p = patch[role];
    if (p === undefined) continue;
    if (p === null) {
      delete roles[role];
      continue;
    }
    const before = roles[role];
    const kind = p.kind ?? before?.kind ?? 'openai';
    const model = p.model ?? before?.model;
    let apiKey = before?.apiKey;
    if (p.apiKey !== undefined) apiKey = secrets.sealUnlessMask(p.apiKey, apiKey);
    if (!model) errors.push({ path: `llm.${role}.model`, message: 'is required' });
    if (!apiKey) errors.push({ path: `llm.${role}.apiKey`, message: 'is required' });
    const baseUrl = p.baseUrl === null ? undefined : (p.baseUrl ?? before?.baseUrl);
    if (model && apiKey) roles[role] = { kind, model, apiKey, ...(baseUrl ? { baseUrl } : {}) };
  }
  return { errors, roles };
}
