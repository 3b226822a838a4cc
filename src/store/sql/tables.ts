import type { Generated } from 'kysely';

/**
 * The tables as both databases hold them, for the query builder's types. Both store the same
 * column types: text for ids, ISO times and JSON; integers for counts, epoch milliseconds and
 * flags (0 or 1); reals for scores and costs. `Generated` marks a column the database fills.
 */
export interface Tables {
  schema_migrations: SchemaMigrations;
  workspaces: Workspaces;
  api_keys: ApiKeys;
  workspace_tokens: WorkspaceTokens;
  agents: Agents;
  agent_versions: AgentVersions;
  agent_errors: AgentErrors;
  calls: Calls;
  personas: Personas;
  scorecards: Scorecards;
  scenarios: Scenarios;
  executions: Executions;
  simulations: Simulations;
  schedules: Schedules;
  schedule_runs: ScheduleRuns;
  tools: Tools;
  tool_versions: ToolVersions;
  tool_calls: ToolCalls;
  alerts: Alerts;
  alert_events: AlertEvents;
  settings: Settings;
  recording_blobs: RecordingBlobs;
  agent_workspaces: AgentWorkspaces;
  regression_suite_runs: RegressionSuiteRuns;
  comparisons: Comparisons;
  experiments: Experiments;
  experiment_executions: ExperimentExecutions;
  call_evaluations: CallEvaluations;
  evaluation_jobs: EvaluationJobs;
  reviews: Reviews;
}

/** 0 or 1: neither database driver takes a JS boolean the same way, so flags are integers. */
export type Flag = number;

export interface SchemaMigrations {
  version: number;
  name: string;
  checksum: string;
  applied_at: string;
}

export interface Workspaces {
  id: string;
  name: string;
  created_at: string;
  /** The name of the suite last imported into the workspace (#38). */
  suite_name: string | null;
}

