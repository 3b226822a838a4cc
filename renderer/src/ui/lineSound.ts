import type { OutputOf } from '../client';

type Sim = OutputOf<'simulations.get'>['simulation'];
/** The line a call ran on, as its simulation reports it. */
export type CallLine = NonNullable<NonNullable<Sim['audio']>['caller']>['line'];

/** The codecs a line can have, in words. */
export const CODEC_NAMES: Record<CallLine['codec'], string> = {
  pcm16: 'PCM 16-bit',
  mulaw: 'μ-law',
};

/**
 * What the caller's audio went through on its way: a studio line leaves the call's own audio as it
 * is, and a line wider than the call (16 kHz on an 8 kHz phone call) cannot add the band it lacks.
 */
export function lineSound(line: CallLine, callRate: number): string {
  if (line.profile === 'studio') return `the call's own audio at ${callRate / 1000} kHz`;
  const rate = Math.min(line.sample_rate, callRate);
  const narrowed = rate < line.sample_rate ? " (the call's rate)" : '';
  return `${CODEC_NAMES[line.codec]} at ${rate / 1000} kHz${narrowed}`;
}
