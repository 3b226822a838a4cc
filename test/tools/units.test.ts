import { describe, expect, it } from 'vitest';
import { compileCondition, ExpressionError } from '../../src/tools/expressions.js';
import { applyMapping } from '../../src/tools/mapping.js';
import { recommend, type RecommendationInput } from '../../src/tools/recommendations.js';
import { redact } from '../../src/tools/secrets.js';
import { countStatements, scanNamedParameters } from '../../src/tools/sql-params.js';

describe('expressions', () => {
  const ok = (src: string, values: Record<string, unknown>) =>
    compileCondition(src).evaluate(values);
  it('read parameters and nested context with and/or/not/in', () => {
    expect(ok('amount > 500', { amount: 501 })).toBe(true);
    expect(
      ok('customer.tier == "gold" and amount < 100', { amount: 5, customer: { tier: 'gold' } }),
    ).toBe(true);
    expect(ok('status in ["open", "pending"]', { status: 'closed' })).toBe(false);
    expect(ok('not (a or b)', { a: false, b: false })).toBe(true);
    expect(ok('missing.deep == null', {})).toBe(true);
  });
  it('refuse what reaches outside the given values', () => {
    for (const src of [
      'constructor',
      'x.constructor',
      'x["constructor"]',
      'x["__proto__"]',
      'x.prototype',
      'x|upper',
      'f(1)',
    ]) {
      expect(() => compileCondition(src), src).toThrow();
    }
    expect(
      ok('x["con" + "structor"] == null and process == null and this == null', { x: {} }),
    ).toBe(true);
    expect(ok('"".length == 0 or true', {})).toBe(true);
  });

  // Known ways out of expression sandboxes: computed names reach a prototype through a string,
  // number, boolean, array or object literal, or through a value, and chain to Function.
  const c = '["con" + "structor"]';
  const escapes = [
    `s${c}`,
    `s${c}${c}`,
    `n${c}`,
    `b${c}`,
    `list${c}`,
    `list[0]${c}`,
    `obj${c}`,
    `obj.inner${c}${c}`,
    `"text"${c}`,
    `"text"${c}${c}`,
    `(1)${c}`,
    `true${c}`,
    `[]${c}`,
    `[1, 2]${c}${c}`,
    `{}${c}`,
    `{a: 1}${c}${c}`,
    `{}["__pro" + "to__"]`,
    `s["__pro" + "to__"]`,
    `s["to" + "String"]`,
    `s["value" + "Of"]`,
    `obj["hasOwn" + "Property"]`,
    `list["ma" + "p"]`,
    `(s${c})["na" + "me"]`,
    `list[.x${c} == null]${c}`,
  ];
  it.each(escapes)('reach nothing outside the values: %s', (expression) => {
    const values = { s: 'abc', n: 1, b: true, list: [{ x: 1 }], obj: { inner: { k: 'v' } } };
    let condition;
    try {
      condition = compileCondition(`(${expression}) == null`);
    } catch (err) {
      // Refused when parsed (Jexl has no member access on some literals): also safe.
      expect(err).toBeInstanceOf(ExpressionError);
      return;
    }
    expect(condition.evaluate(values)).toBe(true);
  });

  it('still read own data properties through computed names', () => {
    const values = { s: 'abc', list: [10, 20], obj: { 'a-b': 1, inner: { k: 'v' } } };
    expect(ok('obj["a" + "-b"] == 1', values)).toBe(true);
    expect(ok('obj["inner"]["k"] == "v"', values)).toBe(true);
    expect(ok('list[1] == 20 and list["len" + "gth"] == 2', values)).toBe(true);
    expect(ok('s["len" + "gth"] == 3 and s.length == 3', values)).toBe(true);
    expect(ok('{a: {b: 2}}.a.b == 2', values)).toBe(true);
  });
});

describe('redacting secrets from an answer', () => {
  const secret = 'sk-live-123456';

  it('masks every occurrence, deep in arrays and objects, leaving the original as it was', () => {
    const answer = {
      ok: true,
      result: { echoed: [`Bearer ${secret}`, 'plain'], n: 1 },
      error: { message: `bad key ${secret} (${secret})` },
    };
    const copy = structuredClone(answer);
    const out = redact(answer, [secret]);
    expect(out).toEqual({
      ok: true,
      result: { echoed: ['Bearer ****', 'plain'], n: 1 },
      error: { message: 'bad key **** (****)' },
    });
    expect(answer).toEqual(copy);
    // Only the branches that held a secret are new objects.
    expect(out.result.echoed[1]).toBe('plain');
  });

  it('answers an answer without a secret as it was, without copying it', () => {
    const answer = { result: { items: [{ id: 'x' }] }, warnings: [] };
    expect(redact(answer, [secret])).toBe(answer);
  });
});

