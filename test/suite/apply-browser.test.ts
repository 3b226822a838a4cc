import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';

/*
 * A suite's files reach the plan and apply over 1 MiB (#38): on their HTTP routes and on the
 * browser interface's operation route alike, up to 32 MiB; every other operation keeps 1 MiB.
 */
describe('suite plan: large bodies in browser mode', () => {
  let s: TestServer;
  beforeEach(async () => {
    const rendererDir = tempDir();
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Callbench</title>');
    s = await startServer({ ui: { rendererDir } });
  });
  afterEach(() => s.stop());

  async function session(): Promise<string> {
    const made = await s.call('POST', '/v1/login-links');
    const res = await fetch(made.body.url as string, { redirect: 'manual' });
    return res.headers.get('set-cookie')!.split(';')[0]!;
  }

  it('takes a 3 MiB suite on /v1/operations/suite.plan, and still 1 MiB elsewhere', async () => {
    const cookie = await session();
    const persona = (k: string) => ({
      path: `personas/${k}.yaml`,
      content: `key: ${k}\nname: ${k}\nprompt: ${'y'.repeat(1_000_000)}\n`,
    });
    const files = [
      { path: 'callbench.yaml', content: 'name: Big\n' },
      ...['a', 'b', 'c'].map(persona),
    ];
    const post = (name: string, body: unknown) =>
      fetch(`${s.url}/v1/operations/${name}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const plan = await post('suite.plan', { workspace_id: s.workspaceId, files });
    expect(plan.status).toBe(200);
    const { data } = (await plan.json()) as { data: { plan: { problems: { field: string }[] } } };
    // Each prompt is past the persona's 20,000 characters: read, and refused by field.
    expect(data.plan.problems.map((p) => p.field)).toEqual(['prompt', 'prompt', 'prompt']);
    const other = await post('personas.create', {
      workspace_id: s.workspaceId,
      name: 'x',
      prompt: 'z'.repeat(2 * 1024 * 1024),
    });
    expect(other.status).toBe(413);
    expect(((await other.json()) as { error: { message: string } }).error.message).toContain(
      '1 MiB',
    );
  });
});
