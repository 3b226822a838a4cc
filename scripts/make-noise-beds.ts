/**
 * Generates the background-noise beds in resources/noise/ (run: npx tsx scripts/make-noise-beds.ts).
 *
 * Every bed is synthesised here from seeded noise, oscillators and espeak-ng speech (the raw
 * material for babble), so the output is the same on every run with the same espeak-ng. Each bed
 * is 6 s of 16 kHz mono PCM16 that loops without a click (its tail is crossfaded into its head)
 * and sits at -30 dBFS RMS over the loop. Slow swells (gusts, passing vehicles) are built from
 * sinusoids whose periods divide the loop, so any few seconds of a bed carry about the same power:
 * the noise mixer's SNR then holds over a single utterance, not just over a whole loop.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { butterworth, type BiquadCascade } from '../src/audio/biquad.js';
import { NOISE_BED_RATE } from '../src/audio/noise-beds.js';
import { resample } from '../src/audio/resample.js';
import { seededRandom } from '../src/audio/seeded-random.js';
import { encodeWav, parseWav } from '../src/audio/wav.js';

const run = promisify(execFile);

const RATE = NOISE_BED_RATE;
const LOOP_S = 6;
/** Generated before the loop and dropped, so filters, reverbs and babble are already running. */
const WARMUP_S = 1;
/** Generated after the loop and crossfaded into its start. */
const CROSSFADE_S = 0.5;
const TARGET_DBFS = -30;

const LOOP = LOOP_S * RATE;
const WARMUP = WARMUP_S * RATE;
const CROSSFADE = CROSSFADE_S * RATE;
const TOTAL = WARMUP + LOOP + CROSSFADE;

type Random = () => number;
type Track = Float32Array;

// ---------------------------------------------------------------------------------------------
// Building blocks. Times are in seconds from the start of the loop (negative: in the warm-up).

function track(): Track {
  return new Float32Array(TOTAL);
}

function sampleAt(seconds: number): number {
  return WARMUP + Math.round(seconds * RATE);
}

function gaussian(random: Random): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function whiteNoise(random: Random, length = TOTAL): Float32Array {
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) out[i] = gaussian(random);
  return out;
}

/**
 * Pink (1/f) noise: white noise through one-pole low-passes an octave apart, each weighted so
 * every octave carries equal power, plus a little white for the top octave.
 */
function pinkNoise(random: Random, length = TOTAL): Float32Array {
  const out = new Float32Array(length);
  const poles = [20, 40, 80, 160, 320, 640, 1280, 2560, 5120].map((hz) => ({
    decay: Math.exp((-2 * Math.PI * hz) / RATE),
    weight: Math.sqrt(hz / 20),
    state: 0,
  }));
  for (let i = 0; i < length; i++) {
    const white = gaussian(random);
    let sum = 0.5 * white;
    for (const pole of poles) {
      pole.state = pole.decay * pole.state + (1 - pole.decay) * white;
      sum += pole.weight * pole.state;
    }
    out[i] = sum;
  }
  return out;
}

/** Brown (1/f^2) noise: leaky integration of white noise (the leak keeps it off DC drift). */
function brownNoise(random: Random, length = TOTAL): Float32Array {
  const out = new Float32Array(length);
  const leak = Math.exp((-2 * Math.PI * 8) / RATE);
  let state = 0;
  for (let i = 0; i < length; i++) {
    state = leak * state + gaussian(random) * 0.05;
    out[i] = state;
  }
  return out;
}

/** The cascade runs on float64; the tracks are float32 to halve the script's memory. */
function filtered(signal: Float32Array, filter: BiquadCascade): Float32Array {
  const wide = Float64Array.from(signal);
  filter.process(wide);
  signal.set(wide);
  return signal;
}

function lowpass(signal: Float32Array, hz: number, order = 4): Float32Array {
  return filtered(signal, butterworth('lowpass', order, hz, RATE));
}

function highpass(signal: Float32Array, hz: number, order = 4): Float32Array {
  return filtered(signal, butterworth('highpass', order, hz, RATE));
}

function bandpass(signal: Float32Array, lowHz: number, highHz: number): Float32Array {
  return lowpass(highpass(signal, lowHz), highHz);
}

function rms(signal: ArrayLike<number>, from = 0, to = signal.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += signal[i]! * signal[i]!;
  return Math.sqrt(sum / Math.max(1, to - from));
}

