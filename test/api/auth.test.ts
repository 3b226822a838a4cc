import type { Json } from '../helpers/json.js';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';

/** A raw request, so that Host and Origin can be set as an attacker's browser would. */
function raw(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: Json }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: headers.method ?? 'GET', headers },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: JSON.parse(text || 'null'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('credentials', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ envApiKey: 'ci-secret-key-0123456789' });
  });
  afterAll(() => s.stop());

  it("refuses a request without an Authorization header with 401, in each family's shape", async () => {
    const v1 = await s.call('GET', '/v1/tools', undefined, { authorization: '' });
    expect(v1.status).toBe(401);
    expect(v1.body.error.code).toBe('unauthorized');
    const ws = await s.ws('GET', '/personas', undefined, { authorization: '' });
    expect(ws.status).toBe(401);
    expect(ws.body).toMatchObject({ success: false, error: { code: 'unauthorized' } });
  });

  it('refuses a malformed header and an unknown credential with 401', async () => {
    expect(
      (await s.call('GET', '/v1/tools', undefined, { authorization: 'Token abc' })).status,
    ).toBe(401);
    expect((await s.call('GET', '/v1/tools', undefined, { authorization: 'Bearer' })).status).toBe(
      401,
    );
    expect(
      (await s.call('GET', '/v1/tools', undefined, { authorization: 'Bearer cbk_nope' })).status,
    ).toBe(401);
  });

  it('accepts CALLBENCH_API_KEY as an API key without storing it', async () => {
    const before = (await s.call('GET', '/v1/keys')).body.keys;
    const res = await s.call('GET', '/v1/tools', undefined, {
      authorization: 'Bearer ci-secret-key-0123456789',
    });
    expect(res.status).toBe(200);
    const keys = (await s.call('GET', '/v1/keys')).body.keys;
    expect(keys).toEqual(before);
    const stored = await storedRows<{ key_hash: string }>(
      s.stored,
      'SELECT key_hash FROM api_keys',
    );
    expect(JSON.stringify(stored)).not.toContain('ci-secret-key-0123456789');
    expect(JSON.stringify(stored)).not.toContain(s.key);
  });

  it('keys are stored hashed, listed without their value, and stop working when revoked', async () => {
    const created = await s.call('POST', '/v1/keys', { label: 'script' });
    expect(created.status).toBe(201);
    const secret = created.body.key.key as string;
    const dump = JSON.stringify(await storedRows(s.stored, 'SELECT * FROM api_keys'));
    expect(dump).not.toContain(secret);
    expect(JSON.stringify((await s.call('GET', '/v1/keys')).body)).not.toContain(secret);
    expect(
      (await s.call('GET', '/v1/tools', undefined, { authorization: `Bearer ${secret}` })).status,
    ).toBe(200);
    expect((await s.call('DELETE', `/v1/keys/${created.body.key.id}`)).body).toEqual({
      deleted: true,
      id: created.body.key.id,
    });
    expect(
      (await s.call('GET', '/v1/tools', undefined, { authorization: `Bearer ${secret}` })).status,
    ).toBe(401);
  });

  it('a workspace token works on its workspace only: 403 on another and on /v1', async () => {
    const other = (await s.call('POST', '/api/v1/workspaces', { name: 'Team B' })).body.data
      .workspace;
    expect(other.id).toMatch(/^ws_/);
    const made = await s.ws('POST', '/tokens', { name: 'ci' });
    expect(made.status).toBe(201);
    expect(made.body.data.token).toMatchObject({
      name: 'ci',
      token: expect.stringMatching(/^cbt_/),
      id: expect.stringMatching(/^tok_/),
    });
    const auth = { authorization: `Bearer ${made.body.data.token.token}` };

    expect((await s.ws('GET', '/personas', undefined, auth)).status).toBe(200);
    const foreign = await s.call('GET', `/api/v1/workspaces/${other.id}/personas`, undefined, auth);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('forbidden');
    expect((await s.call('GET', '/v1/tools', undefined, auth)).status).toBe(403);
    expect((await s.call('GET', '/api/v1/workspaces', undefined, auth)).status).toBe(403);

    const revoked = await s.ws('DELETE', `/tokens/${made.body.data.token.id}`);
    expect(revoked.body.data).toEqual({ deleted: true, id: made.body.data.token.id });
    expect((await s.ws('GET', '/personas', undefined, auth)).status).toBe(401);
  });

  it('an unknown workspace is a 404 naming it', async () => {
    const res = await s.call('GET', '/api/v1/workspaces/ws_missing/personas');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain('ws_missing');
  });

  it('refuses a foreign Host header (DNS rebinding) with 403, and accepts localhost and 127.0.0.1', async () => {
    const auth = { authorization: `Bearer ${s.key}` };
    expect(
      (await raw(s.port, '/v1/tools', { ...auth, host: `evil.example:${s.port}` })).status,
    ).toBe(403);
    expect(
      (await raw(s.port, '/v1/tools', { ...auth, host: `127.0.0.1:${s.port + 1}` })).status,
    ).toBe(403);
    expect((await raw(s.port, '/v1/tools', { ...auth, host: `localhost:${s.port}` })).status).toBe(
      200,
    );
    expect((await raw(s.port, '/v1/tools', { ...auth, host: `127.0.0.1:${s.port}` })).status).toBe(
      200,
    );
  });

  it('gives a cross-origin browser request no CORS allowance', async () => {
    const auth = { authorization: `Bearer ${s.key}`, host: `127.0.0.1:${s.port}` };
    const res = await raw(s.port, '/v1/tools', { ...auth, origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await raw(s.port, '/v1/tools', {
      ...auth,
      method: 'OPTIONS',
      origin: 'https://evil.example',
      'access-control-request-method': 'POST',
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const same = await raw(s.port, '/v1/tools', { ...auth, origin: `http://127.0.0.1:${s.port}` });
    expect(same.status).toBe(200);
  });

  it('refuses Origin: null (a sandboxed frame, a file: page, a redirect chain) like a foreign origin', async () => {
    const auth = { authorization: `Bearer ${s.key}`, host: `127.0.0.1:${s.port}` };
    const res = await raw(s.port, '/v1/tools', { ...auth, origin: 'null' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden' });
  });

  it('serves /openapi.json without a credential', async () => {
    const res = await s.call('GET', '/openapi.json', undefined, { authorization: '' });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
  });
});
