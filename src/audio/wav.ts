/**
 * WAV in and out: parsing what TTS engines hand us (including the streamed headers espeak-ng
 * writes to a pipe) and writing the per-call stereo recording.
 */

import { bytesFromPcm } from './pcm.js';
import { WAV_HEADER_BYTES, writeWavHeader } from './wav-header.js';

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
/** The tail of KSDATAFORMAT_SUBTYPE_PCM after its first two bytes (the format tag). */
const PCM_SUBFORMAT_TAIL = Buffer.from('000000001000800000aa00389b71', 'hex');

export interface ParsedWav {
  sampleRate: number;
  /** Channels in the file; `pcm` is always mixed down to mono. */
  channels: number;
  pcm: Int16Array;
}

interface WavFormat {
  sampleRate: number;
  channels: number;
  blockAlign: number;
}

function fourcc(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + 4));
}

function readFormat(view: DataView, offset: number, size: number): WavFormat {
  if (size < 16) throw new Error(`WAV fmt chunk is ${size} bytes, expected at least 16`);
  let tag = view.getUint16(offset, true);
  const channels = view.getUint16(offset + 2, true);
  const sampleRate = view.getUint32(offset + 4, true);
  const blockAlign = view.getUint16(offset + 12, true);
  const bits = view.getUint16(offset + 14, true);
  if (tag === WAVE_FORMAT_EXTENSIBLE) {
    if (size < 40) throw new Error('WAV extensible fmt chunk is too short for its subformat');
    const guid = new Uint8Array(view.buffer, view.byteOffset + offset + 24, 16);
    const tail = Buffer.from(guid.subarray(2));
    tag = tail.equals(PCM_SUBFORMAT_TAIL) ? view.getUint16(offset + 24, true) : -1;
  }
  if (tag !== WAVE_FORMAT_PCM) {
    throw new Error(`WAV format ${tag} is not supported: only integer PCM (format 1) is`);
  }
  if (bits !== 16) throw new Error(`WAV has ${bits}-bit samples: only 16-bit PCM is supported`);
  if (channels < 1) throw new Error('WAV declares 0 channels');
  if (sampleRate < 1) throw new Error('WAV declares a sample rate of 0');
  if (blockAlign !== channels * 2) {
    throw new Error(`WAV block align ${blockAlign} does not match ${channels} 16-bit channels`);
  }
  return { sampleRate, channels, blockAlign };
}

/** Averages interleaved 16-bit frames to mono (a copy; odd trailing bytes are dropped). */
function mixToMono(view: DataView, offset: number, length: number, channels: number): Int16Array {
  const frames = Math.floor(length / (channels * 2));
  const pcm = new Int16Array(frames);
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += view.getInt16(offset + (f * channels + c) * 2, true);
    pcm[f] = Math.round(sum / channels);
  }
  return pcm;
}

/**
 * Parses a RIFF/WAVE file of 16-bit integer PCM (format 1, or WAVE_FORMAT_EXTENSIBLE with the PCM
 * subformat), skipping chunks it does not need. A data chunk whose size is 0, 0xFFFFFFFF or past
 * the end of the file (what a writer streaming to a pipe leaves, espeak-ng among them) runs to
 * the end of the file.
 */
export function parseWav(bytes: Uint8Array): ParsedWav {
  if (bytes.byteLength < 12) throw new Error(`Not a WAV file: only ${bytes.byteLength} bytes`);
  if (fourcc(bytes, 0) !== 'RIFF' || fourcc(bytes, 8) !== 'WAVE') {
    throw new Error('Not a WAV file: missing the RIFF/WAVE header');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let format: WavFormat | null = null;
  let offset = 12;
  while (offset + 8 <= bytes.byteLength) {
    const id = fourcc(bytes, offset);
    const declared = view.getUint32(offset + 4, true);
    const body = offset + 8;
    const remaining = bytes.byteLength - body;
    if (id === 'data') {
      if (!format) throw new Error('WAV data chunk comes before its fmt chunk');
      const open = declared === 0 || declared === 0xffffffff || declared > remaining;
      const length = open ? remaining : declared;
      const pcm = mixToMono(view, body, length, format.channels);
      return { sampleRate: format.sampleRate, channels: format.channels, pcm };
    }
    if (declared > remaining) throw new Error(`WAV ${id} chunk runs past the end of the file`);
    if (id === 'fmt ') format = readFormat(view, body, declared);
    offset = body + declared + (declared % 2); // chunks are padded to an even size
  }
  throw new Error(format ? 'WAV has no data chunk' : 'WAV has no fmt chunk');
}

export interface EncodeWavOptions {
  sampleRate: number;
  channels: 1 | 2;
  /** Interleaved samples (left, right, left, ... for stereo). */
  samples: Int16Array;
}

/** Writes a canonical 44-byte-header PCM16 WAV file. */
export function encodeWav(opts: EncodeWavOptions): Buffer {
  const { sampleRate, channels, samples } = opts;
  if (samples.length % channels !== 0) {
    throw new Error(`${samples.length} samples do not split into ${channels} channels`);
  }
  const data = bytesFromPcm(samples);
  const out = Buffer.allocUnsafe(WAV_HEADER_BYTES + data.length);
  writeWavHeader(out, { sampleRate, channels, dataBytes: data.length });
  data.copy(out, WAV_HEADER_BYTES);
  return out;
}

export { StereoRecording } from './stereo-recording.js';
export type { StereoRecordingOptions, RecordingSide } from './stereo-recording.js';
