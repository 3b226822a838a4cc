/**
 * The audio formats an ElevenLabs conversation announces in `conversation_initiation_metadata`
 * (`user_input_audio_format`, `agent_output_audio_format`), and the streaming conversions between
 * them and the call's 16 kHz PCM16. Each direction keeps one resampler for the whole call, so
 * 20 ms frames convert without clicks at their edges.
 */
import { bytesFromPcm, mulawDecode, mulawEncode, Resampler } from '../../audio/pcm.js';
import { Pcm16Stream } from './wire.js';

export interface ElevenLabsAudioFormat {
  encoding: 'pcm' | 'ulaw';
  sampleRate: number;
}

const PCM_RATES = new Set([8000, 16000, 22050, 24000, 44100]);

/** `pcm_16000`, `ulaw_8000`, ... as a format; null for one this transport does not speak. */
export function parseElevenLabsFormat(name: unknown): ElevenLabsAudioFormat | null {
  const match = typeof name === 'string' ? /^(pcm|ulaw)_(\d+)$/.exec(name) : null;
  if (!match) return null;
  const sampleRate = Number(match[2]);
  if (match[1] === 'ulaw') return sampleRate === 8000 ? { encoding: 'ulaw', sampleRate } : null;
  return PCM_RATES.has(sampleRate) ? { encoding: 'pcm', sampleRate } : null;
}

/** Caller frames (PCM16 at `callRate`) as the base64 `user_audio_chunk` payload the agent expects. */
export function callerAudioEncoder(
  format: ElevenLabsAudioFormat,
  callRate: number,
): (frame: Int16Array) => string {
  const resampler = new Resampler(callRate, format.sampleRate);
  return (frame) => {
    const pcm = resampler.push(frame);
    const bytes = format.encoding === 'ulaw' ? mulawEncode(pcm) : bytesFromPcm(pcm);
    return bytes.toString('base64');
  };
}

/** The agent's base64 `audio_base_64` chunks as PCM16 at `callRate`. */
export function agentAudioDecoder(
  format: ElevenLabsAudioFormat,
  callRate: number,
): (base64: string) => Int16Array {
  const resampler = new Resampler(format.sampleRate, callRate);
  const pcmStream = new Pcm16Stream();
  return (base64) => {
    const bytes = Buffer.from(base64, 'base64');
    const pcm = format.encoding === 'ulaw' ? mulawDecode(bytes) : pcmStream.push(bytes);
    return resampler.push(pcm);
  };
}
