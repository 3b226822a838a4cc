import { describe, expect, it } from 'vitest';
import { buildComparison } from '../../src/compare/build.js';
import type { AudioSummary } from '../../src/domain/audio.js';
import type { ComparedSimulation } from '../../src/store/comparison-reads.js';
import { callFiguresOf } from '../../src/store/voice-figures.js';

/**
 * The comparison built from simulations as the store reads them (recorded figures, no run): how
 * pairs form, what has no outcome, and the voice rows of audio calls.
 */

let n = 0;
function sim(over: Partial<ComparedSimulation> = {}): ComparedSimulation {
  n++;
  return {
    id: `sim_${n}`,
    execution_id: 'exe_b',
    scenario_id: 'scn_1',
    persona_id: 'per_1',
    agent_id: 'agt_1',
    channel: 'replica',
    mode: 'text',
    run: 1,
    scenario_hash: 'a'.repeat(64),
    scorecard_hash: 'b'.repeat(64),
    agent_config: null,
    status: 'completed',
    created_at: '2026-06-01T12:00:00.000Z',
    score: 100,
    passed: true,
    results: [],
    figures: null,
    line: null,
    cost_usd: null,
    latencies: [],
    ...over,
  };
}

const build = (baseline: ComparedSimulation[], candidate: ComparedSimulation[]) =>
  buildComparison({
    baseline: { executionIds: ['exe_b'], simulations: baseline },
    candidate: { executionIds: ['exe_c'], simulations: candidate },
    rescored: false,
    names: new Map([['scn_1', 'Parcel']]),
  });

describe('pairing', () => {
  it('pairs by scenario × persona × agent × run; the rest unpaired; no outcome leaves every statistic', () => {
    const b = [1, 2, 3, 4, 5, 6].map((run) => sim({ run }));
    const failed = sim({ run: 2, status: 'failed', passed: false, score: 0 });
    const cancelled = sim({ run: 3, status: 'cancelled', passed: null, score: null });
    const skipped = sim({
      run: 4,
      status: 'skipped',
      passed: null,
      score: null,
    });
    const c = [
      sim({ run: 1, passed: false, score: 0 }),
      failed,
      cancelled,
      skipped,
      sim({ run: 5 }),
      // Another persona's run 1 and a run 7 have no partner.
      sim({ run: 1, persona_id: 'per_2' }),
      sim({ run: 7 }),
    ];
    const out = build(b, c);
    expect(out.unpaired).toEqual([
      { simulation_id: b[5]!.id, side: 'baseline', scenario_id: 'scn_1', persona_id: 'per_1' },
      { simulation_id: c[5]!.id, side: 'candidate', scenario_id: 'scn_1', persona_id: 'per_2' },
      { simulation_id: c[6]!.id, side: 'candidate', scenario_id: 'scn_1', persona_id: 'per_1' },
    ]);
    expect(out.errored).toEqual({
      baseline: 0,
      candidate: 3,
      simulation_ids: [failed.id, cancelled.id, skipped.id],
    });
    // Runs 1 and 5 only: a failure of the agent's platform is never a regression.
    expect(out.overall).toMatchObject({
      pairs: 2,
      baseline: { passed: 2, total: 2 },
      candidate: { passed: 1, total: 2 },
      verdict: 'insufficient_data',
      runs_needed: 3,
    });
    const ann = out.rows.find((r) => r.persona_id === 'per_1')!;
    expect(ann).toMatchObject({ pairs: 2, errored: { baseline: 0, candidate: 3 } });
    expect(out.rows.map((r) => r.scenario_name)).toEqual(['Parcel']);
  });

  it('gives a metric no simulation could measure no row; one measured on a side keeps its row', () => {
    const result = (name: string, passed: boolean | null) => ({
      metric_id: name,
      name,
      category: 'voice',
      type: 'max_latency_ms',
      score: passed === null ? null : passed ? 100 : 0,
      passed,
      reasoning: 'r',
      ...(passed === null ? { not_applicable: true as const } : {}),
    });
    const side = (said: boolean) =>
      [1, 2, 3, 4, 5].map((run) =>
        sim({ run, results: [result('Latency', null), result('Says shipped', said)] }),
      );
    const out = build(side(true), side(false));
    expect(out.metrics.map((m) => m.metric)).toEqual(['Says shipped']);
    expect(out.metrics[0]).toMatchObject({ pairs: 5, verdict: 'regressed' });
  });

  it('pools executions: the k-th simulation of a key pairs with the k-th of the other side', () => {
    const b = [sim({ run: 1 }), sim({ run: 1, execution_id: 'exe_b2', passed: false, score: 0 })];
    const c = [sim({ run: 1, passed: false, score: 0 }), sim({ run: 1, execution_id: 'exe_c2' })];
    const out = build(b, c);
    expect(out.unpaired).toEqual([]);
    expect(out.overall.pairs).toBe(2);
    // Paired as queued: (pass, fail) then (fail, pass): a mean score difference of 0.
    expect(out.overall.score).toMatchObject({
      difference: 0,
      baseline_mean: 50,
      candidate_mean: 50,
    });
  });

  it('says which conditions differ, by field, and what each side ran', () => {
    const b = [sim({ agent_config: config(3, 'c'.repeat(64)) })];
    const c = [
      sim({
        scenario_hash: 'd'.repeat(64),
        channel: 'provider',
        agent_config: config(4, 'e'.repeat(64)),
      }),
    ];
    const out = build(b, c);
    expect(out.conditions_differ).toEqual([
      { field: 'scenario', baseline: ['a'.repeat(64)], candidate: ['d'.repeat(64)] },
      { field: 'channel', baseline: ['replica'], candidate: ['provider'] },
    ]);
    expect(out.baseline).toMatchObject({
      agent_versions: [3],
      agent_config_hashes: ['c'.repeat(64)],
    });
    expect(out.candidate).toMatchObject({ agent_versions: [4], simulations: 1 });
    // Costs sum; one simulation without a price leaves its side's cost unknown, never a guess.
    const costed = build(
      [sim({ cost_usd: 0.25 }), sim({ run: 2, cost_usd: 0.5 })],
      [sim({ cost_usd: 0.25 }), sim({ run: 2, cost_usd: null })],
    );
    expect([costed.baseline.cost_usd, costed.candidate.cost_usd]).toEqual([0.75, null]);
    // Hashes unknown on one side (made before they were recorded) are no difference.
    expect(build([sim({ scorecard_hash: null })], [sim()]).conditions_differ).toEqual([]);
  });
});

