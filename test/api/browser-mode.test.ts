import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Json } from '../helpers/json.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, tempDir, testClock, type TestServer } from '../helpers/server.js';

/** A built renderer as vite leaves it, minimal: the page and one asset. */
function fakeRenderer(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Callbench</title>');
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
  return dir;
}

/** Follows a login link as a browser would; answers the session cookie (name=value). */
async function follow(link: string): Promise<string> {
  const res = await fetch(link, { redirect: 'manual' });
  const cookie = res.headers.get('set-cookie');
  if (!cookie) throw new Error(`no session from ${link}`);
  return cookie.split(';')[0]!;
}

/** A login link made with this API key (POST /v1/login-links), followed: its session cookie. */
async function sessionFor(s: TestServer, key: string): Promise<string> {
  const made = await s.call('POST', '/v1/login-links', undefined, {
    authorization: `Bearer ${key}`,
  });
  expect(made.status).toBe(201);
  return follow(made.body.url as string);
}

/** A request as the page makes it: the session cookie, no Authorization, JSON when it has a body. */
async function asPage(
  s: TestServer,
  cookie: string,
  req: { method?: string; path?: string; contentType?: string | null; body?: string } = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const contentType = req.contentType === undefined ? 'application/json' : req.contentType;
  const res = await fetch(`${s.url}${req.path ?? '/v1/operations/workspaces.list'}`, {
    method: req.method ?? 'POST',
    headers: { cookie, ...(contentType ? { 'content-type': contentType } : {}) },
    body: req.body,
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? JSON.parse(text) : null,
    headers: res.headers,
  };
}

const HOUR = 3_600_000;

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
    const link = await s.engine.loginUrl();
    expect(link).toMatch(new RegExp(`^${s.url}/\\?token=[A-Za-z0-9_-]{32,}$`));
    const first = await fetch(link, { redirect: 'manual' });
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe('/');
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(new RegExp(`^callbench_session_${s.port}=[A-Za-z0-9_-]{32,};`));
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    // Served over plain HTTP: a Secure cookie would not be kept by every browser.
    expect(cookie).not.toContain('Secure');
    const session = cookie.split(';')[0]!;
    const listed = await fetch(`${s.url}/v1/operations/workspaces.list`, {
      method: 'POST',
      headers: { cookie: session, 'content-type': 'application/json' },
    });
    expect(listed.status).toBe(200);
    // Single use: the same link again gets no session.
    const again = await fetch(link, { redirect: 'manual' });
    expect(again.headers.get('set-cookie')).toBeNull();
    // A made-up session gets nothing.
    const forged = await fetch(`${s.url}/v1/operations/workspaces.list`, {
      method: 'POST',
      headers: { cookie: `callbench_session_${s.port}=forged`, 'content-type': 'application/json' },
    });
    expect(forged.status).toBe(401);
    // The session is bound to the host it was made on.
    const otherHost = await new Promise<number>((resolve) =>
      request(
        `${s.url}/v1/operations/workspaces.list`,
        {
          method: 'POST',
          headers: {
            cookie: session,
            host: `localhost:${s.port}`,
            'content-type': 'application/json',
          },
        },
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

describe('browser sessions end', () => {
  const clock = testClock();
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ ui: { rendererDir: fakeRenderer() }, clock });
  });
  afterAll(() => s.stop());

  const newKey = async (label: string) =>
    (await s.call('POST', '/v1/keys', { label })).body.key as { id: string; key: string };

  it('revoking the key that made a login link ends its sessions at the next request', async () => {
    const key = await newKey('laptop');
    const cookie = await sessionFor(s, key.key);
    const other = await sessionFor(s, s.key);
    expect((await asPage(s, cookie)).status).toBe(200);
    expect((await s.call('DELETE', `/v1/keys/${key.id}`)).status).toBe(200);
    const ended = await asPage(s, cookie);
    expect(ended.status).toBe(401);
    expect(ended.body.error).toMatchObject({
      code: 'unauthorized',
      message: expect.stringContaining('session ended: open a new login link'),
    });
    expect((await asPage(s, cookie)).status).toBe(401);
    // A session of another key goes on.
    expect((await asPage(s, other)).status).toBe(200);
  });

  it('a session acts for the key that made its link', async () => {
    const key = await newKey('acting');
    const cookie = await sessionFor(s, key.key);
    // Another link from the session is made for the same key: revoking it ends both.
    const made = await asPage(s, cookie, { path: '/v1/login-links' });
    expect(made.status).toBe(201);
    const second = await follow(made.body.url as string);
    await s.call('DELETE', `/v1/keys/${key.id}`);
    expect((await asPage(s, second)).status).toBe(401);
  });

  it('ends after 12 hours without a request', async () => {
    const cookie = await sessionFor(s, s.key);
    clock.advance(12 * HOUR - 60_000);
    expect((await asPage(s, cookie)).status).toBe(200);
    // Each request starts the 12 hours again.
    clock.advance(12 * HOUR - 60_000);
    expect((await asPage(s, cookie)).status).toBe(200);
    clock.advance(12 * HOUR + 1);
    const ended = await asPage(s, cookie);
    expect(ended.status).toBe(401);
    expect(ended.body.error.message).toContain('session ended: open a new login link');
  });

  it('ends 7 days after its login however busy it is', async () => {
    const cookie = await sessionFor(s, s.key);
    let elapsed = 0;
    while (elapsed + 10 * HOUR < 7 * 24 * HOUR) {
      clock.advance(10 * HOUR);
      elapsed += 10 * HOUR;
      expect((await asPage(s, cookie)).status).toBe(200);
    }
    clock.advance(7 * 24 * HOUR - elapsed + 1);
    expect((await asPage(s, cookie)).status).toBe(401);
  });

  it('POST /v1/logout ends the session and clears its cookie', async () => {
    const cookie = await sessionFor(s, s.key);
    const other = await sessionFor(s, s.key);
    const out = await asPage(s, cookie, { path: '/v1/logout' });
    expect(out.status).toBe(204);
    const cleared = out.headers.get('set-cookie')!;
    expect(cleared).toMatch(new RegExp(`^callbench_session_${s.port}=;`));
    expect(cleared).toContain('Max-Age=0');
    expect((await asPage(s, cookie)).status).toBe(401);
    expect((await asPage(s, other)).status).toBe(200);
  });

  it('the link printed at start acts for the first key', async () => {
    const u = await startServer({ ui: { rendererDir: fakeRenderer() } });
    try {
      const cookie = await follow(await u.engine.loginUrl());
      expect((await asPage(u, cookie)).status).toBe(200);
      const second = await newKeyOn(u);
      const keys = (await u.call('GET', '/v1/keys')).body.keys as { id: string }[];
      const revoked = await u.call('DELETE', `/v1/keys/${keys[0]!.id}`, undefined, {
        authorization: `Bearer ${second}`,
      });
      expect(revoked.status).toBe(200);
      expect((await asPage(u, cookie)).status).toBe(401);
    } finally {
      await u.stop();
    }
  });

  it('with CALLBENCH_API_KEY, the link printed at start acts for it, valid while the process runs', async () => {
    const u = await startServer({
      ui: { rendererDir: fakeRenderer() },
      envApiKey: 'env-key-0123456789-0123456789',
    });
    try {
      const cookie = await follow(await u.engine.loginUrl());
      const keys = (await u.call('GET', '/v1/keys')).body.keys as { id: string }[];
      for (const k of keys) await u.call('DELETE', `/v1/keys/${k.id}`);
      expect((await asPage(u, cookie)).status).toBe(200);
    } finally {
      await u.stop();
    }
  });
});

