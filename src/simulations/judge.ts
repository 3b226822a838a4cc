import { z } from 'zod';
import { canonicalHash } from '../kernel/canonical-hash.js';
import {
  ModelError,
  type Completion,
  type CompletionRequest,
  type ModelClient,
  type StructuredAnswer,
  type Usage,
} from '../llm/types.js';
import { numberedTranscript } from './judge-transcript.js';
import type { Conversation, Judge, JudgeVerdict, Rubric } from './scoring-types.js';

/*
 * The judge on the judge model: one structured request per metric (a JSON schema on
 * OpenAI-compatible models, a forced tool on Anthropic), answering the score or, with
 * requirements, each requirement met or not, a reasoning and the evidence (turn numbers as
 * printed, quotes). An answer of the wrong shape is asked once more, then fails with the reason.
 */

/** SHA-256 of the canonical JSON of the criterion and requirements: which rubric judged a result. */
export const rubricHash = (rubric: Rubric): string =>
  canonicalHash({ criterion: rubric.criterion, requirements: rubric.requirements ?? [] });

const VERDICT = 'record_verdict';

const EVIDENCE_SCHEMA = {
  type: 'array',
  description:
    'The turns your judgement rests on: each its number as printed and words copied exactly from that turn',
  items: {
    type: 'object',
    properties: { turn: { type: 'integer' }, quote: { type: 'string' } },
    required: ['turn', 'quote'],
    additionalProperties: false,
  },
};

/** The answer's JSON schema: a score, or each requirement met or not (the score is their share). */
function verdictSchema(requirements: number): StructuredAnswer {
  const judged = requirements
    ? {
        requirements: {
          type: 'array',
          description: 'Every requirement, by its number, met or not',
          items: {
            type: 'object',
            properties: { requirement: { type: 'integer' }, met: { type: 'boolean' } },
            required: ['requirement', 'met'],
            additionalProperties: false,
          },
        },
      }
    : { score: { type: 'number', description: '0 to 100' } };
  const properties = {
    ...judged,
    reasoning: { type: 'string', description: 'One or two sentences' },
    evidence: EVIDENCE_SCHEMA,
  };
  return {
    name: VERDICT,
    description: 'Records your verdict on the conversation',
    schema: {
      type: 'object',
      properties,
      required: Object.keys(properties),
      additionalProperties: false,
    },
  };
}

const Evidence = z.array(z.object({ turn: z.number().int(), quote: z.string() }));
const Scored = z.object({
  score: z.number().min(0).max(100),
  reasoning: z.string(),
  evidence: Evidence,
});
const Met = (n: number) =>
  z.object({
    requirements: z
      .array(z.object({ requirement: z.number().int().min(1).max(n), met: z.boolean() }))
      .refine(
        (answers) => new Set(answers.map((a) => a.requirement)).size === n && answers.length === n,
        `answer each of the ${n} requirements once`,
      ),
    reasoning: z.string(),
    evidence: Evidence,
  });

/** The answer's object: the forced tool's arguments (Anthropic), else the JSON in its text. */
function answerObject(completion: Completion): unknown {
  const call = completion.toolCalls.find((t) => t.name === VERDICT);
  if (call) return call.arguments;
  const match = /\{[\s\S]*\}/.exec(completion.text);
  if (!match) return undefined;
  try {
    return JSON.parse(match[0]) as unknown;
  } catch {
    return undefined;
  }
}

/** The raw answer, short enough for an error. */
const rawAnswer = (completion: Completion) => {
  const call = completion.toolCalls.find((t) => t.name === VERDICT);
  const raw = call ? JSON.stringify(call.arguments) : completion.text;
  return raw.length > 300 ? `${raw.slice(0, 300)}...` : raw;
};

