import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/json.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { buildFixture, SECRETS, type Fixture } from './suite-fixture.js';

/*
 * A suite's round trip (#38): a workspace with every kind and every field set is exported, applied
 * into a fresh engine (nothing there: tools, alerts and the http agent are created by the apply),
 * and exported again byte for byte. The secret values come from the apply's `secrets` alone.
 */

interface SuiteFile {
  path: string;
  content: string;
}

/** Each placeholder name of the export with its value, by the field it names. */
function secretValues(files: SuiteFile[]): Record<string, string> {
  const manifest = files.find((f) => f.path === 'callbench.yaml')!.content;
  const names = [...manifest.matchAll(/^ {2}- ([A-Z0-9_]+)$/gm)].map((m) => m[1]!);
  const bySuffix: [RegExp, string][] = [
    [/^AGENT_.*_API_KEY$/, SECRETS.agentKey],
    [/_AUTH_TOKEN$/, SECRETS.bearer],
    [/_HEADERS_X_API_TOKEN$/, SECRETS.header],
    [/_AUTH_KEY$/, SECRETS.apiKey],
    [/_AUTH_CLIENT_SECRET$/, SECRETS.clientSecret],
    [/_AUTH_PASSWORD$/, SECRETS.password],
    [/_CONNECTION$/, SECRETS.connection],
    [/_WEBHOOK_SECRET$/, SECRETS.webhook],
    [/_SLACK_WEBHOOK_URL$/, SECRETS.slack],
  ];
  const values: Record<string, string> = {};
  for (const name of names) {
    const match = bySuffix.find(([pattern]) => pattern.test(name));
    if (!match) throw new Error(`no value for ${name}`);
    values[name] = match[1];
  }
  return values;
}

describe('suite apply: round trip', () => {
  let a: TestServer;
  let b: TestServer;
  let fixture: Fixture;

  beforeEach(async () => {
    a = await startServer();
    b = await startServer();
    fixture = await buildFixture(a);
  });
  afterEach(async () => {
    await fixture.stop();
    await a.stop();
    await b.stop();
  });

  it('export, apply into an empty engine, export again: byte-identical files', async () => {
    const exported = await a.ws('POST', '/suite/export', {});
    expect(exported.status).toBe(200);
    const files = exported.body.data.files as SuiteFile[];
    const secrets = secretValues(files);
    // Every kind is in the suite, with cases in a CSV beside their scenario.
    for (const dir of ['personas', 'scorecards', 'scenarios', 'schedules', 'tools', 'alerts'])
      expect(files.some((f) => f.path.startsWith(`${dir}/`))).toBe(true);
    expect(files.some((f) => f.path.endsWith('.cases.csv'))).toBe(true);

    const applied = await b.ws('POST', '/suite/apply', { files, secrets });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const plan = applied.body.data.plan;
    expect(plan.valid).toBe(true);
    expect(plan.entries.filter((e: Json) => e.action !== 'create').map((e: Json) => e.key)).toEqual(
      [
        // The workspace's default scorecard is there already (made with the workspace).
        'default-scorecard',
      ],
    );
    expect(plan.entries.map((e: Json) => e.kind)).toContain('agent');

    const again = await b.ws('POST', '/suite/export', {});
    expect(again.status).toBe(200);
    const byPath = (list: SuiteFile[]) => Object.fromEntries(list.map((f) => [f.path, f.content]));
    expect(byPath(again.body.data.files as SuiteFile[])).toEqual(byPath(files));
    expect(again.body.data.files).toEqual(files);

    // The workspace is named after the suite; a second plan changes nothing.
    const replan = await b.ws('POST', '/suite/plan', { files, secrets });
    expect(replan.body.data.plan.problems).toEqual([]);
    expect(replan.body.data.plan.entries.filter((e: Json) => e.action !== 'unchanged')).toEqual([]);
  });

  it('keeps the stored secrets when the placeholders get no value, and names a changed one', async () => {
    const files = (await a.ws('POST', '/suite/export', {})).body.data.files as SuiteFile[];
    const secrets = secretValues(files);
    const same = await a.ws('POST', '/suite/plan', { files, secrets });
    expect(same.body.data.plan.entries.filter((e: Json) => e.action !== 'unchanged')).toEqual([]);
    const none = await a.ws('POST', '/suite/plan', { files });
    expect(none.body.data.plan.valid).toBe(true);
    expect(none.body.data.plan.entries.filter((e: Json) => e.action !== 'unchanged')).toEqual([]);

    // Another field changed with no secret values: the stored secrets stay as they were.
    const edited = files.map((f) =>
      f.path === 'tools/ord-lookup.yaml'
        ? { ...f, content: f.content.replace('Looks up an order', 'Finds an order') }
        : f,
    );
    const kept = await a.ws('POST', '/suite/apply', { files: edited });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.data.plan.entries.filter((e: Json) => e.action !== 'unchanged')).toEqual([
      expect.objectContaining({ key: 'ord-lookup', action: 'update', changes: ['description'] }),
    ]);
    const keptTool = await a.call('GET', `/v1/tools/${fixture.ids.ord_lookup}`);
    expect(keptTool.body.description).toBe('Finds an order');
    expect(keptTool.body.config.auth.token).toMatch(/1111$/);
    expect(keptTool.body.config.headers['X-Api-Token']).toMatch(/2222$/);
    // Decisive: the stored values equal the real ones (a plan compares them in clear).
    const check = await a.ws('POST', '/suite/plan', { files: edited, secrets });
    expect(check.body.data.plan.entries.filter((e: Json) => e.action !== 'unchanged')).toEqual([]);

    const name = Object.keys(secrets).find((n) => n.endsWith('_AUTH_TOKEN'))!;
    const changed = await a.ws('POST', '/suite/apply', {
      files: edited,
      secrets: { ...secrets, [name]: 'a-new-token-value' },
    });
    expect(changed.status).toBe(200);
    const updates = changed.body.data.plan.entries.filter((e: Json) => e.action !== 'unchanged');
    expect(updates).toEqual([
      expect.objectContaining({
        kind: 'tool',
        key: 'ord-lookup',
        action: 'update',
        changes: ['config.auth.token'],
      }),
    ]);
    // The new value is stored (masked in answers); the plan never holds a value.
    const tool = await a.call('GET', `/v1/tools/${fixture.ids.ord_lookup}`);
    expect(tool.body.config.auth.token).toMatch(/alue$/);
    expect(JSON.stringify(changed.body)).not.toContain('a-new-token-value');
  });
});
