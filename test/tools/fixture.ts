import type { Json } from '../helpers/json.js';
import { afterAll, beforeAll, expect } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { startTarget, type Target } from '../helpers/target.js';

/** A real engine and a real target server for a describe block, with the two calls tool tests make. */
export function toolFixture() {
  const f = {} as {
    s: TestServer;
    t: Target;
    create(this: void, tool: Record<string, unknown>): Promise<Json>;
    test(this: void, name: string, body?: Record<string, unknown>): ReturnType<TestServer['call']>;
  };
  beforeAll(async () => {
    [f.s, f.t] = await Promise.all([startServer({ toolRetryBaseMs: 5 }), startTarget()]);
  });
  afterAll(async () => {
    await f.s.stop();
    await f.t.stop();
  });
  f.create = async (tool) => {
    const res = await f.s.call('POST', '/v1/tools', tool);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  f.test = (name, body = {}) => f.s.call('POST', `/v1/tools/${name}/test`, body);
  return f;
}
