import type { OperationOutput } from '../../../src/operations/catalogue';

/*
 * An imported call's turns numbered as the judge numbers them, and where a judge's quote sits in a
 * turn. The renderer reaches the engine through its client only, so the engine's merge
 * (src/simulations/call-conversation.ts, mergeByTime) and the judge's line text
 * (src/simulations/judge-transcript.ts, turnText) are followed here step for step:
 * test/renderer/call-turns.test.ts holds the two to the same numbers and the same text.
 */

type Call = OperationOutput<'calls.get'>;
type ToolCall = Call['toolCalls'][number];

export interface NumberedTurn {
  /** The index the judge prints before the turn (from 0, tool turns included). */
  index: number;
  role: 'caller' | 'agent' | 'tool';
  /** The turn as the judge reads it, without its number: `Agent: ...`, `[tool name {...} -> {...}]`. */
  text: string;
  /** ms from the call's start (where a turn without a time was placed). */
  atMs: number;
}

/** One line of text, as the judge is shown it. */
const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, ' ').trim();

const toolText = (tc: ToolCall) =>
  `[tool ${tc.name} ${JSON.stringify(tc.arguments ?? null)} -> ${JSON.stringify(tc.result ?? null)}]`;

const toolTurn = (tc: ToolCall, fallbackAt = 0) => ({
  role: 'tool' as const,
  text: toolText(tc),
  atMs: tc.atMs ?? fallbackAt,
});

/**
 * Transcript turns (user → caller) and tool calls merged by time: a tool call goes before the first
 * turn that started after it; before an untimed turn, those up to the speech reached so far;
 * untimed tool calls last, in their order.
 */
export function callTurns(call: Pick<Call, 'transcript' | 'toolCalls'>): NumberedTurn[] {
  const pending = call.toolCalls.filter((tc) => tc.atMs !== null).sort((a, b) => a.atMs! - b.atMs!);
  const turns: Omit<NumberedTurn, 'index'>[] = [];
  let reached = 0;
  const flushUntil = (before: (atMs: number) => boolean) => {
    for (let next = pending.at(0); next && before(next.atMs ?? 0); next = pending.at(0)) {
      turns.push(toolTurn(next));
      pending.shift();
    }
  };
  for (const t of call.transcript) {
    if (t.startMs !== null) flushUntil((at) => at < t.startMs!);
    else flushUntil((at) => at <= reached);
    const role = t.role === 'user' ? 'caller' : 'agent';
    turns.push({
      role,
      text: `${role === 'caller' ? 'Caller' : 'Agent'}: ${oneLine(t.text)}`,
      atMs: t.startMs ?? reached,
    });
    reached = Math.max(reached, t.endMs ?? t.startMs ?? reached);
  }
  flushUntil(() => true);
  for (const tc of call.toolCalls.filter((x) => x.atMs === null)) turns.push(toolTurn(tc, reached));
  return turns.map((t, index) => ({ ...t, index }));
}

/** Whether a character is left out of the comparison (punctuation or spacing), as the judge's check. */
const ignored = (ch: string) => /[\p{P}\p{Z}\s]/u.test(ch);

/**
 * Where the quote is in the text, compared as the judge's evidence check compares (case, spacing
 * and punctuation ignored): the span of the text from its first to its last compared character;
 * null when the text does not hold it.
 */
export function quoteSpan(text: string, quote: string): { start: number; end: number } | null {
  // One entry per UTF-16 unit of the compared text, with where its character is in `text`.
  const kept: { unit: string; at: number; end: number }[] = [];
  let at = 0;
  for (const ch of text) {
    const end = at + ch.length;
    const compared = ignored(ch) ? '' : ch.normalize('NFKC').toLowerCase();
    for (const unit of compared.split('')) kept.push({ unit, at, end });
    at = end;
  }
  const wanted = [...quote.normalize('NFKC').toLowerCase()].filter((c) => !ignored(c)).join('');
  if (!wanted) return null;
  const found = kept
    .map((k) => k.unit)
    .join('')
    .indexOf(wanted);
  const first = kept.at(found);
  const last = kept.at(found + wanted.length - 1);
  return found >= 0 && first && last ? { start: first.at, end: last.end } : null;
}
