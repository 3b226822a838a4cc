import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parse } from 'yaml';
import { readCasesCsv, writeCasesCsv } from '../../src/operations/suite/cases-csv.js';
import {
  KIND_SPECS,
  ordered,
  placeholderName,
  secretName,
} from '../../src/operations/suite/kinds.js';
import { toYaml } from '../../src/operations/suite/yaml-out.js';

/** The suite file format's pieces (#38): cases CSV, secret names, key order, YAML text. */

describe('cases CSV', () => {
  const cases: { variables: Record<string, string> }[] = [
    { variables: { order_id: '4172', note: 'plain' } },
    { variables: { order_id: 'a,b', note: 'say "hi"' } },
    { variables: { order_id: 'two\nlines', note: '' } },
    { variables: { order_id: ' padded ' } },
    { variables: {} },
  ];

  it('writes a header in the given order, LF, and quotes only where a value needs them', () => {
    expect(writeCasesCsv(['order_id', 'note'], cases)).toBe(
      'order_id,note\n4172,plain\n"a,b","say ""hi"""\n"two\nlines",""\n" padded ",\n,\n',
    );
  });

  it('reads back what it wrote: an empty cell is no value, "" an empty one', () => {
    const text = writeCasesCsv(['order_id', 'note'], cases);
    const read = readCasesCsv(text);
    expect(read.problems).toEqual([]);
    expect(read.columns.map((c) => c.name)).toEqual(['order_id', 'note']);
    expect(read.rows.map((r) => r.variables)).toEqual(cases.map((c) => c.variables));
    expect(read.rows.map((r) => r.line)).toEqual([2, 3, 4, 6, 7]);
  });

  it('keeps a one-column case that sets nothing (a blank line inside the file)', () => {
    const text = writeCasesCsv(
      ['a'],
      [{ variables: { a: 'x' } }, { variables: {} }, { variables: { a: 'y' } }],
    );
    expect(text).toBe('a\nx\n\ny\n');
    expect(readCasesCsv(text).rows.map((r) => r.variables)).toEqual([{ a: 'x' }, {}, { a: 'y' }]);
  });

  it('reads CRLF and a byte order mark', () => {
    const read = readCasesCsv('\ufeffa,b\r\n1,2\r\n');
    expect(read.problems).toEqual([]);
    expect(read.rows.map((r) => r.variables)).toEqual([{ a: '1', b: '2' }]);
  });

  it('lists every problem with its line and column', () => {
    const read = readCasesCsv('a,a,\n1,2,3\n1,2\nx,"bad"y,3\n"open,1,2\n');
    expect(read.problems).toEqual([
      { line: 1, column: 3, message: 'column a appears twice' },
      { line: 1, column: 5, message: 'a column has no name' },
      { line: 3, column: 1, message: 'the row has 2 values for 3 columns' },
      { line: 4, column: 8, message: 'a quoted value must end at a comma or line end' },
      { line: 5, column: 1, message: 'a quoted value is not closed' },
      { line: 5, column: 1, message: 'the row has 1 values for 3 columns' },
    ]);
    expect(readCasesCsv('').problems).toEqual([
      { line: 1, column: 1, message: 'the file has no header of variable names' },
    ]);
    expect(readCasesCsv('a\nx"y\n').problems).toEqual([
      { line: 2, column: 2, message: 'a value with " must be quoted' },
    ]);
  });
});