/** `signal` scaled to RMS `level` (relative units: the bed is normalised at the end). */
function atLevel(signal: Float32Array, level: number): Float32Array {
  const gain = level / (rms(signal) || 1);
  for (let i = 0; i < signal.length; i++) signal[i]! *= gain;
  return signal;
}

/** Adds `source * gain` into `target` from sample `at` (clipped to the track). */
function addAt(target: Track, source: Float32Array, at: number, gain = 1): void {
  for (let i = Math.max(0, -at); i < source.length && at + i < target.length; i++) {
    target[at + i]! += source[i]! * gain;
  }
}

function mix(...layers: Float32Array[]): Track {
  const out = track();
  for (const layer of layers) addAt(out, layer, 0);
  return out;
}

/**
 * A slow envelope that repeats every loop: 1 + depth * (sum of sines at whole multiples of the
 * loop's frequency, random phases), so it is seamless and its power evens out over a few seconds.
 */
function loopEnvelope(random: Random, cycles: number[], depth: number): Float32Array {
  const out = new Float32Array(TOTAL);
  const phases = cycles.map(() => 2 * Math.PI * random());
  for (let i = 0; i < TOTAL; i++) {
    const t = (i - WARMUP) / LOOP;
    let wave = 0;
    cycles.forEach((cycle, k) => (wave += Math.sin(2 * Math.PI * cycle * t + phases[k]!)));
    out[i] = Math.max(0.05, 1 + (depth * wave) / Math.sqrt(cycles.length));
  }
  return out;
}

function modulate(signal: Float32Array, envelope: Float32Array): Float32Array {
  for (let i = 0; i < signal.length; i++) signal[i]! *= envelope[i]!;
  return signal;
}

/** Decaying partials: the ring of struck glass, metal or a chime. */
function ring(partials: { hz: number; gain: number }[], decayS: number, seconds: number) {
  const out = new Float32Array(Math.round(seconds * RATE));
  for (let i = 0; i < out.length; i++) {
    const t = i / RATE;
    const attack = Math.min(1, i / 16); // 1 ms: sharp, but not a click
    let sum = 0;
    for (const { hz, gain } of partials) sum += gain * Math.sin(2 * Math.PI * hz * t);
    out[i] = attack * sum * Math.exp(-t / decayS);
  }
  return out;
}

/** A short burst of filtered noise with an exponential decay: clicks, clacks, knocks. */
function burst(random: Random, opts: { lowHz: number; highHz: number; decayS: number }) {
  const length = Math.round(opts.decayS * 6 * RATE);
  const out = bandpass(whiteNoise(random, length), opts.lowHz, opts.highHz);
  for (let i = 0; i < length; i++) out[i]! *= Math.exp(-i / RATE / opts.decayS);
  return out;
}

/** Sines at `hz` and its harmonics, slightly wandering in level (mains hum, engines, drills). */
function harmonics(random: Random, hz: number, gains: number[]): Float32Array {
  const out = track();
  const wobble = loopEnvelope(random, [3, 5], 0.15);
  for (let i = 0; i < TOTAL; i++) {
    const t = i / RATE;
    let sum = 0;
    gains.forEach((gain, k) => (sum += gain * Math.sin(2 * Math.PI * hz * (k + 1) * t + k)));
    out[i] = sum * wobble[i]!;
  }
  return out;
}

/** A room: parallel feedback combs (Schroeder), mixed with the dry sound. */
function reverb(dry: Float32Array, opts: { rt60S: number; wet: number }): Float32Array {
  const delaysMs = [29.7, 37.1, 41.1, 43.7, 53.3];
  const wet = new Float32Array(dry.length);
  for (const ms of delaysMs) {
    const delay = Math.round((ms * RATE) / 1000);
    const feedback = 10 ** ((-3 * ms) / 1000 / opts.rt60S);
    const line = new Float32Array(dry.length);
    for (let i = 0; i < dry.length; i++) {
      line[i] = dry[i]! + (i >= delay ? feedback * line[i - delay]! : 0);
      wet[i]! += line[i]! / delaysMs.length;
    }
  }
  const scale = opts.wet * (rms(dry) / (rms(wet) || 1));
  const out = new Float32Array(dry.length);
  for (let i = 0; i < dry.length; i++) out[i] = (1 - opts.wet) * dry[i]! + scale * wet[i]!;
  return out;
}

