/** Shapes of a simulation that the store keeps and the simulation domain makes. */
import type { TextSource, TurnAudio } from './audio.js';
import type { CallerAct } from './callers.js';

export interface Turn {
  role: 'caller' | 'agent' | 'tool';
  text: string;
  at_ms: number;
  latency_ms: number | null;
  /** `success` is null when the provider did not say (a deployed agent's own tool call). */
  tool?: { name: string; arguments: unknown; result: unknown; success: boolean | null };
  /** Scripted mode: the expectation on this agent reply, when the script line had one. */
  expectation?: { passed: boolean; problems: string[] };
  /** Audio mode: when this turn's speech ran on the call's clock. */
  audio?: TurnAudio;
  /** Audio mode: where the text came from (the script, the caller model, the provider, STT). */
  source?: TextSource;
  /** Audio mode, caller turns: what the provider's speech recognition heard, where it says. */
  heard?: string;
  /** Audio mode, caller turns: said over the agent, or keypad digits. */
  act?: CallerAct;
  /** Audio mode, caller turns: keypad digits sent. */
  dtmf?: string;
  /** Audio mode, caller turns: word error rate of `heard` against `text` (normalised). */
  wer?: number | null;
}

export interface MetricResult {
  metric_id: string;
  name: string;
  category: string;
  type: string;
  /** 0 to 100; null when the metric could not be evaluated (status error). */
  score: number | null;
  passed: boolean;
  reasoning: string;
  error?: string;
}

/** Model calls and tokens a simulation spent (every attempt counted). */
export interface Usage {
  llm_calls: number;
  input_tokens: number;
  output_tokens: number;
}
