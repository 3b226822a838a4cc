import { hashCredential } from '../kernel/secret-box.js';
import type { StoreContext } from './sql/query.js';

export interface ApiKeyRecord {
  id: string;
  label: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface TokenRecord {
  id: string;
  workspace_id: string;
  name: string | null;
  created_at: string;
  revoked_at: string | null;
}

const KEY_COLUMNS = ['id', 'label', 'prefix', 'created_at', 'last_used_at', 'revoked_at'] as const;
/** What a key lookup reads: writes to other tables keep it in the read cache. */
const API_KEY_READS = ['api_keys'];
const TOKEN_COLUMNS = ['id', 'workspace_id', 'name', 'created_at', 'revoked_at'] as const;

/** A key not revoked, by its hash or id, through the read cache (it is read on every request). */
const activeKeyBy = (
  ctx: StoreContext,
  by: { column: 'key_hash' | 'id'; value: string; cacheKey: string },
): Promise<ApiKeyRecord | undefined> =>
  ctx.cache.get(
    by.cacheKey,
    () =>
      ctx.db
        .selectFrom('api_keys')
        .select(KEY_COLUMNS)
        .where(by.column, '=', by.value)
        .where('revoked_at', 'is', null)
        .executeTakeFirst(),
    API_KEY_READS,
  );

/** API keys: only their hashes are stored. */
function apiKeys(ctx: StoreContext) {
  return {
    async countKeys(): Promise<number> {
      const row = await ctx.db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return row.n;
    },
    async insertKey(rec: {
      id: string;
      label: string | null;
      secret: string;
      created_at: string;
    }): Promise<ApiKeyRecord> {
      await ctx.db
        .insertInto('api_keys')
        .values({
          id: rec.id,
          label: rec.label,
          key_hash: hashCredential(rec.secret),
          prefix: rec.secret.slice(0, 10),
          created_at: rec.created_at,
        })
        .execute();
      return {
        id: rec.id,
        label: rec.label,
        prefix: rec.secret.slice(0, 10),
        created_at: rec.created_at,
        last_used_at: null,
        revoked_at: null,
      };
    },
    async listKeys(): Promise<ApiKeyRecord[]> {
      return ctx.db.selectFrom('api_keys').select(KEY_COLUMNS).orderBy('created_at').execute();
    },
    async revokeKey(id: string, at: string): Promise<boolean> {
      const result = await ctx.db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async getKey(id: string): Promise<ApiKeyRecord | undefined> {
      return ctx.db
        .selectFrom('api_keys')
        .select(KEY_COLUMNS)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    /** Read on every request: cached until api_keys is written (a revocation included). */
    async findKeyBySecret(secret: string): Promise<ApiKeyRecord | undefined> {
      const hash = hashCredential(secret);
      return activeKeyBy(ctx, { column: 'key_hash', value: hash, cacheKey: `api_key:${hash}` });
    },
    /**
     * A key not revoked, by id: read on every request of a browser session, so cached like
     * findKeyBySecret (the cache drops it when api_keys is written, a revocation included).
     */
    async findActiveKey(id: string): Promise<ApiKeyRecord | undefined> {
      return activeKeyBy(ctx, { column: 'id', value: id, cacheKey: `api_key_id:${id}` });
    },
    async touchKey(id: string, at: string): Promise<void> {
      await ctx.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    },
  };
}

/** Workspace access tokens: only their hashes are stored. */
function workspaceTokens(ctx: StoreContext) {
  return {
    async insertToken(rec: {
      id: string;
      workspace_id: string;
      name: string | null;
      secret: string;
      created_at: string;
    }): Promise<TokenRecord> {
      await ctx.db
        .insertInto('workspace_tokens')
        .values({
          id: rec.id,
          workspace_id: rec.workspace_id,
          name: rec.name,
          token_hash: hashCredential(rec.secret),
          created_at: rec.created_at,
        })
        .execute();
      return {
        id: rec.id,
        workspace_id: rec.workspace_id,
        name: rec.name,
        created_at: rec.created_at,
        revoked_at: null,
      };
    },
    async revokeToken(workspaceId: string, id: string, at: string): Promise<boolean> {
      const result = await ctx.db
        .updateTable('workspace_tokens')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('workspace_id', '=', workspaceId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async findTokenBySecret(secret: string): Promise<TokenRecord | undefined> {
      return ctx.db
        .selectFrom('workspace_tokens')
        .select(TOKEN_COLUMNS)
        .where('token_hash', '=', hashCredential(secret))
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
    },
  };
}

/** API keys and workspace tokens. Only their SHA-256 is stored; the clear value is shown once. */
export function createCredentialStore(ctx: StoreContext) {
  return {
    ...apiKeys(ctx),
    ...workspaceTokens(ctx),
  };
}

export type CredentialStore = ReturnType<typeof createCredentialStore>;