export interface ApiKeys {
  id: string;
  label: string | null;
  key_hash: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface WorkspaceTokens {
  id: string;
  workspace_id: string;
  name: string | null;
  token_hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface Agents {
  id: string;
  provider: string;
  provider_agent_id: string;
  name: string;
  status: string;
  tags: Generated<string>;
  created_at: string;
  updated_at: string;
  description: string | null;
  snapshot: Generated<string>;
  overrides: Generated<string>;
  channel: string | null;
  credentials: string | null;
  sync_status: Generated<string>;
  last_synced_at: string | null;
  sync_error: string | null;
  calls_cursor_ms: number | null;
  parent_id: string | null;
  regression_suite: string | null;
  /** Migration 20: production monitoring (JSON), and when it was last turned on. */
  monitoring: string | null;
  monitoring_enabled_at: string | null;
}

export interface AgentVersions {
  agent_id: string;
  version: number;
  synced_at: string;
  changed_paths: string;
  configuration: string;
}

export interface AgentErrors {
  id: Generated<number>;
  agent_id: string;
  at: string;
  kind: string;
  message: string;
  call_id: string | null;
}

export interface Calls {
  id: string;
  agent_id: string;
  provider_call_id: string;
  started_ms: number | null;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  end_reason: string | null;
  cost: number | null;
  cost_original: string | null;
  recording_url: string | null;
  summary: string | null;
  successful: Flag | null;
  transcript: string;
  tool_calls: string;
  /** Migration 19: the agent version in force when the call started. */
  agent_version: number | null;
}

export interface Personas {
  id: string;
  /** The suite key (#38): null until first exported or imported. */
  key: string | null;
  workspace_id: string;
  name: string;
  language: string;
  prompt: string;
  emotion: string;
  difficulty: string;
  background_noise: string;
  tags: Generated<string>;
  created_at: string;
  updated_at: string;
  created_by_id: string;
  created_by_name: string;
  voice: string | null;
  noise: string | null;
  behaviours: string | null;
}

export interface Scorecards {
  id: string;
  key: string | null;
  workspace_id: string;
  name: string;
  description: string | null;
  metrics: string;
  pass_threshold: number;
  created_at: string;
  updated_at: string;
}

export interface Scenarios {
  id: string;
  key: string | null;
  /** Data-driven cases (JSON): a list of variables objects. */
  cases: string | null;
  workspace_id: string;
  name: string;
  prompt: string;
  prompt_variables: Generated<string>;
  personas: Generated<string>;
  target_agents: Generated<string>;
  scorecard_id: string | null;
  tags: Generated<string>;
  expected_outcome: string | null;
  expected_behavior: string | null;
  script: string | null;
  max_turns: number | null;
  max_duration_ms: number | null;
  created_at: string;
  updated_at: string;
  created_by_id: string;
  created_by_name: string;
  audio: string | null;
}

export interface Executions {
  id: string;
  workspace_id: string;
  scenario_id: string;
  status: string;
  created_at: string;
  variables: Generated<string>;
  runs: Generated<number>;
  channel: string | null;
  estimated_completion: string | null;
  cancelled_at: string | null;
  mode: string | null;
  line: string | null;
  scenario_hash: string | null;
  scorecard_hash: string | null;
  agent_config_hashes: string | null;
  max_cost_usd: number | null;
  budget_per_simulation_usd: number | null;
  reserved_usd: Generated<number>;
  spent_usd: Generated<number>;
}

export interface Simulations {
  id: string;
  workspace_id: string;
  execution_id: string;
  scenario_id: string;
  persona_id: string | null;
  agent_id: string | null;
  status: string;
  score: number | null;
  passed: Flag | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  channel: string | null;
  duration_ms: number | null;
  end_reason: string | null;
  turns: Generated<string>;
  results: Generated<string>;
  usage: Generated<string>;
  error: string | null;
  attempts: Generated<number>;
  seq: number | null;
  lease_owner: string | null;
  lease_until_ms: number | null;
  mode: Generated<string>;
  audio: string | null;
  recording: string | null;
  line: string | null;
  run: number | null;
  scenario_hash: string | null;
  scorecard_hash: string | null;
  agent_config: string | null;
  cost_usd: number | null;
  unpriced_models: Generated<string>;
  reserved_usd: Generated<number>;
  /** Audio simulations: the agent replies' latencies (JSON array), written at their end. */
  reply_latencies: string | null;
  /** What a comparison reads of its outcome (JSON array), written at its end. */
  compared_figures: string | null;
}

export interface Schedules {
  id: string;
  key: string | null;
  workspace_id: string;
  name: string;
  scenario_id: string;
  periodicity: string;
  timezone: Generated<string>;
  period_end_condition: Generated<string>;
  is_active: Generated<Flag>;
  next_run: string | null;
  last_run: string | null;
  scheduled_runs: Generated<number>;
  ended_reason: string | null;
  created_at: string;
  updated_at: string;
  max_cost_usd: number | null;
}

export interface ScheduleRuns {
  id: string;
  schedule_id: string;
  scheduled_for: string | null;
  started_at: string;
  execution_id: string | null;
  trig: string;
  outcome: string;
  reason: string | null;
  late: Generated<Flag>;
}

/** A call recording (WAV) kept in the database: on PostgreSQL, where instances share no disk. */
export interface RecordingBlobs {
  name: string;
  saved_at: string;
  bytes: Buffer;
}

/** An agent shared with a workspace: that workspace's tokens may run it. */
export interface AgentWorkspaces {
  agent_id: string;
  workspace_id: string;
}

/** A stored comparison (migration 13): the whole record as JSON text. */
export interface Comparisons {
  id: string;
  workspace_id: string;
  created_at: string;
  record: string;
}

export interface Tools {
  id: string;
  key: string | null;
  name: string;
  type: string;
  definition: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ToolVersions {
  tool_id: string;
  version: number;
  definition: string;
  change: string;
  created_at: string;
  created_by_id: string;
  created_by_name: string;
}

export interface ToolCalls {
  id: Generated<number>;
  tool_id: string;
  tool_name: string;
  agent_id: string | null;
  source: string;
  started_ms: number;
  duration_ms: number;
  outcome: string;
  status_code: number | null;
  attempts: number;
  error_message: string | null;
  parameters: string | null;
  result: string | null;
}

export interface Alerts {
  id: string;
  key: string | null;
  name: string;
  definition: string;
  tool_id: string | null;
  is_active: Generated<Flag>;
  state: Generated<string>;
  created_at: string;
  updated_at: string;
  last_fired_at: string | null;
}

export interface AlertEvents {
  id: string;
  alert_id: string;
  state: string;
  value: number | null;
  threshold: number | null;
  time_window: string | null;
  at: string;
  deliveries: Generated<string>;
}

export interface Settings {
  key: string;
  value: string;
  updated_at: string;
}

/** An experiment (migration 15): JSON lists of its executions by side, `state` as stored. */
export interface Experiments {
  id: string;
  workspace_id: string;
  agent_id: string;
  configuration: string;
  scenario_ids: string;
  runs: number;
  max_cost_usd: number | null;
  baseline_execution_ids: string;
  candidate_execution_ids: string;
  state: string;
  comparison_id: string | null;
  verdict: string | null;
  error: string | null;
  applied_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ExperimentExecutions {
  execution_id: string;
  experiment_id: string;
  side: string;
}

/** A run of an agent's drift suite (migration 16): one per agent and version. */
export interface RegressionSuiteRuns {
  id: string;
  agent_id: string;
  version: number;
  workspace_id: string;
  execution_ids: string;
  status: string;
  baseline_run_id: string | null;
  comparison_id: string | null;
  verdict: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** A call's evaluation by its agent's monitoring scorecard (migration 20): one per call. */
export interface CallEvaluations {
  call_id: string;
  agent_id: string;
  workspace_id: string;
  scorecard_id: string;
  score: number | null;
  passed: Flag | null;
  results: string;
  reason: string;
  evaluated_at: string;
  call_started_at: string | null;
  agent_version: number | null;
}

/** A call waiting to be scored, or being scored under a lease (migration 20). */
export interface EvaluationJobs {
  call_id: string;
  agent_id: string;
  reason: string;
  status: string;
  attempts: Generated<number>;
  lease_owner: string | null;
  lease_until_ms: number | null;
  error: string | null;
  created_at: string;
}

/** Human labels of judged results (#37): one per reviewer, target and metric. */
export interface Reviews {
  id: string;
  workspace_id: string;
  scorecard_id: string;
  metric_id: string;
  /** `call` or `simulation`. */
  target_kind: string;
  target_id: string;
  reviewer_id: string;
  reviewer_name: string;
  /** `pass`, `fail` or `not_applicable`. */
  verdict: string;
  note: string | null;
  created_at: string;
  updated_at: string;
  /** The judge's verdict on the result when labelled: 1, 0, or null (errored, not applicable). */
  judge_passed: number | null;
  judge_model: string | null;
  rubric_hash: string | null;
  /** When that result was made (simulation ended_at, evaluation evaluated_at); null: none yet. */
  judged_at: string | null;
  /** 1 on the latest label of its target and metric, 0 on the ones it outdated. */
  is_latest: Generated<number>;
}
