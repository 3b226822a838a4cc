import { beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';
import type { Target } from '../helpers/target.js';
import { toolFixture } from './fixture.js';

const TOKEN = 'bearer-secret-7f3a9c';
const KEY = 'header-key-secret-41be';

describe('every tool secret is masked', () => {
  const f = toolFixture();
  let s: TestServer;
  let t: Target;
  beforeAll(() => {
    ({ s, t } = f);
  });
  const stored = async () => {
    await s.engine.store.toolCalls.flush(); // the call log is written in batches
    return JSON.stringify(
      await storedRows(
        s.stored,
        "SELECT definition FROM tools UNION ALL SELECT definition FROM tool_versions UNION ALL SELECT coalesce(error_message, '') || coalesce(result, '') || coalesce(parameters, '') FROM tool_calls",
      ),
    );
  };

  it('headers named like credentials are sealed at rest and masked; others stay readable', async () => {
    const created = await f.create({
      name: 'keyed',
      type: 'api',
      config: {
        url: `${t.url}/echo`,
        headers: { 'X-Api-Key': KEY, 'X-Session-Token': 'session-secret-99', 'X-Trace': 'trace-1' },
      },
      logPayloads: true,
    });
    expect(created.config.headers).toEqual({
      'X-Api-Key': '****41be',
      'X-Session-Token': '****t-99',
      'X-Trace': 'trace-1',
    });
    const answer = (await f.test('keyed')).body;
    expect(answer.success).toBe(true);
    // The target got the real header; neither the answer nor the call log holds it.
    expect(JSON.stringify(answer)).not.toContain(KEY);
    expect(answer.result.headers['x-api-key']).toBe('****');
    expect(await stored()).not.toContain(KEY);
    expect(await stored()).not.toContain('session-secret-99');
    expect(await stored()).toContain('trace-1');
  });

  it('a secret the target echoes in an error is taken out of the answer and the call log', async () => {
    await f.create({
      name: 'reflected',
      type: 'api',
      config: { url: `${t.url}/reflect-401`, auth: { type: 'bearer', token: TOKEN } },
    });
    const answer = (await f.test('reflected')).body;
    expect(answer).toMatchObject({ success: false, error: { type: 'auth_error' } });
    expect(answer.error.message).toContain('denied');
    expect(JSON.stringify(answer)).not.toContain(TOKEN);
    expect(await stored()).toContain('denied');
    expect(await stored()).not.toContain(TOKEN);
  });

  it.each([
    [
      'postgres://app@127.0.0.1:5432/crm?password=pw-secret-1&sslmode=disable',
      'postgres://app@127.0.0.1:5432/crm?password=****&sslmode=disable',
    ],
    [
      'postgres://app:pw-secret-2@127.0.0.1/crm?sslpassword=pw-secret-3',
      'postgres://app:****@127.0.0.1/crm?sslpassword=****',
    ],
    [
      "host=127.0.0.1 user=app password='pw secret 4' dbname=crm",
      'host=127.0.0.1 user=app password=**** dbname=crm',
    ],
  ])(
    'a PostgreSQL connection string is masked wherever its password is: %s',
    async (connection, masked) => {
      const name = `pg_${Math.random().toString(36).slice(2, 8)}`;
      const created = await f.create({
        name,
        type: 'database',
        config: { driver: 'postgres', connection, query: 'SELECT 1' },
      });
      expect(created.config.connection).toBe(masked);
      expect((await f.test(name, { dryRun: true })).body.request.connection).toBe(masked);
      expect(await stored()).not.toMatch(/pw.secret/);
    },
  );
});
