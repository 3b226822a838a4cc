import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProviders, GOOD_KEY } from '../helpers/fake-providers.js';
import { startFakeSpeech, type FakeSpeech } from '../helpers/fake-speech.js';
import { startServer, type TestServer } from '../helpers/server.js';

/**
 * What an agent's answer says of audio calls (the chips read it), and Settings → Speech's "Test
 * voice" and "Test speech-to-text" against the system voice and a speech-to-text server on
 * 127.0.0.1.
 */
describe('agent audio availability, and the speech tests of the settings', () => {
  let s: TestServer;
  let speech: FakeSpeech;

  beforeAll(async () => {
    [s, speech] = await Promise.all([startServer(), startFakeSpeech()]);
  });
  afterAll(async () => {
    await Promise.all([s?.engine.stop(), speech?.stop()]);
  });

  const connectHttp = (credentials: Record<string, string>) =>
    s.call('POST', '/v1/agents/connect', {
      provider: 'http',
      agent_id: 'Home-built bot',
      credentials: { base_url: 'http://127.0.0.1:9/chat', ...credentials },
    });

  it('an http agent without a WebSocket URL is text only, and says why; with one it takes audio', async () => {
    const textOnly = await connectHttp({});
    expect(textOnly.status).toBe(201);
    expect(textOnly.body.audio).toEqual({
      available: false,
      reason: expect.stringContaining('WebSocket URL'),
    });
    const listed = (await s.call('GET', '/v1/agents')).body.agents;
    expect(listed.find((a: { id: string }) => a.id === textOnly.body.id).audio.available).toBe(
      false,
    );
    // Connecting it again, with its audio URL, edits the connection of the same agent.
    const withAudio = await connectHttp({ websocket_url: 'ws://127.0.0.1:9/media' });
    expect(withAudio.status).toBe(200);
    expect(withAudio.body.id).toBe(textOnly.body.id);
    expect(withAudio.body.audio).toEqual({ available: true, reason: null });
    expect((await s.call('GET', `/v1/agents/${textOnly.body.id}`)).body.audio.available).toBe(true);
  });

  it('a provider agent with an audio transport takes audio calls', async () => {
    const provider = await startFakeProviders();
    try {
      const vapi = await s.call('POST', '/v1/agents/connect', {
        provider: 'vapi',
        agent_id: 'asst_1',
        credentials: { api_key: GOOD_KEY, base_url: provider.url },
      });
      expect(vapi.body.audio).toEqual({ available: true, reason: null });
    } finally {
      await provider.stop();
    }
  });

  it('Test voice speaks a sentence with the system voice: ok, its length, its latency, the audio', async () => {
    const res = await s.call('POST', '/v1/settings/speech/test-voice', {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, message: expect.stringMatching(/system voice/) });
    expect(res.body.durationMs).toBeGreaterThan(1_000);
    expect(res.body.latencyMs).toBeGreaterThanOrEqual(0);
    expect(res.body.audio).toMatch(/^data:audio\/wav;base64,UklGR/);
  });

  it('Test voice names what is missing for a cloud voice without its connection', async () => {
    const res = await s.call('POST', '/v1/settings/speech/test-voice', {
      voice: { engine: 'openai', voiceId: 'alloy' },
    });
    expect(res.body).toMatchObject({ ok: false, audio: null });
    expect(res.body.message).toMatch(/openai speech engine has no connection/);
  });

  it('Test speech-to-text: none configured says so; configured, it reports what the engine heard', async () => {
    const none = await s.call('POST', '/v1/settings/speech/test-stt');
    expect(none.body).toMatchObject({ ok: false, heard: null });
    expect(none.body.message).toMatch(/No speech-to-text is configured/);

    const set = await s.call('PATCH', '/v1/settings', {
      speech: {
        stt: { baseUrl: `${speech.url}/v1`, apiKey: 'fake-speech-key', model: 'whisper-1' },
      },
    });
    expect(set.status).toBe(200);
    speech.transcripts.push('Please check the status of my order.');
    const heard = await s.call('POST', '/v1/settings/speech/test-stt');
    expect(heard.body).toMatchObject({
      ok: true,
      expected: 'Please check the status of my order.',
      heard: 'Please check the status of my order.',
      message: 'Heard "Please check the status of my order." (100% of the words said)',
    });
    // The engine was sent real speech: a WAV of the system voice saying the sentence.
    const sent = speech.requests.at(-1)!.body as { file: { samples: number } | null };
    expect(sent.file?.samples).toBeGreaterThan(16_000);

    speech.failNext(401, 'Incorrect API key provided');
    const refused = await s.call('POST', '/v1/settings/speech/test-stt');
    expect(refused.body).toMatchObject({ ok: false, heard: null });
    expect(refused.body.message).toMatch(/401|Incorrect API key/);
  });
});
