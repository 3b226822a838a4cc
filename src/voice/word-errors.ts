import { normalizeEnglish, normalizeWithKinds } from '../text/normalize-english.js';

/**
 * Word error rate of what the provider's speech recognition heard against what the caller said,
 * both normalised (normalize-english.ts) so that only differences in words count.
 */

/** A number or name the caller said that was heard as something else (or not at all). */
export interface MisheardWord {
  said: string;
  heard: string | null;
  kind: 'number' | 'name';
}

export interface WordErrors {
  /** Words the caller said (normalised): the denominator of the rate. */
  words: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  /** (substitutions + deletions + insertions) / words, to 4 decimals; null when no words said. */
  wer: number | null;
  misheard: MisheardWord[];
}

/** One step of the alignment: a said word against a heard word, or either alone. */
interface AlignedPair {
  said: number | null;
  heard: number | null;
}

/** The alignment costs, row-major, in cells wide enough for the largest. */
class CostTable {
  private readonly cells: Uint32Array | Float64Array;

  constructor(
    readonly rows: number,
    readonly columns: number,
    largest: number,
  ) {
    const size = rows * columns;
    this.cells = largest <= 0xffff_ffff ? new Uint32Array(size) : new Float64Array(size);
  }

  get(row: number, column: number): number {
    return this.cells[row * this.columns + column] ?? 0;
  }

  set(row: number, column: number, value: number): void {
    this.cells[row * this.columns + column] = value;
  }
}

/**
 * What each step of an alignment costs. An edit costs `gap`, more than any count of
 * substitutions, so the cheapest alignment has the fewest edits (the Levenshtein distance); a
 * substitution costs one more, so among those it has the most matched words: "with Priya
 * yesterday" against "with yesterday please" aligns "yesterday" with itself (a deletion and an
 * insertion) rather than substituting twice.
 */
function stepCosts(said: string[], heard: string[]) {
  const gap = said.length + heard.length + 1;
  return { gap, substitution: gap + 1, largest: (gap + 1) * gap };
}

/** Cheapest alignment cost of every prefix of said against every prefix of heard. */
function alignmentCosts(said: string[], heard: string[]): CostTable {
  const { gap, substitution, largest } = stepCosts(said, heard);
  const table = new CostTable(said.length + 1, heard.length + 1, largest);
  for (let i = 0; i <= said.length; i++) table.set(i, 0, i * gap);
  for (let j = 0; j <= heard.length; j++) table.set(0, j, j * gap);
  for (let i = 1; i <= said.length; i++) {
    for (let j = 1; j <= heard.length; j++) {
      const pair = said[i - 1] === heard[j - 1] ? 0 : substitution;
      const best = Math.min(
        table.get(i - 1, j - 1) + pair,
        table.get(i - 1, j) + gap,
        table.get(i, j - 1) + gap,
      );
      table.set(i, j, best);
    }
  }
  return table;
}

/**
 * One cheapest alignment, read back from the end of the table. Where paths cost the same, a word
 * against a word goes before a deletion before an insertion.
 */
function align(said: string[], heard: string[]): AlignedPair[] {
  const table = alignmentCosts(said, heard);
  const { gap, substitution } = stepCosts(said, heard);
  const pairs: AlignedPair[] = [];
  let i = said.length;
  let j = heard.length;
  while (i > 0 || j > 0) {
    const here = table.get(i, j);
    const pair = said[i - 1] === heard[j - 1] ? 0 : substitution;
    if (i > 0 && j > 0 && here === table.get(i - 1, j - 1) + pair) {
      pairs.push({ said: --i, heard: --j });
    } else if (i > 0 && here === table.get(i - 1, j) + gap) {
      pairs.push({ said: --i, heard: null });
    } else {
      pairs.push({ said: null, heard: --j });
    }
  }
  return pairs.reverse();
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

function withRate(counts: Omit<WordErrors, 'wer'>): WordErrors {
  const edits = counts.substitutions + counts.deletions + counts.insertions;
  return { ...counts, wer: counts.words === 0 ? null : round4(edits / counts.words) };
}

/** How what was heard differs from what was said, word by word, after normalising both. */
export function wordErrors(said: string, heard: string): WordErrors {
  const reference = normalizeWithKinds(said);
  const hypothesis = normalizeEnglish(heard);
  const counts = { words: reference.length, substitutions: 0, deletions: 0, insertions: 0 };
  const misheard: MisheardWord[] = [];
  const saidWords = reference.map((token) => token.word);
  for (const pair of align(saidWords, hypothesis)) {
    const saidToken = pair.said === null ? undefined : reference[pair.said];
    const heardWord = pair.heard === null ? null : (hypothesis[pair.heard] ?? null);
    if (!saidToken) {
      counts.insertions += 1;
      continue;
    }
    if (saidToken.word === heardWord) continue;
    if (heardWord === null) counts.deletions += 1;
    else counts.substitutions += 1;
    if (saidToken.kind !== 'word') {
      misheard.push({ said: saidToken.word, heard: heardWord, kind: saidToken.kind });
    }
  }
  return withRate({ ...counts, misheard });
}

/**
 * The figure of a whole call from its turns: edits summed over reference words summed, so a long
 * turn weighs more than a short one (not the mean of per-turn rates).
 */
export function sumWordErrors(parts: WordErrors[]): WordErrors {
  const total = { words: 0, substitutions: 0, deletions: 0, insertions: 0 };
  for (const part of parts) {
    total.words += part.words;
    total.substitutions += part.substitutions;
    total.deletions += part.deletions;
    total.insertions += part.insertions;
  }
  return withRate({ ...total, misheard: parts.flatMap((part) => part.misheard) });
}
