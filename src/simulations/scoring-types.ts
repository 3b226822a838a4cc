import type { AudioSummary } from '../domain/audio.js';
import type { JudgeEvidence, Turn } from '../domain/simulations.js';
import type { EndReason } from '../conversation/end-reasons.js';

/*
 * What scoring reads: the conversation, and the judge it asks (scoring.ts re-exports these; the
 * metric modules import them from here, so none of them imports scoring.ts back).
 */

export interface Conversation {
  turns: Turn[];
  endReason: EndReason;
  /** Audio simulations: what the call measured. */
  audio?: AudioSummary | null;
  /** Scripted simulations: the script's expectations that did not hold, each said. */
  failedExpectations?: string[];
  /**
   * Metric types this conversation cannot compute, each with the reason (say, an imported call
   * has no recognition figures): their results come out `not_applicable` with that reasoning,
   * left out of the score and the verdict. See callConversation (src/simulations/call-conversation.ts).
   */
  notApplicable?: Partial<Record<string, string>>;
  /** Scripted simulations: each turn's reference answer (from its script line), by turn index. */
  references?: Partial<Record<number, string>>;
}

/** What an llm_judge metric asks: its criterion, and the requirements answered one by one. */
export interface Rubric {
  criterion: string;
  requirements?: string[];
}

/** A judge's answer: the score (or each requirement met, in order), why, and where it saw it. */
export interface JudgeVerdict {
  /** 0 to 100; with requirements the score is the share met instead. */
  score?: number;
  reasoning: string;
  /** Quotes, each from the turn numbered as the judge's prompt printed it. */
  evidence?: JudgeEvidence[];
  /** With requirements: each met or not, in the rubric's order. */
  met?: boolean[];
  /** The model that answered. */
  model?: string | null;
}

/** Asks the judge model about a rubric on a conversation: one request per metric. */
export type Judge = (rubric: Rubric, conversation: Conversation) => Promise<JudgeVerdict>;
