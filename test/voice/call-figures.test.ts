import { afterEach, describe, expect, it } from 'vitest';
import { startFakeBrain } from '../helpers/fake-brain.js';
import type { FakeSpeech } from '../helpers/fake-speech.js';
import type { FakeVoice } from '../helpers/fake-voice.js';
import { callerClockMs, type BrainOptions } from '../helpers/fake-voice-brain.js';
import { createPersona } from '../helpers/http-agents.js';
import type { Json } from '../helpers/json.js';
import type { TestServer } from '../helpers/server.js';
import { firstSimulationOf, startTwilioAgent } from '../helpers/twilio-agent.js';

/**
 * The figures of an audio call a tester reads first, against a custom agent on Twilio Media
 * Streams (the fake answers after a fixed delay by its own clock): the first call after a start
 * measures as the ones after it, `duration_ms` is the call's own length, and a silence the caller
 * keeps on purpose lasts as long as its script says, whatever the agent says into it. Every
 * timing is compared on the call's audio clock, not the wall clock of a busy machine.
 */

let s: TestServer | null = null;
let voice: FakeVoice | null = null;
let speech: FakeSpeech | null = null;
let brain: Awaited<ReturnType<typeof startFakeBrain>> | null = null;

afterEach(async () => {
  await s?.stop();
  await voice?.stop();
  await speech?.stop();
  await brain?.stop();
  s = voice = speech = brain = null;
});

const REPLY = 'Your order TRK123 ships tomorrow.';

/** A fresh engine with the fake agent, and an audio scenario of `script` (none: a model caller). */
async function setUp(agent: BrainOptions, scenario: Json) {
  const started = await startTwilioAgent(agent);
  ({ s, voice, speech } = started);
  const persona = await createPersona(s, 'Dana');
  const made = await s.ws('POST', '/scenarios', {
    name: 'Order status by voice',
    prompt: 'Ask where the order is.',
    personas: [persona],
    targetAgents: [started.agentId],
    audio: { enabled: true },
    ...scenario,
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.data.scenario.id as string;
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
}

describe('audio call figures', () => {
  it('measures the first call after a start as the calls after it: nothing loads in its time', async () => {
    // A model caller opens the call (the agent waits for it), so whatever the engine loads for
    // the caller's first words (its model's thread, its voice) would land inside the call's clock.
    const scenarioId = await setUp({ delayMs: 600, replies: [REPLY] }, { maxTurns: 1 });
    brain = await startFakeBrain();
    const llm = { kind: 'openai', baseUrl: brain.url, apiKey: 'k-0123456789', model: 'fake' };
    expect((await s!.call('PATCH', '/v1/settings', { llm: { caller: llm } })).status).toBe(200);
    const firstAudio: number[] = [];
    const opening: number[] = [];
    for (let call = 0; call < 3; call++) {
      speech!.transcripts.push(REPLY, REPLY);
      const sim = await firstSimulationOf(s!, scenarioId);
      expect(sim.status, sim.error).toBe('completed');
      // The fake's own truth, on the call's clock: its first answer began there, less the time
      // the caller model took to write and voice its opening (the call's only line).
      const record = voice!.brains[call]!;
      const truth = callerClockMs(record, record.turns[0]!.agentStartMs);
      const known = truth - (sim.audio.caller_think_ms as number);
      expect(Math.abs((sim.audio.time_to_first_audio_ms as number) - known)).toBeLessThan(40);
      firstAudio.push(sim.audio.time_to_first_audio_ms as number);
      opening.push(
        (sim.turns as Json[]).find((t) => t.role === 'caller')!.audio.start_ms as number,
      );
    }
    const [first, ...next] = firstAudio;
    expect(Math.abs(first! - median(next)), JSON.stringify(firstAudio)).toBeLessThanOrEqual(50);
    // The caller model's thread and voice were up before dialling: the first call's caller opened
    // as soon as the later ones' did, not a second late (the agent would hear that silence too).
    const [firstOpening, ...nextOpenings] = opening;
    expect(firstOpening! - median(nextOpenings), JSON.stringify(opening)).toBeLessThan(250);
  }, 120_000);

  it('reports the call’s own length as its duration, connect to hang-up', async () => {
    const scenarioId = await setUp(
      { delayMs: 600, replies: [REPLY], hangupAfterTurns: 1 },
      { script: [{ say: 'Hello, where is my order?' }, { say: 'Thanks.' }] },
    );
    speech!.transcripts.push(REPLY, REPLY);
    const began = performance.now();
    const sim = await firstSimulationOf(s!, scenarioId);
    const wallMs = performance.now() - began;
    expect(sim.status, sim.error).toBe('completed');
    expect(sim.end_reason).toBe('agent_ended');
    // The fake hung up 300 ms after its answer played out: where, on the call's clock.
    const record = voice!.brains[0]!;
    const hungUpAt = callerClockMs(record, record.hungUpAtMs!);
    expect(sim.audio.duration_ms).toBe(sim.duration_ms);
    // Its close reaches Callbench a socket hop later, seen at the next 20 ms frame.
    expect(sim.duration_ms - hungUpAt).toBeGreaterThanOrEqual(-5);
    expect(sim.duration_ms - hungUpAt).toBeLessThan(120);
    // The voices' start-up, the speech-to-text and the scoring are the run's, not the call's.
    expect(sim.duration_ms).toBeLessThan(wallMs);
  }, 60_000);

  it('keeps a silence whole when the agent re-prompts into it', async () => {
    // The agent re-prompts 2 s into the caller's 5 s silence, and is done well before its end.
    const scenarioId = await setUp(
      { delayMs: 300, repromptAfterMs: 2_000, replies: ['Okay.'] },
      {
        script: [
          { say: 'Hello, I have a question.' },
          { silence: { ms: 5000 }, say: 'Yes, sorry, I am still here.' },
          { say: 'Thanks, bye.', hangup: true },
        ],
      },
    );
    speech!.transcripts.push('Okay.', 'Are you still there?', 'Okay.', 'Okay.');
    const sim = await firstSimulationOf(s!, scenarioId);
    expect(sim.status, sim.error).toBe('completed');
    expect(voice!.brains[0]!.reprompts.length).toBe(1);
    const [silence] = sim.audio.caller.silences as Json[];
    expect(Math.abs((silence!.reprompt_ms as number) - 2000)).toBeLessThanOrEqual(120);
    const turns = sim.turns as Json[];
    const answerAt = turns.findIndex((t) => t.text === 'Yes, sorry, I am still here.');
    const answer = turns[answerAt]!;
    // The agent's answer and its re-prompt make one turn (no caller speech between them).
    const reprompted = turns[answerAt - 1]!;
    expect(reprompted.role).toBe('agent');
    expect(reprompted.audio.end_ms).toBeLessThan((silence!.at_ms as number) + 4_000);
    // On the call's clock: the caller's line starts as the silence ends (its first frame after,
    // the voice's own lead-in before its first sound), not a pause after the re-prompt.
    const late = (answer.audio.start_ms as number) - ((silence!.at_ms as number) + 5000);
    expect(late).toBeGreaterThanOrEqual(-10);
    expect(late).toBeLessThan(150);
  }, 90_000);
});
