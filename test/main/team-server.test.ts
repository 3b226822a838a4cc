import type { Json } from '../helpers/json.js';
import { rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDesktop, type DesktopApp } from '../../main/app.js';
import { NO_TEAM, type TeamPrefs } from '../../main/prefs.js';
import { callTeamServer, forwardTeamEvents } from '../../main/team-http.js';
import { IPC_EVENT, type EngineEventMessage } from '../../preload/api.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { fakes, freePort } from './fake-desktop.js';

const settle = (ms = 20) => new Promise((r) => setTimeout(r, ms));

/** Waits until `found` answers true, trying again (e.g. emitting again) every 50 ms. */
async function eventually(found: () => boolean, retry: () => void = () => {}, ms = 5_000) {
  const until = Date.now() + ms;
  while (!found()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    retry();
    await settle(50);
  }
}

/**
 * The desktop app as a client of a team server: a real engine and HTTP server (startServer) is the
 * team server; the desktop's own engine runs beside it, with its Electron APIs faked.
 */
describe('the desktop app with a team server', () => {
  let team: TestServer;
  let f: ReturnType<typeof fakes>;
  let desktop: DesktopApp;
  let localWs: string;

  beforeAll(async () => {
    // As `callbench serve` runs it: with the interface routes (/v1/operations, /v1/events).
    team = await startServer({ ui: {} });
    f = fakes();
    f.prefs.set('server', { enabled: false, port: 4477 });
    desktop = (await startDesktop(f.deps))!;
    localWs = (
      (await desktop.engine.invoke('workspaces.list', {})).data as { workspaces: { id: string }[] }
    ).workspaces[0]!.id;
  });
  afterAll(async () => {
    await desktop.stop();
    await team.stop();
    rmSync(f.dataDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    f.keychain.available = true;
    expect(await f.invoke('desktop.team.forget', {})).toMatchObject({ ok: true });
    f.keychain.sealed.length = 0;
  });

  const teamPrefs = () => f.prefs.get('team') as TeamPrefs;
  const connect = async () => {
    expect(await f.invoke('desktop.team.save', { url: team.url, apiKey: team.key })).toMatchObject({
      ok: true,
    });
    const reloads = f.state.reloads;
    const used = await f.invoke('desktop.team.use', { target: 'team' });
    expect(used).toMatchObject({ ok: true, data: { inUse: 'team' } });
    await settle();
    expect(f.state.reloads).toBe(reloads + 1);
  };
  const personaNames = async () => {
    const { data } = (await f.invoke('workspaces.list', {})) as Json;
    const ws = data.workspaces[0].id as string;
    const list = (await f.invoke('personas.list', { workspace_id: ws })) as Json;
    return { ws, names: list.data.personas.map((p: { name: string }) => p.name) as string[] };
  };

  it('starts on this computer, with no team server', async () => {
    expect(await f.invoke('desktop.team.get', {})).toEqual({
      ok: true,
      status: 200,
      data: { url: null, keySaved: false, inUse: 'local' },
    });
  });

  it('a wrong key is refused with a clear message at its field, and nothing is stored', async () => {
    const wrong = await f.invoke('desktop.team.save', { url: team.url, apiKey: 'cb_not_a_key' });
    expect(wrong).toMatchObject({
      ok: false,
      error: {
        code: 'team_server_check_failed',
        status: 400,
        message: expect.stringContaining(`The team server at ${team.url} refused the API key`),
        details: [{ path: 'apiKey', message: 'was refused by the team server' }],
      },
    });
    expect(teamPrefs()).toEqual(NO_TEAM);
    expect(f.keychain.sealed).toEqual([]);
  });

  it('a workspace token is refused too: the app needs an API key (it reads engine events)', async () => {
    const { body } = await team.ws('POST', '/tokens', { name: 'desk' });
    const answer = await f.invoke('desktop.team.save', {
      url: team.url,
      apiKey: body.data.token.token,
    });
    expect(answer).toMatchObject({
      ok: false,
      error: { status: 400, details: [{ path: 'apiKey' }] },
    });
    expect(teamPrefs()).toEqual(NO_TEAM);
  });

  it('without an OS keychain the key is refused before anything is sent, and nothing is stored', async () => {
    f.keychain.available = false;
    const answer = await f.invoke('desktop.team.save', { url: team.url, apiKey: team.key });
    expect(answer).toMatchObject({
      ok: false,
      error: { code: 'keychain_unavailable', message: expect.stringMatching(/keychain/) },
    });
    expect(teamPrefs()).toEqual(NO_TEAM);
  });

  it('the right key is stored sealed only: the prefs and the answers never hold it in clear', async () => {
    const saved = await f.invoke('desktop.team.save', { url: `${team.url}/`, apiKey: team.key });
    expect(saved).toEqual({
      ok: true,
      status: 200,
      data: { url: team.url, keySaved: true, inUse: 'local' },
    });
    const stored = teamPrefs();
    expect(stored.url).toBe(team.url);
    expect(f.keychain.sealed).toEqual([team.key]);
    expect(f.deps.safeStorage.decryptString(Buffer.from(stored.sealedKey!, 'base64'))).toBe(
      team.key,
    );
    expect(JSON.stringify([...f.prefs])).not.toContain(team.key);
    const view = await f.invoke('desktop.team.get', {});
    expect(JSON.stringify(view)).not.toContain(team.key);
    // Saving does not switch: the window still reads this computer.
    expect((await personaNames()).ws).toBe(localWs);
  });

  it('bad URLs are refused at their field', async () => {
    for (const url of [
      'ftp://example.com',
      'javascript:alert(1)',
      'not a url',
      `http://u:p@127.0.0.1:1`,
    ]) {
      expect(await f.invoke('desktop.team.save', { url, apiKey: team.key })).toMatchObject({
        ok: false,
        error: { code: 'validation_error', status: 400, details: [{ path: 'url' }] },
      });
    }
    expect(await f.invoke('desktop.team.save', { url: team.url, apiKey: ' ' })).toMatchObject({
      ok: false,
      error: { status: 400, details: [{ path: 'apiKey' }] },
    });
  });

  it('in use, the team server answers every operation; switching back reaches this computer again', async () => {
    await connect();
    const onTeam = await personaNames();
    expect(onTeam.ws).toBe(team.workspaceId);
    const created = await f.invoke('personas.create', {
      workspace_id: onTeam.ws,
      name: 'Team Ann',
      prompt: 'Calm.',
    });
    expect(created).toMatchObject({
      ok: true,
      status: 201,
      data: { persona: { name: 'Team Ann' } },
    });
    expect((await personaNames()).names).toContain('Team Ann');
    // It is on the team server, not in the local engine.
    const { body } = await team.ws('GET', '/personas');
    expect(body.data.personas.map((p: { name: string }) => p.name)).toContain('Team Ann');
    const local = (await desktop.engine.invoke('personas.list', { workspace_id: localWs })) as Json;
    expect(local.data.personas.map((p: { name: string }) => p.name)).not.toContain('Team Ann');
    // The team server's errors come back in the same shape as the local engine's.
    expect(
      await f.invoke('personas.create', { workspace_id: onTeam.ws, emotion: 'elated' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'validation_error', status: 400, details: expect.any(Array) },
    });

    const reloads = f.state.reloads;
    expect(await f.invoke('desktop.team.use', { target: 'local' })).toMatchObject({
      ok: true,
      data: { url: team.url, keySaved: true, inUse: 'local' },
    });
    await settle();
    expect(f.state.reloads).toBe(reloads + 1);
    const back = await personaNames();
    expect(back.ws).toBe(localWs);
    expect(back.names).not.toContain('Team Ann');
  });

  it("in use, the team server's events reach the window instead of this computer's; back home, the reverse", async () => {
    await connect();
    const events = () => f.sent.filter((m) => m.channel === IPC_EVENT).map((m) => m.payload);
    const seen = (id: string) => events().some((e) => e.data?.executionId === id);
    await eventually(
      () => seen('exe_team_1'),
      () => team.engine.events.emit('execution.cancelled', { executionId: 'exe_team_1' }),
    );
    desktop.engine.events.emit('execution.cancelled', { executionId: 'exe_local_1' });
    // A notification of this computer's engine is still an OS notification.
    const shown = f.calls.notifications.length;
    desktop.engine.events.emit('notification', { alertId: 'alr_l', title: 'Local', body: 'b' });
    expect(f.calls.notifications.length).toBe(shown + 1);
    await settle(100);
    expect(seen('exe_local_1')).toBe(false);

    await f.invoke('desktop.team.use', { target: 'local' });
    desktop.engine.events.emit('execution.cancelled', { executionId: 'exe_local_2' });
    expect(seen('exe_local_2')).toBe(true);
    team.engine.events.emit('execution.cancelled', { executionId: 'exe_team_2' });
    await settle(200);
    expect(seen('exe_team_2')).toBe(false);
  });

  it('an unreachable URL is a clear error, promptly, when saving and when in use', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const answer = await f.invoke('desktop.team.save', { url: dead, apiKey: team.key });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(answer).toMatchObject({
      ok: false,
      error: {
        status: 400,
        message: expect.stringContaining(`The team server at ${dead} cannot be reached`),
        details: [{ path: 'url', message: 'does not answer' }],
      },
    });
    expect(teamPrefs()).toEqual(NO_TEAM);
    // A saved team server that goes away: each operation says so, naming it.
    await connect();
    f.prefs.set('team', { ...teamPrefs(), url: dead });
    expect(await f.invoke('workspaces.list', {})).toMatchObject({
      ok: false,
      error: {
        code: 'team_server_unreachable',
        status: 502,
        message: expect.stringContaining(dead),
      },
    });
    // Switching to it is refused while it does not answer; switching home always works.
    expect(await f.invoke('desktop.team.use', { target: 'team' })).toMatchObject({
      ok: false,
      error: { status: 400, details: [{ path: 'url' }] },
    });
    expect(await f.invoke('desktop.team.use', { target: 'local' })).toMatchObject({ ok: true });
  });

  it('using the team server is refused when none is saved; forget removes it and goes home', async () => {
    expect(await f.invoke('desktop.team.use', { target: 'team' })).toMatchObject({
      ok: false,
      error: { code: 'team_server_not_saved', status: 409 },
    });
    await connect();
    const reloads = f.state.reloads;
    expect(await f.invoke('desktop.team.forget', {})).toEqual({
      ok: true,
      status: 200,
      data: { url: null, keySaved: false, inUse: 'local' },
    });
    await settle();
    expect(f.state.reloads).toBe(reloads + 1);
    expect(teamPrefs()).toEqual(NO_TEAM);
    expect((await personaNames()).ws).toBe(localWs);
  });

  it('an IPC message from an untrusted sender is refused, whichever engine is in use', async () => {
    await connect();
    const other = { url: f.mainFrame.url };
    for (const name of ['workspaces.list', 'desktop.team.get', 'desktop.team.use']) {
      expect(
        await f.invoke(
          name,
          { target: 'local' },
          { sender: { id: 8, mainFrame: other }, senderFrame: other },
        ),
      ).toMatchObject({ ok: false, error: { status: 403 } });
    }
    const elsewhere = { url: 'https://evil.example/' };
    expect(
      await f.invoke(
        'workspaces.list',
        {},
        { sender: { id: 7, mainFrame: elsewhere }, senderFrame: elsewhere },
      ),
    ).toMatchObject({ ok: false, error: { status: 403 } });
    expect((await f.invoke('desktop.team.get', {})) as Json).toMatchObject({
      data: { inUse: 'team' },
    });
  });
});

