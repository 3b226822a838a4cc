import { rmSync } from 'node:fs';
import { createComparison, type ComparisonDeps } from '../../src/compare/service.js';
import type { Store } from '../../src/store/index.js';
import { openStore } from '../../src/store/open.js';
import { SIM } from '../../src/store/simulation-rows.js';
import { comparisonColumns } from '../../src/store/compared-figures.js';
import { tempDir } from '../helpers/server.js';
import { PERSONAS, random, simulationOf, type Side } from './compare-data.js';
import { drawsBench } from './compare-draws.js';
import { alternate, round, type Figure } from './harness.js';
import { pairSides } from '../../src/compare/pairing.js';
import { scoreIntervals } from '../../src/compare/score-intervals.js';
import { voiceRows } from '../../src/compare/voice.js';

/*
 * `npm run bench compare`: comparing two executions of 1,000 audio simulations each (bootstrap,
 * voice rows) against reading those 2,000 simulations' scores, results and audio summaries, in
 * the same run; then the same with 100,000 other simulations stored (flat in history size). The
 * simulations are what a real one-minute Vapi call stores (./compare-data.ts): ten turns, the
 * provider's transcript, three judged metrics with the judge's reasoning, the caller's figures;
 * about 0.7 KB of results and 2.4 KB of audio summary JSON each (and 2.4 KB of turns). The
 * comparison's own parts are timed too (its reads, the score intervals, the voice rows), and the
 * score bootstrap's draws alone (./compare-draws.ts).
 */

const AT = '2026-06-01T12:00:00.000Z';
const RUNS = 20;

/** Executions of `count` simulations each, written in one transaction straight to the database. */
function insertExecutions(store: Store, sides: Side[], count: number, seq: { next: number }) {
  const db = store.db;
  const rand = random(sides.length);
  const execution = db.prepare(
    `INSERT INTO executions (id, workspace_id, scenario_id, status, created_at, runs) VALUES (?, 'ws_bench', 'scn_bench', 'queued', ?, ?)`,
  );
  let insert: ReturnType<typeof db.prepare> | null = null;
  db.transaction(() => {
    for (const side of sides) {
      execution.run(side.executionId, AT, RUNS);
      for (let i = 0; i < count; i++) {
        const simulation = simulationOf(side, i, rand);
        const row = {
          ...SIM.toRow(simulation),
          // As the store writes an ended simulation (src/store/simulations.ts, finish).
          ...comparisonColumns(simulation),
          workspace_id: 'ws_bench',
          seq: seq.next++,
        };
        insert ??= db.prepare(
          `INSERT INTO simulations (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row)
            .map((k) => `@${k}`)
            .join(', ')})`,
        );
        insert.run(row);
      }
    }
  })();
}

function seedStore(store: Store): void {
  store.db
    .prepare(`INSERT INTO workspaces (id, name, created_at) VALUES ('ws_bench', 'Bench', ?)`)
    .run(AT);
  store.db
    .prepare(
      `INSERT INTO scenarios (id, workspace_id, name, prompt, created_at, updated_at, created_by_id, created_by_name)
       VALUES ('scn_bench', 'ws_bench', 'Parcel', 'Asks.', ?, ?, 'u', 'bench')`,
    )
    .run(AT, AT);
}

/** Reading the 2,000 simulations' scores, results and audio summaries (the baseline figure). */
export function readScores(store: Store, ids: string[]): () => Promise<number> {
  const query = store.db.prepare(
    `SELECT score, passed, results, audio FROM simulations WHERE execution_id IN (?, ?)`,
  );
  return () => {
    const began = performance.now();
    const rows = query.all(...ids) as { results: string; audio: string | null }[];
    for (const r of rows) {
      JSON.parse(r.results);
      if (r.audio) JSON.parse(r.audio);
    }
    return Promise.resolve(performance.now() - began);
  };
}

export function compareOnce(deps: ComparisonDeps, ids: string[]): () => Promise<number> {
  return async () => {
    const began = performance.now();
    await createComparison(deps, {
      workspaceId: 'ws_bench',
      baseline: [ids[0]!],
      candidate: [ids[1]!],
    });
    return performance.now() - began;
  };
}