/** The verdict in the answer, or why the answer has the wrong shape. */
export function readVerdict(
  completion: Completion,
  requirements: number,
): { verdict: JudgeVerdict } | { problem: string } {
  const value = answerObject(completion);
  if (value === undefined)
    return { problem: `no JSON object in the answer (answer: ${rawAnswer(completion)})` };
  const model = completion.model ?? null;
  if (!requirements) {
    const read = Scored.safeParse(value);
    if (read.success) return { verdict: { ...read.data, model } };
    return { problem: `${shapeIssue(read.error)} (answer: ${rawAnswer(completion)})` };
  }
  const read = Met(requirements).safeParse(value);
  if (!read.success)
    return { problem: `${shapeIssue(read.error)} (answer: ${rawAnswer(completion)})` };
  const met = [...read.data.requirements]
    .sort((a, b) => a.requirement - b.requirement)
    .map((a) => a.met);
  return { verdict: { reasoning: read.data.reasoning, evidence: read.data.evidence, met, model } };
}

const shapeIssue = (error: z.ZodError) => {
  const issue = error.issues[0]!;
  return `${issue.path.length ? issue.path.join('.') : 'the answer'}: ${issue.message}`;
};

const SYSTEM = [
  'You grade phone conversations between a caller and a voice agent.',
  'The conversation is printed one turn per line, each line starting with its turn number.',
  'Answer through the verdict tool, or with its JSON object only.',
  'evidence: the turns your judgement rests on, each as {"turn": <its number as printed>, "quote": "<words copied exactly from that turn>"}.',
  'A reference answer beside a turn is what a good agent would say there: it was not said on the call; never quote it.',
].join(' ');

const EVIDENCE_SHAPE = '"reasoning": "...", "evidence": [{"turn": <number>, "quote": "..."}]}';

/**
 * What the judge is asked: the criterion, the numbered requirements, the answer's shape (for a
 * server that takes no schema) and the conversation.
 */
function question(rubric: Rubric, conversation: Conversation): string {
  const asked = rubric.requirements?.length
    ? `Criterion: ${rubric.criterion}\n\nRequirements (answer each by its number, met or not):\n${rubric.requirements.map((r, i) => `${i + 1}. ${r}`).join('\n')}\n\nAnswer {"requirements": [{"requirement": <number>, "met": <true or false>}], ${EVIDENCE_SHAPE}`
    : `Criterion: ${rubric.criterion}\n\nAnswer {"score": <0 (not at all) to 100 (fully)>, ${EVIDENCE_SHAPE}`;
  return `${asked}\n\nConversation:\n${numberedTranscript(conversation.turns, conversation.references)}`;
}

/**
 * Asks the model. An OpenAI-compatible server that takes no JSON schema refuses the request (400):
 * it is asked again without one (the prompt says the shape), and so is every later attempt.
 */
function asker(model: ModelClient, request: CompletionRequest, usage: Usage) {
  let plain = false;
  return async (): Promise<Completion> => {
    if (plain) return model({ ...request, structured: undefined }, usage);
    try {
      return await model(request, usage);
    } catch (err) {
      if (!(err instanceof ModelError) || err.status !== 400) throw err;
      plain = true;
      return model({ ...request, structured: undefined }, usage);
    }
  };
}

/** A judge on the judge model: one structured request per metric; a malformed answer is asked once more. */
export function modelJudge(model: ModelClient, usage: Usage): Judge {
  return async (rubric, conversation) => {
    const count = rubric.requirements?.length ?? 0;
    const ask = asker(
      model,
      {
        system: SYSTEM,
        messages: [{ role: 'user', content: question(rubric, conversation) }],
        temperature: 0,
        structured: verdictSchema(count),
      },
      usage,
    );
    let problem = '';
    for (let attempt = 0; attempt < 2; attempt++) {
      const read = readVerdict(await ask(), count);
      if ('verdict' in read) return read.verdict;
      problem = read.problem;
    }
    throw new Error(`the judge model answered in the wrong shape twice: ${problem}`);
  };
}
