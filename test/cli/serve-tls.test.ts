import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';
import { onPostgres } from '../helpers/store-under-test.js';

/** A self-signed certificate for localhost and its key, as PEM files in a temp dir. */
function selfSigned(): { cert: string; key: string } {
  const dir = tempDir();
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost'].concat([
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
    ]),
    { stdio: 'pipe' },
  );
  return { cert, key };
}

/** A built renderer, minimal: a login link is spent by the page's route. */
function fakeRenderer(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Callbench</title>');
  return dir;
}

/** Only the environment given (no CALLBENCH_* of the run leaks in). */
const envOf = (more: Record<string, string> = {}) => ({
  PATH: process.env.PATH,
  HOME: tempDir(),
  CALLBENCH_RENDERER_DIR: fakeRenderer(),
  ...more,
});

/** The CLI run to its end: a refused start. */
const cli = (args: string[]) =>
  spawnSync(process.execPath, ['src/cli/callbench.mjs', ...args], {
    encoding: 'utf8',
    env: envOf(),
    timeout: 30_000,
  });

/** `serve` until it printed its login line; answers that output and how to stop it. */
function serve(args: string[]): Promise<{ out: string; stop(): Promise<number | null> }> {
  const child = spawn(
    process.execPath,
    ['src/cli/callbench.mjs', 'serve', '--port', '0', '--data-dir', tempDir(), ...args],
    { env: envOf() },
  );
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/login link|No login link/.test(out))
        resolve({
          out,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
}

/** An HTTPS request that trusts this certificate (and only it). */
function httpsCall(
  url: string,
  ca: Buffer,
  opts: { method?: string; headers?: Record<string, string> } = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.skipIf(onPostgres())('serve on a network: TLS, or an explicit opt-in', () => {
  it('on an address other than loopback without TLS, refuses to start in one line', () => {
    const r = cli(['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', tempDir()]);
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringContaining(
        'Refusing to serve plain HTTP on 0.0.0.0: give --tls-cert FILE --tls-key FILE, or --insecure-http behind a TLS proxy',
      ),
    ]);
    expect(r.stdout).not.toContain('listening');
  });

  it('refuses half a TLS configuration, and files it cannot use, naming them', () => {
    const { cert, key } = selfSigned();
    const half = cli(['serve', '--port', '0', '--data-dir', tempDir(), '--tls-cert', cert]);
    expect(half.status).not.toBe(0);
    expect(half.stderr).toContain('Give both --tls-cert FILE and --tls-key FILE');
    const missing = join(tempDir(), 'nope.pem');
    const unreadable = cli([
      'serve',
      '--port',
      '0',
      '--data-dir',
      tempDir(),
      '--tls-cert',
      missing,
      '--tls-key',
      key,
    ]);
    expect(unreadable.status).not.toBe(0);
    expect(unreadable.stderr.trim().split('\n')).toEqual([
      expect.stringContaining(`Cannot read the TLS certificate ${missing}`),
    ]);
    // A key that is not the certificate's.
    const other = selfSigned();
    const mismatch = cli([
      'serve',
      '--port',
      '0',
      '--data-dir',
      tempDir(),
      '--tls-cert',
      cert,
      '--tls-key',
      other.key,
    ]);
    expect(mismatch.status).not.toBe(0);
    expect(mismatch.stderr.trim().split('\n')).toEqual([expect.stringContaining('cannot be used')]);
  });

  it('with --tls-cert and --tls-key, serves HTTPS: the links say https and the cookie is Secure', async () => {
    const { cert, key } = selfSigned();
    const ca = readFileSync(cert);
    const server = await serve(['--host', 'localhost', '--tls-cert', cert, '--tls-key', key]);
    try {
      const base = /listening on (https:\/\/localhost:\d+)/.exec(server.out)?.[1];
      expect(base, server.out).toBeDefined();
      const apiKey = /first API key \(shown only now, keep it\): (\S+)/.exec(server.out)![1]!;
      const link = new RegExp(`Open (${base}/\\?token=\\S+) in a browser`).exec(server.out)?.[1];
      expect(link, server.out).toBeDefined();

      const page = await httpsCall(link!, ca);
      expect(page.status).toBe(302);
      const cookie = String(page.headers['set-cookie']);
      expect(cookie).toMatch(/; HttpOnly; SameSite=Strict; Path=\/; Secure/);
      const listed = await httpsCall(`${base}/v1/operations/workspaces.list`, ca, {
        method: 'POST',
        headers: { cookie: cookie.split(';')[0]!, 'content-type': 'application/json' },
      });
      expect(listed.status).toBe(200);

      const made = await httpsCall(`${base}/v1/login-links`, ca, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(made.status).toBe(201);
      expect(JSON.parse(made.body).url).toMatch(new RegExp(`^${base}/\\?token=`));
      const out = await httpsCall(`${base}/v1/logout`, ca, {
        method: 'POST',
        headers: { cookie: cookie.split(';')[0]!, 'content-type': 'application/json' },
      });
      expect(String(out.headers['set-cookie'])).toMatch(/; Secure; Max-Age=0$/);
      // Plain HTTP on the same port gets no API.
      await expect(fetch(`${base!.replace('https:', 'http:')}/openapi.json`)).rejects.toThrow();
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('--insecure-http is the explicit opt-in to plain HTTP on a network (behind a TLS proxy)', async () => {
    const server = await serve(['--host', '0.0.0.0', '--insecure-http']);
    try {
      expect(server.out).toMatch(/listening on http:\/\/0\.0\.0\.0:\d+/);
      expect(server.out).toContain('Plain HTTP on 0.0.0.0 (--insecure-http)');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
