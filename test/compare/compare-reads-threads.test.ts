import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedPairedBootstrap, type PairQuantities } from '../../src/compare/bootstrap-shared.js';
import {
  closeCompareThread,
  compareThreadAnswered,
  runOffThread,
  warmCompareThread,
} from '../../src/compare/compare-thread.js';
import { voiceBootstrap, type CallValues } from '../../src/compare/voice-bootstrap.js';
import type { Simulation } from '../../src/domain/simulations.js';
import type { Store } from '../../src/store/index.js';
import { openStore } from '../../src/store/open.js';
import { replyLatenciesOf } from '../../src/store/reply-latencies.js';
import { SIM } from '../../src/store/simulation-rows.js';
import { random, simulationOf } from '../bench/compare-data.js';
import { tempDir } from '../helpers/server.js';

// What makes a comparison cheap without changing it: reply latencies stored when an audio
// simulation ends (read in place of its turns; older simulations from their turns), and the score
// bootstrap's draws on a thread of their own (the same intervals as on the engine's thread).

const AT = '2026-06-01T12:00:00.000Z';
let dir: string;
let store: Store;

beforeAll(async () => {
  dir = tempDir();
  store = await openStore({ dataDir: dir });
  store.db
    .prepare(`INSERT INTO workspaces (id, name, created_at) VALUES ('ws_1', 'One', ?)`)
    .run(AT);
  store.db
    .prepare(
      `INSERT INTO scenarios (id, workspace_id, name, prompt, created_at, updated_at, created_by_id, created_by_name)
       VALUES ('scn_bench', 'ws_1', 'Parcel', 'Asks.', ?, ?, 'u', 'test')`,
    )
    .run(AT, AT);
  store.db
    .prepare(
      `INSERT INTO executions (id, workspace_id, scenario_id, status, created_at, runs) VALUES ('exe_1', 'ws_1', 'scn_bench', 'completed', ?, 1)`,
    )
    .run(AT);
});

afterAll(async () => {
  await store.close();
  await closeCompareThread();
  rmSync(dir, { recursive: true, force: true });
});

/** Inserts the simulation as stored before it ended (running, under `owner`'s lease) or after. */
function insert(sim: Simulation, seq: number, lease: string | null): void {
  const row = { ...SIM.toRow(sim), workspace_id: 'ws_1', seq, lease_owner: lease };
  const columns = Object.keys(row);
  store.db
    .prepare(
      `INSERT INTO simulations (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
    )
    .run(row);
}

describe('reply latencies', () => {
  it('are stored when an audio simulation ends and read in place of its turns; older ones from their turns', async () => {
    const rand = random(7);
    const side = { executionId: 'exe_1', passRate: 0.8, slower: 0 };
    const ended = simulationOf({ ...side, mode: 'audio' }, 0, rand);
    const older = simulationOf({ ...side, mode: 'audio' }, 1, rand);
    const text = simulationOf({ ...side, mode: 'text' }, 2, rand);
    insert({ ...ended, status: 'running' }, 1, 'srv_a');
    insert(older, 2, null);
    insert(text, 3, null);
    const expected = replyLatenciesOf(ended.turns);
    expect(expected.length).toBeGreaterThan(0);

    expect(await store.simulations.finish(ended.id, ended, 'srv_a')).toBe(true);
    const column = (id: string) =>
      (
        store.db.prepare(`SELECT reply_latencies FROM simulations WHERE id = ?`).get(id) as {
          reply_latencies: string | null;
        }
      ).reply_latencies;
    expect(column(ended.id)).toBe(JSON.stringify(expected));
    expect(column(older.id)).toBeNull();
    // The comparison reads the column, not the turns: emptied turns change nothing.
    store.db.prepare(`UPDATE simulations SET turns = '[]' WHERE id = ?`).run(ended.id);

    const read = await store.comparisonReads.comparedOf(['exe_1']);
    const latencies = new Map(read.map((s) => [s.id, s.latencies]));
    expect(latencies.get(ended.id)).toEqual(expected);
    expect(latencies.get(older.id)).toEqual(replyLatenciesOf(older.turns));
    expect(latencies.get(older.id)!.length).toBeGreaterThan(0);
    expect(latencies.get(text.id)).toEqual([]);
  });
});

describe('the compare thread', () => {
  /** 1,000 pairs in 50 groups: large enough for the thread (ten million draws). */
  function pairsOf(seed: number): PairQuantities[] {
    const rand = random(seed);
    return Array.from({ length: 1_000 }, (_, i) => ({
      group: `g${i % 50}`,
      values: [rand() * 40 - 20, Math.round(rand() * 100) - 50, i % 9 === 0 ? null : rand()],
    }));
  }

  /** A side's 1,000 calls over two conditions, some without recognition. */
  function callsOf(seed: number): CallValues[] {
    const rand = random(seed);
    return Array.from({ length: 1_000 }, (_, i) => ({
      condition: i % 3 === 0 ? 'cafe' : 'street',
      means: [Math.round(rand() * 4), rand() * 900],
      medians: [600 + rand() * 400],
      pooled: [400 + rand() * 300, 450 + rand() * 300, 500 + rand() * 300],
      ratio: i % 7 === 0 ? null : [Math.round(rand() * 5), 40 + Math.round(rand() * 30)],
    }));
  }

  it('gives the same intervals as the asking thread, and after it stopped runs them there again', async () => {
    const pairs = pairsOf(3);
    const options = { seed: 12, quantities: 3, grouped: 2 };
    const scores = { kind: 'scores' as const, pairs, options };
    const voice = {
      kind: 'voice' as const,
      baseline: callsOf(4),
      candidate: callsOf(5),
      options: { seed: 6, percentiles: [50, 90], resamples: 1_000 },
    };
    const here = {
      scores: sharedPairedBootstrap(pairs, options),
      voice: voiceBootstrap(voice.baseline, voice.candidate, voice.options),
    };
    expect(await warmCompareThread()).toBe(true);
    const before = compareThreadAnswered();
    expect(await runOffThread(scores)).toEqual(here.scores);
    expect(await runOffThread(voice)).toEqual(here.voice);
    expect(compareThreadAnswered()).toBe(before + 2);
    await closeCompareThread();
    expect(await runOffThread(scores)).toEqual(here.scores);
    expect(compareThreadAnswered()).toBe(before + 2);
    // Bad input fails as it does here, wherever it was sent.
    await warmCompareThread();
    await expect(
      runOffThread({ ...scores, options: { ...options, quantities: 2 } }),
    ).rejects.toThrow(RangeError);
  });
});
