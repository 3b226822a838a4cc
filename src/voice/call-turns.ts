import { concatPcm } from '../audio/pcm.js';
import type { TextSource } from '../domain/audio.js';
import type { Turn } from '../domain/simulations.js';
import { expectationProblems } from '../conversation/conversation.js';
import type { CallMeasures } from './call-measures.js';
import type { CallTexts } from './call-session.js';
import type { AgentSpeech, CallerSpeech, TimedText, TimedToolCall } from './live-call.js';
import type { AudioCall, ProviderTranscriptTurn } from './transport.js';

/** An agent's turn: its speech spans between two of the caller's. */
interface AgentTurn {
  spans: AgentSpeech[];
  start: number;
  end: number;
  latencyMs: number | null;
  talkOverMs: number;
  text: string;
  source: TextSource;
}

/** Text that arrives this long before its audio plays (buffering) still belongs to it. */
const TEXT_LEAD_MS = 1_500;

function groupAgentTurns(
  agent: AgentSpeech[],
  caller: CallerSpeech[],
  m: CallMeasures,
): AgentTurn[] {
  const turns: AgentTurn[] = [];
  agent.forEach((span, i) => {
    const last = turns.at(-1);
    const measure = m.perAgent[i]!;
    // The caller took the floor between the two spans: a line of theirs reaches past the end of
    // the agent's last span and starts before this one, though it may have started inside it (a
    // barge-in the agent yielded to). A backchannel leaves the floor with the agent.
    const callerBetween =
      last &&
      caller.some(
        (c) => c.utterance.act !== 'backchannel' && c.end > last.end && c.start < span.start,
      );
    if (last && !callerBetween && measure.talkOverMs === 0) {
      last.spans.push(span);
      last.end = span.end;
      return;
    }
    turns.push({
      spans: [span],
      start: span.start,
      end: span.end,
      latencyMs: measure.latencyMs === null ? null : Math.round(measure.latencyMs),
      talkOverMs: Math.round(measure.talkOverMs),
      text: '',
      source: 'provider',
    });
  });
  return turns;
}

/** Index of the last item starting at or before `atMs` (0 when none does). */
function lastStartedBy(items: { start: number }[], atMs: number): number {
  let found = 0;
  items.forEach((t, k) => {
    if (t.start <= atMs) found = k;
  });
  return found;
}

function assignTimedTexts(
  turns: { start: number }[],
  texts: TimedText[],
  leadMs: number,
): string[] {
  const out = turns.map(() => [] as string[]);
  if (!turns.length) return [];
  for (const t of texts) out[lastStartedBy(turns, t.atMs + leadMs)]!.push(t.text);
  return out.map((parts) => parts.join(' ').trim());
}

/** The provider's record, side by side with ours: by order, or by time where counts differ. */
function assignRecord(turns: { start: number }[], record: ProviderTranscriptTurn[]): string[] {
  if (record.length === turns.length || record.some((r) => r.atMs === null))
    return turns.map((_t, i) => record[i]?.text ?? '');
  return assignTimedTexts(
    turns,
    record.map((r) => ({ atMs: r.atMs!, text: r.text })),
    TEXT_LEAD_MS,
  );
}

export interface TurnInputs {
  caller: CallerSpeech[];
  agent: AgentSpeech[];
  measures: CallMeasures;
  inbox: CallTexts;
  source: AudioCall['agentTextSource'];
  /** The tools the agent reported calling; null where the line does not report them. */
  toolCalls: TimedToolCall[] | null;
  providerTranscript: ProviderTranscriptTurn[] | null;
  transcribe: (pcm: Int16Array) => Promise<string>;
}

async function agentTexts(turns: AgentTurn[], i: TurnInputs): Promise<void> {
  const record = i.providerTranscript?.filter((t) => t.role === 'agent') ?? null;
  if (i.source === 'provider') {
    assignTimedTexts(turns, i.inbox.agentTexts, TEXT_LEAD_MS).forEach(
      (t, k) => (turns[k]!.text = t),
    );
    return;
  }
  if (i.source === 'provider_record' && record?.length) {
    assignRecord(turns, record).forEach((t, k) => {
      turns[k]!.text = t;
      turns[k]!.source = 'provider_record';
    });
    return;
  }
  // No text on the line, or no record after it: the agent's words by speech-to-text.
  for (const t of turns) {
    const known = t.spans.map((s) => s.transcript).filter((x) => x !== undefined);
    t.text = known.length
      ? known.join(' ').trim()
      : await i.transcribe(concatPcm(t.spans.flatMap((s) => s.pcm)));
    t.source = 'stt';
  }
}

