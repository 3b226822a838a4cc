import { z } from 'zod';
import { isoNow } from '../clock.js';
import { notFound } from '../errors.js';
import { newId, newSecret } from '../ids.js';
import { Deleted, Id, Timestamp, WorkspaceParams, deleted } from './common.js';
import { defineOperation } from './types.js';
import { defaultScorecard } from '../simulations/default-scorecard.js';

const WorkspaceSchema = z.object({ id: z.string(), name: z.string(), created_at: Timestamp });
/** Tokens are managed with API keys only: a token that made tokens would outlive its revocation. */
const TOKENS_NEED_A_KEY = 'API key required to manage workspace tokens';

const KeySchema = z.object({
  id: z.string(),
  label: z.string().nullable(),
  prefix: z.string().describe('First characters of the key, to recognise it'),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable(),
  revoked_at: Timestamp.nullable(),
});

/** Workspaces, workspace access tokens and API keys: who may reach what. */
export const accessOperations = [
  defineOperation({
    name: 'workspaces.list',
    summary: 'List workspaces',
    http: { method: 'GET', path: '/api/v1/workspaces' },
    output: z.object({ workspaces: z.array(WorkspaceSchema) }),
    async handler(_input, ctx) {
      return { workspaces: await ctx.store.workspaces.list() };
    },
  }),
  defineOperation({
    name: 'workspaces.create',
    summary: 'Create a workspace',
    http: { method: 'POST', path: '/api/v1/workspaces', status: 201 },
    body: { name: z.string().trim().min(1).max(200) },
    output: z.object({ workspace: WorkspaceSchema }),
    async handler({ name }, ctx) {
      return ctx.store.transaction(async (tx) => {
        const workspace = await tx.workspaces.insert({
          id: newId('ws', ctx.clock.now()),
          name,
          created_at: isoNow(ctx.clock),
        });
        await tx.scorecards.insert(
          workspace.id,
          defaultScorecard(ctx.clock.now(), isoNow(ctx.clock)),
        );
        return { workspace };
      });
    },
  }),
  defineOperation({
    name: 'tokens.create',
    summary:
      "Create a workspace access token (valid on this workspace's paths only). The token is shown once.",
    http: { method: 'POST', path: '/api/v1/workspaces/:workspace_id/tokens', status: 201 },
    refuseTokens: TOKENS_NEED_A_KEY,
    params: WorkspaceParams,
    body: { name: z.string().trim().min(1).max(200).optional() },
    output: z.object({
      token: z.object({
        id: z.string(),
        name: z.string().nullable(),
        token: z.string(),
        created_at: Timestamp,
      }),
    }),
    async handler({ workspace_id, name }, ctx) {
      const secret = newSecret('cbt');
      const rec = await ctx.store.credentials.insertToken({
        id: newId('tok', ctx.clock.now()),
        workspace_id,
        name: name ?? null,
        secret,
        created_at: isoNow(ctx.clock),
      });
      return { token: { id: rec.id, name: rec.name, token: secret, created_at: rec.created_at } };
    },
  }),
  defineOperation({
    name: 'tokens.revoke',
    summary: 'Revoke a workspace access token',
    http: { method: 'DELETE', path: '/api/v1/workspaces/:workspace_id/tokens/:token_id' },
    refuseTokens: TOKENS_NEED_A_KEY,
    params: { ...WorkspaceParams, token_id: Id },
    output: Deleted,
    async handler({ workspace_id, token_id }, ctx) {
      if (!(await ctx.store.credentials.revokeToken(workspace_id, token_id, isoNow(ctx.clock))))
        throw notFound('token', token_id);
      return deleted(token_id);
    },
  }),
  defineOperation({
    name: 'keys.create',
    summary: 'Create an API key (valid on every path). The key is shown once.',
    http: { method: 'POST', path: '/v1/keys', status: 201 },
    body: { label: z.string().trim().min(1).max(200).optional() },
    output: z.object({ key: KeySchema.extend({ key: z.string() }) }),
    async handler({ label }, ctx) {
      const secret = newSecret('cbk');
      const rec = await ctx.store.credentials.insertKey({
        id: newId('key', ctx.clock.now()),
        label: label ?? null,
        secret,
        created_at: isoNow(ctx.clock),
      });
      return { key: { ...rec, key: secret } };
    },
  }),
  defineOperation({
    name: 'keys.list',
    summary: 'List API keys (never their values)',
    http: { method: 'GET', path: '/v1/keys' },
    output: z.object({ keys: z.array(KeySchema) }),
    async handler(_input, ctx) {
      return { keys: await ctx.store.credentials.listKeys() };
    },
  }),
  defineOperation({
    name: 'keys.revoke',
    summary: 'Revoke an API key',
    http: { method: 'DELETE', path: '/v1/keys/:key_id' },
    params: { key_id: Id },
    output: Deleted,
    async handler({ key_id }, ctx) {
      if (!(await ctx.store.credentials.getKey(key_id))) throw notFound('API key', key_id);
      await ctx.store.credentials.revokeKey(key_id, isoNow(ctx.clock));
      return deleted(key_id);
    },
  }),
];
