import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RECORDING_ANSWER_BYTES, callTeamServer } from '../../main/team-http.js';

const MiB = 1024 * 1024;

/** A Callbench answer `{"data":"xxx..."}` of about `bytes`, sent in 64 KiB writes as the client reads. */
function sendAnswer(res: ServerResponse, bytes: number, length: 'declared' | 'chunked'): void {
  const head = Buffer.from('{"data":"');
  const tail = Buffer.from('"}');
  const fill = bytes - head.length - tail.length;
  res.writeHead(200, {
    'content-type': 'application/json',
    ...(length === 'declared' ? { 'content-length': String(bytes) } : {}),
  });
  res.write(head);
  let left = fill;
  const more = (): void => {
    while (left > 0) {
      const n = Math.min(left, 64 * 1024);
      left -= n;
      if (!res.write(Buffer.alloc(n, 'x'))) return void res.once('drain', more);
    }
    res.end(tail);
  };
  res.on('close', () => (left = 0));
  more();
}

describe("the team server's HTTP client caps what it reads", () => {
  let server: Server | null = null;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    server = null;
  });
  const serve = async (bytes: number, length: 'declared' | 'chunked'): Promise<string> => {
    server = createServer((_req, res) => sendAnswer(res, bytes, length));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  for (const length of ['declared', 'chunked'] as const)
    it(`an answer of 11 MiB (${length} length) is refused with a clear error`, async () => {
      const url = await serve(11 * MiB, length);
      await expect(callTeamServer({ url, key: 'k' }, 'workspaces.list', {})).rejects.toMatchObject({
        code: 'team_server_error',
        status: 502,
        message: `The team server at ${url} answered more than 10 MiB: not read`,
      });
    });

  it('an answer just under 10 MiB is read whole', async () => {
    const url = await serve(10 * MiB - 100, 'chunked');
    const { status, data } = await callTeamServer({ url, key: 'k' }, 'workspaces.list', {});
    expect(status).toBe(200);
    expect((data as string).length).toBe(10 * MiB - 100 - '{"data":""}'.length);
  });

  it('a recording, one base64 answer of a whole call, may pass 10 MiB up to its own cap', async () => {
    const url = await serve(11 * MiB, 'chunked');
    const { data } = await callTeamServer({ url, key: 'k' }, 'simulations.recording', {});
    expect((data as string).length).toBe(11 * MiB - '{"data":""}'.length);
  });

  it("a recording's answer past its cap is refused before it is read", async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-length': String(MAX_RECORDING_ANSWER_BYTES + 1) });
      res.write('{"data":"');
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await expect(
      callTeamServer({ url, key: 'k' }, 'simulations.recording', {}),
    ).rejects.toMatchObject({ code: 'team_server_error', status: 502 });
  });
});
