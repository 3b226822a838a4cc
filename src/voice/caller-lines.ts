import { dtmfTones } from '../audio/dtmf.js';
import { concatPcm, silence } from '../audio/pcm.js';
import type { CallerAct } from '../domain/callers.js';
import type { ScriptLine } from '../domain/scenarios.js';
import type { Speech, VoiceChoice } from '../speech/index.js';
import { fill } from '../conversation/caller.js';
import { spoken, type Utterance } from './live-call.js';

/**
 * The caller's audio, made before it is needed: scripted lines (words, then keypad tones where
 * the line has no digit events), and the persona's backchannels. Every line is brought to one
 * speech level, so the noise under it sits at the persona's signal-to-noise ratio.
 */

export interface LineVoicing {
  speech: Speech;
  voice: VoiceChoice;
  variables: Record<string, string>;
  /** The call's PCM rate. */
  rate: number;
  /** Digits go as the protocol's events (no tones in the audio). */
  dtmfEvents: boolean;
  signal?: AbortSignal;
}

/** Voices at most this many lines at once (each holds an abort listener and a voice process). */
const AT_ONCE = 4;

/** `work` on each item, a few at a time; answers in order. */
export async function inTurns<T, R>(
  items: readonly T[],
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await work(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, items.length) }, worker));
  return out;
}

/** `text` in the caller's voice at the call's rate, at the caller's speech level. */
export function voiceText(text: string, v: LineVoicing): Promise<Int16Array> {
  return v.speech.synthesizeForCall(text, v.voice, v.rate, v.signal);
}

/** A gap between the words and the digits, as a person takes to reach the keypad. */
const BEFORE_DIGITS_MS = 300;

/** One scripted line as it will be said: its words and, in-band, its digits. Null: it says nothing. */
export async function voiceScriptLine(line: ScriptLine, v: LineVoicing): Promise<Utterance | null> {
  const text = line.say === undefined ? '' : fill(line.say, v.variables);
  const parts: Int16Array[] = [];
  if (text) parts.push(await voiceText(text, v));
  if (line.dtmf && !v.dtmfEvents) {
    if (parts.length) parts.push(silence(BEFORE_DIGITS_MS, v.rate));
    parts.push(dtmfTones(line.dtmf, v.rate));
  }
  const act: CallerAct | undefined = line.interrupt
    ? 'barge_in'
    : line.backchannel
      ? 'backchannel'
      : line.dtmf && !text
        ? 'dtmf'
        : undefined;
  const extra = { expect: line.expect, act, dtmf: line.dtmf };
  if (parts.length)
    return { ...spoken(concatPcm(parts), v.rate, { text, source: 'script' }), ...extra };
  // Digits by event with no words: a short quiet turn, so the digits have their place in time.
  if (line.dtmf) return digitsByEvent(line.dtmf, v.rate, extra);
  return null;
}

/** A turn that only sends digits as events: as long as their tones would last, silent. */
function digitsByEvent(digits: string, rate: number, extra: Partial<Utterance>): Utterance {
  const ms = digits.length * 200;
  return {
    pcm: silence(ms, rate),
    speechFromMs: 0,
    speechToMs: ms,
    text: '',
    source: 'script',
    ...extra,
  };
}

/** How an act changes a line said over the agent. */
export const asAct = (u: Utterance, act: CallerAct): Utterance => ({ ...u, act });
