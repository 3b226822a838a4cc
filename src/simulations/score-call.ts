import { isoNow, type Clock } from '../clock.js';
import type { SecretBox } from '../kernel/secret-box.js';
import { connectionsFor } from '../llm/settings.js';
import { DEFAULT_MODEL_POLICY, type ModelConnection, type ModelPolicy } from '../llm/types.js';
import { responseCap } from '../net/outbound.js';
import type { Store } from '../store/index.js';
import type { ClaimedJob } from '../store/evaluation-jobs.js';
import type { StoredEvaluation } from '../store/call-evaluations.js';
import type { StoredCall } from '../store/calls.js';
import { metricsFor } from './scoring.js';
import type { ScoreThreads, ThreadSetup } from './score-threads.js';

/** What scoring a production call needs: the store, and the judge model as simulations reach it. */
export interface CallScoringDeps {
  store: Store;
  secrets: SecretBox;
  clock: Clock;
  llmDefault: ModelConnection | null;
  /** How model calls are retried and bounded (the simulations' policy). */
  modelPolicy?: ModelPolicy;
}

/** The agent version a stored call records (null when unknown, or before calls recorded it). */
const versionOf = (call: StoredCall): number | null =>
  'agentVersion' in call && typeof call.agentVersion === 'number' ? call.agentVersion : null;

/** What scoring an agent's calls takes: its monitoring and scorecard, and what a thread scores with. */
export interface ScoringSetup {
  workspaceId: string;
  scorecardId: string;
  thread: ThreadSetup;
}

/** Setups read so far in this process: each gets the next number (a scoring thread's key to it). */
let setups = 0;

/** The agent's scoring setup as stored now; an error when its monitoring or scorecard is gone. */
async function scoringSetup(deps: CallScoringDeps, agentId: string): Promise<ScoringSetup> {
  const monitoring = (await deps.store.agents.get(agentId))?.monitoring;
  if (!monitoring) throw new Error('its agent has no monitoring');
  const { workspaceId, scorecardId } = monitoring;
  const scorecard = await deps.store.scorecards.get(workspaceId, scorecardId);
  if (!scorecard) throw new Error(`scorecard ${scorecardId} was deleted`);
  const metrics = metricsFor(scorecard, null, null);
  const judge = metrics.some((m) => m.type === 'llm_judge') ? await judgeFor(deps) : null;
  const thread = { id: ++setups, metrics, passThreshold: scorecard.passThreshold, judge };
  return { workspaceId, scorecardId, thread };
}

/** Reads an agent's setup at most once a `ttlMs` (a pool scores many calls of one agent at once). */
export function cachedSetups(deps: CallScoringDeps, ttlMs = 1_000) {
  const cache = new Map<string, { until: number; setup: Promise<ScoringSetup> }>();
  return (agentId: string): Promise<ScoringSetup> => {
    const now = Date.now();
    const hit = cache.get(agentId);
    if (hit && hit.until > now) return hit.setup;
    const setup = scoringSetup(deps, agentId);
    cache.set(agentId, { until: now + ttlMs, setup });
    return setup;
  };
}

/**
 * Scores one imported call on its agent's monitoring scorecard, on a scoring thread: the call as a
 * conversation (call-conversation.ts), the scorecard's metrics, the judge on the judge role's model
 * when a metric asks for it. A judge that fails makes that metric an error, as in a simulation; a
 * call, agent monitoring or scorecard that is gone is an error of the job (thrown).
 */
export async function scoreCall(
  deps: CallScoringDeps,
  job: ClaimedJob,
  on: { setupOf: (agentId: string) => Promise<ScoringSetup>; threads: ScoreThreads },
): Promise<StoredEvaluation> {
  const call = await deps.store.calls.get(job.callId);
  if (!call) throw new Error(`call ${job.callId} was deleted`);
  const setup = await on.setupOf(call.agentId);
  const scored = await on.threads.score(call, setup.thread);
  return {
    callId: call.id,
    agentId: call.agentId,
    workspaceId: setup.workspaceId,
    scorecardId: setup.scorecardId,
    ...scored,
    evaluatedAt: isoNow(deps.clock),
    reason: job.reason,
    callStartedAt: call.startedAt,
    agentVersion: versionOf(call),
  };
}

/**
 * The judge role's model as the settings say now, with the simulations' policy; null when none is
 * configured. The thread has module state of its own: the engine's answer cap travels with it.
 */
async function judgeFor(deps: CallScoringDeps): Promise<ThreadSetup['judge']> {
  const connection = (await connectionsFor(deps.store, deps.secrets, deps.llmDefault)).judge;
  if (!connection) return null;
  const base = deps.modelPolicy ?? DEFAULT_MODEL_POLICY;
  const policy = { ...base, maxResponseBytes: base.maxResponseBytes ?? responseCap() };
  return { key: JSON.stringify([connection, policy]), connection, policy };
}
