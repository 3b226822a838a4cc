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
export const AGENT_PROVIDERS = ['vapi', 'retell', 'elevenlabs', 'bland', 'http'] as const;

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
] as const;

/** tools.create: type. */
export const TOOL_TYPES = ['api', 'routing', 'composite', 'database', 'action'] as const;

/** alerts.create: condition.type. */
export const ALERT_CONDITION_TYPES = [
  'tool_performance',
  'agent_score',
  'scenario_failure',
  'agent_config_changed',
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
