import type { AudioSummary } from '../domain/audio.js';
import type { MetricResult, Simulation } from '../domain/simulations.js';
import { fromJson } from './db.js';
import { replyLatenciesColumn } from './reply-latencies.js';
import {
  callFiguresOf,
  fromStored,
  storedFigures,
  type CallFigures,
  type StoredCallFigures,
} from './voice-figures.js';

/*
 * What a comparison reads of a simulation's outcome, kept in its own column (`compared_figures`,
 * migration 22) when it ends: each metric's name, score and pass, and an audio call's voice
 * figures (./voice-figures.ts). Reading them from the results and the audio summary meant parsing
 * some 3 KB of JSON a simulation (the judge's reasoning, the provider's transcript) for a few
 * numbers. Simulations that ended before the column existed have none, and are read from their
 * results and audio summary: the same values.
 */

/** A metric's outcome as a comparison reads it. */
export type ComparedResult = Pick<MetricResult, 'name' | 'score' | 'passed'>;

/** The stored form: [[name, score, passed] per result, the voice figures or null]. */
type Stored = [[string, number | null, boolean | null][], StoredCallFigures | null];

type Ended = { results: readonly MetricResult[] } & Partial<{ audio: AudioSummary | null }>;

/** The column as an ended simulation sets it. */
export const comparedFiguresColumn = (r: Ended): { compared_figures: string } => {
  const stored: Stored = [
    r.results.map((x) => [x.name, x.score, x.passed]),
    r.audio ? storedFigures(callFiguresOf(r.audio)) : null,
  ];
  return { compared_figures: JSON.stringify(stored) };
};

/**
 * The columns an ended simulation sets for comparisons: its replies' latencies
 * (./reply-latencies.ts) and its compared figures.
 */
export const comparisonColumns = (r: Ended & Pick<Simulation, 'turns'>) => ({
  ...replyLatenciesColumn(r),
  ...comparedFiguresColumn(r),
});

/** What a comparison reads: the column's, else the stored results' and audio summary's. */
export interface ComparedFigures {
  results: ComparedResult[];
  figures: CallFigures | null;
}

/** The stored columns a comparison's figures come from (the column, else results and audio). */
export interface FigureColumns {
  compared: string | null;
  results: string | null;
  audio: string | null;
}

/**
 * A simulation's figures: the column's, or (one that ended before it existed) its stored results'
 * and audio summary's. An audio summary is read only where `withAudio` (audio simulations).
 */
export function storedComparedFigures(c: FigureColumns, withAudio: boolean): ComparedFigures {
  if (c.compared !== null) {
    const [results, voice] = fromJson<Stored>(c.compared);
    return {
      results: results.map(([name, score, passed]) => ({ name, score, passed })),
      figures: withAudio && voice !== null ? fromStored(voice) : null,
    };
  }
  const audio = withAudio ? fromJson<AudioSummary | null>(c.audio) : null;
  return {
    results: fromJson<MetricResult[] | null>(c.results) ?? [],
    figures: audio ? callFiguresOf(audio) : null,
  };
}