describe('response mapping', () => {
  const body = { items: [{ id: 'a' }, { id: 'b' }], order: { status: 'open', zero: 0, no: null } };
  it('follows dotted paths with either index form, keeping falsy values', () => {
    expect(
      applyMapping(body, {
        a: 'items.0.id',
        b: 'items[1].id',
        s: 'order.status',
        z: 'order.zero',
        n: 'order.no',
      }),
    ).toEqual({
      result: { a: 'a', b: 'b', s: 'open', z: 0, n: null },
      warnings: [],
    });
  });
  it('maps a missing path to null with a warning; no mapping keeps the body', () => {
    expect(applyMapping(body, { x: 'items.5.id', y: 'order.status.deeper' })).toEqual({
      result: { x: null, y: null },
      warnings: [
        "responseMapping.x: path 'items.5.id' is not in the response",
        "responseMapping.y: path 'order.status.deeper' is not in the response",
      ],
    });
    expect(applyMapping(body, undefined).result).toBe(body);
    expect(applyMapping(body, { p: 'items.constructor' }).result).toEqual({ p: null });
  });
});

describe('named SQL parameters', () => {
  it('finds :name outside strings, identifiers, comments and casts', () => {
    const scan = scanNamedParameters(
      `SELECT ':no', "x:y", a::text -- :comment\n FROM t /* :block */ WHERE a = :first AND b = :second OR c = :first`,
    );
    expect(scan.names).toEqual(['first', 'second']);
    expect(scan.toPositional()).toContain('a = $1 AND b = $2 OR c = $1');
    expect(scan.toPositional()).toContain("':no'");
  });
});

describe('statements in SQL text', () => {
  it.each([
    ['', 0],
    ['SELECT 1', 1],
    ['SELECT 1;', 1],
    ['SELECT 1; -- done\n  ', 1],
    ["SELECT ';'", 1],
    ['SELECT "a;b" FROM t', 1],
    ['SELECT $$;$$, $q$ ; $q$', 1],
    ['SELECT 1 /* ; */', 1],
    ['SELECT 1; SELECT 2', 2],
    ['SELECT 1;;SELECT 2;', 2],
    ["SELECT ';'; DROP TABLE t", 2],
    ['SELECT 1; /* x */ COMMIT', 2],
  ])('%j holds %i', (sql, n) => {
    expect(countStatements(sql)).toBe(n);
  });
});

describe('recommendations', () => {
  const base: RecommendationInput = {
    usage: { totalCalls: 100 },
    performance: { successRate: 100, p95ResponseTime: 100, timeoutRate: 0, errorRate: 0 },
    errors: [],
    timeoutMs: 10_000,
    handlers: [],
    retried: 0,
    retriedOk: 0,
  };
  const with_ = (over: Partial<RecommendationInput>) => recommend({ ...base, ...over });

  it('says nothing about a healthy tool', () => expect(recommend(base)).toEqual([]));
  it('any auth error', () => {
    expect(with_({ errors: [{ type: 'auth_error', count: 1, percentage: 1 }] })).toEqual([
      expect.stringContaining('1 call(s) failed authentication'),
    ]);
  });
  it('p95 near the timeout, not for untimed tools', () => {
    expect(with_({ performance: { ...base.performance, p95ResponseTime: 8_000 } })).toEqual([
      expect.stringContaining('within 20% of the 10000 ms timeout'),
    ]);
    expect(with_({ performance: { ...base.performance, p95ResponseTime: 7_900 } })).toEqual([]);
    expect(
      with_({ timeoutMs: null, performance: { ...base.performance, p95ResponseTime: 9_000 } }),
    ).toEqual([]);
  });
  it('timeouts without a handler', () => {
    const timeouts = { performance: { ...base.performance, timeoutRate: 5 } };
    expect(with_(timeouts)).toEqual([expect.stringContaining('no errorHandling.onTimeout')]);
    expect(with_({ ...timeouts, handlers: ['onTimeout'] })).toEqual([]);
  });
  it('a not_found share above 5%', () => {
    expect(with_({ errors: [{ type: 'not_found', count: 6, percentage: 6 }] })).toEqual([
      expect.stringContaining('add errorHandling.onNotFound'),
    ]);
    expect(
      with_({
        errors: [{ type: 'not_found', count: 6, percentage: 6 }],
        handlers: ['onNotFound'],
      })[0],
    ).not.toContain('add errorHandling');
    expect(with_({ errors: [{ type: 'not_found', count: 5, percentage: 5 }] })).toEqual([]);
  });
  it('retries that mostly fail', () => {
    expect(with_({ retried: 10, retriedOk: 4 })).toEqual([
      expect.stringContaining('only 40% of the 10 retried calls succeeded'),
    ]);
    expect(with_({ retried: 10, retriedOk: 5 })).toEqual([]);
    expect(with_({ retried: 4, retriedOk: 0 })).toEqual([]);
  });
  it('a high error rate, and no calls at all', () => {
    expect(with_({ performance: { ...base.performance, errorRate: 11 } })).toEqual([
      expect.stringContaining('11% of calls fail'),
    ]);
    expect(with_({ usage: { totalCalls: 0 } })).toEqual([
      expect.stringContaining('No calls in this window'),
    ]);
  });
});
