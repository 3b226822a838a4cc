import type { AudioSummary } from '../domain/audio.js';

/*
 * An audio simulation's voice figures as a comparison reads them: a dozen numbers and names of its
 * audio summary, stored apart when it ends (./compared-figures.ts), so that the voice rows do not
 * parse some 2.4 KB of JSON a call (with the provider's transcript) for them.
 */

/** What a call's voice rows read of its audio summary (absent: null). */
export interface CallFigures {
  time_to_first_audio_ms: number | null;
  talk_over_count: number;
  talk_over_ms: number;
  long_silences: number;
  /** The realistic caller's figures (absent before realistic callers: null). */
  barge_in_stop_p90_ms: number | null;
  barge_ins_not_stopped: number | null;
  false_yields: number | null;
  /** Numbers and names the agent misheard (null without recognition figures). */
  misheard: number | null;
  /** Recognition of the caller's speech: errors (substitutions, deletions, insertions), words. */
  asr_errors: number | null;
  asr_words: number | null;
  /** The caller's noise bed and line profile (null before realistic callers). */
  noise: string | null;
  line: string | null;
}

/** The stored form: the figures in this order, as one JSON array. */
export type StoredCallFigures = [
  number | null,
  number,
  number,
  number,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  string | null,
  string | null,
];

/** The figures of an audio summary. */
export function callFiguresOf(audio: AudioSummary): CallFigures {
  const caller = audio.caller;
  const asr = caller?.asr ?? null;
  return {
    time_to_first_audio_ms: audio.time_to_first_audio_ms,
    talk_over_count: audio.talk_over.count,
    talk_over_ms: audio.talk_over.total_ms,
    long_silences: audio.long_silences,
    barge_in_stop_p90_ms: caller ? caller.barge_ins.stop_ms.p90 : null,
    barge_ins_not_stopped: caller ? caller.barge_ins.not_stopped : null,
    false_yields: caller ? caller.backchannels.false_yields : null,
    misheard: asr ? asr.misheard.length : null,
    asr_errors: asr ? asr.substitutions + asr.deletions + asr.insertions : null,
    asr_words: asr ? asr.words : null,
    noise: caller ? caller.noise.bed : null,
    line: caller ? caller.line.profile : null,
  };
}

/** The figures' stored form. */
export function storedFigures(f: CallFigures): StoredCallFigures {
  return [
    f.time_to_first_audio_ms,
    f.talk_over_count,
    f.talk_over_ms,
    f.long_silences,
    f.barge_in_stop_p90_ms,
    f.barge_ins_not_stopped,
    f.false_yields,
    f.misheard,
    f.asr_errors,
    f.asr_words,
    f.noise,
    f.line,
  ];
}

/** Figures from their stored form. */
export function fromStored(s: StoredCallFigures): CallFigures {
  return {
    time_to_first_audio_ms: s[0],
    talk_over_count: s[1],
    talk_over_ms: s[2],
    long_silences: s[3],
    barge_in_stop_p90_ms: s[4],
    barge_ins_not_stopped: s[5],
    false_yields: s[6],
    misheard: s[7],
    asr_errors: s[8],
    asr_words: s[9],
    noise: s[10],
    line: s[11],
  };
}
