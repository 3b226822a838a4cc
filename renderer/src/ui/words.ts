/**
 * The engine's values in a tester's English: counts with the right plural, enum values as words,
 * and what each call figure means (shown on hover). Screens read values through here rather than
 * printing `agent_ended` or "1 calls".
 */

/** "1 call", "2 calls", "0 calls"; `many` for irregular plurals ("1 try", "2 tries"). */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Why a simulated call ended (the engine's END_REASONS), as a sentence's end. */
const END_REASONS: Record<string, string> = {
  agent_ended: 'the agent ended the call',
  caller_ended: 'the caller ended the call',
  max_turns: 'the turn limit was reached',
  max_duration: 'the time limit was reached',
  silence: 'no one spoke for too long',
  error: 'an error stopped the call',
};

export const endReasonWords = (reason: string | null | undefined): string =>
  reason ? (END_REASONS[reason] ?? reason.replace(/_/g, ' ')) : 'not ended yet';

/** Statuses of simulations, executions, agents, alerts and syncs: the ones whose code is not a word. */
const STATUSES: Record<string, string> = {
  needs_credentials: 'needs credentials',
  needs_improvement: 'needs improvement',
};

export const statusWords = (status: string): string =>
  STATUSES[status] ?? status.replace(/_/g, ' ');

/** A simulation's (or execution's) mode in words: "text" or "audio call". */
export const modeWords = (mode: string | null | undefined): string =>
  mode === 'audio' ? 'audio' : mode === 'text' ? 'text' : "scenario's own";

/** Where an agent's words came from in an audio call. */
const TEXT_SOURCES: Record<string, string> = {
  script: 'the script',
  model: 'the caller model',
  provider: "the provider's transcript",
  stt: 'speech-to-text',
  provider_record: "the provider's call record",
};

export const textSourceWords = (source: string): string =>
  TEXT_SOURCES[source] ?? source.replace(/_/g, ' ');

/** What each audio figure measures, for its tooltip. */
export const FIGURE_HELP = {
  transport: 'The audio channel the call went through',
  firstAudio: "Time to first audio: from connect to the agent's first sound",
  latency:
    "Response latency: from the end of the caller's speech to the start of the agent's reply; p50 is the typical reply, p90 the slowest 10%, max the slowest",
  talkOver:
    'Talk-over: the agent started speaking while the caller still spoke (200 ms or more), how often and for how long in all',
  silences: 'Silences on both sides longer than 3 seconds',
  talkRatio: "Talk ratio: the agent's speaking time over the caller's",
  pacing:
    'Pacing p99: how late the worst 1% of audio frames were sent (a steady call stays near 0 ms)',
  agentWords: "Where the agent's words in the transcript came from",
  passRate: 'Pass rate: the share of judged simulations that passed; errored ones count as failed',
  avgScore: "Average score: the mean of the simulations' scores, 0 to 100",
  score: "Score: the scorecard's weighted result, 0 to 100",
  turnLatency: "Latency: from the caller's turn to the agent's reply",
} as const;
