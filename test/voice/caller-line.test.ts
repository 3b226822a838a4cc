import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { concatPcm } from '../../src/audio/pcm.js';
import { parseWav } from '../../src/audio/wav.js';
import { detectDtmf } from '../helpers/dtmf-detector.js';
import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import type { Json } from '../helpers/json.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { bandEnergyShare } from '../audio/spectrum.js';

/**
 * The caller's line and surroundings on calls to an ElevenLabs agent (16 kHz, and its
 * `user_transcript` says what the agent heard): the telephone band as the agent received it,
 * losses counted against the frames that arrived, the noise's level measured back from the
 * recording, and the word errors of what the agent heard.
 */
describe('the line and the noise', () => {
  let s: TestServer;
  let providers: FakeProviders;
  let agentId: string;

  beforeAll(async () => {
    providers = await startFakeProviders({
      voice: {
        delayMs: 400,
        replies: ['Thank you, noted.', 'Goodbye.'],
        heardTexts: ['my booking number is 4 1 5 3', 'thanks goodbye'],
      },
    });
    s = await startServer();
    const res = await s.call('POST', '/v1/agents/connect', {
      provider: 'elevenlabs',
      agent_id: 'el_1',
      credentials: { api_key: GOOD_KEY, base_url: providers.url },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    agentId = res.body.id as string;
  }, 60_000);

  afterAll(async () => {
    await s?.stop();
    await providers?.stop();
  });

  const persona = async (extra: Json = {}) => {
    const res = await s.ws('POST', '/personas', {
      name: `P${Math.random()}`,
      prompt: 'Calm.',
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.persona.id as string;
  };

  const scenario = async (body: Json) => {
    const res = await s.ws('POST', '/scenarios', {
      name: `Line ${Math.random()}`,
      prompt: 'Give a booking number.',
      targetAgents: [agentId],
      audio: { enabled: true },
      ...body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.scenario.id as string;
  };

  const run = async (scenarioId: string, body: Json = {}): Promise<Json> => {
    const res = await s.ws('POST', `/scenarios/${scenarioId}/execute`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = res.body.data.execution.id as string;
    await s.ws('GET', `/executions/${id}?wait=60`);
    const sims = await s.ws('GET', `/executions/${id}/simulations`);
    return sims.body.data.simulations[0];
  };

  const lastBrain = () => {
    const brains = providers.voice!.brains;
    return brains[brains.length - 1]!;
  };

  it('a phone line carries only the telephone band, keypad tones and all; word errors of what the agent heard', async () => {
    const card = await s.ws('POST', '/scorecards', {
      name: 'Hears well',
      metrics: [{ name: 'WER', type: 'max_asr_wer', config: { max: 0.1 } }],
    });
    const scenarioId = await scenario({
      personas: [await persona()],
      script: [{ say: 'My booking number is 4 1 5 2.', dtmf: '73#' }, { say: 'Thanks, goodbye.' }],
      scorecard: card.body.data.scorecard.id,
    });
    const sim = await run(scenarioId, { line: 'phone' });
    expect(sim.status, sim.error).toBe('completed');
    expect(sim.line.profile).toBe('phone');
    const received = concatPcm(lastBrain().callerAudio);
    // Under 1% of the energy above 3.4 kHz (a clean 16 kHz voice has several times more).
    expect(bandEnergyShare(received, 16000, 3400, 8000)).toBeLessThan(0.01);
    expect(detectDtmf(received, 16000)).toContain('73#');
    expect(sim.audio.caller.dtmf).toMatchObject([{ digits: '73#', via: 'tones' }]);
    const asr = sim.audio.caller.asr;
    expect(asr.wer).toBeCloseTo(1 / 7, 3);
    expect(asr.misheard).toEqual([{ said: '4152', heard: '4153', kind: 'number' }]);
    const first = (sim.turns as Json[]).find((t) => t.role === 'caller')!;
    expect(first.wer).toBeCloseTo(0.2, 3);
    expect(sim.results[0].passed).toBe(false);
    expect(sim.results[0].reasoning).toContain('4152');
  }, 90_000);

  it('a mobile line loses frames by its seed, and latency still counts from what the agent heard', async () => {
    const scenarioId = await scenario({
      personas: [await persona()],
      script: [
        { say: 'Hello, I would like to check on my order please.' },
        { say: 'Thanks, goodbye.' },
      ],
    });
    const sim = await run(scenarioId, { line: 'mobile', seed: 1234 });
    expect(sim.status, sim.error).toBe('completed');
    expect(sim.line).toMatchObject({ profile: 'mobile', seed: 1234, loss_percent: 3 });
    const line = sim.audio.caller.line;
    expect(line.frames_lost).toBeGreaterThan(0);
    const brain = lastBrain();
    // Frames still in flight on the line when the call ended never arrive: a few at most.
    const arrived = line.frames - line.frames_lost;
    expect(Math.abs(brain.callerFrames - arrived)).toBeLessThanOrEqual(10);
    const answered = brain.turns.filter((t) => t.callerEndMs !== null);
    const agentTurns = (sim.turns as Json[]).filter(
      (t) => t.role === 'agent' && t.latency_ms !== null,
    );
    expect(agentTurns.length).toBe(answered.length);
    agentTurns.forEach((t, i) => {
      const known = answered[i]!.agentStartMs - answered[i]!.callerEndMs!;
      expect(Math.abs((t.latency_ms as number) - known)).toBeLessThanOrEqual(60);
    });
  }, 90_000);

  it('mixes the persona’s noise at its SNR, measured back from the recording within 1 dB', async () => {
    const scenarioId = await scenario({
      personas: [await persona({ backgroundNoise: 'cafe', noise: { snrDb: 12 } })],
      script: [
        { say: 'Hello, I would like to check on my order please, it was placed last week.' },
      ],
      maxDurationMs: 9_000,
    });
    const sim = await run(scenarioId);
    expect(sim.audio.caller.noise).toEqual({ bed: 'cafe', snr_db: 12 });
    const wav = await fetch(`${s.url}${sim.recording_url}`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    const bytes = new Uint8Array(await wav.arrayBuffer());
    const { sampleRate, channels } = parseWav(bytes);
    expect(channels).toBe(2);
    // The caller is the right channel of the 16-bit stereo data after the 44-byte header.
    const frames = new Int16Array(bytes.buffer.slice(44));
    const callerSide = frames.filter((_x, i) => i % 2 === 1);
    const turn = (sim.turns as Json[]).find((t) => t.role === 'caller')!;
    const at = (ms: number) => Math.round((ms * sampleRate) / 1000);
    const speechPart = callerSide.subarray(at(turn.audio.start_ms), at(turn.audio.end_ms));
    const noiseOnly = concatPcm([
      callerSide.subarray(at(100), at(turn.audio.start_ms - 300)),
      callerSide.subarray(at(turn.audio.end_ms + 300), at(8_800)),
    ]);
    const power = (x: Int16Array) => x.reduce((sum, v) => sum + v * v, 0) / x.length;
    const n = power(noiseOnly);
    const snr = 10 * Math.log10((power(speechPart) - n) / n);
    expect(Math.abs(snr - 12)).toBeLessThanOrEqual(1);
  }, 60_000);

  it('refuses what cannot be, naming the field', async () => {
    const bad = async (path: string, body: Json, method = 'POST') => {
      const res = await s.ws(method, path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return res.body.error.details.map((d: Json) => d.path as string);
    };
    expect(await bad('/personas', { name: 'N', prompt: 'p', noise: { snrDb: 41 } })).toContain(
      'noise.snrDb',
    );
    expect(
      await bad('/scenarios', {
        name: 'd',
        prompt: 'p',
        script: [{ say: 'Hi', dtmf: '12x' }],
      }),
    ).toContain('script[0].dtmf');
    const personaId = await persona();
    const scenarioId = await scenario({
      personas: [personaId],
      script: [{ say: 'Hi', dtmf: '12#' }],
      audio: { enabled: false },
    });
    expect(await bad(`/scenarios/${scenarioId}/execute`, {})).toContain('script[0].dtmf');
    expect(
      await bad(`/scenarios/${scenarioId}/execute`, { mode: 'text', line: 'mobile' }),
    ).toContain('line');
    // A persona's behaviours are acts of an audio call: a text run of it is refused, not quietly
    // run without them; one that can never happen (probability 0) is no behaviour at all.
    const silent = await persona({ behaviours: { silence: { probability: 0.5, ms: 4000 } } });
    const never = await persona({ behaviours: { hangup: { probability: 0 } } });
    const textRun = await scenario({ personas: [silent, never], audio: { enabled: false } });
    const refused = await bad(`/scenarios/${textRun}/execute`, {});
    expect(refused).toContain(`personas.${silent}.behaviours`);
    expect(refused).not.toContain(`personas.${never}.behaviours`);
    const lossy = await bad(`/scenarios/${scenarioId}/execute`, {
      mode: 'audio',
      line: { codec: 'mulaw', sampleRate: 8000, lossPercent: 60 },
    });
    expect(lossy.join(' ')).toContain('line');
  });
});

describe('a noise bed missing from the installation', () => {
  let s: TestServer;
  let providers: FakeProviders;
  let emptyDir = '';

  beforeAll(async () => {
    emptyDir = tempDir();
    providers = await startFakeProviders({ voice: { delayMs: 300 } });
    s = await startServer({ noiseDir: emptyDir });
  }, 60_000);

  afterAll(async () => {
    await s?.stop();
    await providers?.stop();
  });

  it('fails the simulation naming the missing file, never silence', async () => {
    const agent = await s.call('POST', '/v1/agents/connect', {
      provider: 'elevenlabs',
      agent_id: 'el_1',
      credentials: { api_key: GOOD_KEY, base_url: providers.url },
    });
    const persona = await s.ws('POST', '/personas', {
      name: 'Street caller',
      prompt: 'Busy.',
      backgroundNoise: 'street',
    });
    const scenario = await s.ws('POST', '/scenarios', {
      name: 'Noisy',
      prompt: 'p',
      personas: [persona.body.data.persona.id],
      targetAgents: [agent.body.id],
      script: [{ say: 'Hello?' }],
      audio: { enabled: true },
    });
    const res = await s.ws('POST', `/scenarios/${scenario.body.data.scenario.id}/execute`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = res.body.data.execution.id as string;
    await s.ws('GET', `/executions/${id}?wait=30`);
    const sims = await s.ws('GET', `/executions/${id}/simulations`);
    const sim = sims.body.data.simulations[0];
    expect(sim.status).toBe('failed');
    expect(sim.error).toContain(join(emptyDir, 'street.wav'));
    expect(providers.voice!.brains.length).toBe(0);
  }, 60_000);
});