/** Event times: every `periodS` (which divides the loop, so the pattern loops), with jitter. */
function periodicTimes(random: Random, periodS: number, jitterS: number): number[] {
  const times: number[] = [];
  const offset = random() * periodS;
  for (let t = offset - WARMUP_S; t < LOOP_S + CROSSFADE_S; t += periodS) {
    times.push(t + (random() - 0.5) * jitterS);
  }
  return times;
}

/** Event times at random, `perSecond` on average, spread evenly (stratified) over the track. */
function scatteredTimes(random: Random, perSecond: number): number[] {
  const times: number[] = [];
  const step = 1 / perSecond;
  for (let t = -WARMUP_S; t < LOOP_S + CROSSFADE_S; t += step) times.push(t + random() * step);
  return times;
}

function place(target: Track, times: number[], make: () => Float32Array, gain = 1): Track {
  for (const t of times) addAt(target, make(), sampleAt(t), gain);
  return target;
}

// ---------------------------------------------------------------------------------------------
// espeak-ng babble.

const SENTENCES = [
  'I think we should move the meeting to Thursday afternoon.',
  'Did you see the score from last night?',
  'Could you pass me the report when you are done with it?',
  'My flight was delayed again, two hours this time.',
  'We are out of milk, can you pick some up on the way home?',
  'The new manager starts on Monday, apparently.',
  'I will have the soup and a glass of water, please.',
  'That is not what she told me yesterday.',
  'Honestly, the weather has been terrible all week.',
  'Let me check my calendar and get back to you.',
  'They finally fixed the coffee machine upstairs.',
  'How much did you pay for those tickets?',
  'Sorry, I did not catch your name.',
  'We should probably leave before the traffic gets bad.',
  'The kids have a school play on Friday evening.',
  'Is this seat taken, or can I sit here?',
  'I have been on hold with them for forty minutes.',
  'Can you hear me now? The line keeps cutting out.',
  'Your order number is four seven two nine.',
  'Thank you for calling, how can I help you today?',
  'It is on the second floor, next to the lifts.',
  'We went there last summer and loved it.',
  'I need to renew my passport before the trip.',
  'Do you want to split the bill?',
];

const VARIANTS = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'f1', 'f2', 'f3', 'f4', 'f5'];
const ACCENTS = ['en', 'en-us', 'en-gb-scotland', 'en-029', 'en-gb-x-rp'];

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** One talker saying a few random sentences, as float samples at RATE. */
async function talker(random: Random, seconds: number): Promise<Float32Array> {
  const voice = `${pick(random, ACCENTS)}+${pick(random, VARIANTS)}`;
  const pitch = String(20 + Math.floor(random() * 60));
  const speed = String(130 + Math.floor(random() * 60));
  const text = Array.from({ length: Math.ceil(seconds / 2) + 2 }, () => pick(random, SENTENCES));
  const args = ['-v', voice, '-p', pitch, '-s', speed, '-g', '4', '--stdout', text.join(' ')];
  const { stdout } = await run('espeak-ng', args, { encoding: 'buffer', maxBuffer: 1 << 26 });
  const wav = parseWav(stdout);
  const pcm = resample(wav.pcm, wav.sampleRate, RATE);
  return Float32Array.from(pcm, (sample) => sample / 32768);
}

/** The talker repeated until it fills the track, starting anywhere in what it says. */
function tile(speech: Float32Array, random: Random): Float32Array {
  const out = track();
  const pause = Math.round((0.3 + random()) * RATE);
  const period = speech.length + pause;
  const offset = Math.floor(random() * period);
  for (let i = 0; i < TOTAL; i++) {
    const at = (i + offset) % period;
    out[i] = at < speech.length ? speech[at]! : 0;
  }
  return out;
}

/**
 * Many overlapping espeak-ng talkers, each with its own voice, pitch and speed, low-passed (the
 * further away a crowd, the duller it is) and mixed at levels spread over `spreadDb`.
 */
async function babble(
  random: Random,
  opts: { talkers: number; lowpassHz: number; spreadDb: number },
): Promise<Track> {
  const out = track();
  const talkers = await Promise.all(
    Array.from({ length: opts.talkers }, () => talker(random, LOOP_S + WARMUP_S)),
  );
  for (const speech of talkers) {
    const level = 10 ** ((-random() * opts.spreadDb) / 20);
    addAt(out, atLevel(tile(speech, random), level), 0);
  }
  return lowpass(highpass(out, 150, 2), opts.lowpassHz);
}

