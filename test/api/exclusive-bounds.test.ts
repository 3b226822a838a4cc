import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeIssues } from '../../src/operations/invoke.js';
import { startServer, type TestServer } from '../helpers/server.js';

/**
 * An exclusive bound is worded as one: `alpha` must be more than 0, so "must be at least 0" (what
 * the refusal said) names the very value refused as allowed.
 */
describe('refusals of an exclusive bound', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.stop());

  it('says "more than" and "less than" for exclusive bounds, "at least" and "at most" otherwise', () => {
    const words = (schema: z.ZodType, value: unknown) => {
      const parsed = schema.safeParse(value);
      return parsed.success ? [] : describeIssues(parsed.error.issues).map((d) => d.message);
    };
    expect(words(z.number().gt(0), 0)).toEqual(['must be more than 0']);
    expect(words(z.number().lt(5), 5)).toEqual(['must be less than 5']);
    expect(words(z.number().min(0), -1)).toEqual(['must be at least 0']);
    expect(words(z.number().max(1), 2)).toEqual(['must be at most 1']);
    expect(words(z.string().max(2), 'abc')).toEqual(['must be at most 2 characters']);
  });

  it('refuses a trend alert with alpha 0 saying alpha must be more than 0', async () => {
    const res = await s.call('POST', '/v1/alerts', {
      name: 'Trend',
      severity: 'low',
      condition: { type: 'production_trend', agentId: 'agt_x', threshold: 20, alpha: 0 },
      notifications: {},
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: 'condition.alpha', message: 'must be more than 0' },
    ]);
  });
});
