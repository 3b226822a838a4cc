import { XMLParser } from 'fast-xml-parser';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFromBaseline } from '../../src/cli/run-baseline.js';
import { cli } from '../helpers/cli.js';
import { handled } from '../helpers/handled.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { insertCliSam } from '../helpers/cli-sam.js';

interface Testcase {
  name: string;
  failure?: { message: string; type: string };
}
interface Suite {
  name: string;
  tests: string;
  failures: string;
  testcase: Testcase[];
}

const parseJunit = (xml: string) =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    isArray: (name) => name === 'testcase' || name === 'testsuite',
  }).parse(xml) as { testsuites: { tests: string; failures: string; testsuite: Suite[] } };

/**
 * A model whose agent says what the test tells it to: "Goodbye!" passes the scenario's script
 * expectation, anything else fails it. Runs of an execution all get the same answer, so each
 * execution's outcome is the test's choice.
 */
async function startSwitchableModel() {
  const state = { reply: 'Goodbye!' };
  const server = createServer(
    handled(async (req, res) => {
      for await (const _ of req);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-x',
          object: 'chat.completion',
          created: 1,
          model: 'fake',
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: { role: 'assistant', content: `${state.reply} [END_CALL]` },
            },
          ],
          usage: { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 },
        }),
      );
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    state,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('callbench compare and run --baseline', () => {
  let s: TestServer;
  let model: Awaited<ReturnType<typeof startSwitchableModel>>;
  let env: Record<string, string>;
  let scenarioId: string;
  /** Executions of the scenario: two that all passed, one that all failed (oldest first). */
  const exe = { good1: '', bad: '', good2: '' };

  /** Runs the scenario 10 times with the agent saying `reply`; resolves once it ended. */
  async function execution(reply: string): Promise<string> {
    model.state.reply = reply;
    const started = await s.ws('POST', `/scenarios/${scenarioId}/execute`, { runs: 10 });
    const id = started.body.data.execution.id as string;
    for (;;) {
      const { body } = await s.ws('GET', `/executions/${id}?wait=30`);
      if (['completed', 'failed', 'cancelled'].includes(body.data.execution.status)) return id;
    }
  }

  beforeAll(async () => {
    model = await startSwitchableModel();
    s = await startServer({
      llmDefault: { kind: 'openai', baseUrl: model.url, apiKey: 'k', model: 'fake' },
    });
    env = { CALLBENCH_API_KEY: s.key, CALLBENCH_URL: s.url };
    await insertCliSam(s);
    const persona = (await s.ws('POST', '/personas', { name: 'Frank', prompt: 'Busy.' })).body.data
      .persona.id;
    scenarioId = (
      await s.ws('POST', '/scenarios', {
        name: 'Polite goodbye',
        prompt: 'p',
        personas: [persona],
        targetAgents: ['agt_sam'],
        script: [{ say: 'Thanks, bye', expect: { contains: 'goodbye' } }],
      })
    ).body.data.scenario.id;
    exe.good1 = await execution('Goodbye!');
    exe.bad = await execution('See you.');
    exe.good2 = await execution('Goodbye!');
  }, 120_000);
  afterAll(async () => {
    await s.stop();
    await model.stop();
  });

  it('exits 1 when the candidate regressed, writing JUnit and markdown reports of every row', async () => {
    const dir = tempDir();
    const junit = join(dir, 'compare.xml');
    const markdown = join(dir, 'compare.md');
    const res = await cli(
      ['compare', exe.good1, exe.bad, '--junit', junit, '--markdown', markdown],
      env,
    );
    expect(res.code, res.err).toBe(1);
    expect(res.out).toContain(`Baseline:  ${exe.good1}: 10 simulation(s)`);
    expect(res.out).toContain(`Candidate: ${exe.bad}: 10 simulation(s)`);
    expect(res.out).toMatch(/Overall: regressed: pass rate 100\.0% \[[\d.]+, 100\.0\] -> 0\.0%/);
    expect(res.out).toMatch(/difference -100\.0 pts \[-[\d.]+, -[\d.]+\] \(10 pairs\)/);
    expect(res.out).toMatch(/\nregressed\tregressed\tPolite goodbye x Frank\t10\t/);

    const report = parseJunit(readFileSync(junit, 'utf8')).testsuites;
    const suite = report.testsuite[0]!;
    expect(suite.name).toMatch(/^comparison cmp_/);
    const names = suite.testcase.map((c) => c.name);
    expect(names.slice(0, 2)).toEqual(['overall', 'Polite goodbye x Frank']);
    expect(names).toContain('metric Script expectations');
    expect(suite.testcase[0]!.failure).toMatchObject({
      type: 'regression',
      message: expect.stringContaining('overall regressed: pass rate 100.0% -> 0.0%'),
    });
    expect(suite.testcase[1]!.failure).toMatchObject({ type: 'regression' });
    expect(Number(suite.failures)).toBeGreaterThanOrEqual(2);

    const md = readFileSync(markdown, 'utf8');
    expect(md).toMatch(/^## Comparison cmp_\S+\n/);
    expect(md).toContain('### Scenario x persona (worst first)');
    expect(md).toContain(
      '| adjusted verdict | verdict | case | pairs | baseline | candidate | difference | score difference | flaky | errored |',
    );
    expect(md).toMatch(/\| regressed \| regressed \| Polite goodbye x Frank \| 10 \| 100\.0% /);
    expect(md).toContain('### Metrics');
  });

  it('exits 0 when nothing regressed; --json is the comparison; a side pools comma-separated ids', async () => {
    const junit = join(tempDir(), 'same.xml');
    const res = await cli(['compare', exe.good1, exe.good2, '--junit', junit], env);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain('Overall: no_significant_difference');
    const suite = parseJunit(readFileSync(junit, 'utf8')).testsuites.testsuite[0]!;
    expect(suite.failures).toBe('0');
    expect(suite.testcase.every((c) => c.failure === undefined)).toBe(true);

    const pooled = await cli(['compare', `${exe.good1},${exe.good2}`, exe.bad, '--json'], env);
    expect(pooled.code, pooled.err).toBe(1);
    const { comparison } = JSON.parse(pooled.out);
    expect(comparison.baseline).toMatchObject({
      execution_ids: [exe.good1, exe.good2],
      simulations: 20,
    });
    expect(comparison.candidate).toMatchObject({ execution_ids: [exe.bad], simulations: 10 });
    expect(comparison.overall.verdict).toBe('regressed');
  });

  it('exits 2 with the reason when it cannot compare', async () => {
    const unknown = await cli(['compare', 'exe_nope', exe.good1], env);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('callbench compare:');
    expect(unknown.err).toContain(
      "baseline.executionId: execution 'exe_nope' was not found in this workspace",
    );
    const second = await cli(['compare', exe.good1, `${exe.good2},exe_nope`], env);
    expect(second).toMatchObject({
      code: 2,
      err: expect.stringContaining('candidate.executionIds[1]'),
    });
    expect(await cli(['compare', exe.good1], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('Usage: callbench compare'),
    });
    expect(
      await cli(['compare', exe.good1, exe.bad], { ...env, CALLBENCH_URL: 'http://127.0.0.1:1' }),
    ).toMatchObject({ code: 2, err: expect.stringContaining('not reachable') });
  });

  it('run --baseline compares with the baseline: the exit code is its verdict, not the simulations’', async () => {
    // Every simulation of this run fails, as the baseline's did: no regression, exit 0.
    model.state.reply = 'See you.';
    const dir = tempDir();
    const junit = join(dir, 'run.xml');
    const same = await cli(
      ['run', 'Polite goodbye', '--runs', '10', '--baseline', exe.bad, '--junit', junit],
      env,
    );
    expect(same.code, same.err).toBe(0);
    expect(same.out).toContain('Overall: no_significant_difference');
    const suites = parseJunit(readFileSync(junit, 'utf8')).testsuites.testsuite;
    expect(suites.map((t) => t.name)).toEqual([
      'Polite goodbye',
      expect.stringMatching(/^comparison cmp_/),
    ]);
    expect(suites[0]).toMatchObject({ tests: '10', failures: '10' });
    expect(suites[1]!.testcase[0]).toMatchObject({ name: 'overall' });
    expect(suites[1]!.failures).toBe('0');
  }, 60_000);

  it('run --baseline last compares with the newest ended execution of the scenario', async () => {
    const newest = await execution('Goodbye!');
    model.state.reply = 'See you.';
    const res = await cli(
      ['run', 'Polite goodbye', '--runs', '10', '--baseline', 'last', '--json'],
      env,
    );
    // Against a baseline that passed, a candidate that fails every run regressed: exit 1.
    expect(res.code, res.err).toBe(1);
    const { execution: ran, comparison } = JSON.parse(res.out);
    expect(comparison.baseline.execution_ids).toEqual([newest]);
    expect(comparison.candidate.execution_ids).toEqual([ran.id]);
    expect(comparison.overall.verdict).toBe('regressed');
  }, 60_000);

  it('run --baseline refuses before running when there is nothing to compare with', async () => {
    const before = (await s.ws('GET', '/executions?limit=1')).body.data.pagination.total;
    const unknown = await cli(['run', 'Polite goodbye', '--baseline', 'exe_nope'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/^callbench run: .*exe_nope.*not found/m);
    const persona = (await s.ws('POST', '/personas', { name: 'Gina', prompt: 'Calm.' })).body.data
      .persona.id;
    await s.ws('POST', '/scenarios', {
      name: 'Never run',
      prompt: 'p',
      personas: [persona],
      targetAgents: ['agt_sam'],
      script: [{ say: 'Hi', expect: { contains: 'hello' } }],
    });
    expect(await cli(['run', 'Never run', '--baseline', 'last'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('No ended execution of "Never run" to compare with'),
    });
    expect((await s.ws('GET', '/executions?limit=1')).body.data.pagination.total).toBe(before);
  });

  it('an audio run takes its baseline’s root seed; a text run takes none', () => {
    expect(seedFromBaseline({ line: { choice: 'phone', seed: 1234 } }, 'audio')).toBe(1234);
    expect(seedFromBaseline({ line: { choice: null, seed: 1234 } }, 'text')).toBeUndefined();
    expect(seedFromBaseline({ line: null }, 'audio')).toBeUndefined();
  });
});