// ---------------------------------------------------------------------------------------------
// The beds.

function keyboard(random: Random, perSecond: number): Track {
  const click = () =>
    mix(burst(random, { lowHz: 1500, highHz: 6000, decayS: 0.004 }).map((s) => s * 0.7));
  const typing = track();
  // Typing comes in runs: keys at ~8 per second, with the loop's envelope making pauses.
  place(typing, scatteredTimes(random, perSecond), () => click().subarray(0, 800));
  return typing;
}

function hvac(random: Random): Track {
  const air = lowpass(pinkNoise(random), 900, 2);
  return mix(atLevel(air, 1), atLevel(harmonics(random, 60, [1, 0.5, 0.3, 0.15]), 0.3));
}

async function office(random: Random): Promise<Track> {
  const murmur = await babble(random, { talkers: 3, lowpassHz: 1800, spreadDb: 6 });
  const keys = modulate(keyboard(random, 9), loopEnvelope(random, [2, 3], 0.6));
  return mix(atLevel(hvac(random), 1), atLevel(murmur, 0.45), atLevel(keys, 0.3));
}

/** A desk phone's electronic trill, ringing 1 s in every 3 s from across the room. */
function phoneRing(random: Random): Track {
  const out = track();
  const offset = random() * 3;
  for (let i = 0; i < TOTAL; i++) {
    const t = (i - WARMUP) / RATE + offset;
    const ringing = t % 3 < 1;
    const trill = Math.floor(t * 20) % 2 === 0 ? 1 : 0.25;
    const tone = Math.sin(2 * Math.PI * 1100 * t) + 0.6 * Math.sin(2 * Math.PI * 1375 * t);
    out[i] = ringing ? trill * tone : 0;
  }
  return reverb(lowpass(out, 3000), { rt60S: 0.5, wet: 0.5 });
}

async function callCenter(random: Random): Promise<Track> {
  const agents = await babble(random, { talkers: 10, lowpassHz: 3400, spreadDb: 9 });
  const keys = keyboard(random, 14);
  return mix(
    atLevel(agents, 1),
    atLevel(phoneRing(random), 0.25),
    atLevel(keys, 0.35),
    atLevel(hvac(random), 0.3),
  );
}

async function home(random: Random): Promise<Track> {
  const room = atLevel(lowpass(pinkNoise(random), 600, 2), 1);
  const tv = await babble(random, { talkers: 2, lowpassHz: 2500, spreadDb: 3 });
  const tvInNextRoom = reverb(bandpass(tv, 250, 2200), { rt60S: 0.6, wet: 0.4 });
  const fridge = harmonics(random, 100, [1, 0.3]);
  return mix(room, atLevel(tvInNextRoom, 1.1), atLevel(fridge, 0.15));
}

/**
 * A vehicle passing: band-limited noise (engine and tyres) with a pass-by envelope, a swell that
 * peaks as it passes, and an engine note falling through the pass (the Doppler shift).
 */
function vehicle(random: Random, lengthS: number): Float32Array {
  const length = Math.round(lengthS * RATE);
  const body = bandpass(pinkNoise(random, length), 60, 2500 + random() * 2000);
  const engineHz = 60 + random() * 80;
  let phase = 0;
  for (let i = 0; i < length; i++) {
    const x = (i / length - 0.5) * 6; // -3 .. 3 distances either side of the closest point
    const swell = 1 / (1 + x * x);
    phase += (2 * Math.PI * engineHz * (1 - 0.06 * Math.tanh(x))) / RATE;
    const fade = Math.min(1, i / 800, (length - i) / 800);
    body[i] = fade * swell * (body[i]! + 0.4 * Math.sin(phase) + 0.2 * Math.sin(2 * phase));
  }
  return body;
}

function roadRumble(random: Random): Track {
  return mix(atLevel(lowpass(brownNoise(random), 250), 1), atLevel(pinkNoise(random), 0.15));
}

function vehicles(random: Random, perSecond: number, lengthS: number): Track {
  return place(track(), scatteredTimes(random, perSecond), () =>
    atLevel(vehicle(random, lengthS * (0.7 + 0.6 * random())), 0.5 + random()),
  );
}

