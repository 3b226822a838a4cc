import type { CallEvaluation, EvaluationReason } from '../domain/monitoring.js';
import { fromJson, toJson } from './db.js';

/*
 * An evaluation row and the record it holds, read and written in one place: the evaluations'
 * reads and the queue that records them share it.
 */

/** A call's evaluation with what its readers group it by: the call, its start and agent version. */
export interface StoredEvaluation extends CallEvaluation {
  callId: string;
  agentId: string;
  callStartedAt: string | null;
  agentVersion: number | null;
}

export interface EvaluationRow {
  call_id: string;
  agent_id: string;
  workspace_id: string;
  scorecard_id: string;
  score: number | null;
  passed: number | null;
  results: string;
  reason: string;
  evaluated_at: string;
  call_started_at: string | null;
  agent_version: number | null;
}

export const fromRow = (r: EvaluationRow): StoredEvaluation => ({
  callId: r.call_id,
  agentId: r.agent_id,
  workspaceId: r.workspace_id,
  scorecardId: r.scorecard_id,
  score: r.score,
  passed: r.passed === null ? null : r.passed === 1,
  results: fromJson(r.results),
  evaluatedAt: r.evaluated_at,
  reason: r.reason as EvaluationReason,
  callStartedAt: r.call_started_at,
  agentVersion: r.agent_version,
});

/** The evaluation as a call answers it (without the fields its readers group by). */
export const evaluationOf = (e: StoredEvaluation): CallEvaluation => ({
  workspaceId: e.workspaceId,
  scorecardId: e.scorecardId,
  score: e.score,
  passed: e.passed,
  results: e.results,
  evaluatedAt: e.evaluatedAt,
  reason: e.reason,
});

/** The columns of an evaluation row as written. */
export const evaluationRow = (e: StoredEvaluation): EvaluationRow => ({
  call_id: e.callId,
  agent_id: e.agentId,
  workspace_id: e.workspaceId,
  scorecard_id: e.scorecardId,
  score: e.score,
  passed: e.passed === null ? null : Number(e.passed),
  results: toJson(e.results),
  reason: e.reason,
  evaluated_at: e.evaluatedAt,
  call_started_at: e.callStartedAt,
  agent_version: e.agentVersion,
});
