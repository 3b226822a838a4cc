/** Spectra of test signals: where their energy lies, by band. */

/** Power spectrum by a radix-2 FFT over Hann-windowed chunks, averaged (Welch's method). */
export function powerSpectrum(pcm: Int16Array, size = 1024): Float64Array {
  const spectrum = new Float64Array(size / 2 + 1);
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  for (let at = 0; at + size <= pcm.length; at += size / 2) {
    for (let i = 0; i < size; i++) {
      re[i] = pcm[at + i]! * Math.sin((Math.PI * (i + 0.5)) / size) ** 2;
      im[i] = 0;
    }
    fft(re, im);
    for (let k = 0; k <= size / 2; k++) spectrum[k]! += re[k]! ** 2 + im[k]! ** 2;
  }
  return spectrum;
}

/** In-place iterative radix-2 FFT (length a power of two). */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let length = 2; length <= n; length <<= 1) {
    const angle = (-2 * Math.PI) / length;
    for (let start = 0; start < n; start += length) {
      for (let k = 0; k < length / 2; k++) {
        const wr = Math.cos(angle * k);
        const wi = Math.sin(angle * k);
        const a = start + k;
        const b = a + length / 2;
        const tr = re[b]! * wr - im[b]! * wi;
        const ti = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a]! += tr;
        im[a]! += ti;
      }
    }
  }
}

/** Share of the spectrum's power between `fromHz` and `toHz`. */
export function bandShare(
  spectrum: Float64Array,
  sampleRate: number,
  fromHz: number,
  toHz: number,
) {
  const binHz = sampleRate / (2 * (spectrum.length - 1));
  let band = 0;
  let total = 0;
  spectrum.forEach((power, k) => {
    total += power;
    if (k * binHz >= fromHz && k * binHz < toHz) band += power;
  });
  return band / total;
}

/** Share of `pcm`'s power between `fromHz` and `toHz`. */
export function bandEnergyShare(
  pcm: Int16Array,
  sampleRate: number,
  fromHz: number,
  toHz: number,
): number {
  return bandShare(powerSpectrum(pcm), sampleRate, fromHz, toHz);
}
