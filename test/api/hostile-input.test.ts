import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

const nested = (depth: number, leaf: string): string =>
  '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

describe('hostile JSON', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.stop());

  it.each([65, 5_000, 100_000])(
    'answers 400 invalid_request for nesting %i levels deep',
    async (depth) => {
      const body = `{"name":"deep","type":"api","config":{"url":"http://127.0.0.1:1/x","headers":${nested(depth, '"x"')}}}`;
      const res = await s.call('POST', '/v1/tools', body, { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.message).toMatch(/nested more than 64 levels/);
    },
  );

  it('answers 400 the same way on a workspace path, in its envelope', async () => {
    const res = await s.ws(
      'POST',
      '/personas',
      `{"name":"x","prompt":"p","tags":${'['.repeat(3_000)}${']'.repeat(3_000)}}`,
      {
        'content-type': 'application/json',
      },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'invalid_request' } });
  });

  it('refuses the same over IPC and the CLI, which call the engine directly', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 50_000; i++) deep = [deep];
    await expect(
      s.engine.invoke('personas.create', { workspace_id: s.workspaceId, name: 'x', prompt: deep }),
    ).rejects.toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it('takes nesting up to 64 levels as any other input', async () => {
    const body = `{"name":"shallow","type":"api","config":{"url":"http://127.0.0.1:1/x"},"responseMapping":${nested(62, '"x"')}}`;
    const res = await s.call('POST', '/v1/tools', body, { 'content-type': 'application/json' });
    expect(res.status).not.toBe(500);
    expect(res.body.error?.code).not.toBe('invalid_request');
  });

  it.each(['__proto__', 'constructor', 'prototype'])(
    'refuses %s as a tool parameter name or a prompt variable name at save',
    async (name) => {
      // Raw JSON: a __proto__ key written in an object literal would set the prototype instead.
      const tool = `{"name":"t_${name.replace(/_/g, '')}","type":"api","config":{"url":"http://127.0.0.1:1/x"},"parameters":[{"name":"${name}","type":"string"}]}`;
      const res = await s.call('POST', '/v1/tools', tool, { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.error.details)).toContain('parameters');
      expect(res.body.error.message).toContain('reserved');

      const scenario = `{"name":"s","prompt":"Hi {{${name}}}","promptVariables":[{"name":"${name}"}]}`;
      const sres = await s.ws('POST', '/scenarios', scenario, {
        'content-type': 'application/json',
      });
      expect(sres.status).toBe(400);
      expect(JSON.stringify(sres.body.error.details)).toContain('promptVariables');
    },
  );
});
