import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDesktop, type DesktopApp } from '../../main/app.js';
import { NO_TEAM } from '../../main/prefs.js';
import { callTeamServer } from '../../main/team-http.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { fakes } from './fake-desktop.js';

/** A self-signed certificate for localhost: what no computer trusts unless told to. */
function selfSigned(): { cert: Buffer; key: Buffer } {
  const dir = tempDir();
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1']
      // Valid for the address the test server listens on: only trust is missing.
      .concat(['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'])
      .concat(['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]),
    { stdio: 'pipe' },
  );
  return { cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) };
}

/** Runs `body` with NODE_TLS_REJECT_UNAUTHORIZED=0, the switch that turns Node's checks off. */
async function withChecksOff<T>(body: () => Promise<T>): Promise<T> {
  const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  try {
    return await body();
  } finally {
    if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
  }
}

/** The desktop app as a client of team servers on a network: never the key in clear. */
describe('the desktop app and a team server on a network', () => {
  let f: ReturnType<typeof fakes>;
  let desktop: DesktopApp;
  let https: TestServer;
  let plain: TestServer;

  beforeAll(async () => {
    https = await startServer({ ui: {}, tls: selfSigned() });
    plain = await startServer({ ui: {} });
    f = fakes();
    f.prefs.set('server', { enabled: false, port: 4477 });
    desktop = (await startDesktop(f.deps))!;
  });
  afterAll(async () => {
    await desktop.stop();
    await https.stop();
    await plain.stop();
    rmSync(f.dataDir, { recursive: true, force: true });
  });

  it('refuses an http:// URL that is not loopback before anything is sent', async () => {
    const sealed = f.keychain.sealed.length;
    for (const url of ['http://callbench.example:4477', 'http://192.0.2.7', 'http://10.1.2.3:80']) {
      const answer = await f.invoke('desktop.team.save', { url, apiKey: 'cbk_secret' });
      expect(answer).toMatchObject({
        ok: false,
        error: {
          code: 'validation_error',
          status: 400,
          details: [
            {
              path: 'url',
              message: 'use https://: the API key would cross the network in clear',
            },
          ],
        },
      });
    }
    expect(f.prefs.get('team') ?? NO_TEAM).toEqual(NO_TEAM);
    expect(f.keychain.sealed).toHaveLength(sealed);
  });

  it('accepts http:// on this computer (loopback), where no network is crossed', async () => {
    const url = `http://localhost:${plain.port}`;
    expect(await f.invoke('desktop.team.save', { url, apiKey: plain.key })).toMatchObject({
      ok: true,
      data: { url, keySaved: true },
    });
    expect(await f.invoke('desktop.team.forget', {})).toMatchObject({ ok: true });
  });

  it('checks the certificate of an https:// server: one it does not trust is refused', async () => {
    const answer = await f.invoke('desktop.team.save', { url: https.url, apiKey: https.key });
    expect(answer).toMatchObject({
      ok: false,
      error: {
        code: 'team_server_check_failed',
        status: 400,
        message: expect.stringContaining('certificate'),
        details: [{ path: 'url', message: 'has a certificate this computer does not trust' }],
      },
    });
    expect(f.prefs.get('team') ?? NO_TEAM).toEqual(NO_TEAM);
  });

  it('NODE_TLS_REJECT_UNAUTHORIZED=0 does not turn the check off', async () => {
    expect(https.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    await withChecksOff(async () => {
      // The switch works on this process's other clients: the server itself answers.
      expect((await fetch(`${https.url}/openapi.json`)).status).toBe(200);
      await expect(
        callTeamServer({ url: https.url, key: https.key }, 'workspaces.list', {}),
      ).rejects.toMatchObject({
        code: 'team_server_untrusted',
        message: expect.stringMatching(/certificate this computer does not trust/),
      });
    });
  });
});
