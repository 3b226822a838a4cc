import { XMLParser } from 'fast-xml-parser';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { startFakeBrain } from '../helpers/fake-brain.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { insertCliSam } from '../helpers/cli-sam.js';

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

describe('callbench run', () => {
  let s: TestServer;
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    brain = await startFakeBrain();
    s = await startServer({
      llmDefault: { kind: 'openai', baseUrl: brain.url, apiKey: 'k', model: 'fake' },
    });
    env = { CALLBENCH_API_KEY: s.key, CALLBENCH_URL: s.url };
    await insertCliSam(s);
    const persona = (await s.ws('POST', '/personas', { name: 'Frank', prompt: 'Busy.' })).body.data
      .persona.id;
    await s.ws('POST', '/scenarios', {
      name: 'Polite goodbye',
      prompt: 'p',
      personas: [persona],
      targetAgents: ['agt_sam'],
      promptVariables: [{ name: 'who', type: 'string', defaultValue: 'there' }],
      script: [{ say: 'Thanks {{who}}, bye', expect: { contains: 'goodbye' } }],
    });
    await s.ws('POST', '/scenarios', {
      name: 'Wants a refund',
      prompt: 'p',
      personas: [persona],
      targetAgents: ['agt_sam'],
      script: [{ say: 'Thanks, bye', expect: { contains: 'refund' } }],
    });
  });
  afterAll(async () => {
    await s.stop();
    await brain.stop();
  });

  it('waits, prints a summary, writes JUnit XML and exits 0 when every simulation passed', async () => {
    const junit = join(tempDir(), 'results.xml');
    const res = await cli(
      ['run', 'Polite goodbye', '--var', 'who=Sam', '--runs', '2', '--wait', '--junit', junit],
      env,
    );
    expect(res.code, res.err).toBe(0);
    expect(res.err).toMatch(/Execution exe_\S+: 2 simulation\(s\) of "Polite goodbye"/);
    expect(res.err).toContain('2/2 done');
    expect(
      res.out.split('\n').filter((l) => l.startsWith('Frank\tSupport Sam\t-\ttrue')),
    ).toHaveLength(2);
    const suite = parseJunit(readFileSync(junit, 'utf8')).testsuites.testsuite;
    expect(suite).toMatchObject({ name: 'Polite goodbye', tests: '2', failures: '0', errors: '0' });
    expect(suite.testcase[0]).toMatchObject({ name: 'Frank x Support Sam #1' });
  });

  it('exits 1 when a simulation failed, naming the failed metrics; --json for machines', async () => {
    const junit = join(tempDir(), 'fail.xml');
    const res = await cli(['run', 'Wants a refund', '--wait', '--json', '--junit', junit], env);
    expect(res.code).toBe(1);
    const summary = JSON.parse(res.out);
    expect(summary.simulations[0]).toMatchObject({
      persona: 'Frank',
      passed: false,
      failed: [expect.stringContaining('Script expectations')],
    });
    const suite = parseJunit(readFileSync(junit, 'utf8')).testsuites.testsuite;
    expect(suite).toMatchObject({ tests: '1', failures: '1', errors: '0' });
    expect(suite.testcase[0]!.failure).toMatchObject({
      message: '1 metric(s) failed: Script expectations',
      '#text': expect.stringContaining(
        'Script expectations: After "Thanks, bye" the agent did not say "refund".',
      ),
    });
  });

  it('exits 2 with the reason when nothing can run', async () => {
    expect(await cli(['run', 'No such scenario', '--wait'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('No scenario named "No such scenario"'),
    });
    expect(await cli(['run', 'Polite goodbye', '--var', 'nope=1'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('variables.nope'),
    });
    expect(
      await cli(['run', 'Polite goodbye'], { ...env, CALLBENCH_API_KEY: 'wrong' }),
    ).toMatchObject({ code: 2, err: expect.stringContaining('not a valid API key') });
    expect(await cli(['run', 'x'], { ...env, CALLBENCH_URL: 'http://127.0.0.1:1' })).toMatchObject({
      code: 2,
      err: expect.stringContaining('not reachable'),
    });
  });
});
