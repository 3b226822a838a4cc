import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolCallRecord } from '../../src/tools/types.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { onPostgres } from '../helpers/store-under-test.js';

/**
 * The store's read cache around the call log: a flush of logged calls keeps the tool every call
 * looks up (the same answer, not read again), while a change to the tool, here or in another
 * connection, is read at once. On PostgreSQL nothing is cached: every lookup reads afresh.
 */
describe('read cache in the store: the call log keeps tool lookups', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
    await s.call('POST', '/v1/tools', {
      name: 'lookup',
      type: 'api',
      config: { url: 'http://127.0.0.1:1/x' },
    });
  });
  afterAll(() => s.stop());

  const logged = (toolId: string): ToolCallRecord => ({
    toolId,
    toolName: 'lookup',
    agentId: null,
    source: 'test',
    startedMs: Date.now(),
    durationMs: 5,
    outcome: 'success',
    statusCode: 200,
    attempts: 1,
    errorMessage: null,
    parameters: null,
    result: null,
  });
  /** Looked up twice: kept from the second lookup on (where there is a cache). */
  const lookedUp = async () => {
    await s.engine.store.tools.find('lookup');
    return (await s.engine.store.tools.find('lookup'))!;
  };

  it('keeps the tool across a flush of the call log, and reads a change to it at once', async () => {
    const tool = await lookedUp();
    await s.engine.store.toolCalls.insert(logged(tool.id));
    await s.engine.store.toolCalls.flush();
    const afterFlush = await s.engine.store.tools.find('lookup');
    if (onPostgres()) expect(afterFlush).toEqual(tool);
    else expect(afterFlush).toBe(tool);

    const changed = await s.call('PUT', `/v1/tools/${tool.id}`, {
      name: 'lookup',
      type: 'api',
      config: { url: 'http://127.0.0.1:1/x' },
      description: 'changed after the flush',
    });
    expect(changed.status).toBe(200);
    const afterChange = await s.engine.store.tools.find('lookup');
    expect(afterChange!.definition.description).toBe('changed after the flush');
    expect(afterChange!.version).toBe(tool.version + 1);
  });

  it('reads the tool afresh when another connection writes the call log', async () => {
    if (onPostgres()) return; // one database, no per-connection cache: nothing to drop
    const tool = await lookedUp();
    const theirs = new Database(join(s.dataDir, 'callbench.db'));
    try {
      theirs
        .prepare(
          `INSERT INTO tool_calls (tool_id, tool_name, source, started_ms, duration_ms, outcome, attempts)
           VALUES (?, 'lookup', 'test', 0, 1, 'success', 1)`,
        )
        .run(tool.id);
    } finally {
      theirs.close();
    }
    // Another process's commit could have changed anything: the answer is read again.
    const after = await s.engine.store.tools.find('lookup');
    expect(after).not.toBe(tool);
    expect(after).toEqual(tool);
  });
});
