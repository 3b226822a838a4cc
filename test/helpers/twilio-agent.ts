import { expect } from 'vitest';
import { startFakeSpeech, type FakeSpeech } from './fake-speech.js';
import { startFakeVoice, type FakeVoice } from './fake-voice.js';
import type { BrainOptions } from './fake-voice-brain.js';
import type { Json } from './json.js';
import { startServer, type TestServer } from './server.js';

/**
 * A server with a custom agent on Twilio Media Streams: the fake voice agent (`brain` says how it
 * answers) and a fake speech-to-text server for its words, set in the server's settings.
 */
export async function startTwilioAgent(
  brain: BrainOptions,
): Promise<{ s: TestServer; voice: FakeVoice; speech: FakeSpeech; agentId: string }> {
  const voice = await startFakeVoice(brain);
  const speech = await startFakeSpeech();
  const s = await startServer();
  await s.call('PATCH', '/v1/settings', {
    speech: { stt: { baseUrl: `${speech.url}/v1`, apiKey: 'fake-speech-key', model: 'whisper-1' } },
  });
  const agent = await s.call('POST', '/v1/agents/connect', {
    provider: 'http',
    agent_id: 'pipecat-bot',
    credentials: { base_url: `${voice.url}/chat`, websocket_url: voice.mediaStreamUrl },
  });
  expect(agent.status).toBe(201);
  return { s, voice, speech, agentId: agent.body.id as string };
}

/** Executes a scenario, waits (up to 90 s) for it to end, and answers its first simulation. */
export async function firstSimulationOf(
  s: TestServer,
  scenarioId: string,
  body: Json = {},
): Promise<Json> {
  const started = await s.ws('POST', `/scenarios/${scenarioId}/execute`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const id = started.body.data.execution.id as string;
  const done = await s.ws('GET', `/executions/${id}?wait=90`);
  expect(done.body.data.execution.status).not.toBe('running');
  const sims = await s.ws('GET', `/executions/${id}/simulations`);
  return sims.body.data.simulations[0];
}
