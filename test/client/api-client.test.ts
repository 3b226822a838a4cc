import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, apiClient } from '../../src/client/api-client.js';
import { followEvents, type EventMessage } from '../../src/client/event-stream.js';
import { restRoute } from '../../src/client/rest-route.js';
import { startServer, type TestServer } from '../helpers/server.js';

let servers: TestServer[] = [];
let streams: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await Promise.all(streams.map((s) => new Promise((r) => s.close(r))));
  servers = [];
  streams = [];
});

/** A stream server on 127.0.0.1: `write` answers each connection, in order. */
async function eventServer(write: (res: ServerResponse, connection: number) => void) {
  let connections = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    write(res, ++connections);
  });
  streams.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () => server.closeAllConnections(),
  };
}

const frame = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`;

describe('the API client', () => {
  it("invokes operations by name with the catalogue's types; refusals are ApiErrors with fields", async () => {
    const s = await startServer({ ui: {} });
    servers.push(s);
    const client = apiClient({ base: s.url, key: s.key });
    const { workspace } = await client.invoke('workspaces.create', { name: 'Typed' });
    const { workspaces } = await client.invoke('workspaces.list', {});
    expect(workspaces.map((w) => w.id)).toContain(workspace.id);

    const refused = await client
      .invoke('workspaces.create', { name: ' ' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 'validation_error', status: 400 });
    expect((refused as ApiError).fields.map((f) => f.path)).toEqual(['name']);

    let unauthorized = 0;
    const wrong = apiClient({ base: s.url, key: 'wrong', onUnauthorized: () => unauthorized++ });
    await expect(wrong.invoke('workspaces.list', {})).rejects.toMatchObject({ status: 401 });
    expect(unauthorized).toBe(1);
  });

  it("reaches an API that serves REST only (the desktop app's) at each operation's path", async () => {
    const s = await startServer();
    servers.push(s);
    const client = apiClient({ base: s.url, key: s.key, route: restRoute });
    // No operations route here: the same call by name would be a 404.
    await expect(
      apiClient({ base: s.url, key: s.key }).request('workspaces.list', {}),
    ).rejects.toMatchObject({
      status: 404,
    });
    const { workspace } = await client.invoke('workspaces.create', { name: 'Over REST' });
    const workspace_id = workspace.id;
    await client.invoke('scenarios.create', { workspace_id, name: 'Alpha one', prompt: 'hi' });
    await client.invoke('scenarios.create', { workspace_id, name: 'Beta', prompt: 'hi' });
    // Path parameters in the path, query fields in the query, the `/api` envelope unwrapped.
    const { scenarios } = await client.invoke('scenarios.list', { workspace_id, name: 'alpha' });
    expect(scenarios.map((x) => x.name)).toEqual(['Alpha one']);
    // A `/v1` path answers bare.
    expect((await client.invoke('agents.list', {})).agents).toEqual([]);
    await expect(
      client.invoke('scenarios.get', { workspace_id, scenario_id: 'scn_missing' }),
    ).rejects.toMatchObject({ code: 'not_found', status: 404 });
  });

  it('follows the event stream: engine events only, a too-large frame reopens it', async () => {
    const good = { type: 'simulation.finished', at: 'now', data: { simulationId: 'sim_1' } };
    const stream = await eventServer((res, connection) => {
      res.write('data: not json\n\n');
      res.write(frame({ type: 'app.navigate', at: 'now', data: { path: '/' } }));
      res.write(frame({ ...good, data: { simulationId: `sim_${connection}` } }));
      // The first connection then sends an endless frame: past the cap, the client reopens.
      if (connection === 1) res.write(`data: ${'x'.repeat(5_000)}`);
    });
    const seen: EventMessage[] = [];
    const problems: string[] = [];
    const second = new Promise<void>((resolve) => {
      const stop = followEvents(
        apiClient({ base: stream.url }),
        (event) => {
          seen.push(event);
          if (seen.length === 2) {
            stop();
            resolve();
          }
        },
        {
          timing: { retryMs: 10, maxRetryMs: 10, maxFrameChars: 1_000 },
          onProblem: (err) => problems.push(err.message),
        },
      );
    });
    await second;
    stream.close();
    expect(seen).toEqual([good, { ...good, data: { simulationId: 'sim_2' } }]);
    expect(problems).toEqual(['an event frame is too large']);
    expect(stream.connections()).toBe(2);
  });
});
