import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/json.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * What bad input gets (#38): every problem of a suite listed at once, each with its file, the
 * 1-based line and column of the offending node and the field's dotted path; the plan answers them
 * (valid: false), the apply answers 400 suite_invalid with them as details, and nothing is written.
 * What only a write finds (an invalid cron in the last file) rolls the whole apply back.
 */

const manifest = (more = '') => ({
  path: 'callbench.yaml',
  content: `$schema: .callbench/schemas/suite.json\nname: Checkout suite\nagents: []\n${more}`,
});
const file = (path: string, lines: string[]) => ({ path, content: `${lines.join('\n')}\n` });

const BAD_SUITE = [
  manifest(),
  file('personas/anna.yaml', ['key: anna', 'name: Anna', 'prompt: [unclosed']),
  file('personas/bob.yaml', ['key: bob', 'name: Bob', 'prompt: Hi', 'mood: grumpy']),
  file('personas/bob-again.yaml', ['key: bob', 'name: Bob again', 'prompt: Hello']),
  file('scenarios/late.yaml', [
    'key: late',
    'name: Late order',
    'prompt: Ask about {{order_id}}.',
    'promptVariables:',
    '  - name: order_id',
    'personas:',
    '  - bob',
    '  - nobody',
    'cases: late.cases.csv',
  ]),
  file('scenarios/late.cases.csv', ['order_id,colour', '1,red']),
  file('scenarios/early.yaml', [
    'key: early',
    'name: Early order',
    'prompt: Ask about {{order_id}}.',
    'promptVariables: [{name: order_id}]',
    'cases: early.cases.csv',
  ]),
  file('scenarios/early.cases.csv', ['order_id', '7', 'x"y']),
  file('tools/lookup.yaml', [
    'key: lookup',
    'name: lookup_tool',
    'type: api',
    'description: ${secret:DESC}',
    'config:',
    '  url: https://crm.example.com/x',
    '  headers:',
    '    X-Api-Key: plain-secret-value',
    '  auth:',
    '    type: bearer',
    '    token: ${secret:TOOL_LOOKUP_AUTH_TOKEN}',
  ]),
  file('tools/reserved.yaml', [
    'key: reserved',
    'name: reserved_tool',
    'type: api',
    'config:',
    '  url: https://crm.example.com/y',
    '  auth:',
    '    type: bearer',
    '    token: ${secret:CALLBENCH_API_KEY}',
  ]),
];

const problem = (file: string, line: number, column: number, field: string, message: RegExp) => ({
  file,
  line,
  column,
  field,
  message: expect.stringMatching(message),
});

describe('suite plan and apply: bad input', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await startServer();
  });
  afterEach(() => s.stop());

  const counts = async () => ({
    personas: (await s.ws('GET', '/personas')).body.data.pagination.total,
    scenarios: (await s.ws('GET', '/scenarios')).body.data.pagination.total,
    schedules: (await s.ws('GET', '/schedules')).body.data.pagination.total,
    tools: (await s.call('GET', '/v1/tools')).body.tools.length,
  });

  it('lists every problem at once with file, line, column and field, and writes nothing', async () => {
    const before = await counts();
    const body = { files: BAD_SUITE, secrets: { CALLBENCH_API_KEY: 'given-anyway' } };
    const expected = [
      problem('personas/anna.yaml', 3, 17, '', /^malformed YAML/),
      problem('personas/bob-again.yaml', 1, 6, 'key', /also defined by personas\/bob\.yaml/),
      problem('personas/bob.yaml', 1, 6, 'key', /also defined by personas\/bob-again\.yaml/),
      problem('personas/bob.yaml', 4, 1, 'mood', /is not a field/),
      problem('scenarios/early.cases.csv', 3, 2, '', /must be quoted/),
      problem('scenarios/late.cases.csv', 1, 10, 'colour', /colour is not a variable/),
      problem('scenarios/late.yaml', 8, 5, 'personas[1]', /no persona has the key 'nobody'/),
      problem('tools/lookup.yaml', 4, 14, 'description', /only in a secret field/),
      problem('tools/lookup.yaml', 8, 16, 'config.headers.X-Api-Key', /secret in clear/),
      problem(
        'tools/lookup.yaml',
        11,
        12,
        'config.auth.token',
        /no value for the secret TOOL_LOOKUP_AUTH_TOKEN/,
      ),
      problem('tools/reserved.yaml', 8, 12, 'config.auth.token', /CALLBENCH_/),
    ];

    const plan = await s.ws('POST', '/suite/plan', body);
    expect(plan.status).toBe(200);
    expect(plan.body.data.plan.valid).toBe(false);
    expect(plan.body.data.plan.problems).toEqual(expected);

    const apply = await s.ws('POST', '/suite/apply', body);
    expect(apply.status).toBe(400);
    expect(apply.body.error.code).toBe('suite_invalid');
    expect(apply.body.error.details).toEqual(expected);
    expect(await counts()).toEqual(before);
  });

  it('rolls everything back when only the write finds a problem in the last file', async () => {
    const before = await counts();
    const files = [
      manifest(),
      file('personas/anna.yaml', ['key: anna', 'name: Anna', 'prompt: Call about an order.']),
      file('scenarios/late.yaml', [
        'key: late',
        'name: Late order',
        'prompt: Ask.',
        'personas: [anna]',
      ]),
      file('schedules/nightly.yaml', [
        'key: nightly',
        'name: Nightly',
        'scenarioId: late',
        'periodicity: every other tuesday',
      ]),
    ];
    const plan = await s.ws('POST', '/suite/plan', { files });
    expect(plan.body.data.plan.valid).toBe(true);
    const apply = await s.ws('POST', '/suite/apply', { files });
    expect(apply.status).toBe(400);
    expect(apply.body.error.code).toBe('suite_invalid');
    expect(apply.body.error.details).toEqual([
      problem('schedules/nightly.yaml', 4, 14, 'periodicity', /./),
    ]);
    expect(await counts()).toEqual(before);
    // The workspace keeps its name: nothing of the suite landed.
    const ws = (await s.call('GET', '/api/v1/workspaces')).body.data.workspaces[0];
    expect(ws.name).not.toBe('Checkout suite');
  });

  it('never reads a placeholder from the engine environment', async () => {
    process.env.SUITE_TEST_TOKEN = 'from-the-environment';
    try {
      const files = [
        manifest(),
        file('tools/env.yaml', [
          'key: env',
          'name: env_tool',
          'type: api',
          'config:',
          '  url: https://crm.example.com/env',
          '  auth:',
          '    type: bearer',
          '    token: ${secret:SUITE_TEST_TOKEN}',
        ]),
      ];
      const apply = await s.ws('POST', '/suite/apply', { files });
      expect(apply.status).toBe(400);
      expect(apply.body.error.details).toEqual([
        problem(
          'tools/env.yaml',
          8,
          12,
          'config.auth.token',
          /no value for the secret SUITE_TEST_TOKEN/,
        ),
      ]);
      const ok = await s.ws('POST', '/suite/apply', {
        files,
        secrets: { SUITE_TEST_TOKEN: 'given-in-the-body' },
      });
      expect(ok.status).toBe(200);
      const tools = (await s.call('GET', '/v1/tools')).body.tools as Json[];
      expect(tools.find((t) => t.name === 'env_tool').config.auth.token).toMatch(/body$/);
    } finally {
      delete process.env.SUITE_TEST_TOKEN;
    }
  });

  it('names an agent that is not connected (and cannot be: not http), and an unknown agent key', async () => {
    const files = [
      file('callbench.yaml', [
        'name: Checkout suite',
        'agents:',
        '  - key: voice-bot',
        '    provider: vapi',
        '    providerAgentId: asst_123',
      ]),
      file('scenarios/late.yaml', [
        'key: late',
        'name: Late',
        'prompt: Ask.',
        'targetAgents: [voice-bot, ghost]',
      ]),
    ];
    const apply = await s.ws('POST', '/suite/apply', { files });
    expect(apply.status).toBe(400);
    expect(apply.body.error.details).toEqual([
      problem('callbench.yaml', 3, 5, 'agents[0]', /vapi agent asst_123 is not connected/),
      problem(
        'scenarios/late.yaml',
        4,
        27,
        'targetAgents[1]',
        /^no agent in callbench\.yaml has the key 'ghost'$/,
      ),
    ]);
  });

  it('refuses a suite past the limits, naming the limit', async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => file(`personas/p${i}.yaml`, ['key: x']));
    const tooMany = await s.ws('POST', '/suite/plan', { files: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details).toEqual([
      { path: 'files', message: 'must be at most 10000 items' },
    ]);
    const big = {
      path: 'personas/big.yaml',
      content: `key: big\nname: Big\nprompt: ${'x'.repeat(1024 * 1024)}\n`,
    };
    const tooBig = await s.ws('POST', '/suite/plan', { files: [manifest(), big] });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.details).toEqual([
      { path: 'files[1].content', message: expect.stringContaining('1 MiB') },
    ]);
    // A body over the server's 1 MiB is taken on these routes (here 3 files of 0.9 MiB).
    const text = (k: string) => `key: ${k}\nname: ${k}\nprompt: ${'y'.repeat(900 * 1024)}\n`;
    const large = await s.ws('POST', '/suite/plan', {
      files: [
        manifest(),
        ...['a', 'b', 'c'].map((k) => ({ path: `personas/${k}.yaml`, content: text(k) })),
      ],
    });
    expect(large.status).toBe(200);
    expect(large.body.data.plan.problems).toEqual([
      expect.objectContaining({ file: 'personas/a.yaml', field: 'prompt' }),
      expect.objectContaining({ file: 'personas/b.yaml', field: 'prompt' }),
      expect.objectContaining({ file: 'personas/c.yaml', field: 'prompt' }),
    ]);
    const huge = await s.ws('POST', '/suite/plan', {
      files: [{ path: 'x', content: 'z'.repeat(33 * 1024 * 1024) }],
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error.message).toContain('32 MiB');
  });
});