/** A second API key on a server, made with its first. */
async function newKeyOn(s: TestServer): Promise<string> {
  return (await s.call('POST', '/v1/keys', { label: 'second' })).body.key.key as string;
}

describe('state changes from the page', () => {
  let s: TestServer;
  let cookie: string;
  beforeAll(async () => {
    s = await startServer({ ui: { rendererDir: fakeRenderer() } });
    cookie = await sessionFor(s, s.key);
  });
  afterAll(() => s.stop());

  it('a cookie-authenticated POST, PUT, PATCH or DELETE without JSON is a 415', async () => {
    for (const [method, path] of [
      ['POST', '/v1/alerts/evaluate'],
      ['POST', '/v1/operations/workspaces.list'],
      ['DELETE', '/v1/keys/key_missing'],
      ['PATCH', '/v1/settings'],
      ['PUT', '/v1/tools/missing_tool'],
    ] as const) {
      const res = await asPage(s, cookie, { method, path, contentType: null });
      expect(res.status, `${method} ${path}`).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
      // A form's types are refused the same way.
      const form = await asPage(s, cookie, {
        method,
        path,
        contentType: 'text/plain',
        body: '{}',
      });
      expect(form.status, `${method} ${path} text/plain`).toBe(415);
    }
    // JSON with no body at all is fine, and so is a GET.
    expect((await asPage(s, cookie, { path: '/v1/alerts/evaluate' })).status).toBe(200);
    expect(
      (
        await asPage(s, cookie, {
          path: '/v1/alerts/evaluate',
          contentType: 'application/json; charset=utf-8',
        })
      ).status,
    ).toBe(200);
    expect(
      (await asPage(s, cookie, { method: 'GET', path: '/v1/keys', contentType: null })).status,
    ).toBe(200);
  });

  it('a bearer-authenticated POST without a body still goes through (curl -X POST)', async () => {
    const res = await fetch(`${s.url}/v1/alerts/evaluate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect(res.status).toBe(200);
  });

  it('Origin: null is refused like any foreign origin', async () => {
    const res = await fetch(`${s.url}/v1/operations/workspaces.list`, {
      method: 'POST',
      headers: { cookie, origin: 'null', 'content-type': 'application/json' },
    });
    expect(res.status).toBe(403);
    const same = await fetch(`${s.url}/v1/operations/workspaces.list`, {
      method: 'POST',
      headers: { cookie, origin: s.url, 'content-type': 'application/json' },
    });
    expect(same.status).toBe(200);
  });
});
