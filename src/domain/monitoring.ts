import { z } from 'zod';
import { Timestamp } from './records.js';
import { MetricResult } from './simulations.js';

/**
 * Production monitoring, defined once: an agent's monitoring settings (which scorecard of which
 * workspace scores its imported calls, and how many of them), the evaluation a call gets, and the
 * sample rule that decides which calls are scored. The sync (providers), the background scorer
 * (simulations) and the operations all read it from here.
 */

/** Calls shorter than this are always scored (a dropped or abandoned call), unless said. */
export const DEFAULT_SHORT_CALL_MS = 10_000;

export const AgentMonitoring = z.object({
  workspaceId: z.string().describe('The workspace whose scorecard scores the calls'),
  scorecardId: z.string().describe('A scorecard of workspaceId'),
  sampleRate: z
    .number()
    .min(0)
    .max(100)
    .describe('Percent of imported calls scored (failed and short calls are always scored)'),
  enabled: z.boolean(),
  shortCallMs: z
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .describe('Calls shorter than this (ms) are always scored'),
});
export type AgentMonitoring = z.infer<typeof AgentMonitoring>;

/** Why a call was scored: the sample took it, it failed, it was short, a backfill, or asked. */
export const EVALUATION_REASONS = ['sampled', 'failed', 'short', 'backfill', 'on_demand'] as const;
export const EvaluationReason = z.enum(EVALUATION_REASONS);
export type EvaluationReason = z.infer<typeof EvaluationReason>;

export const CallEvaluation = z.object({
  workspaceId: z.string(),
  scorecardId: z.string(),
  score: z.number().nullable(),
  passed: z.boolean().nullable(),
  results: z.array(MetricResult).describe("Shaped like a simulation's results"),
  evaluatedAt: Timestamp,
  reason: EvaluationReason,
});
export type CallEvaluation = z.infer<typeof CallEvaluation>;

/**
 * Where a provider call id falls in [0, 100): FNV-1a (32 bits) of its UTF-16 code units, scaled.
 * Deterministic across servers and builds, so the sample at a rate is the calls below it: a call
 * taken at 30 is taken at any higher rate, and a rate change never drops one already scored.
 */
export function sampledAt(providerCallId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < providerCallId.length; i++) {
    hash ^= providerCallId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return (hash / 0x1_0000_0000) * 100;
}

/** What the sample rule reads of a call (an imported call, stored or not). */
export interface SampledCall {
  providerCallId: string;
  successful: boolean | null;
  durationMs: number | null;
  startedAt: string | null;
  endedAt: string | null;
  /** Whether it ended in a provider error (the agent's error log lists it). */
  providerError: boolean;
}

/** The call's length: as the provider gave it, else from its start and end; null when unknown. */
function lengthOf(call: SampledCall): number | null {
  if (call.durationMs !== null) return call.durationMs;
  if (!call.startedAt || !call.endedAt) return null;
  return Date.parse(call.endedAt) - Date.parse(call.startedAt);
}

/**
 * Whether the monitoring scores the call, and why: failed (a provider error, or the provider
 * judged it unsuccessful) and short calls always, the rest when the sample takes them; null when
 * it is not scored. Reads the call alone, so the decision costs the same whatever is stored.
 */
export function sampleReason(
  monitoring: Pick<AgentMonitoring, 'sampleRate' | 'shortCallMs'>,
  call: SampledCall,
): 'sampled' | 'failed' | 'short' | null {
  if (call.providerError || call.successful === false) return 'failed';
  const length = lengthOf(call);
  if (length !== null && length < monitoring.shortCallMs) return 'short';
  return sampledAt(call.providerCallId) < monitoring.sampleRate ? 'sampled' : null;
}