/** What the provider's recognition heard of each caller line, where it says. */
function heardByCaller(i: TurnInputs): string[] | null {
  if (i.inbox.heardTexts.length) return assignTimedTexts(i.caller, i.inbox.heardTexts, 0);
  const record = i.providerTranscript?.filter((t) => t.role === 'caller');
  return record?.length ? assignRecord(i.caller, record) : null;
}

/**
 * The call as transcript turns, in order: each side's words with when they were spoken; agent
 * turns carry their response latency and any talk-over. Scripted expectations are checked here,
 * once every agent turn has its words.
 */
export async function assembleTurns(
  i: TurnInputs,
): Promise<{ turns: Turn[]; failedExpectations: string[] }> {
  const agentTurns = groupAgentTurns(i.agent, i.caller, i.measures);
  await agentTexts(agentTurns, i);
  const heard = heardByCaller(i);
  const callerTurns: (Turn & { start: number })[] = i.caller.map((c, k) => ({
    start: c.start,
    role: 'caller',
    text: c.utterance.text,
    at_ms: Math.round(c.start),
    latency_ms: null,
    audio: { start_ms: Math.round(c.start), end_ms: Math.round(c.end) },
    source: c.utterance.source,
    ...(heard ? { heard: heard[k] ?? '' } : {}),
    ...(c.utterance.act ? { act: c.utterance.act } : {}),
    ...(c.utterance.dtmf ? { dtmf: c.utterance.dtmf } : {}),
  }));
  const agentAsTurns: (Turn & { start: number })[] = agentTurns.map((a) => ({
    start: a.start,
    role: 'agent',
    text: a.text,
    at_ms: Math.round(a.start),
    latency_ms: a.latencyMs,
    audio: {
      start_ms: Math.round(a.start),
      end_ms: Math.round(a.end),
      ...(a.talkOverMs ? { talk_over_ms: a.talkOverMs } : {}),
    },
    source: a.source,
  }));
  const toolTurns = (i.toolCalls ?? []).map(toolTurn);
  const failedExpectations = checkExpectations(i.caller, {
    agentTurns,
    agentAsTurns,
    toolTurns: i.toolCalls ? toolTurns : null,
  });
  const turns = [...callerTurns, ...agentAsTurns, ...toolTurns]
    .sort((a, b) => a.start - b.start)
    .map(({ start: _start, ...turn }) => turn);
  return { turns, failedExpectations };
}

/** A reported tool call as a turn of its own, where it came in the call. */
const toolTurn = ({ atMs, call }: TimedToolCall): Turn & { start: number } => ({
  start: atMs,
  role: 'tool',
  text: '',
  at_ms: Math.round(atMs),
  latency_ms: call.latencyMs,
  tool: { name: call.name, arguments: call.arguments, result: call.result, success: call.success },
});

/**
 * Each scripted line's expectation, on the agent turn that answered it, with the tools called
 * from the line's start to that turn's end (null: the line reports none, so none is checked).
 */
function checkExpectations(
  caller: CallerSpeech[],
  t: {
    agentTurns: AgentTurn[];
    agentAsTurns: Turn[];
    toolTurns: (Turn & { start: number })[] | null;
  },
): string[] {
  const { agentTurns, agentAsTurns, toolTurns } = t;
  const failed: string[] = [];
  for (const c of caller) {
    const expect = c.utterance.expect;
    if (!expect) continue;
    const k = agentTurns.findIndex((a) => a.start >= c.end - 1);
    const tools =
      k < 0
        ? null
        : (toolTurns?.filter((x) => x.start >= c.start && x.start <= agentTurns[k]!.end) ?? null);
    const problems =
      k < 0 ? ['did not answer'] : expectationProblems(expect, agentTurns[k]!.text, tools);
    if (k >= 0) agentAsTurns[k]!.expectation = { passed: problems.length === 0, problems };
    if (problems.length)
      failed.push(`After "${c.utterance.text}" the agent ${problems.join(', ')}.`);
  }
  return failed;
}
