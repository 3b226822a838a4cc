import type { JudgeEvidence, Turn } from '../domain/simulations.js';

/*
 * The conversation as the judge reads it, one turn per line, each starting with its number (its
 * index from 0, tool turns included), and the check that what the judge quotes as evidence is
 * there: the judge's prompt and the check read the same text, so a quote is held to the turn the
 * judge was shown.
 */

/** One line of text: a turn's own line breaks would make it look like several turns. */
const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, ' ').trim();

/** A turn as the judge sees it, without its number: `Agent: ...`, `[tool name {...} -> {...}]`. */
export function turnText(t: Turn): string {
  if (t.role === 'tool')
    return `[tool ${t.tool?.name ?? 'unknown'} ${JSON.stringify(t.tool?.arguments ?? null)} -> ${JSON.stringify(t.tool?.result ?? null)}]`;
  const who = t.role === 'caller' ? 'Caller' : 'Agent';
  const keys = t.dtmf ? ` [keypad ${t.dtmf}]` : '';
  return `${who}: ${oneLine(t.text)}${keys}`;
}

/**
 * The numbered conversation. A turn with a reference answer (a script line's `reference`) shows it
 * beside the turn, marked as the reference, never as something said.
 */
export function numberedTranscript(
  turns: readonly Turn[],
  references: Partial<Record<number, string>> = {},
): string {
  return turns
    .map((t, i) => {
      const reference = references[i];
      const beside = reference ? `  (reference answer: "${oneLine(reference)}")` : '';
      return `${i}. ${turnText(t)}${beside}`;
    })
    .join('\n');
}

/** Case, spacing and punctuation left out: what is compared of a quote and its turn. */
const comparable = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{Z}\s]/gu, '');

/**
 * What is wrong with the judge's evidence, one sentence per quote (empty when every quote is in its
 * turn): a turn number the conversation has not, or words its turn does not hold.
 */
export function evidenceProblems(turns: readonly Turn[], evidence: readonly JudgeEvidence[]) {
  const problems: string[] = [];
  for (const { turn, quote } of evidence) {
    const t = Number.isInteger(turn) ? turns[turn] : undefined;
    if (!t) {
      problems.push(
        `turn ${turn} is not in the conversation (turns 0 to ${turns.length - 1}), quoted "${quote}"`,
      );
      continue;
    }
    const wanted = comparable(quote);
    if (!wanted || !comparable(turnText(t)).includes(wanted))
      problems.push(`turn ${turn} does not say "${quote}"`);
  }
  return problems;
}

/**
 * Each scripted line's reference answer, by the index of the caller turn that said the line: the
 * lines with words, in order, against the caller turns with words, in order (a line that only
 * sends digits or keeps silent has no turn of its own words).
 */
export function scriptReferences(
  script: readonly { say?: string; reference?: string }[] | null | undefined,
  turns: readonly Turn[],
): Partial<Record<number, string>> {
  const spoken = (script ?? []).filter((l) => l.say);
  if (!spoken.some((l) => l.reference)) return {};
  const callerTurns = turns.flatMap((t, i) => (t.role === 'caller' && t.text ? [i] : []));
  const out: Partial<Record<number, string>> = {};
  spoken.forEach((line, k) => {
    const at = callerTurns[k];
    if (line.reference && at !== undefined) out[at] = line.reference;
  });
  return out;
}
