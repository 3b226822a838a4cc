import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/events.js';
import { startLocalServer, type LocalServer } from '../helpers/http-agents.js';
import { startServer, type TestServer } from '../helpers/server.js';

describe('tools.called: analytics screens hear of calls, a few events for many calls', () => {
  let s: TestServer;
  let target: LocalServer;

  beforeAll(async () => {
    target = await startLocalServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    s = await startServer();
  });
  afterAll(async () => {
    await s.stop();
    await target.stop();
  });

  it('names each tool called, coalescing a burst into one or two events', async () => {
    const create = async (name: string) =>
      (
        await s.call('POST', '/v1/tools', {
          name,
          type: 'api',
          config: { url: `${target.url}/${name}` },
        })
      ).body.id as string;
    const [first, second, idle] = [
      await create('first'),
      await create('second'),
      await create('idle'),
    ];
    const heard: EngineEvent[] = [];
    const off = s.engine.events.subscribe((e) => e.type === 'tools.called' && heard.push(e));
    try {
      for (let i = 0; i < 10; i++) {
        expect((await s.call('POST', `/v1/tools/${first}/test`, {})).body.success).toBe(true);
        await s.call('POST', `/v1/tools/${second}/test`, {});
      }
      await expect.poll(() => heard.length, { timeout: 2000 }).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 400)); // the last quarter second's event
      const named = heard.flatMap((e) => (e.type === 'tools.called' ? e.data.toolIds : []));
      expect(new Set(named)).toEqual(new Set([first, second]));
      expect(named).not.toContain(idle);
      // 20 calls, a few events: each one names a tool once.
      expect(heard.length).toBeLessThan(20);
      for (const e of heard)
        if (e.type === 'tools.called')
          expect(new Set(e.data.toolIds).size).toBe(e.data.toolIds.length);
    } finally {
      off();
    }
  });
});
