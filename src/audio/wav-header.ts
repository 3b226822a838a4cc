/** The canonical 44-byte RIFF header of a PCM16 WAV file, shared by every writer. */

export const WAV_HEADER_BYTES = 44;

export interface WavHeaderOptions {
  sampleRate: number;
  channels: number;
  /** Bytes of sample data that follow the header. */
  dataBytes: number;
}

/** Writes the header into the first 44 bytes of `out`. */
export function writeWavHeader(out: Buffer, opts: WavHeaderOptions): void {
  const { sampleRate, channels, dataBytes } = opts;
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(WAV_HEADER_BYTES - 8 + dataBytes, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20); // WAVE_FORMAT_PCM
  out.writeUInt16LE(channels, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * channels * 2, 28);
  out.writeUInt16LE(channels * 2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataBytes, 40);
}
