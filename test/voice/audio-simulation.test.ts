import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { parseWav } from '../../src/audio/wav.js';
import { createRecordings } from '../../src/voice/recordings.js';
import type { FakeSpeech } from '../helpers/fake-speech.js';
import type { FakeVoice } from '../helpers/fake-voice.js';
import { callerClockMs, type BrainOptions } from '../helpers/fake-voice-brain.js';
import { createPersona } from '../helpers/http-agents.js';
import type { Json } from '../helpers/json.js';
import type { TestServer } from '../helpers/server.js';
import { firstSimulationOf, startTwilioAgent } from '../helpers/twilio-agent.js';

/**
 * Audio simulations end to end through the API: a custom agent on Twilio Media Streams (the fake
 * answers with real speech after a known delay), the caller voiced by espeak-ng, the agent's words
 * by speech-to-text from a fake STT server. Measured figures are checked against the fake's truth.
 */

let s: TestServer | null = null;
let voice: FakeVoice | null = null;
let speech: FakeSpeech | null = null;

afterEach(async () => {
  await s?.stop();
  await voice?.stop();
  await speech?.stop();
  s = voice = speech = null;
});

async function setUp(brain: BrainOptions, script: { say: string; expect?: Json }[]) {
  const started = await startTwilioAgent(brain);
  ({ s, voice, speech } = started);
  const persona = await createPersona(s, 'Dana');
  const scenario = await s.ws('POST', '/scenarios', {
    name: 'Order status by voice',
    prompt: 'Ask about an order.',
    personas: [persona],
    targetAgents: [started.agentId],
    script,
    audio: { enabled: true },
  });
  expect(scenario.status).toBe(201);
  return { scenarioId: scenario.body.data.scenario.id as string };
}

const runToEnd = (scenarioId: string, body: Json = {}) => firstSimulationOf(s!, scenarioId, body);

