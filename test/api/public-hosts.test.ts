import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

/** A GET with the Host header a browser would send when it addresses the server by that name. */
const getAs = (s: TestServer, host: string, path: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: s.port,
        path,
        headers: { host, authorization: `Bearer ${s.key}` },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });

describe('a team server addressed by its own name', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ publicHosts: ['callbench.team.example:443'] });
  });
  afterAll(() => s.stop());

  it('answers its public names (CALLBENCH_PUBLIC_HOSTS) and still refuses any other', async () => {
    expect(await getAs(s, 'callbench.team.example:443', '/v1/keys')).toBe(200);
    expect(await getAs(s, `127.0.0.1:${s.port}`, '/v1/keys')).toBe(200);
    expect(await getAs(s, 'rebound.attacker.example:443', '/v1/keys')).toBe(403);
  });
});