async function street(random: Random): Promise<Track> {
  const passers = await babble(random, { talkers: 2, lowpassHz: 3000, spreadDb: 6 });
  const footsteps = place(track(), periodicTimes(random, 0.5, 0.05), () =>
    burst(random, { lowHz: 200, highHz: 2000, decayS: 0.01 }),
  );
  return mix(
    atLevel(roadRumble(random), 1),
    atLevel(vehicles(random, 1, 3), 0.9),
    atLevel(passers, 0.35),
    atLevel(footsteps, 0.12),
  );
}

function traffic(random: Random): Track {
  const hiss = atLevel(bandpass(whiteNoise(random), 800, 5000), 0.25);
  return mix(atLevel(roadRumble(random), 1), atLevel(vehicles(random, 2, 2.5), 1.1), hiss);
}

function car(random: Random): Track {
  const engine = harmonics(random, 28, [1, 0.7, 0.5, 0.3, 0.2, 0.1]);
  const rumble = lowpass(brownNoise(random), 180);
  const tyres = modulate(bandpass(pinkNoise(random), 400, 3000), loopEnvelope(random, [4, 7], 0.2));
  const wind = lowpass(pinkNoise(random), 1200, 2);
  return mix(atLevel(engine, 0.6), atLevel(rumble, 1), atLevel(tyres, 0.45), atLevel(wind, 0.25));
}

function train(random: Random): Track {
  const rumble = lowpass(brownNoise(random), 300);
  const clack = () => burst(random, { lowHz: 150, highHz: 2500, decayS: 0.025 });
  // Two bogies cross each rail joint: clack-clack, clack-clack, every 1.5 s (4 per loop).
  const joints = periodicTimes(random, 1.5, 0.01);
  const clacks = place(track(), [...joints, ...joints.map((t) => t + 0.16)], clack);
  const hiss = modulate(bandpass(whiteNoise(random), 1500, 5000), loopEnvelope(random, [3], 0.3));
  return mix(atLevel(rumble, 1), atLevel(clacks, 0.55), atLevel(hiss, 0.15));
}

/** The two-note "ding-dong" before an announcement: bell-like partials, long decay. */
function paChime(): Float32Array {
  const note = (hz: number) =>
    ring(
      [
        { hz, gain: 1 },
        { hz: hz * 2.01, gain: 0.3 },
        { hz: hz * 3.02, gain: 0.1 },
      ],
      0.5,
      1.6,
    );
  const out = new Float32Array(Math.round(2.4 * RATE));
  addAt(out, note(784), 0);
  addAt(out, note(622), Math.round(0.7 * RATE));
  return out;
}

async function airport(random: Random): Promise<Track> {
  const crowd = await babble(random, { talkers: 14, lowpassHz: 3000, spreadDb: 10 });
  const hall = reverb(crowd, { rt60S: 1.6, wet: 0.6 });
  const chime = place(track(), [0.5 + random() * 3], () =>
    reverb(paChime(), { rt60S: 1.6, wet: 0.4 }),
  );
  const wheels = modulate(lowpass(brownNoise(random), 400), loopEnvelope(random, [2, 5], 0.5));
  return mix(atLevel(hall, 1), atLevel(chime, 0.35), atLevel(wheels, 0.3));
}

/** A cup, glass or plate touched: a few inharmonic high partials ringing briefly. */
function clink(random: Random): Float32Array {
  const base = 1800 + random() * 2200;
  const partials = [1, 1.47, 2.09, 2.56].map((ratio, k) => ({
    hz: base * ratio,
    gain: (0.5 + random() * 0.5) / (k + 1),
  }));
  return ring(partials, 0.03 + random() * 0.12, 0.6);
}

async function cafe(random: Random): Promise<Track> {
  const talk = await babble(random, { talkers: 8, lowpassHz: 3400, spreadDb: 10 });
  const cups = place(track(), scatteredTimes(random, 2), () => clink(random), 1);
  const machine = modulate(bandpass(whiteNoise(random), 2000, 6000), loopEnvelope(random, [1], 1));
  return mix(
    atLevel(reverb(talk, { rt60S: 0.5, wet: 0.3 }), 1),
    atLevel(cups, 0.3),
    atLevel(machine, 0.08),
  );
}