function config(version: number, hash: string): ComparedSimulation['agent_config'] {
  return {
    version_id: version,
    hash,
    provider_hash: null,
    overrides: [],
    channel: 'replica',
    replica_model: null,
    tools: [],
  };
}

/** An audio call's recorded summary: its first audio, talk-overs and, when given, its caller. */
function audio(over: {
  ttfa: number;
  talkOvers?: number;
  asr?: { words: number; errors: number };
  noise?: string;
  line?: string;
}): AudioSummary {
  return {
    transport: 'vapi',
    call_id: null,
    sample_rate: 16000,
    time_to_first_audio_ms: over.ttfa,
    response_latency_ms: { p50: null, p90: null, max: null },
    talk_over: { count: over.talkOvers ?? 0, total_ms: 0 },
    long_silences: 0,
    agent_speech_ms: 1000,
    caller_speech_ms: 1000,
    talk_ratio: 1,
    caller_think_ms: 0,
    pacing: { frames: 0, late_p50_ms: 0, late_p99_ms: 0, late_max_ms: 0 },
    agent_text_source: 'provider',
    provider_transcript: null,
    recording: false,
    ...(over.noise
      ? {
          caller: {
            line: {
              profile: over.line ?? 'studio',
              codec: 'pcm16',
              sample_rate: 16000,
              loss_percent: 0,
              jitter_ms: 0,
              latency_ms: 0,
              seed: 1,
              frames: 0,
              frames_lost: 0,
            },
            noise: { bed: over.noise, snr_db: 10 },
            barge_ins: { count: 0, stop_ms: { p50: null, p90: null, max: null }, not_stopped: 0 },
            backchannels: { count: 0, false_yields: 0 },
            silences: [],
            dtmf: [],
            hung_up: false,
            asr: over.asr
              ? {
                  words: over.asr.words,
                  substitutions: over.asr.errors,
                  deletions: 0,
                  insertions: 0,
                  wer: over.asr.errors / over.asr.words,
                  misheard: [],
                }
              : null,
          },
        }
      : {}),
  };
}

