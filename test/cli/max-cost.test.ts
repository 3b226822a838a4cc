import { XMLParser } from 'fast-xml-parser';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costSetup, MODEL, priceTheModel } from '../cost/setup.js';
import { cli } from '../helpers/cli.js';
import { startFakeBrain } from '../helpers/fake-brain.js';
import type { Json } from '../helpers/json.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { startTarget, type Target } from '../helpers/target.js';

const parseJunit = (xml: string) =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    isArray: (name) => name === 'testcase',
  }).parse(xml) as {
    testsuites: {
      testsuite: Record<string, string> & { testcase: Record<string, unknown>[] };
    };
  };

describe('callbench run --max-cost', () => {
  let s: TestServer;
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;
  let target: Target;
  let env: Record<string, string>;

  beforeAll(async () => {
    [brain, target] = await Promise.all([startFakeBrain(), startTarget()]);
    s = await startServer({
      dataDir: tempDir(),
      llmDefault: { kind: 'openai', baseUrl: brain.url, apiKey: 'k', model: MODEL },
    });
    env = { CALLBENCH_API_KEY: s.key, CALLBENCH_URL: s.url };
    await costSetup(s, target.url);
  });
  afterAll(async () => {
    await s.stop();
    await Promise.all([brain.stop(), target.stop()]);
  });

  /** The execution the run printed on stderr, as the API answers it. */
  async function executionOf(err: string): Promise<Json> {
    const id = /Execution (exe_\S+):/.exec(err)?.[1];
    expect(id, err).toBeDefined();
    const answer = await s.ws('GET', `/executions/${id}`);
    return answer.body.data.execution;
  }

  it('passes the cap on; the summary prints the cost', async () => {
    await priceTheModel(s);
    const res = await cli(['run', 'Late order', '--runs', '2', '--max-cost', '5', '--wait'], env);
    expect(res.code, res.err).toBe(0);
    const execution = await executionOf(res.err);
    expect(execution).toMatchObject({ max_cost_usd: 5, status: 'completed' });
    expect(execution.cost_usd as number).toBeGreaterThan(0);
    expect(res.out).toContain(`cost $${execution.cost_usd}`);
    expect(res.out).not.toContain('skipped');
  });

  it('what the cap leaves no budget for is skipped: counted in the summary, <skipped/> in JUnit', async () => {
    await priceTheModel(s);
    const junit = join(tempDir(), 'capped.xml');
    // Below any simulation's share: none of them may start.
    const res = await cli(
      ['run', 'Late order', '--runs', '3', '--max-cost', '0.000001', '--wait', '--junit', junit],
      env,
    );
    // Nothing ran to the end, so not every simulation passed.
    expect(res.code, res.err).toBe(1);
    const execution = await executionOf(res.err);
    expect(execution).toMatchObject({ max_cost_usd: 0.000001, status: 'skipped', cost_usd: 0 });
    expect(res.out).toContain('cost $0, 3 skipped by the cost cap');
    expect(res.out.split('\n').filter((l) => l.includes('\tskipped\t'))).toHaveLength(3);
    const suite = parseJunit(readFileSync(junit, 'utf8')).testsuites.testsuite;
    expect(suite).toMatchObject({ tests: '3', failures: '0', errors: '0', skipped: '3' });
    for (const c of suite.testcase) {
      expect(c).toMatchObject({ skipped: { message: expect.stringContaining('maxCostUsd') } });
      expect(c).not.toHaveProperty('error');
    }
  });

  it('exits 2 naming what is wrong: not a number, negative, or a model without a price', async () => {
    await priceTheModel(s);
    const notNumber = await cli(['run', 'Late order', '--max-cost', 'lots'], env);
    expect(notNumber).toMatchObject({ code: 2, err: expect.stringContaining('--max-cost') });
    const negative = await cli(['run', 'Late order', '--max-cost=-1'], env);
    expect(negative).toMatchObject({ code: 2, err: expect.stringContaining('maxCostUsd') });
    await s.call('PATCH', '/v1/settings', { prices: { llm: [] } });
    const unpriced = await cli(['run', 'Late order', '--max-cost', '1'], env);
    expect(unpriced.code).toBe(2);
    expect(unpriced.err).toContain('maxCostUsd');
    expect(unpriced.err).toContain(MODEL);
    expect((await s.ws('GET', '/executions')).body.data.executions).not.toContainEqual(
      expect.objectContaining({ max_cost_usd: 1 }),
    );
  });
});
