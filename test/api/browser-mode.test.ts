import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';

/** What `serve` adds for the interface in a browser: the page, one route per operation name, the event stream. */
describe('browser mode routes', () => {
  let s: TestServer;
  const rendererDir = tempDir();

  beforeAll(async () => {
    mkdirSync(join(rendererDir, 'assets'));
    writeFileSync(
      join(rendererDir, 'index.html'),
      '<!doctype html><html><head><title>Callbench</title></head><body><script type="module" src="./assets/app.js"></script></body></html>',
    );
    writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
    s = await startServer({ ui: { rendererDir } });
  });
  afterAll(() => s.stop());

  it('serves the page without a key and without any secret in it, with a strict CSP', async () => {
    const page = await fetch(`${s.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).not.toContain(s.key);
    expect(html).not.toMatch(/callbench-key|cbk_/);
    expect((await fetch(`${s.url}/assets/app.js`)).status).toBe(200);
    // The API behind the page still wants a key, and other hosts are refused (DNS rebinding).
    expect((await fetch(`${s.url}/v1/operations/workspaces.list`, { method: 'POST' })).status).toBe(
      401,
    );
    const rebound = await new Promise<number>((resolve) =>
      request(`${s.url}/`, { headers: { host: `evil.example:${s.port}` } }, (r) =>
        resolve(r.statusCode!),
      ).end(),
    );
    expect(rebound).toBe(403);
  });

  it('a one-time login link sets an HttpOnly, SameSite=Strict session cookie, once', async () => {
    const link = s.engine.loginUrl();
    expect(link).toMatch(new RegExp(`^${s.url}/\\?token=[A-Za-z0-9_-]{32,}$`));
    const first = await fetch(link, { redirect: 'manual' });
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe('/');
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(new RegExp(`^callbench_session_${s.port}=[A-Za-z0-9_-]{32,};`));
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const session = cookie.split(';')[0]!;
    const listed = await fetch(`${s.url}/v1/operations/workspaces.list`, {
      method: 'POST',
      headers: { cookie: session },
    });
    expect(listed.status).toBe(200);
    // Single use: the same link again gets no session.
    const again = await fetch(link, { redirect: 'manual' });
    expect(again.headers.get('set-cookie')).toBeNull();
    // A made-up session gets nothing.
    const forged = await fetch(`${s.url}/v1/operations/workspaces.list`, {
      method: 'POST',
      headers: { cookie: `callbench_session_${s.port}=forged` },
    });
    expect(forged.status).toBe(401);
    // The session is bound to the host it was made on.
    const otherHost = await new Promise<number>((resolve) =>
      request(
        `${s.url}/v1/operations/workspaces.list`,
        { method: 'POST', headers: { cookie: session, host: `localhost:${s.port}` } },
        (r) => resolve(r.statusCode!),
      ).end(),
    );
    expect(otherHost).toBe(401);
  });

  it('an API key asks for a fresh login link; a workspace token may not', async () => {
    const made = await s.call('POST', '/v1/login-links');
    expect(made.status).toBe(201);
    expect(made.body.url).toMatch(/\?token=/);
    const { token } = (await s.ws('POST', '/tokens', { name: 'scoped' })).body.data;
    const refused = await s.call('POST', '/v1/login-links', undefined, {
      authorization: `Bearer ${token.token}`,
    });
    expect(refused.status).toBe(403);
  });

  it('invokes any catalogue operation by name through the same validation, and refuses unknown names', async () => {
    const ok = await s.call('POST', '/v1/operations/personas.create', {
      workspace_id: s.workspaceId,
      name: 'Ann',
      prompt: 'Calm.',
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.persona).toMatchObject({ name: 'Ann' });
    const bad = await s.call('POST', '/v1/operations/personas.create', {
      workspace_id: s.workspaceId,
      difficulty: 'impossible',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'difficulty',
      'name',
      'prompt',
    ]);
    expect((await s.call('POST', '/v1/operations/constructor', {})).body.error.code).toBe(
      'unknown_operation',
    );
  });

  it('streams engine events to API keys, not to workspace tokens', async () => {
    const abort = new AbortController();
    const res = await fetch(`${s.url}/v1/events`, {
      headers: { authorization: `Bearer ${s.key}` },
      signal: abort.signal,
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    await reader.read(); // the stream is open
    s.engine.events.emit('simulation.progress', {
      simulationId: 'sim_1',
      executionId: 'exe_1',
      status: 'running',
    });
    let text = '';
    while (!text.includes('sim_1')) text += (await reader.read()).value;
    expect(text).toMatch(
      /data: \{"type":"simulation.progress","at":"[^"]+","data":\{"simulationId":"sim_1","executionId":"exe_1","status":"running"\}\}/,
    );
    abort.abort();
    const { token } = (await s.ws('POST', '/tokens', { name: 'ci' })).body.data;
    expect(
      (await fetch(`${s.url}/v1/events`, { headers: { authorization: `Bearer ${token.token}` } }))
        .status,
    ).toBe(403);
  });

  it('without a built renderer, / says how to build it', async () => {
    const bare = await startServer({ ui: { rendererDir: join(rendererDir, 'missing') } });
    try {
      const res = await bare.call('GET', '/');
      expect(res.status).toBe(404);
      expect(res.body.error.message).toContain('npm run build:renderer');
    } finally {
      await bare.stop();
    }
  });
});
