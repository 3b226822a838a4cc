import { foundationBench } from './foundation.js';
import { toolsBench } from './tools.js';
import { providersBench } from './providers.js';
import { alertsBench } from './alerts.js';
import { simulationsBench } from './simulations.js';
import { uiBench } from './ui.js';
import { teamBench } from './team.js';
import { voiceBench } from './voice.js';
import { cliBench } from './cli.js';
import { demoBench } from './demo.js';
import { compareBench } from './compare.js';
import { experimentBench } from './experiment.js';
import { suitesBench } from './suites.js';
import { calibrationBench } from './calibration.js';
import { productionBench } from './production.js';
import type { Figure } from './harness.js';

/**
 * `npm run bench`: every figure is a ratio against a baseline measured in the same run, because
 * absolute times on a shared machine mean little. BENCH_SECONDS shortens or lengthens each sample.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const only = process.argv[2];
const suites: [string, (s: number) => Promise<Figure[]>][] = (
  [
    ['foundation', foundationBench],
    ['tools', toolsBench],
    ['providers', providersBench],
    ['alerts', alertsBench],
    ['simulations', simulationsBench],
    ['ui', uiBench],
    ['team', teamBench],
    ['voice', voiceBench],
    ['cli', cliBench],
    ['demo', demoBench],
    ['compare', compareBench],
    ['compare:experiment', experimentBench],
    ['suites', suitesBench],
    ['production', productionBench],
    // `npm run bench production` runs it with the other production figures.
    ['production:calibration', calibrationBench],
  ] as [string, (s: number) => Promise<Figure[]>][]
).filter(([name]) => !only || name === only || name.startsWith(`${only}:`));

let failed = 0;
for (const [name, run] of suites) {
  console.log(`\n== ${name}`);
  for (const f of await run(seconds)) {
    if (!f.met) failed++;
    console.log(`${f.met ? 'ok  ' : 'MISS'} ${f.name}: ${f.value} (goal ${f.goal}) — ${f.detail}`);
  }
}
console.log(failed ? `\n${failed} figure(s) missed their goal` : '\nall figures met their goals');
process.exitCode = failed ? 1 : 0;
