import { z } from 'zod';
import { AudioSummary, SIMULATION_MODES, TEXT_SOURCES, TurnAudio } from './audio.js';
import { CALLER_ACTS, SimulationLine } from './callers.js';
import { Timestamp } from './records.js';

/**
 * The simulation (one simulated call of an execution), defined once: the store reads and writes it
 * through a column map typed by this record, the simulation domain makes its turns, results and
 * usage, and the operations build their answers from it.
 */

export const SIMULATION_STATUSES = [
  'queued',
  'running',
  'completed',
  'failed',
  'cancelled',
  // Stopped by its execution's cost cap (maxCostUsd) before it ran: in no pass rate.
  'skipped',
] as const;
export type SimulationStatus = (typeof SIMULATION_STATUSES)[number];

/** Why a simulated call ended: text and audio conversations share the list, and scoring reads it. */
export const END_REASONS = [
  'agent_ended',
  'caller_ended',
  'max_turns',
  'max_duration',
  'silence',
  'error',
] as const;

export const Turn = z.object({
  role: z.enum(['caller', 'agent', 'tool']),
  text: z.string(),
  at_ms: z.number(),
  latency_ms: z.number().nullable(),
  tool: z
    .object({
      name: z.string(),
      arguments: z.unknown(),
      result: z.unknown(),
      /** Null when the provider did not say (a deployed agent's own tool call). */
      success: z.boolean().nullable().describe('null when the agent did not say'),
    })
    .optional(),
  expectation: z
    .object({ passed: z.boolean(), problems: z.array(z.string()) })
    .optional()
    .describe('Scripted lines: the expectation on this agent reply, when the line had one'),
  audio: TurnAudio.optional().describe("Audio mode: when this turn's speech ran (ms from connect)"),
  /** Audio mode: the script, the caller model, the provider or STT. */
  source: z.enum(TEXT_SOURCES).optional().describe('Audio mode: where the text came from'),
  heard: z
    .string()
    .optional()
    .describe("Audio mode, caller turns: what the provider's speech recognition heard"),
  act: z
    .enum(CALLER_ACTS)
    .optional()
    .describe('Audio mode, caller turns: said over the agent (barge_in, backchannel), or dtmf'),
  dtmf: z.string().optional().describe('Audio mode, caller turns: keypad digits sent'),
  /** Normalised: 0 is every word heard right. */
  wer: z
    .number()
    .nullable()
    .optional()
    .describe('Audio mode, caller turns: word error rate of heard against text (normalised)'),
});
export type Turn = z.infer<typeof Turn>;

/** How a metric came out: passed, failed, could not be evaluated, or does not apply. */
export const METRIC_STATUSES = ['passed', 'failed', 'error', 'not_applicable'] as const;
export type MetricStatus = (typeof METRIC_STATUSES)[number];

/** A judge's evidence: a quote from one turn, its number as the judge's prompt printed it. */
export const JudgeEvidence = z.object({
  turn: z.number().int().describe("The turn's index from 0 (tool turns included)"),
  quote: z.string(),
});
export type JudgeEvidence = z.infer<typeof JudgeEvidence>;

export const MetricResult = z.object({
  metric_id: z.string(),
  name: z.string(),
  category: z.string(),
  type: z.string(),
  /** 0 to 100; null when the metric could not be evaluated (status error) or does not apply. */
  score: z.number().nullable(),
  /** null: not applicable (see not_applicable). */
  passed: z.boolean().nullable(),
  status: z
    .enum(METRIC_STATUSES)
    .optional()
    .describe(
      'passed, failed, error (could not be evaluated: see error) or not_applicable (score and passed null, left out of the score and verdict); absent on results scored before it was recorded',
    ),
  reasoning: z.string(),
  error: z.string().optional(),
  not_applicable: z
    .literal(true)
    .optional()
    .describe(
      'The simulation cannot measure it (an audio figure in a text run): left out of its score and verdict',
    ),
  evidence: z
    .array(JudgeEvidence)
    .optional()
    .describe(
      "llm_judge: the judge's quotes, each checked against its turn (case, spacing and punctuation ignored)",
    ),
  requirements: z
    .array(z.object({ text: z.string(), met: z.boolean() }))
    .optional()
    .describe("llm_judge with requirements: each met or not, in the metric's order"),
  judge_model: z
    .string()
    .nullable()
    .optional()
    .describe("llm_judge: the judge role's model that answered; null when none did"),
  rubric_hash: z
    .string()
    .optional()
    .describe('llm_judge: SHA-256 of the canonical JSON of {criterion, requirements}'),
});
export type MetricResult = z.infer<typeof MetricResult>;

/** A result's status, derived for results stored before `status` was recorded. */
export function resultStatus(r: MetricResult): MetricStatus {
  if (r.status) return r.status;
  if (r.not_applicable) return 'not_applicable';
  if (r.error !== undefined) return 'error';
  return r.passed ? 'passed' : 'failed';
}

/** The roles a language model plays in a simulation. */
export const MODEL_ROLES = ['caller', 'judge', 'replica'] as const;

/** Model calls and tokens, as a running count (every attempt counted). */
export const TokenCounts = z.object({
  llm_calls: z.number().int(),
  input_tokens: z.number().int().describe('Cached input tokens included'),
  cached_input_tokens: z.number().int(),
  output_tokens: z.number().int(),
});
export type TokenCounts = z.infer<typeof TokenCounts>;