async function restaurant(random: Random): Promise<Track> {
  const talk = await babble(random, { talkers: 14, lowpassHz: 3200, spreadDb: 10 });
  const dishes = place(track(), scatteredTimes(random, 4), () => clink(random), 1);
  const cutlery = place(track(), scatteredTimes(random, 3), () =>
    burst(random, { lowHz: 3000, highHz: 7000, decayS: 0.008 }),
  );
  return mix(
    atLevel(reverb(talk, { rt60S: 0.8, wet: 0.4 }), 1),
    atLevel(dishes, 0.3),
    atLevel(cutlery, 0.12),
  );
}

async function crowd(random: Random): Promise<Track> {
  const many = await babble(random, { talkers: 24, lowpassHz: 2800, spreadDb: 12 });
  const open = atLevel(lowpass(pinkNoise(random), 500, 2), 0.2);
  return mix(atLevel(reverb(many, { rt60S: 0.9, wet: 0.35 }), 1), open);
}

/** A hammer blow: a dull thud, the nail's metallic ring and the crack of the hit. */
function hammerBlow(random: Random): Float32Array {
  const thud = ring([{ hz: 110 + random() * 40, gain: 1 }], 0.04, 0.3);
  const metal = ring(
    [
      { hz: 2300, gain: 0.4 },
      { hz: 3450, gain: 0.25 },
    ],
    0.08,
    0.5,
  );
  const crack = burst(random, { lowHz: 800, highHz: 6000, decayS: 0.006 });
  const out = new Float32Array(metal.length);
  addAt(out, thud, 0);
  addAt(out, metal, 0);
  addAt(out, crack, 0, 0.8);
  return out;
}

/** A drill: a motor buzz (a rich harmonic series) in bursts, 0.8 s on in every 1.2 s. */
function drill(random: Random): Track {
  const buzz = harmonics(random, 118, [1, 0.8, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2]);
  const grind = bandpass(whiteNoise(random), 1500, 4500);
  const out = mix(atLevel(buzz, 1), atLevel(grind, 0.3));
  const offset = random() * 1.2;
  for (let i = 0; i < TOTAL; i++) {
    const t = ((i - WARMUP) / RATE + offset) % 1.2;
    const on = Math.min(1, t / 0.08) * (t < 0.8 ? 1 : Math.max(0, 1 - (t - 0.8) / 0.1));
    out[i]! *= on;
  }
  return out;
}

function construction(random: Random): Track {
  const blows = place(track(), periodicTimes(random, 0.6, 0.04), () => hammerBlow(random));
  const generator = mix(
    atLevel(harmonics(random, 50, [1, 0.6, 0.3]), 0.5),
    atLevel(lowpass(brownNoise(random), 300), 1),
  );
  return mix(
    atLevel(reverb(blows, { rt60S: 0.4, wet: 0.3 }), 0.7),
    atLevel(drill(random), 0.5),
    atLevel(generator, 0.6),
  );
}

/** Wind: low-passed noise whose level and brightness follow gusts (a sum of slow waves). */
function wind(random: Random): Track {
  const gusts = loopEnvelope(random, [2, 3, 5, 7], 0.5);
  const source = pinkNoise(random);
  const out = track();
  let state = 0;
  for (let i = 0; i < TOTAL; i++) {
    const cutoff = 150 + 700 * gusts[i]!; // a stronger gust is also a brighter one
    const coefficient = 1 - Math.exp((-2 * Math.PI * cutoff) / RATE);
    state += coefficient * (source[i]! - state);
    out[i] = state * gusts[i]!;
  }
  return mix(atLevel(highpass(out, 30, 2), 1), atLevel(lowpass(brownNoise(random), 120), 0.5));
}

const BEDS: Record<string, (random: Random) => Track | Promise<Track>> = {
  office,
  call_center: callCenter,
  home,
  street,
  traffic,
  car,
  train,
  airport,
  cafe,
  restaurant,
  crowd,
  construction,
  wind,
};

// ---------------------------------------------------------------------------------------------
// Loop, level, write.

/**
 * The loop: the warm-up is dropped and the CROSSFADE_S generated past the loop's end is faded
 * into its start (equal-power, since the two ends are uncorrelated), so sample LOOP-1 runs on into
 * what followed it when generated, and the seam is inaudible.
 */
function loopOf(generated: Track): Float32Array {
  const loop = generated.slice(WARMUP, WARMUP + LOOP);
  for (let i = 0; i < CROSSFADE; i++) {
    const angle = ((i + 0.5) / CROSSFADE) * (Math.PI / 2);
    loop[i] = loop[i]! * Math.sin(angle) + generated[WARMUP + LOOP + i]! * Math.cos(angle);
  }
  return loop;
}

