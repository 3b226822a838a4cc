import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { startFakeBrain } from '../helpers/fake-brain.js';
import type { FakeSpeech } from '../helpers/fake-speech.js';
import type { FakeVoice } from '../helpers/fake-voice.js';
import {
  callerClockMs,
  type BrainOptions,
  type FakeBrainRecord,
} from '../helpers/fake-voice-brain.js';
import type { Json } from '../helpers/json.js';
import type { TestServer } from '../helpers/server.js';
import { firstSimulationOf, startTwilioAgent } from '../helpers/twilio-agent.js';

/**
 * Callers that behave like people, against a custom agent on Twilio Media Streams (the fake runs
 * a voice brain that stops when talked over, re-prompts a silent caller and reports keypad
 * events): each figure Callbench measures is checked against what the fake knows happened.
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

const LONG_REPLY =
  'Let me look that up for you. Your booking is for two people on Friday the twelfth, at seven in the evening, by the window.';

async function setUp(brain: BrainOptions, opts: { persona?: Json; scorecard?: Json[] } = {}) {
  const started = await startTwilioAgent(brain);
  ({ s, voice, speech } = started);
  const persona = await s.ws('POST', '/personas', {
    name: 'Dana',
    prompt: 'Calm.',
    ...opts.persona,
  });
  expect(persona.status, JSON.stringify(persona.body)).toBe(201);
  let scorecard: string | undefined;
  if (opts.scorecard) {
    const made = await s.ws('POST', '/scorecards', {
      name: 'Caller handling',
      metrics: opts.scorecard,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    scorecard = made.body.data.scorecard.id as string;
  }
  return {
    agentId: started.agentId,
    personaId: persona.body.data.persona.id as string,
    scorecard,
  };
}

async function scenarioWith(
  ids: { agentId: string; personaId: string; scorecard?: string },
  script: Json[],
  extra: Json = {},
) {
  const scenario = await s!.ws('POST', '/scenarios', {
    name: `Caller ${Math.random()}`,
    prompt: 'Check a booking.',
    personas: [ids.personaId],
    targetAgents: [ids.agentId],
    script,
    audio: { enabled: true },
    ...(ids.scorecard ? { scorecard: ids.scorecard } : {}),
    ...extra,
  });
  expect(scenario.status, JSON.stringify(scenario.body)).toBe(201);
  return scenario.body.data.scenario.id as string;
}

const runToEnd = (scenarioId: string, body: Json = {}) => firstSimulationOf(s!, scenarioId, body);

/**
 * A model-played caller that always barges in 1.2 s into the agent's long replies (ahead of real
 * time, so that no stall reads as a stop), for two replies; answers the finished simulation.
 */
async function modelCallerBargingIn(agent: { delayMs: number; bargeInMs: number }) {
  const ids = await setUp(
    { ...agent, replies: [LONG_REPLY], leadMs: 1_000 },
    { persona: { behaviours: { bargeIn: { probability: 1, afterMs: 1200 } } } },
  );
  brain = await startFakeBrain();
  const llm = { kind: 'openai', baseUrl: brain.url, apiKey: 'k-0123456789', model: 'fake' };
  expect((await s!.call('PATCH', '/v1/settings', { llm: { caller: llm } })).status).toBe(200);
  speech!.transcripts.push(LONG_REPLY, LONG_REPLY, LONG_REPLY);
  const scenarioId = await scenarioWith(ids, [], {
    script: undefined,
    maxTurns: 2,
    maxDurationMs: 20_000,
  });
  const sim = await runToEnd(scenarioId, { seed: 3 });
  expect(sim.status, sim.error).toBe('completed');
  return { sim, callerTurns: (sim.turns as Json[]).filter((t) => t.role === 'caller') };
}

/**
 * How long the agent took to stop for each barge-in, on the caller's audio clock as Callbench
 * times it: from where the caller's speech over it began in the audio sent, to its stop.
 */
const stopTimes = (record: FakeBrainRecord) =>
  record.bargeIns.map((b) => callerClockMs(record, b.stoppedAtMs) - b.callerStartAudioMs);

