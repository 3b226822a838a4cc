// Generated from the engine's catalogue by scripts/operation-names.ts: do not edit.

/** personas.create: emotion. */
export const PERSONA_EMOTIONS = [
  'neutral',
  'happy',
  'calm',
  'confused',
  'frustrated',
  'angry',
  'anxious',
  'impatient',
  'sad',
  'skeptical',
] as const;

/** personas.create: difficulty. */
export const PERSONA_DIFFICULTIES = ['easy', 'medium', 'hard', 'very_hard'] as const;

/** personas.create: backgroundNoise. */
export const PERSONA_BACKGROUND_NOISES = [
  'none',
  'office',
  'call_center',
  'home',
  'street',
  'traffic',
  'car',
  'train',
  'airport',
  'cafe',
  'restaurant',
  'crowd',
  'construction',
  'wind',
] as const;

/** agents.get: provider (answer). */
export const AGENT_PROVIDERS = ['vapi', 'retell', 'elevenlabs', 'bland', 'http', 'demo'] as const;

/** scenarios.execute: channel. */
export const EXECUTION_CHANNELS = ['provider', 'replica', 'http'] as const;

/** scenarios.execute: mode. */
export const EXECUTION_MODES = ['text', 'audio'] as const;

/** executions.get: execution.status (answer). */
export const EXECUTION_STATUSES = [
  'queued',
  'running',
  'completed',
  'failed',
  'cancelled',
  'skipped',
] as const;

/** tools.create: type. */
export const TOOL_TYPES = ['api', 'routing', 'composite', 'database', 'action'] as const;

/** alerts.create: condition.type. */
export const ALERT_CONDITION_TYPES = [
  'tool_performance',
  'agent_score',
  'scenario_failure',
  'agent_config_changed',
  'agent_regression',
  'production_pass_rate',
  'production_trend',
] as const;

/** alerts.create: condition.operator. */
export const ALERT_OPERATORS = [
  'less_than',
  'less_than_or_equal',
  'greater_than',
  'greater_than_or_equal',
  'equals',
] as const;

/** alerts.create: severity. */
export const ALERT_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;

/** scorecards.get: scorecard.metrics.type (answer). */
export const METRIC_TYPES = [
  'llm_judge',
  'tool_called',
  'tool_not_called',
  'contains',
  'not_contains',
  'regex',
  'max_turns',
  'max_latency_ms',
  'ended_by',
  'max_response_latency_ms',
  'max_time_to_first_audio_ms',
  'max_talk_over_ms',
  'max_barge_in_stop_ms',
  'max_false_yields',
  'reprompts_after_silence',
  'max_asr_wer',
] as const;

/** alerts.create: condition.metric of a tool_performance condition. */
export const ALERT_TOOL_METRICS = [
  'success_rate',
  'error_rate',
  'timeout_rate',
  'avg_response_time',
  'p95_response_time',
  'call_count',
] as const;

/** alerts.create: condition.threshold's range per metric (no max: unbounded). */
export const ALERT_THRESHOLD_RANGES: Readonly<Record<string, { min: number; max?: number }>> = {
  success_rate: { min: 0, max: 100 },
  error_rate: { min: 0, max: 100 },
  timeout_rate: { min: 0, max: 100 },
  avg_response_time: { min: 0 },
  p95_response_time: { min: 0 },
  call_count: { min: 0 },
  avg_score: { min: 0, max: 100 },
  pass_rate: { min: 0, max: 100 },
  production_pass_rate: { min: 0, max: 100 },
  production_trend: { min: 0, max: 100 },
};