/** Power around each hop (a Hann window of LEVELLING_WINDOW_S, wrapping round the loop). */
function localPower(loop: Float32Array, hop: number, window: number): Float64Array {
  const power = new Float64Array(Math.ceil(loop.length / hop));
  for (let h = 0; h < power.length; h++) {
    let sum = 0;
    let weights = 0;
    for (let k = 0; k < window; k++) {
      const weight = Math.sin((Math.PI * (k + 0.5)) / window) ** 2;
      const sample = loop[(h * hop + k - (window >> 1) + loop.length) % loop.length]!;
      sum += weight * sample * sample;
      weights += weight;
    }
    power[h] = sum / weights;
  }
  return power;
}

const LEVELLING_WINDOW_S = 1.2;
const LEVELLING_HOP_S = 0.05;

/**
 * Evens out the bed's level over stretches longer than about a second (a slow, loop-wrapping
 * gain riding), keeping everything faster: syllables, clinks, blows, the shape of a gust. Then a
 * caller's utterance of a few seconds hears the bed at the loop's level, whatever the offset.
 */
function levelSlowly(loop: Float32Array): Float32Array {
  const hop = Math.round(LEVELLING_HOP_S * RATE);
  const window = Math.round(LEVELLING_WINDOW_S * RATE);
  const mean = rms(loop) ** 2;
  for (let pass = 0; pass < 3; pass++) {
    const gains = Array.from(localPower(loop, hop, window), (power) => Math.sqrt(mean / power));
    for (let i = 0; i < loop.length; i++) {
      const position = i / hop;
      const h = Math.floor(position);
      const fraction = position - h;
      const gain =
        gains[h % gains.length]! * (1 - fraction) + gains[(h + 1) % gains.length]! * fraction;
      loop[i]! *= gain;
    }
  }
  return loop;
}

function toPcm(loop: Float32Array): Int16Array {
  const gain = (32768 * 10 ** (TARGET_DBFS / 20)) / rms(loop);
  const pcm = new Int16Array(loop.length);
  for (let i = 0; i < loop.length; i++) {
    pcm[i] = Math.max(-32768, Math.min(32767, Math.round(loop[i]! * gain)));
  }
  return pcm;
}

/** How far the power of any `seconds` window (circular) strays from the loop's, in dB. */
function windowSpreadDb(pcm: Int16Array, seconds: number): { low: number; high: number } {
  const total = rms(pcm) ** 2;
  const window = Math.round(seconds * RATE);
  let low = Infinity;
  let high = -Infinity;
  for (let start = 0; start < pcm.length; start += RATE / 10) {
    let sum = 0;
    for (let i = 0; i < window; i++) sum += pcm[(start + i) % pcm.length]! ** 2;
    const db = 10 * Math.log10(sum / window / total);
    low = Math.min(low, db);
    high = Math.max(high, db);
  }
  return { low, high };
}

function describe(name: string, pcm: Int16Array): string {
  let peak = 0;
  for (const sample of pcm) peak = Math.max(peak, Math.abs(sample));
  const level = 20 * Math.log10(rms(pcm) / 32768);
  const spreads = [2, 3, 5].map((seconds) => {
    const { low, high } = windowSpreadDb(pcm, seconds);
    return `${seconds} s ${low.toFixed(2)}..+${high.toFixed(2)}`;
  });
  const peakDbfs = 20 * Math.log10(peak / 32768);
  return (
    `${name.padEnd(13)} rms ${level.toFixed(1)} dBFS, peak ${peakDbfs.toFixed(1)} dBFS, ` +
    `window power vs loop (dB): ${spreads.join(', ')}`
  );
}

async function main(): Promise<void> {
  const dir = fileURLToPath(new URL('../resources/noise', import.meta.url));
  await mkdir(dir, { recursive: true });
  const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(BEDS);
  for (const [index, name] of Object.keys(BEDS).entries()) {
    if (!names.includes(name)) continue;
    const random = seededRandom(0x6e6f6973 + index * 7919); // fixed per bed: reruns are identical
    const pcm = toPcm(levelSlowly(loopOf(await BEDS[name]!(random))));
    await writeFile(
      join(dir, `${name}.wav`),
      encodeWav({ sampleRate: RATE, channels: 1, samples: pcm }),
    );
    console.log(describe(name, pcm));
  }
}

await main();