describe('realistic callers', () => {
  it('backchannels without a false yield, and times how fast the agent stops for a barge-in', async () => {
    // The agent speaks a second ahead of real time (the barge-in's `clear` voids it): a stall of
    // this process leaves no gap in its speech that would read as a stop (300 ms of quiet).
    const ids = await setUp(
      { delayMs: 400, bargeInMs: 700, replies: [LONG_REPLY], leadMs: 1_000 },
      {
        scorecard: [
          { name: 'Stops fast', type: 'max_barge_in_stop_ms', config: { max: 2500 } },
          { name: 'Keeps talking', type: 'max_false_yields', config: { max: 0 } },
        ],
      },
    );
    speech!.transcripts.push(LONG_REPLY, LONG_REPLY, LONG_REPLY);
    const scenarioId = await scenarioWith(ids, [
      { say: 'Hi, I want to check my booking.' },
      { say: 'mm-hmm', backchannel: { afterMs: 800 } },
      { say: 'Okay, and can I change the date?' },
      {
        say: 'Sorry, wait, I meant the time and not the date at all.',
        interrupt: { afterMs: 1000 },
      },
    ]);
    const sim = await runToEnd(scenarioId);
    expect(sim.status, sim.error).toBe('completed');
    const caller = sim.audio.caller;
    expect(caller.backchannels).toEqual({ count: 1, false_yields: 0 });
    expect(caller.barge_ins.count).toBe(1);
    const truth = stopTimes(voice!.brains[0]!);
    expect(truth.length).toBe(1);
    const known = truth[0]!;
    expect(Math.abs((caller.barge_ins.stop_ms.max as number) - known)).toBeLessThanOrEqual(80);
    expect(caller.barge_ins.not_stopped).toBe(0);
    const acts = (sim.turns as Json[]).filter((t) => t.act).map((t) => t.act);
    expect(acts).toEqual(['backchannel', 'barge_in']);
    expect(sim.results.map((r: Json) => r.passed)).toEqual([true, true]);
  }, 90_000);

  it('counts a stop on a mere backchannel as a false yield', async () => {
    const ids = await setUp({ delayMs: 400, bargeInMs: 150, replies: [LONG_REPLY] });
    speech!.transcripts.push(LONG_REPLY, LONG_REPLY);
    const scenarioId = await scenarioWith(ids, [
      { say: 'Hi, I want to check my booking.' },
      { say: 'okay', backchannel: { afterMs: 800 } },
    ]);
    const sim = await runToEnd(scenarioId);
    expect(sim.status, sim.error).toBe('completed');
    expect(sim.audio.caller.backchannels).toEqual({ count: 1, false_yields: 1 });
    expect(voice!.brains[0]!.interruptions).toBe(1);
  }, 90_000);

  it('keeps a silence the agent re-prompts into, sends keypad digits as events, and hangs up', async () => {
    const ids = await setUp(
      { delayMs: 300, repromptAfterMs: 2_000, replies: ['Okay.'] },
      {
        scorecard: [
          { name: 'Re-prompts', type: 'reprompts_after_silence', config: { withinMs: 4000 } },
        ],
      },
    );
    speech!.transcripts.push('Okay.', 'Are you still there?', 'Okay.', 'Okay.');
    const scenarioId = await scenarioWith(ids, [
      { say: 'Hello, I have a question.' },
      { silence: { ms: 5000 }, say: 'Yes, sorry, I am still here.' },
      { say: 'My account number is', dtmf: '4821#' },
      { say: 'Thanks, bye.', hangup: true },
    ]);
    const sim = await runToEnd(scenarioId);
    expect(sim.status, sim.error).toBe('completed');
    expect(sim.end_reason).toBe('caller_ended');
    const caller = sim.audio.caller;
    expect(caller.hung_up).toBe(true);
    expect(caller.silences.length).toBe(1);
    const brain = voice!.brains[0]!;
    expect(brain.reprompts.length).toBe(1);
    // The fake re-prompts 2 s after its answer played out; the silence is timed from that end.
    expect(Math.abs(caller.silences[0].reprompt_ms - 2000)).toBeLessThanOrEqual(120);
    const digits = brain.clientMessages
      .filter((m) => m.event === 'dtmf')
      .map((m) => m.dtmf.digit)
      .join('');
    expect(digits).toBe('4821#');
    expect(caller.dtmf).toMatchObject([{ digits: '4821#', via: 'event' }]);
    expect((sim.turns as Json[]).find((t) => t.dtmf)?.dtmf).toBe('4821#');
    expect(brain.endedBy).not.toBe('agent');
    expect(sim.results[0].passed).toBe(true);
  }, 90_000);

  it('a persona that hangs up by chance hangs up while the agent talks, the same on replay', async () => {
    const ids = await setUp(
      { firstMessage: LONG_REPLY, replies: ['Okay.'] },
      { persona: { behaviours: { hangup: { probability: 1 } } } },
    );
    const scenarioId = await scenarioWith(ids, [{ say: 'Hello?' }]);
    const sim = await runToEnd(scenarioId, { seed: 5 });
    expect(sim.status, sim.error).toBe('completed');
    expect(sim.end_reason).toBe('caller_ended');
    expect(sim.audio.caller.hung_up).toBe(true);
    expect(sim.line.seed).toBe(5);
    // A second into the agent's first words (its speech starts about 250 ms before it is confirmed).
    expect(sim.duration_ms).toBeLessThan(6_000);
    expect((sim.turns as Json[]).filter((t) => t.role === 'caller')).toEqual([]);
  }, 60_000);

  it('a model caller that barges in by chance writes its line from what it heard so far', async () => {
    // Ahead of real time as above: no stall reads as a stop, nor splits a reply into two turns.
    const { sim, callerTurns } = await modelCallerBargingIn({ delayMs: 300, bargeInMs: 500 });
    // The first line answers nobody (the agent has not spoken); each later one cuts into a reply.
    expect(callerTurns.map((t) => t.act ?? null)).toEqual([null, 'barge_in', 'barge_in']);
    expect(callerTurns[1]!.text).toBe('Hi, where is my order C3?');
    expect(brain!.calls.caller).toBe(3);
    // The replies the caller cut into count towards the turn limit: two replies, then the end.
    expect(sim.end_reason).toBe('max_turns');
    expect((sim.turns as Json[]).filter((t) => t.role === 'agent')).toHaveLength(2);
    const truth = stopTimes(voice!.brains[0]!);
    expect(truth.length).toBe(2);
    const measured = sim.audio.caller.barge_ins;
    expect(measured.count).toBe(2);
    const worst = Math.max(...truth);
    expect(Math.abs((measured.stop_ms.max as number) - worst)).toBeLessThanOrEqual(80);
  }, 90_000);

  it('a barge-in said just after the agent stopped is not taken for a new turn to cut into', async () => {
    // The agent stops about 1.3 s into the caller's 1.8 s line, so its speech's end is confirmed
    // (700 ms of quiet) only after the line is said, and it answers a second after the line.
    const { sim, callerTurns } = await modelCallerBargingIn({ delayMs: 1_000, bargeInMs: 800 });
    const record = voice!.brains[0]!;
    const stoppedAt = callerClockMs(record, record.bargeIns[0]!.stoppedAtMs);
    const lineEnd = callerTurns[1]!.audio.end_ms as number;
    expect(lineEnd - stoppedAt).toBeGreaterThan(0);
    expect(lineEnd - stoppedAt).toBeLessThan(700);
    // The agent's turn still open when the line was said is the one cut into: the caller waits
    // for the answer, and cuts into that, rather than barging in again over the agent's silence.
    expect(callerTurns.map((t) => t.act ?? null)).toEqual([null, 'barge_in', 'barge_in']);
    expect(brain!.calls.caller).toBe(3);
    expect(sim.end_reason).toBe('max_turns');
    expect((sim.turns as Json[]).filter((t) => t.role === 'agent')).toHaveLength(2);
  }, 90_000);

  it('runs from the CLI on a mobile line with a seed, and reports the line to replay', async () => {
    const ids = await setUp({ delayMs: 300, replies: ['Okay.'] });
    speech!.transcripts.push('Okay.', 'Okay.');
    const scenarioId = await scenarioWith(ids, [{ say: 'Hello there.' }, { say: 'Bye now.' }]);
    const env = { CALLBENCH_API_KEY: s!.key, CALLBENCH_URL: s!.url };
    const args = ['run', scenarioId, '--mode', 'audio', '--line', 'mobile', '--seed', '77'];
    const ran = await cli([...args, '--wait', '--json'], env);
    expect(ran.code, ran.err).toBe(0);
    const report = JSON.parse(ran.out) as { simulations: Json[] };
    expect(report.simulations[0]!.caller).toBe('mobile seed 77');
    const bad = await cli(['run', scenarioId, '--mode', 'text', '--line', 'mobile'], env);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('line');
  }, 90_000);
});
