import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

const REFUSAL = 'API key required to manage workspace tokens';

describe('managing workspace tokens takes an API key', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.stop());

  const newToken = async (name: string) => {
    const made = await s.ws('POST', '/tokens', { name });
    expect(made.status).toBe(201);
    return made.body.data.token as { id: string; token: string };
  };
  const bearer = (token: { token: string }) => ({ authorization: `Bearer ${token.token}` });

  it('a token cannot create a token (403), and nothing outlives its revocation', async () => {
    const token = await newToken('ci');
    const refused = await s.ws('POST', '/tokens', { name: 'escape' }, bearer(token));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      success: false,
      error: { code: 'forbidden', message: REFUSAL },
    });
    expect(JSON.stringify(refused.body)).not.toMatch(/cbt_/);
    // Even a body the operation would refuse is refused for the credential first.
    const bad = await s.ws('POST', '/tokens', { name: '', extra: 1 }, bearer(token));
    expect(bad.status).toBe(403);
    expect((await s.ws('DELETE', `/tokens/${token.id}`)).status).toBe(200);
    expect((await s.ws('GET', '/personas', undefined, bearer(token))).status).toBe(401);
  });

  it('a token cannot revoke another token, nor itself: the other keeps working', async () => {
    const mine = await newToken('mine');
    const other = await newToken('other');
    for (const id of [other.id, mine.id]) {
      const refused = await s.ws('DELETE', `/tokens/${id}`, undefined, bearer(mine));
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden', message: REFUSAL });
    }
    expect((await s.ws('GET', '/personas', undefined, bearer(other))).status).toBe(200);
    expect((await s.ws('GET', '/personas', undefined, bearer(mine))).status).toBe(200);
  });

  it('the operations refuse a token on every transport, by name (as /v1/operations does)', async () => {
    const token = await newToken('by-name');
    const caller = {
      kind: 'token' as const,
      tokenId: token.id,
      workspaceId: s.workspaceId,
      user: { id: token.id, name: 'by-name' },
    };
    await expect(
      s.engine.invoke('tokens.create', { workspace_id: s.workspaceId }, caller),
    ).rejects.toMatchObject({ status: 403, code: 'forbidden', message: REFUSAL });
    await expect(
      s.engine.invoke('tokens.revoke', { workspace_id: s.workspaceId, token_id: token.id }, caller),
    ).rejects.toMatchObject({ status: 403, message: REFUSAL });
  });

  it('an API key still creates and revokes tokens', async () => {
    const token = await newToken('by-key');
    expect(token.token).toMatch(/^cbt_/);
    expect((await s.ws('GET', '/personas', undefined, bearer(token))).status).toBe(200);
    const revoked = await s.ws('DELETE', `/tokens/${token.id}`);
    expect(revoked.body.data).toEqual({ deleted: true, id: token.id });
    expect((await s.ws('GET', '/personas', undefined, bearer(token))).status).toBe(401);
  });
});
