import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulation } from '../../src/domain/simulations.js';
import type { Store } from '../../src/store/index.js';
import { openStore } from '../../src/store/open.js';
import { SIM } from '../../src/store/simulation-rows.js';
import { callFiguresOf } from '../../src/store/voice-figures.js';
import { random, simulationOf } from '../bench/compare-data.js';
import { tempDir } from '../helpers/server.js';

// What a comparison reads of a simulation's outcome, stored when it ends (migration 22): each
// metric's name, score and pass, and an audio call's voice figures, read in place of its results
// and audio summary; simulations that ended before it are read from those, the same values. And
// the light check of which executions are still open.

const AT = '2026-06-01T12:00:00.000Z';
let dir: string;
let store: Store;

beforeAll(async () => {
  dir = tempDir();
  store = await openStore({ dataDir: dir });
  const db = store.db;
  db.prepare(`INSERT INTO workspaces (id, name, created_at) VALUES ('ws_1', 'One', ?)`).run(AT);
  db.prepare(`INSERT INTO workspaces (id, name, created_at) VALUES ('ws_2', 'Two', ?)`).run(AT);
  db.prepare(
    `INSERT INTO scenarios (id, workspace_id, name, prompt, created_at, updated_at, created_by_id, created_by_name)
     VALUES ('scn_bench', 'ws_1', 'Parcel', 'Asks.', ?, ?, 'u', 'test')`,
  ).run(AT, AT);
  const execution = db.prepare(
    `INSERT INTO executions (id, workspace_id, scenario_id, status, created_at, runs, cancelled_at) VALUES (?, ?, 'scn_bench', 'queued', ?, 1, ?)`,
  );
  execution.run('exe_1', 'ws_1', AT, null);
  execution.run('exe_open', 'ws_1', AT, null);
  execution.run('exe_cancelled', 'ws_1', AT, AT);
  execution.run('exe_other', 'ws_2', AT, null);
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
function insert(sim: Simulation, lease: string | null): void {
  const row = { ...SIM.toRow(sim), workspace_id: 'ws_1', seq: ++seq, lease_owner: lease };
  const columns = Object.keys(row);
  store.db
    .prepare(
      `INSERT INTO simulations (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
    )
    .run(row);
}

const column = (id: string) =>
  (
    store.db.prepare(`SELECT compared_figures FROM simulations WHERE id = ?`).get(id) as {
      compared_figures: string | null;
    }
  ).compared_figures;

const outcomes = (s: Simulation) =>
  s.results.map((r) => ({ name: r.name, score: r.score, passed: r.passed }));

describe('compared figures', () => {
  it('are stored when a simulation ends and read in place of its results and audio; older ones from those', async () => {
    const rand = random(11);
    const side = { executionId: 'exe_1', passRate: 0.8, slower: 0 };
    const ended = simulationOf({ ...side, mode: 'audio' }, 0, rand);
    const older = simulationOf({ ...side, mode: 'audio' }, 1, rand);
    const text = simulationOf({ ...side, mode: 'text' }, 2, rand);
    insert({ ...ended, status: 'running' }, 'srv_a');
    insert(older, null);
    insert(text, null);

    expect(await store.simulations.finish(ended.id, ended, 'srv_a')).toBe(true);
    expect(column(ended.id)).not.toBeNull();
    expect(column(older.id)).toBeNull();
    expect(column(text.id)).toBeNull();
    // The comparison reads the column, not the results or the audio summary: emptied, they
    // change nothing.
    store.db
      .prepare(`UPDATE simulations SET audio = 'null', results = '[]' WHERE id = ?`)
      .run(ended.id);

    const read = new Map((await store.comparisonReads.comparedOf(['exe_1'])).map((s) => [s.id, s]));
    expect(read.get(ended.id)!.figures).toEqual(callFiguresOf(ended.audio!));
    expect(read.get(ended.id)!.results).toEqual(outcomes(ended));
    expect(read.get(older.id)!.figures).toEqual(callFiguresOf(older.audio!));
    expect(read.get(older.id)!.figures).toMatchObject({ noise: older.audio!.caller!.noise.bed });
    expect(read.get(older.id)!.results).toMatchObject(outcomes(older));
    expect(read.get(text.id)!.figures).toBeNull();
    expect(read.get(text.id)!.results).toMatchObject(outcomes(text));
    expect(outcomes(ended).length).toBeGreaterThan(0);
  });

  it('of a text simulation hold its outcomes and no voice figures', async () => {
    const rand = random(14);
    const sim = simulationOf(
      { executionId: 'exe_text', passRate: 0.5, slower: 0, mode: 'text' },
      0,
      rand,
    );
    store.db
      .prepare(
        `INSERT INTO executions (id, workspace_id, scenario_id, status, created_at, runs) VALUES ('exe_text', 'ws_1', 'scn_bench', 'queued', ?, 1)`,
      )
      .run(AT);
    insert({ ...sim, status: 'running' }, 'srv_b');
    expect(await store.simulations.finish(sim.id, sim, 'srv_b')).toBe(true);
    expect(JSON.parse(column(sim.id)!)).toEqual([
      sim.results.map((r) => [r.name, r.score, r.passed]),
      null,
    ]);
    const [read] = await store.comparisonReads.comparedOf(['exe_text']);
    expect(read).toMatchObject({ id: sim.id, results: outcomes(sim), figures: null });
  });

  it('take what a call without realistic-caller figures has: nulls, never invented values', () => {
    const rand = random(12);
    const sim = simulationOf(
      { executionId: 'exe_1', passRate: 1, slower: 0, mode: 'audio' },
      0,
      rand,
    );
    const { caller: _caller, ...audio } = sim.audio!;
    expect(callFiguresOf(audio)).toEqual({
      time_to_first_audio_ms: audio.time_to_first_audio_ms,
      talk_over_count: audio.talk_over.count,
      talk_over_ms: audio.talk_over.total_ms,
      long_silences: audio.long_silences,
      barge_in_stop_p90_ms: null,
      barge_ins_not_stopped: null,
      false_yields: null,
      misheard: null,
      asr_errors: null,
      asr_words: null,
      noise: null,
      line: null,
    });
  });
});

describe('which executions are open', () => {
  it('answers this workspace’s executions, open while a simulation is queued or running and not cancelled', async () => {
    const rand = random(13);
    const side = { executionId: 'exe_open', passRate: 0.8, slower: 0, mode: 'text' as const };
    const waiting = simulationOf(side, 0, rand);
    insert({ ...waiting, status: 'queued' }, null);
    insert(simulationOf({ ...side, executionId: 'exe_cancelled' }, 1, rand), null);
    const ids = ['exe_1', 'exe_open', 'exe_cancelled', 'exe_other', 'exe_missing'];
    const open = await store.comparisonReads.openOf('ws_1', ids);
    expect(Object.fromEntries(open)).toEqual({
      exe_1: false,
      exe_open: true,
      exe_cancelled: false,
    });
    store.db.prepare(`UPDATE simulations SET status = 'completed' WHERE id = ?`).run(waiting.id);
    expect((await store.comparisonReads.openOf('ws_1', ['exe_open'])).get('exe_open')).toBe(false);
  });
});
