import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';

describe('callbench demo', () => {
  let s: TestServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    s = await startServer();
    env = { CALLBENCH_API_KEY: s.key, CALLBENCH_URL: s.url };
  });
  afterAll(() => s.stop());

  it('runs the demo through the engine it talks to, prints the results and exits 0', async () => {
    const res = await cli(['demo', '--mode', 'text'], env);
    expect(res.code, res.err + res.out).toBe(0);
    expect(res.out).toMatch(/^Text run \(exe_/m);
    expect(res.out).toMatch(/Demo caller\tDemo order support\t100\ttrue/);
    const json = await cli(['demo', '--mode', 'text', '--json'], env);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.out) as { executions: { simulations: { passed: boolean }[] }[] };
    expect(report.executions[0]!.simulations[0]!.passed).toBe(true);
  }, 60_000);

  it('says what it takes when it cannot run', async () => {
    expect(await cli(['demo', '--mode', 'video'], env)).toMatchObject({ code: 2 });
    const noKey = await cli(['demo'], { CALLBENCH_API_KEY: '', CALLBENCH_URL: s.url });
    expect(noKey.code).toBe(2);
    expect(noKey.err).toMatch(/No API key/);
  }, 60_000);
});
