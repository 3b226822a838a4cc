import { describe, expect, it } from 'vitest';
import { runSeed } from '../../src/audio/seeded-random.js';
import { canonicalHash, canonicalJson } from '../../src/kernel/canonical-hash.js';
import { scenarioHash, scorecardHash } from '../../src/simulations/run-identity.js';
import type { Scenario } from '../../src/store/scenarios.js';
import type { Scorecard } from '../../src/store/scorecards.js';

const at = '2026-06-01T12:00:00.000Z';

const scenario = (over: Partial<Scenario> = {}): Scenario => ({
  id: 'scn_1',
  key: null,
  name: 'Late order',
  prompt: 'Order {{order_id}} is late.',
  promptVariables: [{ name: 'order_id', type: 'string', defaultValue: 'A1' }],
  personas: ['per_1'],
  targetAgents: ['agt_1'],
  scorecard: 'sc_1',
  tags: [],
  expectedOutcome: null,
  expectedBehavior: null,
  script: [{ say: 'Where is {{order_id}}?', expect: { contains: 'shipped' } }],
  maxTurns: 6,
  maxDurationMs: null,
  audio: null,
  cases: null,
  created_at: at,
  updated_at: at,
  created_by: { id: 'usr_1', name: 'Tester' },
  ...over,
});

const scorecard = (over: Partial<Scorecard> = {}): Scorecard => ({
  id: 'sc_1',
  key: null,
  name: 'Support',
  description: null,
  metrics: [
    {
      id: 'm_1',
      name: 'Gives tracking',
      category: 'accuracy',
      type: 'contains',
      description: null,
      weight: 1,
      critical: false,
      config: { text: 'tracking', caseSensitive: false },
    },
  ],
  passThreshold: 70,
  created_at: at,
  updated_at: at,
  ...over,
});

const HEX64 = /^[0-9a-f]{64}$/;

describe('canonical JSON and its hash', () => {
  it('sorts keys at every depth, keeps array order, drops undefined fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[2,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalHash({ a: 1, b: [1, 2] })).toBe(canonicalHash({ b: [1, 2], a: 1 }));
    expect(canonicalHash([1, 2])).not.toBe(canonicalHash([2, 1]));
    expect(canonicalHash({ a: 1 })).toMatch(HEX64);
    // A known vector: sha256 of the text {"a":1}.
    expect(canonicalHash({ a: 1 })).toBe(
      '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862',
    );
  });
});

describe('scenario and scorecard hashes', () => {
  const vars = { order_id: 'B7' };
  const base = scenarioHash(scenario(), vars);

  it('are stable across key order', () => {
    const reordered = Object.fromEntries(Object.entries(scenario()).reverse()) as Scenario;
    expect(scenarioHash(reordered, vars)).toBe(base);
    const card = scorecard();
    const metric = card.metrics[0]!;
    const shuffled = scorecard({
      metrics: [{ ...metric, config: { caseSensitive: false, text: 'tracking' } }],
    });
    expect(scorecardHash(shuffled, scenario())).toBe(scorecardHash(card, scenario()));
  });

  it('the scenario hash changes with each input of the scenario as run, and only those', () => {
    const changed = [
      scenarioHash(scenario({ prompt: 'Order {{order_id}} is lost.' }), vars),
      scenarioHash(scenario(), { order_id: 'C3' }),
      scenarioHash(scenario({ script: [{ say: 'Hi' }] }), vars),
      scenarioHash(scenario({ maxTurns: 7 }), vars),
      scenarioHash(scenario({ audio: { enabled: true } }), vars),
    ];
    expect(new Set([base, ...changed]).size).toBe(changed.length + 1);
    // Labels are not the test: a rename keeps the hash.
    expect(scenarioHash(scenario({ name: 'Renamed', tags: ['x'] }), vars)).toBe(base);
  });

  it('the scorecard hash changes with each metric input and the pass mark, not with names', () => {
    const card = scorecard();
    const metric = card.metrics[0]!;
    const first = scorecardHash(card, scenario());
    const changed = [
      scorecardHash(scorecard({ passThreshold: 80 }), scenario()),
      scorecardHash(scorecard({ metrics: [{ ...metric, weight: 2 }] }), scenario()),
      scorecardHash(scorecard({ metrics: [{ ...metric, type: 'not_contains' }] }), scenario()),
      scorecardHash(
        scorecard({ metrics: [{ ...metric, config: { text: 'refund' } }] }),
        scenario(),
      ),
      scorecardHash(scorecard({ metrics: [{ ...metric, critical: true }] }), scenario()),
      scorecardHash(null, scenario()),
      scorecardHash(card, scenario({ expectedOutcome: 'The caller learns where it is' })),
    ];
    expect(new Set([first, ...changed]).size).toBe(changed.length + 1);
    expect(first).toMatch(HEX64);
    const renamed = scorecard({ name: 'Other', metrics: [{ ...metric, name: 'X', id: 'm_9' }] });
    expect(scorecardHash(renamed, scenario())).toBe(first);
  });
});

describe('run seeds', () => {
  it('run 1 takes the root, later runs differ from each other, the same root the same seeds', () => {
    const seeds = [1, 2, 3, 4, 5].map((r) => runSeed(1234, r));
    expect(seeds[0]).toBe(1234);
    expect(new Set(seeds).size).toBe(5);
    expect([1, 2, 3, 4, 5].map((r) => runSeed(1234, r))).toEqual(seeds);
    expect(runSeed(1235, 2)).not.toBe(seeds[1]);
    for (const s of seeds) expect(s >>> 0).toBe(s);
  });
});