/** One role's model calls and tokens in a simulation. */
export const ModelUsage = z.object({
  role: z.enum(MODEL_ROLES),
  model: z.string(),
  ...TokenCounts.shape,
});
export type ModelUsage = z.infer<typeof ModelUsage>;

/**
 * What an audio call spent on speech and on the provider's line, for its cost: characters sent to
 * each voice engine, seconds transcribed, and the call's own seconds.
 */
export const SpeechUsage = z.object({
  tts: z.array(z.object({ engine: z.string(), model: z.string(), characters: z.number().int() })),
  stt: z.array(z.object({ engine: z.string(), model: z.string(), seconds: z.number() })),
  call: z
    .object({ provider: z.string(), seconds: z.number() })
    .nullable()
    .describe('The audio call on the provider'),
});
export type SpeechUsage = z.infer<typeof SpeechUsage>;

/** Model calls and tokens a simulation spent (every attempt counted), by model, and its speech. */
export const Usage = TokenCounts.extend({
  cached_input_tokens: TokenCounts.shape.cached_input_tokens
    .optional()
    .describe(
      'Of input_tokens, those the model answered as cached; absent before they were counted',
    ),
  by_model: z
    .array(ModelUsage)
    .describe('By role and model, summing to the totals; [] on simulations made before'),
  speech: SpeechUsage.optional().describe('Audio calls: speech and call time, for their cost'),
});
export type Usage = z.infer<typeof Usage>;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * The agent as a simulation reached it: enough to tell whether two simulations tested the same
 * agent (same `hash`, same agent tested). Null on simulations made before it was recorded.
 */
export const AgentConfigUsed = z.object({
  version_id: z
    .number()
    .int()
    .nullable()
    .describe('The `version` of GET /v1/agents/{id}/versions in force; null for http agents'),
  hash: Sha256.describe(
    'SHA-256 of the effective configuration (synced + overrides) with every field here',
  ),
  provider_hash: Sha256.nullable().describe(
    "SHA-256 of the provider's raw agent record; null: the raw record is not kept",
  ),
  overrides: z.array(z.string()).describe('Leaf paths of the local overrides in force'),
  channel: z.string(),
  replica_model: z.string().nullable().describe("The replica role's model on the replica channel"),
  tools: z
    .array(z.object({ name: z.string(), version: z.number().int() }))
    .describe('Callbench tools offered on the replica channel, each at the version in force'),
});
export type AgentConfigUsed = z.infer<typeof AgentConfigUsed>;

/** What a simulation tested; every field null on simulations made before it was recorded. */
export const RunIdentity = z.object({
  run: z.number().int().nullable().describe('1..runs within its scenario × persona × agent group'),
  scenario_hash: Sha256.nullable().describe(
    'SHA-256 of the canonical JSON of the scenario as run (prompt, resolved variables, script, maxTurns, audio)',
  ),
  scorecard_hash: Sha256.nullable().describe(
    'SHA-256 of the canonical JSON of the scorecard (metrics with type, config, weight; passThreshold)',
  ),
  agent_config: AgentConfigUsed.nullable(),
});
export type RunIdentity = z.infer<typeof RunIdentity>;

/**
 * The simulation as stored, its fields in the order the API answers them. `recording` is the file's
 * name in the data dir, never answered (the operations answer its URL instead), and `error` is null
 * when there is none (the simulation's own page leaves it out then).
 */
export const Simulation = z.object({
  id: z.string(),
  execution_id: z.string(),
  scenario_id: z.string(),
  persona_id: z.string().nullable(),
  agent_id: z.string().nullable(),
  channel: z.string(),
  mode: z.enum(SIMULATION_MODES).describe('text, or audio (a real audio call)'),
  ...RunIdentity.shape,
  status: z.enum(SIMULATION_STATUSES),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  ended_at: Timestamp.nullable(),
  duration_ms: z.number().int().nullable(),
  end_reason: z
    .enum(END_REASONS)
    .nullable()
    .describe('silence: audio calls where no one spoke past the silence limit'),
  turns: z.array(Turn),
  score: z.number().nullable(),
  passed: z.boolean().nullable(),
  results: z.array(MetricResult),
  usage: Usage,
  cost_usd: z
    .number()
    .nullable()
    .describe(
      'What it cost at the prices in force when it ended; null: not ended, priced without a model in unpriced_models, or made before costs',
    ),
  unpriced_models: z
    .array(z.string())
    .describe('Models, speech engines or providers it used that have no price (cost_usd null)'),
  /** Audio mode: what the call measured (null in text mode, or before it ran). */
  audio: AudioSummary.nullable().describe('Audio mode: what the call measured'),
  /** Audio mode: the recording's file name in the data dir, while it is kept. */
  recording: z.string().nullable(),
  line: SimulationLine.nullable().describe(
    'Audio mode: the line chosen for it, and the seed that replays its losses, jitter and caller behaviours',
  ),
  error: z.string().nullable(),
});
export type Simulation = z.infer<typeof Simulation>;

export const NameNow = z.string().nullable().describe('Its name now; null once it is deleted');

/** The names, now, of what a simulation ran (screens show names, not ids); null once deleted. */
export const RunNames = z.object({
  scenario_name: NameNow,
  persona_name: NameNow,
  agent_name: NameNow,
});
export type RunNames = z.infer<typeof RunNames>;
