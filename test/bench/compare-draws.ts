import { sharedPairedBootstrap, type PairQuantities } from '../../src/compare/bootstrap-shared.js';
import { pairedBootstrap } from '../../src/compare/bootstrap.js';
import { random } from './compare-data.js';
import { alternate, round, type Figure } from './harness.js';

/*
 * The draws of a comparison's score bootstrap, alone: 1,000 pairs in 50 scenario × persona groups
 * (the bench's two executions), 10,000 resamples. The shared bootstrap gives the score and three
 * metrics overall and each group's score (55 intervals) from one set of ten million draws; the
 * baseline is pairedBootstrap giving the overall score interval alone from as many draws. Both
 * are reported in ns per draw (generator, index, sums, and the intervals' selection).
 */

const PAIRS = 1_000;
const GROUPS = 50;
const RESAMPLES = 10_000;

function pairsOf(): PairQuantities[] {
  const rand = random(36);
  const score = () => Math.round(rand() * 100) - Math.round(rand() * 100);
  return Array.from({ length: PAIRS }, (_, i) => ({
    group: `per_${i % GROUPS}`,
    values: [score(), score(), score(), score()],
  }));
}

const timed = (f: () => unknown) => () => {
  const began = performance.now();
  f();
  return Promise.resolve(performance.now() - began);
};

export async function drawsBench(seconds: number): Promise<Figure> {
  const pairs = pairsOf();
  const scores = pairs.map((p) => ({ group: p.group, baseline: 0, candidate: p.values[0]! }));
  const rounds = Math.max(5, Math.round(seconds * 2));
  const options = { seed: 1, quantities: 4, grouped: 1 };
  sharedPairedBootstrap(pairs, options); // warm-up
  pairedBootstrap(scores, { seed: 1 });
  const ms = await alternate(rounds, {
    shared: timed(() => sharedPairedBootstrap(pairs, options)),
    one: timed(() => pairedBootstrap(scores, { seed: 1 })),
  });
  const perDraw = (t: number) => round((t * 1e6) / (PAIRS * RESAMPLES));
  const ratio = ms.shared / ms.one;
  return {
    name: 'compare: the 55 score intervals from one set of draws vs one interval alone',
    value: round(ratio),
    goal: '≤ 4',
    met: ratio <= 4,
    detail: `${perDraw(ms.shared)} ns per draw shared (${round(ms.shared)} ms), ${perDraw(ms.one)} ns per draw alone (${round(ms.one)} ms); median of ${rounds}`,
  };
}
