import { hashCredential } from '../secrets.js';
import { prepared, type Db } from './db.js';

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

const KEY_COLUMNS = 'id, label, prefix, created_at, last_used_at, revoked_at';
const BY_KEY_HASH = `SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL`;
const BY_TOKEN_HASH =
  'SELECT id, workspace_id, name, created_at, revoked_at FROM workspace_tokens WHERE token_hash = ? AND revoked_at IS NULL';

/** API keys: only their hashes are stored. */
function apiKeys(db: Db) {
  return {
    countKeys(): number {
      return (db.prepare('SELECT COUNT(*) AS n FROM api_keys').get() as { n: number }).n;
    },
    insertKey(rec: {
      id: string;
      label: string | null;
      secret: string;
      created_at: string;
    }): ApiKeyRecord {
      db.prepare(
        'INSERT INTO api_keys (id, label, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)',
      ).run(rec.id, rec.label, hashCredential(rec.secret), rec.secret.slice(0, 10), rec.created_at);
      return {
        id: rec.id,
        label: rec.label,
        prefix: rec.secret.slice(0, 10),
        created_at: rec.created_at,
        last_used_at: null,
        revoked_at: null,
      };
    },
    listKeys(): ApiKeyRecord[] {
      return db
        .prepare(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at`)
        .all() as ApiKeyRecord[];
    },
    revokeKey(id: string, at: string): boolean {
      return (
        db
          .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
          .run(at, id).changes > 0
      );
    },
    getKey(id: string): ApiKeyRecord | undefined {
      return db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`).get(id) as
        ApiKeyRecord | undefined;
    },
    findKeyBySecret(secret: string): ApiKeyRecord | undefined {
      return prepared(db, BY_KEY_HASH).get(hashCredential(secret)) as ApiKeyRecord | undefined;
    },
    touchKey(id: string, at: string): void {
      db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at, id);
    },
  };
}

/** Workspace access tokens: only their hashes are stored. */
function workspaceTokens(db: Db) {
  return {
    insertToken(rec: {
      id: string;
      workspace_id: string;
      name: string | null;
      secret: string;
      created_at: string;
    }): TokenRecord {
      db.prepare(
        'INSERT INTO workspace_tokens (id, workspace_id, name, token_hash, created_at) VALUES (?, ?, ?, ?, ?)',
      ).run(rec.id, rec.workspace_id, rec.name, hashCredential(rec.secret), rec.created_at);
      return {
        id: rec.id,
        workspace_id: rec.workspace_id,
        name: rec.name,
        created_at: rec.created_at,
        revoked_at: null,
      };
    },
    revokeToken(workspaceId: string, id: string, at: string): boolean {
      return (
        db
          .prepare(
            'UPDATE workspace_tokens SET revoked_at = ? WHERE id = ? AND workspace_id = ? AND revoked_at IS NULL',
          )
          .run(at, id, workspaceId).changes > 0
      );
    },
    findTokenBySecret(secret: string): TokenRecord | undefined {
      return prepared(db, BY_TOKEN_HASH).get(hashCredential(secret)) as TokenRecord | undefined;
    },
  };
}

/** API keys and workspace tokens. Only their SHA-256 is stored; the clear value is shown once. */
export function createCredentialStore(db: Db) {
  return {
    ...apiKeys(db),
    ...workspaceTokens(db),
  };
}

export type CredentialStore = ReturnType<typeof createCredentialStore>;
