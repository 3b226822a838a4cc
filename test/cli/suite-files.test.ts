import { XMLParser } from 'fast-xml-parser';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { junitReport } from '../../src/cli/junit.js';
import { countsLine, entryLine, planLines, problemLine } from '../../src/cli/suite-report.js';
import {
  manifestOf,
  parseSecretsFile,
  readSuite,
  secretNames,
  secretValues,
  writeSuite,
} from '../../src/cli/suite-files.js';
import { tempDir } from '../helpers/server.js';

const manifest = (body: string) => ({ path: 'callbench.yaml', content: body });

describe('suite files on disk', () => {
  it('reads callbench.yaml and the YAML and CSV files of the resource folders only', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'callbench.yaml'), 'name: Support\n');
    mkdirSync(join(dir, 'personas'));
    mkdirSync(join(dir, 'scenarios'));
    mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, 'personas', 'frank.yaml'), 'key: frank\n');
    writeFileSync(join(dir, 'personas', 'README.md'), 'mine\n');
    writeFileSync(join(dir, 'scenarios', 'refund.cases.csv'), 'who\nSam\n');
    writeFileSync(join(dir, 'notes', 'x.yaml'), 'key: x\n');
    expect(readSuite(dir)).toEqual([
      { path: 'callbench.yaml', content: 'name: Support\n' },
      { path: 'personas/frank.yaml', content: 'key: frank\n' },
      { path: 'scenarios/refund.cases.csv', content: 'who\nSam\n' },
    ]);
    expect(() => readSuite(join(dir, 'personas'))).toThrow(/No callbench.yaml/);
    expect(() => readSuite(join(dir, 'nowhere'))).toThrow(/No suite folder/);
  });

  it('export writes its files and removes the suite files it did not write, nothing else', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'personas'));
    mkdirSync(join(dir, '.callbench', 'schemas'), { recursive: true });
    for (const [path, content] of [
      ['personas/gone.yaml', 'key: gone\n'],
      ['personas/keep.yaml', 'key: keep\n'],
      ['personas/notes.md', 'mine\n'],
      ['.callbench/schemas/old.json', '{}'],
      ['README.md', 'mine\n'],
      ['other.yaml', 'mine\n'],
    ])
      writeFileSync(join(dir, path!), content!);
    const { written, removed } = writeSuite(dir, [
      manifest('name: Support\n'),
      { path: 'personas/keep.yaml', content: 'key: keep\n' },
      { path: 'scenarios/refund.yaml', content: 'key: refund\n' },
      { path: '.callbench/schemas/persona.json', content: '{}\n' },
    ]);
    expect(written).toEqual([
      'callbench.yaml',
      'scenarios/refund.yaml',
      '.callbench/schemas/persona.json',
    ]);
    expect(removed.sort()).toEqual(['.callbench/schemas/old.json', 'personas/gone.yaml']);
    expect(readdirSync(join(dir, 'personas')).sort()).toEqual(['keep.yaml', 'notes.md']);
    expect(existsSync(join(dir, 'README.md')) && existsSync(join(dir, 'other.yaml'))).toBe(true);
    expect(readFileSync(join(dir, 'scenarios', 'refund.yaml'), 'utf8')).toBe('key: refund\n');
  });

  it('refuses an exported path outside a suite, writing nothing', () => {
    const dir = tempDir();
    for (const path of ['../escape.yaml', 'personas/../../x.yaml', '/etc/x.yaml', 'bin/x.yaml'])
      expect(() => writeSuite(dir, [manifest('name: x\n'), { path, content: '' }])).toThrow(
        /outside a suite/,
      );
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('suite secrets', () => {
  const files = [
    manifest('name: Support\nsecrets:\n  - TOOL_ORD_LOOKUP_AUTH_TOKEN\n'),
    { path: 'alerts/a.yaml', content: 'secret: ${secret:ALERT_A_WEBHOOK_SECRET}\n' },
    { path: 'tools/t.yaml', content: 'token: ${secret:CALLBENCH_API_KEY}\n' },
  ];

  it('reads NAME=value lines, skipping comments and blank lines, unquoting values', () => {
    const values = parseSecretsFile(
      '# tokens\n\nA=1\nB = two words \nC="quoted # value"\nD=\'x=y\'\nE=\n',
      's.env',
    );
    expect(Object.fromEntries(values)).toEqual({
      A: '1',
      B: 'two words',
      C: 'quoted # value',
      D: 'x=y',
      E: '',
    });
    expect(() => parseSecretsFile('A=1\nnot a line\n', 's.env')).toThrow(
      's.env:2: expected NAME=value',
    );
  });

  it("names what the manifest lists and the files use; the manifest's name", () => {
    expect(secretNames(files)).toEqual([
      'ALERT_A_WEBHOOK_SECRET',
      'CALLBENCH_API_KEY',
      'TOOL_ORD_LOOKUP_AUTH_TOKEN',
    ]);
    expect(manifestOf(files).name).toBe('Support');
    expect(manifestOf([manifest('name: [unclosed\n')]).name).toBeNull();
  });

  it('takes the environment, only the names used and never a CALLBENCH_ one', () => {
    const env = {
      TOOL_ORD_LOOKUP_AUTH_TOKEN: 't0k',
      CALLBENCH_API_KEY: 'cb_key',
      UNRELATED: 'u',
    };
    expect(secretValues(files, undefined, env)).toEqual({ TOOL_ORD_LOOKUP_AUTH_TOKEN: 't0k' });
  });

  it('takes the secrets file instead of the environment when one is given', () => {
    const file = join(tempDir(), 'secrets.env');
    writeFileSync(file, 'ALERT_A_WEBHOOK_SECRET=whsec\nUNUSED=u\n');
    expect(secretValues(files, file, { TOOL_ORD_LOOKUP_AUTH_TOKEN: 't0k' })).toEqual({
      ALERT_A_WEBHOOK_SECRET: 'whsec',
    });
    expect(() => secretValues(files, join(tempDir(), 'none.env'))).toThrow(/ENOENT/);
  });
});

describe('suite plan output', () => {
  const plan = {
    valid: false,
    entries: [
      {
        kind: 'persona',
        key: 'frank',
        name: 'Frank',
        file: 'personas/frank.yaml',
        action: 'update',
        changes: ['prompt', 'voice.id'],
      },
      {
        kind: 'persona',
        key: 'ann',
        name: 'Ann',
        file: 'personas/ann.yaml',
        action: 'unchanged',
        changes: [],
      },
      {
        kind: 'tool',
        key: 'lookup',
        name: 'lookup',
        file: 'tools/lookup.yaml',
        action: 'create',
        changes: [],
      },
      { kind: 'scenario', key: 'old', name: 'Old', file: '', action: 'delete', changes: [] },
    ],
    problems: [
      {
        file: 'tools/lookup.yaml',
        line: 7,
        column: 14,
        field: 'config.auth.token',
        message: 'A secret in clear',
      },
      { file: 'personas/bad.yaml', line: 1, column: 1, field: '', message: 'Not YAML' },
    ],
  } as Parameters<typeof planLines>[1];

  it('prints each entry that changes something, then each problem at its position', () => {
    expect(planLines('./callbench', plan)).toEqual([
      'update persona frank: prompt, voice.id',
      'create tool lookup',
      'delete scenario old',
      'callbench/tools/lookup.yaml:7:14: config.auth.token: A secret in clear',
      'callbench/personas/bad.yaml:1:1: Not YAML',
    ]);
    expect(countsLine(plan.entries)).toBe('1 to create, 1 to update, 1 to delete, 1 unchanged');
    expect(entryLine({ ...plan.entries[0]!, changes: [] })).toBe('update persona frank');
    expect(problemLine('/abs/suite', plan.problems[0]!)).toMatch(/^\/abs\/suite\/tools\//);
  });
});

describe('suite JUnit', () => {
  it('writes one <testsuite> per scenario with the counts summed on <testsuites>', () => {
    const suite = (scenario: string, failures: string[][]) => ({
      scenario,
      timestamp: '2026-06-10T12:00:00.000Z',
      hostname: 'ci',
      cases: failures.map((f, i) => ({ name: `Frank x Sam #${i + 1}`, seconds: 1, failures: f })),
    });
    const xml = junitReport('Suite Support', [
      suite('Polite goodbye', [[], []]),
      suite('Refund', [['Script expectations: no refund']]),
    ]);
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      parseAttributeValue: false,
      isArray: (name) => name === 'testsuite' || name === 'testcase',
    }).parse(xml) as {
      testsuites: Record<string, string> & { testsuite: Record<string, unknown>[] };
    };
    expect(doc.testsuites).toMatchObject({ name: 'Suite Support', tests: '3', failures: '1' });
    expect(doc.testsuites.testsuite.map((s) => [s.name, s.tests, s.failures])).toEqual([
      ['Polite goodbye', '2', '0'],
      ['Refund', '1', '1'],
    ]);
  });
});