describe('audio simulations', () => {
  it('measures the agent’s response latency from the audio, within 40 ms of the truth', async () => {
    // The agent speaks a second ahead of real time, as streaming voices do: a stall of this
    // process while it speaks leaves no gap in what Callbench plays, so its speech starts with
    // its first sample, as the fake's truth says.
    const brain = { delayMs: 700, replies: ['Your order ships tomorrow.'], leadMs: 1_000 };
    const { scenarioId } = await setUp(brain, [
      { say: 'Hello, where is my order?', expect: { contains: 'ships' } },
      { say: 'Thank you, goodbye.' },
    ]);
    speech!.transcripts.push('Your order ships tomorrow.', 'Your order ships tomorrow.');
    // How late this process's timers ran meanwhile: the engine's pacing can be no better.
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const sim = await runToEnd(scenarioId);
    loop.disable();
    expect(sim.status, sim.error).toBe('completed');
    expect(sim.mode).toBe('audio');
    const agentTurns = (sim.turns as Json[]).filter((t) => t.role === 'agent');
    expect(agentTurns.length).toBeGreaterThanOrEqual(2);
    const record = voice!.brains[0]!;
    const truth = record.turns.filter((t) => t.callerEndAudioMs !== null);
    expect(truth.length).toBe(agentTurns.length);
    // Both on the caller's audio clock, as Callbench times the call: where the caller's speech
    // ended in the audio it sent, and when the answer began. A caller frame sent late on a busy
    // machine reaches the agent late, and it answers that much later on this clock too.
    agentTurns.forEach((turn, i) => {
      const known = callerClockMs(record, truth[i]!.agentStartMs) - truth[i]!.callerEndAudioMs!;
      expect(Math.abs((turn.latency_ms as number) - known)).toBeLessThanOrEqual(40);
      expect(turn.source).toBe('stt');
    });
    expect(agentTurns[0]!.text).toBe('Your order ships tomorrow.');
    expect(sim.passed).toBe(true);
    const audio = sim.audio;
    expect(audio.transport).toBe('twilio');
    // A studio line (the default) carries the phone call's own 8 kHz, not the 16 kHz of its spec.
    expect(audio.sample_rate).toBe(8000);
    expect(audio.caller.line).toMatchObject({ profile: 'studio', sample_rate: 8000 });
    // The agent's turns were found by Silero VAD (8 kHz on this transport), dated by energy.
    expect(audio.voice_activity).toEqual({ detector: 'silero', reason: null });
    expect(audio.response_latency_ms.p50).toBeGreaterThan(600);
    // The fake agent shares this process (its VAD, voice and pacing), maybe on a busy machine: the
    // bound is over the event loop's longest stall meanwhile; the bench measures pacing alone.
    expect(audio.pacing.late_p99_ms).toBeLessThan(25 + loop.max / 1e6);
    expect(audio.recording).toBe(true);
    // What its cost is counted from: the caller's lines spoken, the agent transcribed, the call.
    const { speech: spent } = sim.usage;
    // Priced by the agent's provider (this one is reached at its own URL, over Twilio).
    expect(spent.call).toEqual({ provider: 'http', seconds: audio.duration_ms / 1000 });
    const spoken = (spent.tts as Json[]).reduce((n, t) => n + (t.characters as number), 0);
    expect(spoken).toBeGreaterThanOrEqual('Hello, where is my order?Thank you, goodbye.'.length);
    expect(spent.stt.length).toBe(1);
    expect(spent.stt[0].seconds).toBeGreaterThan(0);

    const wav = await fetch(`${s!.url}${sim.recording_url}`, {
      headers: { authorization: `Bearer ${s!.key}` },
    });
    expect(wav.status).toBe(200);
    expect(wav.headers.get('content-type')).toContain('audio/wav');
    const parsed = parseWav(new Uint8Array(await wav.arrayBuffer()));
    expect(parsed.channels).toBe(2);
    const range = await fetch(`${s!.url}${sim.recording_url}`, {
      headers: { authorization: `Bearer ${s!.key}`, range: 'bytes=0-43' },
    });
    expect(range.status).toBe(206);
    expect((await range.arrayBuffer()).byteLength).toBe(44);

    // The speech-to-text key is kept encrypted and answered masked.
    const settings = await s!.call('GET', '/v1/settings');
    expect(settings.body.speech.stt.apiKey).not.toContain('fake-speech-key');

    // Past the retention days, the recording goes and the simulation says so.
    const recordings = createRecordings({ dataDir: s!.dataDir, store: s!.engine.store, log() {} });
    expect(await recordings.sweep(Date.now())).toBe(0);
    expect(await recordings.sweep(Date.now() + 31 * 86_400_000)).toBe(1);
    const after = await s!.ws('GET', `/simulations/${sim.id}`);
    expect(after.body.data.simulation.recording_url).toBeNull();
    expect(after.body.data.simulation.audio.recording).toBe(false);
    expect((await s!.ws('GET', `/simulations/${sim.id}/recording`)).status).toBe(404);
  }, 60_000);

  it('refuses audio up front where the agent cannot take a call, naming why', async () => {
    const { scenarioId } = await setUp({}, [{ say: 'Hello.' }]);
    await s!.call('PATCH', '/v1/settings', { speech: { stt: null } });
    const refused = await s!.ws('POST', `/scenarios/${scenarioId}/execute`, { mode: 'audio' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('settings.speech.stt');
    const replica = await s!.ws('POST', `/scenarios/${scenarioId}/execute`, {
      mode: 'audio',
      channel: 'replica',
    });
    expect(replica.status).toBe(400);
  }, 30_000);

  it('ends a call whose line drops as failed, keeping the turns so far', async () => {
    const { scenarioId } = await setUp({ delayMs: 300, dropAfterMs: 4_000 }, [
      { say: 'Hello, where is my order?' },
      { say: 'Are you still there?' },
      { say: 'Hello?' },
    ]);
    speech!.transcripts.push('Sure, I can help you with that today.');
    const sim = await runToEnd(scenarioId);
    expect(sim.status).toBe('failed');
    expect(sim.error).toMatch(/dropped/);
    expect((sim.turns as Json[]).length).toBeGreaterThan(0);
  }, 60_000);
});
