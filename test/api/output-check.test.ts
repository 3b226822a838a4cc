import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { outputProblems } from '../../src/operations/output-check.js';
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

  it('tests run the engine with the check on: an answer outside its schema is a 500 naming it', async () => {
    const s = await startServer();
    try {
      // Every operation answers through the one invoker; the check sits there, for all transports.
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
