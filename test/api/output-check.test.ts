import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createInvoker } from '../../src/operations/invoke.js';
import { outputProblems } from '../../src/operations/output-check.js';
import { defineOperation, type EngineServices } from '../../src/operations/types.js';
import { startServer } from '../helpers/server.js';

describe('answers are checked against their published response schemas', () => {
  const Schema = z.object({
    tool: z.object({ id: z.string(), tags: z.array(z.object({ name: z.string() })) }),
    extra: z.unknown().optional(),
  });

  it('names fields the schema lacks, at any depth, and values of the wrong shape', () => {
    expect(outputProblems(Schema, { tool: { id: 't1', tags: [{ name: 'a' }] } })).toEqual([]);
    expect(
      outputProblems(Schema, {
        tool: { id: 't1', logPayloads: true, tags: [{ name: 'a' }, { name: 'b', colour: 'red' }] },
      }),
    ).toEqual([
      'tool.logPayloads: not in the response schema',
      'tool.tags[1].colour: not in the response schema',
    ]);
    expect(outputProblems(Schema, { tool: { id: 1, tags: [] } })).toEqual([
      'tool.id: Invalid input: expected string, received number',
    ]);
    // What z.unknown() holds is the operation's own business; undefined never reaches the wire.
    expect(
      outputProblems(Schema, { tool: { id: 't', tags: [], gone: undefined }, extra: { a: 1 } }),
    ).toEqual([]);
  });

  it('the invoker, with the check on, answers a 500 naming an undocumented field; off, it answers', async () => {
    // An operation that answers one field more than its schema publishes.
    const leaky = defineOperation({
      name: 'test.leaky',
      summary: 'Answers a field its schema lacks',
      output: z.object({ id: z.string() }),
      handler: () => ({ id: 'x1', secretNote: 'not in the schema' }),
    });
    // A non-workspace operation never reaches the engine's services: none are needed here.
    const services = {} as EngineServices;
    const caller = { kind: 'local', user: { id: 'usr_t', name: 't' } } as const;
    const checked = createInvoker([leaky], services, { checkOutputs: true });
    await expect(checked('test.leaky', {}, caller)).rejects.toMatchObject({
      status: 500,
      code: 'undocumented_output',
      message: expect.stringContaining('secretNote: not in the response schema'),
    });
    const unchecked = createInvoker([leaky], services);
    expect((await unchecked('test.leaky', {}, caller)).data).toMatchObject({ id: 'x1' });
  });

  it('test engines run with the check on: every answer of this suite is checked', async () => {
    const s = await startServer();
    try {
      // logPayloads was answered without being documented: it is now, so this answers 201.
      const res = await s.call('POST', '/v1/tools', {
        name: 'logged',
        type: 'api',
        config: { url: 'http://127.0.0.1:9/x' },
        logPayloads: true,
      });
      expect(res.status).toBe(201);
      expect(res.body.logPayloads).toBe(true);
    } finally {
      await s.stop();
    }
  });
});