describe('secret placeholders', () => {
  it('names a secret by kind, key and field', () => {
    expect(secretName('tool', 'ord-lookup', 'config.auth.token')).toBe(
      'TOOL_ORD_LOOKUP_AUTH_TOKEN',
    );
    expect(secretName('tool', 'crm', 'config.auth.clientSecret')).toBe(
      'TOOL_CRM_AUTH_CLIENT_SECRET',
    );
    expect(secretName('tool', 'crm', 'config.headers.X-Api-Key')).toBe(
      'TOOL_CRM_HEADERS_X_API_KEY',
    );
    expect(secretName('alert', 'down', 'notifications.slack.webhookUrl')).toBe(
      'ALERT_DOWN_SLACK_WEBHOOK_URL',
    );
    expect(secretName('agent', 'order-bot', 'apiKey')).toBe('AGENT_ORDER_BOT_API_KEY');
    expect(placeholderName('${secret:TOOL_A_AUTH_TOKEN}')).toBe('TOOL_A_AUTH_TOKEN');
    expect(placeholderName('x ${secret:A}')).toBeNull();
  });

  it('finds the secret fields of a tool file and of an alert file', () => {
    expect(
      KIND_SPECS.tool.secretPaths({
        type: 'api',
        config: {
          url: 'https://x',
          auth: { type: 'bearer', token: 't' },
          headers: { Authorization: 'a', 'X-Team': 'qa', 'X-Session-Id': 's' },
        },
      }),
    ).toEqual(['config.auth.token', 'config.headers.Authorization', 'config.headers.X-Session-Id']);
    expect(
      KIND_SPECS.tool.secretPaths({
        type: 'database',
        config: { driver: 'sqlite', connection: 'c' },
      }),
    ).toEqual(['config.connection']);
    expect(
      KIND_SPECS.alert.secretPaths({
        notifications: { slack: { channel: '#a', webhookUrl: 'u' }, webhook: { url: 'https://x' } },
      }),
    ).toEqual(['notifications.slack.webhookUrl']);
  });
});

describe('key order and YAML text', () => {
  const Inner = z.strictObject({ b: z.number(), a: z.number().optional() });
  const Outer = z.strictObject({
    z: z.string(),
    inner: Inner.nullable(),
    list: z.array(Inner),
    map: z.record(z.string(), Inner),
    choice: z.discriminatedUnion('t', [
      z.strictObject({ t: z.literal('x'), q: z.number(), p: z.number() }),
      z.strictObject({ t: z.literal('y'), s: z.string() }),
    ]),
    free: z.unknown(),
  });

  it('orders keys by the schema at every depth, drops fields it does not name, sorts records', () => {
    const value = {
      extra: 1,
      free: { k: [{ d: 1, c: 2 }], b: 0 },
      choice: { p: 1, q: 2, t: 'x' },
      map: { y: { a: 1, b: 2 }, x: { b: 3 } },
      list: [{ a: 1, b: 2 }],
      inner: null,
      z: 'z',
      undefinedField: undefined,
    };
    const out = ordered(Outer, value);
    expect(JSON.stringify(out)).toBe(
      '{"z":"z","inner":null,"list":[{"b":2,"a":1}],"map":{"x":{"b":3},"y":{"b":2,"a":1}},' +
        '"choice":{"t":"x","q":2,"p":1},"free":{"b":0,"k":[{"c":2,"d":1}]}}',
    );
  });

  it('writes YAML 1.2 with LF, a final newline, block texts and quoted look-alikes', () => {
    const text = toYaml({ a: 'two\nlines', b: '123', c: true, d: null, e: [], f: 'yes' });
    expect(text).toBe('a: |-\n  two\n  lines\nb: "123"\nc: true\nd: null\ne: []\nf: yes\n');
    expect(parse(text)).toEqual({ a: 'two\nlines', b: '123', c: true, d: null, e: [], f: 'yes' });
  });
});

describe('file schemas', () => {
  it('refuse unknown fields at every depth and check a tool config by its type', () => {
    const persona = KIND_SPECS.persona.fileSchema.safeParse({
      key: 'p',
      name: 'P',
      prompt: 'x',
      voice: { engine: 'system', pitch: 2 },
      colour: 'red',
    });
    expect(persona.error?.issues.map((i) => [i.path.join('.'), i.code])).toEqual([
      ['voice', 'unrecognized_keys'],
      ['', 'unrecognized_keys'],
    ]);
    const tool = KIND_SPECS.tool.fileSchema.safeParse({
      key: 't',
      name: 't',
      type: 'api',
      config: { url: 'https://x', auth: { type: 'bearer' } },
    });
    expect(tool.error?.issues.map((i) => i.path.join('.'))).toEqual(['config.auth.token']);
    expect(
      KIND_SPECS.scenario.fileSchema.safeParse({ key: 'Bad Key', name: 's', prompt: 'p' }).success,
    ).toBe(false);
  });
});
