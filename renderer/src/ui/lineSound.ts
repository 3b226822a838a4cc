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
 * What the caller's audio went through on its way, at the rate the line carried (the engine
 * reports no more than the call had): a studio line leaves the call's own audio as it is.
 */
export function lineSound(line: CallLine): string {
  const rate = `${line.sample_rate / 1000} kHz`;
  return line.profile === 'studio'
    ? `the call's own audio at ${rate}`
    : `${CODEC_NAMES[line.codec]} at ${rate}`;
}
