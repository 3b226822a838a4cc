import { pcmFromBytes } from '../audio/pcm.js';
import { parseWav } from '../audio/wav.js';
import { postToSpeechProvider, type SpeechAnswer } from './http.js';
import type { SpokenAudio } from './system-voice.js';
import { SpeechError, type SpeechConnection } from './types.js';

/** OpenAI's `pcm` format: raw 24 kHz 16-bit little-endian mono, no header. */
const OPENAI_PCM_RATE = 24000;
const ELEVENLABS_PCM_RATE = 16000;
/** ElevenLabs accepts a speed of 0.7..1.2 only (it rejects the request otherwise), so it is clamped. */
const ELEVENLABS_SPEEDS = { min: 0.7, max: 1.2 };

export interface CloudLine {
  text: string;
  voiceId: string | null;
  speed: number;
}

const withoutTrailingSlash = (url: string): string => url.replace(/\/+$/, '');

/**
 * The audio in a 200 answer. Some OpenAI-compatible servers send a WAV even when asked for raw PCM,
 * or state the rate in the content type (`audio/pcm;rate=24000`), so both are honoured; a JSON or
 * HTML body is an error page that came with a 200.
 */
function audioIn(engine: string, answer: SpeechAnswer, rawRate: number): SpokenAudio {
  if (/json|html|text\//i.test(answer.contentType))
    throw new SpeechError(engine, `${engine} answered ${answer.contentType} instead of audio`);
  if (answer.bytes.length === 0) throw new SpeechError(engine, `${engine} answered no audio`);
  if (answer.bytes.subarray(0, 4).toString('latin1') === 'RIFF') {
    try {
      const { pcm, sampleRate } = parseWav(answer.bytes);
      return { pcm, sampleRate };
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new SpeechError(engine, `${engine} answered a WAV we cannot read: ${why}`);
    }
  }
  const declared = /rate=(\d+)/i.exec(answer.contentType)?.[1];
  return { pcm: pcmFromBytes(answer.bytes), sampleRate: declared ? Number(declared) : rawRate };
}

/** OpenAI-compatible `POST /audio/speech`, asking for raw PCM. */
export async function speakWithOpenAI(
  line: CloudLine,
  connection: SpeechConnection,
  signal?: AbortSignal,
): Promise<SpokenAudio> {
  const answer = await postToSpeechProvider({
    engine: 'openai',
    url: `${withoutTrailingSlash(connection.baseUrl)}/audio/speech`,
    body: {
      model: connection.model,
      voice: line.voiceId ?? 'alloy',
      input: line.text,
      response_format: 'pcm',
      speed: line.speed,
    },
    headers: { authorization: `Bearer ${connection.apiKey}`, 'content-type': 'application/json' },
    apiKey: connection.apiKey,
    signal,
  });
  return audioIn('openai', answer, OPENAI_PCM_RATE);
}

const elevenLabsSpeed = (speed: number): number =>
  Math.min(ELEVENLABS_SPEEDS.max, Math.max(ELEVENLABS_SPEEDS.min, speed));

/** ElevenLabs `POST /v1/text-to-speech/{voice_id}`, asking for 16 kHz PCM. */
export async function speakWithElevenLabs(
  line: CloudLine,
  connection: SpeechConnection,
  signal?: AbortSignal,
): Promise<SpokenAudio> {
  if (!line.voiceId) throw new SpeechError('elevenlabs', 'elevenlabs needs a voice id');
  const voice = encodeURIComponent(line.voiceId);
  const answer = await postToSpeechProvider({
    engine: 'elevenlabs',
    url: `${withoutTrailingSlash(connection.baseUrl)}/v1/text-to-speech/${voice}?output_format=pcm_${ELEVENLABS_PCM_RATE}`,
    body: {
      text: line.text,
      model_id: connection.model,
      voice_settings: { speed: elevenLabsSpeed(line.speed) },
    },
    headers: { 'xi-api-key': connection.apiKey, 'content-type': 'application/json' },
    apiKey: connection.apiKey,
    signal,
  });
  return audioIn('elevenlabs', answer, ELEVENLABS_PCM_RATE);
}