const call = (run: number, a: AudioSummary, latencies: number[]) =>
  sim({ run, mode: 'audio', figures: callFiguresOf(a), latencies });

describe('voice rows', () => {
  it('compares what the calls measured: latency regressed beyond 50 ms, the rest by their effects', () => {
    const runs = [1, 2, 3, 4, 5, 6, 7, 8];
    const b = runs.map((r) =>
      call(
        r,
        audio({ ttfa: 800, noise: 'cafe', line: 'mobile', asr: { words: 100, errors: 5 } }),
        [300, 320, 340],
      ),
    );
    const c = runs.map((r) =>
      call(
        r,
        audio({
          ttfa: 805,
          talkOvers: 1,
          noise: 'cafe',
          line: 'mobile',
          asr: { words: 100, errors: 5 },
        }),
        [600, 620, 640],
      ),
    );
    const voice = build(b, c).voice!;
    const row = (m: string) => voice.rows.find((x) => x.measure === m);
    expect(row('response_latency_p50_ms')).toMatchObject({
      baseline: 320,
      candidate: 620,
      difference: 300,
      interval: [300, 300],
      verdict: 'regressed',
      calls: { baseline: 8, candidate: 8 },
      direction: 'lower_is_better',
    });
    expect(row('response_latency_p90_ms')).toMatchObject({ baseline: 340, candidate: 640 });
    // 5 ms slower to first audio is within the 50 ms minimum effect: no difference said.
    expect(row('time_to_first_audio_ms')).toMatchObject({
      difference: 5,
      verdict: 'no_significant_difference',
    });
    expect(row('talk_over_count')).toMatchObject({
      baseline: 0,
      candidate: 1,
      verdict: 'regressed',
    });
    expect(row('wer')).toMatchObject({ baseline: 0.05, candidate: 0.05, difference: 0 });
    // No caller barged in: no call has a barge-in stop time, so that row is left out.
    expect(voice.rows.map((x) => x.measure)).toContain('misheard');
    expect(voice.rows.map((x) => x.measure)).not.toContain('barge_in_stop_p90_ms');
    expect(voice.by_conditions).toEqual([{ noise: 'cafe', line: 'mobile', rows: voice.rows }]);
  });

  it('leaves out measures no call has, says insufficient data under 5 calls, and is null without audio on a side', () => {
    const b = [1, 2, 3].map((r) => call(r, audio({ ttfa: 800 }), [300]));
    const c = [1, 2, 3].map((r) => call(r, audio({ ttfa: 900 }), [600]));
    const voice = build(b, c).voice!;
    expect(voice.rows.map((r) => r.measure)).toEqual([
      'response_latency_p50_ms',
      'response_latency_p90_ms',
      'time_to_first_audio_ms',
      'talk_over_count',
      'talk_over_ms',
      'long_silences',
    ]);
    expect(voice.rows.every((r) => r.verdict === 'insufficient_data')).toBe(true);
    expect(voice.by_conditions.map((x) => [x.noise, x.line])).toEqual([['none', 'studio']]);
    expect(build(b, [sim()]).voice).toBeNull();
  });

  it('weighs word errors by words: pooled errors over pooled words', () => {
    const side = (errors: number[]) =>
      errors.map((e, i) =>
        call(
          i + 1,
          audio({ ttfa: 800, noise: 'street', asr: { words: i === 0 ? 1000 : 10, errors: e } }),
          [300],
        ),
      );
    const voice = build(side([10, 0, 0, 0, 0]), side([10, 5, 5, 5, 5])).voice!;
    const wer = voice.rows.find((r) => r.measure === 'wer')!;
    expect(wer.baseline).toBeCloseTo(10 / 1040, 10);
    expect(wer.candidate).toBeCloseTo(30 / 1040, 10);
    expect(wer.calls).toEqual({ baseline: 5, candidate: 5 });
  });
});
