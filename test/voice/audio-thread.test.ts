import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeSpeech } from '../helpers/fake-speech.js';
import type { FakeVoice } from '../helpers/fake-voice.js';
import { callerClockMs, type FakeBrainRecord } from '../helpers/fake-voice-brain.js';
import { startControlPacer } from '../helpers/control-pacer.js';
import { startVoiceFakesProcess, type VoiceFakesProcess } from '../helpers/fake-voice-process.js';
import { createPersona } from '../helpers/http-agents.js';
import type { Json } from '../helpers/json.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { firstSimulationOf, startTwilioAgent } from '../helpers/twilio-agent.js';

/**
 * The frames of a live call run on an audio thread: the engine's thread being held up does not
 * hold them up, an audio thread that dies fails its calls with the reason, and a stop with calls
 * in flight ends the threads cleanly.
 */

let s: TestServer | null = null;
let fakes: VoiceFakesProcess | null = null;
let voice: FakeVoice | null = null;
let speech: FakeSpeech | null = null;

afterEach(async () => {
  await s?.stop();
  await fakes?.stop();
  await voice?.stop();
  await speech?.stop();
  s = fakes = voice = speech = null;
});

const LINES = [
  { say: 'Hello, I am calling about my order.' },
  { say: 'When will it arrive at my house?' },
  { say: 'Thank you, that is all, goodbye.' },
];

/** A scripted audio scenario against the agent `agentId` of server `server`. */
async function scenarioOn(server: TestServer, agentId: string, name: string): Promise<string> {
  const persona = await createPersona(server, 'Dana');
  const scenario = await server.ws('POST', '/scenarios', {
    name,
    prompt: 'Ask about an order.',
    personas: [persona],
    targetAgents: [agentId],
    script: LINES,
    maxDurationMs: 30_000,
    audio: { enabled: true },
  });
  expect(scenario.status).toBe(201);
  return scenario.body.data.scenario.id as string;
}

/** A server (with `audioThreads`) calling the fakes' agent, the agent's words by their STT. */
async function serverOnFakes(f: VoiceFakesProcess, audioThreads?: number) {
  const server = await startServer(audioThreads === undefined ? {} : { audioThreads });
  await server.call('PATCH', '/v1/settings', {
    speech: { stt: { baseUrl: f.sttUrl, apiKey: 'fake-speech-key', model: 'whisper-1' } },
  });
  const agent = await server.call('POST', '/v1/agents/connect', {
    provider: 'http',
    agent_id: 'pipecat-bot',
    credentials: { base_url: f.agentUrl, websocket_url: f.mediaStreamUrl },
  });
  expect(agent.status).toBe(201);
  return { server, scenarioId: await scenarioOn(server, agent.body.id as string, 'Blocked') };
}

/** This thread does nothing else for `ms`: what a heavy request does to the engine. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * The call, with the engine's thread busy for 200 ms of every 700 from its execution to its end:
 * the call's own figures, the longest stall of this thread, and how late a bare pacer on a thread
 * of its own ran meanwhile (the machine's floor: on a busy machine, no thread is on time).
 */
async function callWhileBlocked(server: TestServer, scenarioId: string) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const control = startControlPacer();
  const blocking = setInterval(() => busyFor(200), 700);
  try {
    const sim = await firstSimulationOf(server, scenarioId);
    return { sim, stallMs: loop.max / 1e6, floor: await control.stop() };
  } finally {
    clearInterval(blocking);
    loop.disable();
  }
}

/** Each measured reply's latency less the fake's own (its start less the caller's end). */
function latencyErrors(sim: Json, record: FakeBrainRecord): number[] {
  const agentTurns = (sim.turns as Json[]).filter(
    (t) => t.role === 'agent' && t.latency_ms !== null,
  );
  const truth = record.turns.filter((t) => t.callerEndAudioMs !== null);
  expect(agentTurns.length).toBeGreaterThanOrEqual(2);
  expect(truth.length).toBe(agentTurns.length);
  return agentTurns.map((turn, i) => {
    const known = callerClockMs(record, truth[i]!.agentStartMs) - truth[i]!.callerEndAudioMs!;
    return (turn.latency_ms as number) - known;
  });
}