/** A store holding the two compared executions (and their workspace), and how to compare them. */
export async function compareFixture(): Promise<{
  store: Store;
  dir: string;
  deps: ComparisonDeps;
  ids: string[];
  seq: { next: number };
}> {
  const dir = tempDir();
  const store = await openStore({ dataDir: dir });
  seedStore(store);
  const seq = { next: 1 };
  const sides: Side[] = [
    { executionId: 'exe_base', passRate: 0.85, slower: 0, mode: 'audio' },
    { executionId: 'exe_cand', passRate: 0.8, slower: 40, mode: 'audio' },
  ];
  insertExecutions(store, sides, PERSONAS * RUNS, seq);
  const deps: ComparisonDeps = {
    store,
    clock: { now: () => Date.now() },
    judge: () => Promise.resolve(null),
  };
  return { store, dir, deps, ids: sides.map((s) => s.executionId), seq };
}

/** Where a comparison's time goes: reading both sides, the score intervals, the voice rows. */
async function phasesOf(deps: ComparisonDeps, ids: string[], rounds: number) {
  const reads = deps.store.comparisonReads;
  const read = () => Promise.all(ids.map((id) => reads.comparedOf([id])));
  const [b, c] = await read();
  const { pairs } = pairSides(b!, c!);
  const timed = (f: () => unknown) => async () => {
    const began = performance.now();
    await f();
    return performance.now() - began;
  };
  return alternate(rounds, {
    reads: timed(read),
    scores: timed(() => scoreIntervals(pairs, 1)),
    voice: timed(() => voiceRows(b!, c!, 1)),
  });
}

/** 100 more executions of 1,000 simulations each, half of them audio: the history. */
function insertHistory(store: Store, seq: { next: number }): void {
  const others = Array.from({ length: 100 }, (_, k): Side => ({
    executionId: `exe_other_${k}`,
    passRate: 0.8,
    slower: 0,
    mode: k % 2 ? 'audio' : 'text',
  }));
  insertExecutions(store, others, 1_000, seq);
}

/**
 * Two stores, the same two executions in each and 100,000 other simulations in the second, timed
 * in alternation: load on the machine then falls on both sides of each ratio alike.
 */
export async function compareBench(seconds: number): Promise<Figure[]> {
  const alone = await compareFixture();
  const amid = await compareFixture();
  try {
    insertHistory(amid.store, amid.seq);
    const rounds = Math.max(5, Math.round(seconds * 2));
    await compareOnce(alone.deps, alone.ids)(); // warm-up
    await compareOnce(amid.deps, amid.ids)();
    const ms = await alternate(rounds, {
      read: readScores(alone.store, alone.ids),
      compare: compareOnce(alone.deps, alone.ids),
      readAmid: readScores(amid.store, amid.ids),
      compareAmid: compareOnce(amid.deps, amid.ids),
    });
    const phases = await phasesOf(alone.deps, alone.ids, rounds);
    const ratio = ms.compare / ms.read;
    const flat = ms.compareAmid / ms.compare;
    return [
      {
        name: 'compare: two executions of 1,000 audio simulations vs reading their scores',
        value: round(ratio),
        goal: '≤ 2',
        met: ratio <= 2,
        detail: `compare ${round(ms.compare)} ms, read ${round(ms.read)} ms (median of ${rounds}); of the comparison: its reads ${round(phases.reads)} ms, score intervals ${round(phases.scores)} ms, voice rows ${round(phases.voice)} ms`,
      },
      {
        name: 'compare: with 100,000 other simulations stored vs without',
        value: round(flat),
        goal: '≤ 1.1',
        met: flat <= 1.1,
        detail: `${round(ms.compareAmid)} ms vs ${round(ms.compare)} ms (read ${round(ms.readAmid)} ms vs ${round(ms.read)} ms)`,
      },
      await drawsBench(seconds),
    ];
  } finally {
    for (const { store, dir } of [alone, amid]) {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
