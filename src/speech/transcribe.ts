import { encodeWav } from '../audio/wav.js';
import { postToSpeechProvider } from './http.js';
import { SpeechError, type SpeechConnection } from './types.js';

const ENGINE = 'stt';

/**
 * OpenAI-compatible `POST /audio/transcriptions`: the audio goes up as a WAV file part of a
 * multipart form (Node's own FormData and Blob, so no form library), the text comes back as JSON.
 */
export async function transcribeWithOpenAI(
  audio: { pcm: Int16Array; sampleRate: number },
  connection: SpeechConnection,
  signal?: AbortSignal,
): Promise<string> {
  const wav = encodeWav({ sampleRate: audio.sampleRate, channels: 1, samples: audio.pcm });
  const form = new FormData();
  form.append('file', new Blob([Uint8Array.from(wav)], { type: 'audio/wav' }), 'speech.wav');
  form.append('model', connection.model);
  form.append('response_format', 'json');
  const answer = await postToSpeechProvider({
    engine: ENGINE,
    url: `${connection.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`,
    body: form,
    headers: { authorization: `Bearer ${connection.apiKey}` },
    apiKey: connection.apiKey,
    signal,
  });
  return textIn(answer.bytes);
}

function textIn(bytes: Buffer): string {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new SpeechError(ENGINE, `${ENGINE} answered something that is not JSON`);
  }
  const text = (json as { text?: unknown } | null)?.text;
  if (typeof text !== 'string')
    throw new SpeechError(ENGINE, `${ENGINE} answered JSON without a "text" string`);
  return text.trim();
}