describe("the team server's HTTP client", () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });
  const listen = async (server: Server) => {
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it('a server that accepts the connection but never answers times out, naming it', async () => {
    const silent = createTcpServer((socket) => void sockets.push(socket));
    const url = await listen(silent as unknown as Server);
    const started = Date.now();
    await expect(
      callTeamServer({ url, key: 'k' }, 'workspaces.list', {}, 300),
    ).rejects.toMatchObject({
      code: 'team_server_unreachable',
      status: 504,
      message: `The team server at ${url} did not answer within 0.3 s`,
    });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('something other than a Callbench server is said to be one', async () => {
    const url = await listen(createHttpServer((_req, res) => res.end('<html>hello</html>')));
    await expect(callTeamServer({ url, key: 'k' }, 'workspaces.list', {})).rejects.toMatchObject({
      code: 'team_server_error',
      message: expect.stringContaining('not as a Callbench server does'),
    });
  });

  it('the event stream is reopened when it drops, and when it falls silent', async () => {
    let opened = 0;
    const url = await listen(
      createHttpServer((req, res) => {
        opened++;
        expect(req.headers.authorization).toBe('Bearer k');
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const event = {
          type: 'execution.cancelled',
          at: 'now',
          data: { executionId: `e${opened}` },
        };
        res.write(`: connected\n\ndata: ${JSON.stringify(event)}\n\n`);
        // Odd connections drop at once; even ones stay open and silent.
        if (opened % 2) res.end();
        else sockets.push(res.socket!);
      }),
    );
    const got: EngineEventMessage[] = [];
    const logs: string[] = [];
    const stop = forwardTeamEvents(
      { url, key: 'k' },
      (e) => got.push(e),
      (m) => logs.push(m),
      {
        connectMs: 1_000,
        idleMs: 150,
        retryMs: 10,
        maxRetryMs: 20,
      },
    );
    await eventually(() => got.length >= 3);
    stop();
    expect(got.slice(0, 3).map((e) => e.data.executionId)).toEqual(['e1', 'e2', 'e3']);
    expect(logs.some((m) => m.includes('silent too long'))).toBe(true);
  });
});
