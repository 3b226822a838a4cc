import { XMLParser } from 'fast-xml-parser';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { startFakeBrain } from '../helpers/fake-brain.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { insertCliSam } from '../helpers/cli-sam.js';

interface JunitDoc {
  testsuites: Record<string, string> & {
    testsuite: (Record<string, string> & { testcase: Record<string, unknown>[] })[];
  };
}

const parseJunit = (xml: string) =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    isArray: (name) => name === 'testcase' || name === 'testsuite',
  }).parse(xml) as JunitDoc;

let unique = 0;
/** A name no other test's suite has: each test applies into a workspace of its own. */
const suiteName = (what: string) => `${what} ${process.pid}-${++unique}`;

describe('callbench suite', () => {
  let s: TestServer;
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;
  let env: Record<string, string>;
  let source: string;

  beforeAll(async () => {
    brain = await startFakeBrain();
    s = await startServer({
      llmDefault: { kind: 'openai', baseUrl: brain.url, apiKey: 'k', model: 'fake' },
    });
    env = { CALLBENCH_API_KEY: s.key, CALLBENCH_URL: s.url };
    source = (await s.call('GET', '/api/v1/workspaces')).body.data.workspaces[0].name;
    await insertCliSam(s);
    const persona = (await s.ws('POST', '/personas', { name: 'Frank', prompt: 'Busy.' })).body.data
      .persona.id;
    const polite = await s.ws('POST', '/scenarios', {
      name: 'Polite goodbye',
      prompt: 'p',
      personas: [persona],
      targetAgents: ['agt_sam'],
      tags: ['smoke'],
      promptVariables: [{ name: 'who', type: 'string', defaultValue: 'there' }],
      script: [{ say: 'Thanks {{who}}, bye', expect: { contains: 'goodbye' } }],
      cases: [{ variables: { who: 'Sam' } }, { variables: { who: 'Ann' } }],
    });
    expect(polite.status, JSON.stringify(polite.body)).toBe(201);
    await s.ws('POST', '/scenarios', {
      name: 'Wants a refund',
      prompt: 'p',
      personas: [persona],
      targetAgents: ['agt_sam'],
      tags: ['flaky'],
      script: [{ say: 'Thanks, bye', expect: { contains: 'refund' } }],
    });
  });
  afterAll(async () => {
    await s.stop();
    await brain.stop();
  });

  /** The source workspace exported into a new folder, renamed `name` (its own workspace). */
  async function exported(name: string, ...more: string[]): Promise<string> {
    const dir = join(tempDir(), 'callbench');
    const res = await cli(['suite', 'export', '--dir', dir, '--workspace', source, ...more], env);
    expect(res.code, res.err).toBe(0);
    const manifest = join(dir, 'callbench.yaml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/^name: .*$/m, `name: ${name}`));
    return dir;
  }

  const workspaceNamed = async (name: string) =>
    (
      (await s.call('GET', '/api/v1/workspaces')).body.data.workspaces as {
        id: string;
        name: string;
      }[]
    ).find((w) => w.name === name);

  it('export writes the suite and removes the suite files it no longer holds, nothing else', async () => {
    const dir = join(tempDir(), 'suite');
    const first = await cli(['suite', 'export', '--dir', dir, '--workspace', source], env);
    expect(first.code, first.err).toBe(0);
    for (const path of [
      'callbench.yaml',
      'personas/frank.yaml',
      'scenarios/polite-goodbye.yaml',
      'scenarios/polite-goodbye.cases.csv',
      'scenarios/wants-a-refund.yaml',
      '.callbench/schemas/persona.json',
    ])
      expect(existsSync(join(dir, path)), path).toBe(true);
    expect(readFileSync(join(dir, 'scenarios/polite-goodbye.cases.csv'), 'utf8')).toBe(
      'who\nSam\nAnn\n',
    );
    const before = readFileSync(join(dir, 'personas/frank.yaml'), 'utf8');
    writeFileSync(join(dir, 'personas/stale.yaml'), 'key: stale\n');
    writeFileSync(join(dir, 'notes.md'), 'mine\n');
    const again = await cli(
      ['suite', 'export', '--dir', dir, '--workspace', source, '--exclude-tag', 'flaky'],
      env,
    );
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain(`removed ${join(dir, 'personas/stale.yaml')}`);
    expect(again.out).toContain(`removed ${join(dir, 'scenarios/wants-a-refund.yaml')}`);
    expect(existsSync(join(dir, 'personas/stale.yaml'))).toBe(false);
    expect(existsSync(join(dir, 'scenarios/wants-a-refund.yaml'))).toBe(false);
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(dir, 'personas/frank.yaml'), 'utf8')).toBe(before);
  });

  it('plan says what apply would change; apply creates the suite’s workspace; exit 0', async () => {
    const name = suiteName('Plan suite');
    const dir = await exported(name);
    const none = await cli(['suite', 'plan', '--dir', dir], env);
    expect(none.code).toBe(2);
    expect(none.err).toContain(`No workspace named "${name}"`);

    const applied = await cli(['suite', 'apply', '--dir', dir], env);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(applied.out.split('\n')).toEqual(
      expect.arrayContaining(['create persona frank', 'create scenario polite-goodbye']),
    );
    expect(applied.out).toContain(`Applied to workspace "${name}"`);
    const workspace = await workspaceNamed(name);
    expect(workspace).toBeDefined();

    const persona = join(dir, 'personas/frank.yaml');
    writeFileSync(persona, readFileSync(persona, 'utf8').replace('Busy.', 'Very busy.'));
    const plan = await cli(['suite', 'plan', '--dir', dir], env);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out.split('\n')).toContain('update persona frank: prompt');
    expect(plan.out).not.toMatch(/^create /m);
    expect(plan.out).toMatch(/Plan for workspace ".+": 0 to create, 1 to update, 0 to delete/);
    // The plan wrote nothing: the persona is as the apply left it.
    const base = `/api/v1/workspaces/${workspace!.id}/personas`;
    const [frank] = (await s.call('GET', base)).body.data.personas;
    expect((await s.call('GET', `${base}/${frank.id}`)).body.data.persona.prompt).toBe('Busy.');
  });

  it('lists each problem at file:line:column with its field, exits 1 and applies nothing', async () => {
    const dir = await exported(suiteName('Problem suite'));
    const target = (
      await s.call('POST', '/api/v1/workspaces', { name: suiteName('Problem target') })
    ).body.data.workspace;
    const persona = join(dir, 'personas/frank.yaml');
    const lines = readFileSync(persona, 'utf8').split('\n').length; // the final newline's line
    writeFileSync(persona, `${readFileSync(persona, 'utf8')}nope: 1\n`);
    const problem = `${join(dir, 'personas/frank.yaml')}:${lines}:1: nope: `;

    const plan = await cli(['suite', 'plan', '--dir', dir, '--workspace', target.id], env);
    expect(plan.code, plan.err).toBe(1);
    expect(
      plan.out.split('\n').some((l) => l.startsWith(problem)),
      plan.out,
    ).toBe(true);

    const apply = await cli(['suite', 'apply', '--dir', dir, '--workspace', target.name], env);
    expect(apply.code, apply.err).toBe(1);
    expect(
      apply.out.split('\n').some((l) => l.startsWith(problem)),
      apply.out,
    ).toBe(true);
    expect(apply.out).toContain('Nothing applied');
    const personas = await s.call('GET', `/api/v1/workspaces/${target.id}/personas`);
    expect(personas.body.data.personas).toEqual([]);
  });

  it('fills placeholders from --secrets-file, else from its own environment', async () => {
    const name = suiteName('Secrets source');
    const ws = (await s.call('POST', '/api/v1/workspaces', { name })).body.data.workspace;
    const persona = (
      await s.call('POST', `/api/v1/workspaces/${ws.id}/personas`, { name: 'Ann', prompt: 'x' })
    ).body.data.persona.id;
    const tool = await s.call('POST', '/v1/tools', {
      name: 'order_lookup',
      type: 'api',
      config: {
        method: 'GET',
        url: 'https://crm.example.com/orders/{orderId}',
        auth: { type: 'bearer', token: 'tok-1' },
      },
      parameters: [{ name: 'orderId', type: 'string', required: true }],
    });
    expect(tool.status, JSON.stringify(tool.body)).toBe(201);
    const scenario = await s.call('POST', `/api/v1/workspaces/${ws.id}/scenarios`, {
      name: 'Looks it up',
      prompt: 'p',
      personas: [persona],
      targetAgents: ['agt_sam'],
      expectedBehavior: { toolCalls: ['order_lookup'] },
    });
    expect(scenario.status, JSON.stringify(scenario.body)).toBe(201);

    const dir = join(tempDir(), 'callbench');
    const res = await cli(['suite', 'export', '--dir', dir, '--workspace', name], env);
    expect(res.code, res.err).toBe(0);
    const toolFile = readFileSync(join(dir, 'tools/order-lookup.yaml'), 'utf8');
    expect(toolFile).not.toContain('tok-1');
    const secret = /\$\{secret:([A-Z0-9_]+)\}/.exec(toolFile)![1]!;
    const plan = (extra: string[], more: Record<string, string>) =>
      cli(['suite', 'plan', '--dir', dir, ...extra], { ...env, ...more });

    const same = await plan([], { [secret]: 'tok-1' });
    expect(same.code, same.out + same.err).toBe(0);
    expect(same.out).not.toContain('tool order-lookup');
    const other = await plan([], { [secret]: 'tok-2' });
    expect(other.out.split('\n')).toContain('update tool order-lookup: config.auth.token');

    // With a secrets file, the environment is not read.
    const file = join(tempDir(), 'ci.env');
    writeFileSync(file, `# CI\n${secret}="tok-1"\n`);
    const fromFile = await plan(['--secrets-file', file], { [secret]: 'tok-2' });
    expect(fromFile.code, fromFile.out + fromFile.err).toBe(0);
    expect(fromFile.out).not.toContain('tool order-lookup');
    writeFileSync(file, `${secret}=tok-3\n`);
    expect((await plan(['--secrets-file', file], { [secret]: 'tok-1' })).out).toContain(
      'update tool order-lookup: config.auth.token',
    );
    // A workspace token may not update a tool: refused (403) naming its file, exit 2.
    const token = (await s.call('POST', `/api/v1/workspaces/${ws.id}/tokens`, {})).body.data.token
      .token;
    const apply = ['suite', 'apply', '--dir', dir, '--workspace', ws.id, '--secrets-file', file];
    const refused = await cli(apply, {
      ...env,
      CALLBENCH_API_KEY: token,
    });
    expect(refused.code, refused.out + refused.err).toBe(2);
    expect(refused.err).toContain('tools/order-lookup.yaml');
    writeFileSync(file, 'not a pair\n');
    expect(await plan(['--secrets-file', file], {})).toMatchObject({
      code: 2,
      err: expect.stringContaining(`${file}:1: expected NAME=value`),
    });
  });

  it('exits 2 with the reason when it cannot run', async () => {
    const dir = await exported(suiteName('Unreachable suite'));
    expect(
      await cli(['suite', 'apply', '--dir', dir], { ...env, CALLBENCH_API_KEY: 'wrong' }),
    ).toMatchObject({ code: 2, err: expect.stringContaining('not a valid API key') });
    expect(
      await cli(['suite', 'plan', '--dir', dir], { ...env, CALLBENCH_URL: 'http://127.0.0.1:1' }),
    ).toMatchObject({ code: 2, err: expect.stringContaining('not reachable') });
    expect(await cli(['suite', 'plan', '--dir', join(dir, 'nowhere')], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('No suite folder'),
    });
    expect(await cli(['suite', 'plan', '--dir', dir, '--prnue'], env)).toMatchObject({ code: 2 });
    expect(await cli(['suite', 'plan'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('suite plan|apply --dir D'),
    });
  });

  it('run --suite applies, runs each case row, writes one JUnit suite per scenario', async () => {
    const name = suiteName('Run suite');
    const dir = await exported(name);
    const junit = join(tempDir(), 'out.xml');
    const res = await cli(['run', '--suite', dir, '--junit', junit], env);
    // "Wants a refund" fails its script expectation: exit 1.
    expect(res.code, res.err).toBe(1);
    expect(res.err).toContain('(case 2 of 2)');
    expect(res.out).toContain('Polite goodbye (who=Ann)');
    expect(res.out).toContain('2/3 simulations passed');
    const suites = parseJunit(readFileSync(junit, 'utf8')).testsuites;
    expect(suites).toMatchObject({ tests: '3', failures: '1', errors: '0' });
    expect(suites.testsuite.map((t) => [t.name, t.tests, t.failures])).toEqual([
      ['Polite goodbye', '2', '0'],
      ['Wants a refund', '1', '1'],
    ]);
    expect(suites.testsuite[0]!.testcase.map((c) => c.name)).toEqual([
      'case 1: Frank x Support Sam #1',
      'case 2: Frank x Support Sam #1',
    ]);

    // Updated in place: the second run's executions join the first's in the same workspace.
    const again = await cli(
      ['suite', 'run', '--dir', dir, '--exclude-tag', 'flaky', '--json'],
      env,
    );
    expect(again.code, again.err).toBe(0);
    const report = JSON.parse(again.out);
    expect(report).toMatchObject({ passed: true, workspace: { name } });
    expect(report.scenarios.map((r: { key: string }) => r.key)).toEqual(['polite-goodbye']);
    expect(report.scenarios[0].executions.map((e: { variables: unknown }) => e.variables)).toEqual([
      { who: 'Sam' },
      { who: 'Ann' },
    ]);
    const executions = await s.call(
      'GET',
      `/api/v1/workspaces/${report.workspace.id}/executions?limit=100`,
    );
    expect(executions.body.data.executions).toHaveLength(5);

    expect(await cli(['suite', 'run', '--dir', dir, '--scenario', 'nope'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('The suite defines no scenario nope'),
    });
  });
});