describe('audio threads', () => {
  it('keeps a call on time while the engine thread is blocked, and its latencies exact', async () => {
    // The agent speaks a second ahead of real time, as streaming voices do.
    fakes = await startVoiceFakesProcess({ leadMs: 1_000 });
    const on = await serverOnFakes(fakes);
    s = on.server;
    const { sim, stallMs, floor } = await callWhileBlocked(s, on.scenarioId);
    expect(sim.status, sim.error).toBe('completed');
    // The engine's thread was held up, whole 200 ms at a time...
    expect(stallMs).toBeGreaterThanOrEqual(180);
    // ...and no frame of the call was late by more than 20 ms for it, beyond what the machine
    // made any thread wait meanwhile.
    expect(sim.audio.pacing.frames).toBeGreaterThan(200);
    expect(
      sim.audio.pacing.late_max_ms,
      `a bare pacer meanwhile: ${JSON.stringify(floor)}`,
    ).toBeLessThanOrEqual(20 + floor.lateMaxMs);
    const [record] = await fakes.truth();
    for (const error of latencyErrors(sim, record!))
      expect(Math.abs(error)).toBeLessThanOrEqual(40);
  }, 120_000);

  it('with the frames on the engine thread (audioThreads: 0), the same stalls make them late', async () => {
    // The baseline the threads replace: what the test above would see without them.
    fakes = await startVoiceFakesProcess({ leadMs: 1_000 });
    const on = await serverOnFakes(fakes, 0);
    s = on.server;
    expect(s.engine.audioThreads()).toBeNull();
    const { sim, stallMs } = await callWhileBlocked(s, on.scenarioId);
    expect(sim.status, sim.error).toBe('completed');
    expect(stallMs).toBeGreaterThanOrEqual(180);
    expect(sim.audio.pacing.late_max_ms).toBeGreaterThanOrEqual(150);
  }, 120_000);

  it('fails the calls of an audio thread that dies with the reason, and the next call runs', async () => {
    const started = await startTwilioAgent({ delayMs: 500, leadMs: 1_000 });
    ({ s, voice, speech } = started);
    speech.transcripts.push(...Array.from({ length: 10 }, () => 'Your order ships tomorrow.'));
    const scenarioId = await scenarioOn(s, started.agentId, 'Killed');
    const execution = await s.ws('POST', `/scenarios/${scenarioId}/execute`, {});
    expect(execution.status).toBe(202);
    // Mid-call: the call is up and its caller has been heard.
    await until(() => (voice!.brains[0]?.heard.length ?? 0) > 0);
    const workers = s.engine.audioThreads()!.workers();
    expect(workers.length).toBe(1);
    await workers[0]!.terminate();
    const id = execution.body.data.execution.id as string;
    await s.ws('GET', `/executions/${id}?wait=60`);
    const sims = await s.ws('GET', `/executions/${id}/simulations`);
    const killed = sims.body.data.simulations[0];
    expect(killed.status).toBe('failed');
    expect(killed.error).toMatch(/the audio thread stopped \(exit code 1\)/);
    // What the call got to before is kept: the caller's first line, at least.
    expect((killed.turns as Json[]).some((t) => t.role === 'caller')).toBe(true);
    // A new thread takes the next call.
    const next = await firstSimulationOf(s, scenarioId);
    expect(next.status, next.error).toBe('completed');
    expect(s.engine.audioThreads()!.workers()[0]).not.toBe(workers[0]);
  }, 120_000);

  it('stops with calls in flight: the calls end and the audio threads exit', async () => {
    const started = await startTwilioAgent({ delayMs: 500, leadMs: 1_000 });
    ({ s, voice, speech } = started);
    const scenarioId = await scenarioOn(s, started.agentId, 'Stopped');
    const execution = await s.ws('POST', `/scenarios/${scenarioId}/execute`, { runs: 2 });
    expect(execution.status).toBe(202);
    await until(() => voice!.brains.filter((b) => b.heard.length > 0).length === 2);
    const workers: Worker[] = s.engine.audioThreads()!.workers();
    const exits = workers.map((w) => new Promise((resolve) => w.once('exit', resolve)));
    await s.engine.stop();
    await Promise.all(exits);
    // Both calls were hung up from the caller's side, not left for the agent to find dropped.
    await until(() => voice!.brains.every((b) => b.endedBy !== null));
    expect(voice.brains.map((b) => b.endedBy)).toEqual(['caller', 'caller']);
  }, 120_000);
});

/** Resolves once `check` holds, looking every 50 ms (the test's own timeout bounds it). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50));
}
