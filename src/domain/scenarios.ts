import { PatternText } from './patterns.js';
import { z } from 'zod';
import { ScenarioAudio } from './audio.js';
import { ScriptLineActs } from './callers.js';
import { Timestamp, UserRef } from './records.js';

/**
 * The scenario (a caller situation, who plays it, who is called and how it is scored), defined
 * once: the store reads and writes it through a column map typed by this record, and the
 * operations build their schemas from it.
 */

/**
 * One line of a scripted caller: what it says, what the agent's reply must show, and in audio mode
 * what else the caller does with it (barge in, stay silent, send digits, hang up).
 */
export const ScriptLine = z
  .strictObject({
    say: z
      .string()
      .min(1)
      .max(5_000)
      .optional()
      .describe('Words to say; optional when the line only acts'),
    expect: z
      .strictObject({
        contains: z.string().min(1).optional(),
        regex: PatternText.optional().describe('RE2 syntax, matched case-insensitively'),
        toolCalled: z.string().min(1).optional(),
      })
      .optional(),
    reference: z
      .string()
      .min(1)
      .max(5_000)
      .optional()
      .describe("The reference answer to this line: shown to the judge beside the line's turn"),
    ...ScriptLineActs,
  })
  .superRefine((line, ctx) => {
    if (line.say === undefined && !line.dtmf && !line.hangup && !line.silence)
      ctx.addIssue({
        code: 'custom',
        path: ['say'],
        message: 'a line says something, sends dtmf, hangs up or stays silent',
      });
    if ((line.interrupt || line.backchannel) && line.say === undefined)
      ctx.addIssue({
        code: 'custom',
        path: [line.interrupt ? 'interrupt' : 'backchannel'],
        message: 'a barge-in or backchannel needs words to say',
      });
    if (line.interrupt && line.backchannel)
      ctx.addIssue({
        code: 'custom',
        path: ['backchannel'],
        message: 'a line either interrupts (takes the turn) or backchannels (does not), not both',
      });
  });

export type ScriptLine = z.infer<typeof ScriptLine>;

/** The types a prompt variable may declare; a stored one's `type` is any text (see PromptVariable). */
export const PROMPT_VARIABLE_TYPES = ['string', 'number', 'boolean', 'date'] as const;

/** A `{{name}}` of the scenario's prompt, and what it is when an execution gives no value. */
export const PromptVariable = z.object({
  name: z.string(),
  type: z.string(),
  defaultValue: z.string(),
});
export type PromptVariable = z.infer<typeof PromptVariable>;

/** Besides the scorecard, each tool of `toolCalls` is scored as a tool_called check. */
export const ExpectedBehavior = z.object({
  toolCalls: z.array(z.string()).optional(),
  providesTrackingInfo: z.boolean().optional(),
});
export type ExpectedBehavior = z.infer<typeof ExpectedBehavior>;

/** One data-driven case of a scenario: values of its promptVariables. */
export const ScenarioCase = z.object({ variables: z.record(z.string(), z.string()) });
export type ScenarioCase = z.infer<typeof ScenarioCase>;

// The order of the fields is the order the API publishes them in.
export const Scenario = z.object({
  id: z.string(),
  /** The suite key when stored (first export or import); null: not yet (answers derive it). */
  key: z.string().nullable(),
  name: z.string(),
  prompt: z.string(),
  promptVariables: z.array(PromptVariable),
  /** Persona ids: one simulation per persona, target agent and run. */
  personas: z.array(z.string()),
  /** Agent ids (agents belong to no workspace). */
  targetAgents: z.array(z.string()),
  scorecard: z.string().nullable(),
  tags: z.array(z.string()),
  expectedOutcome: z.string().nullable(),
  expectedBehavior: ExpectedBehavior.nullable(),
  script: z.array(ScriptLine).nullable(),
  maxTurns: z.number().int().nullable(),
  maxDurationMs: z.number().int().nullable(),
  /** Audio calls unless an execution says text; null: text. */
  audio: ScenarioAudio.nullable(),
  /** Data-driven cases: one execution per case, with its variables; null: none. */
  cases: z.array(ScenarioCase).nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  created_by: UserRef,
});
export type Scenario = z.infer<typeof Scenario>;

/** What a change may set: everything but the identity and the bookkeeping. */
export const ScenarioEditable = Scenario.omit({
  id: true,
  key: true,
  created_at: true,
  updated_at: true,
  created_by: true,
});
export type ScenarioPatch = Partial<z.infer<typeof ScenarioEditable>>;

/** How a scenario has fared: the simulations it ran (errored ones count as not passed). */
export const ScenarioStats = z.object({
  total_simulations: z.number().int(),
  errored_simulations: z
    .number()
    .int()
    .describe('Ended in error (agent unreachable, ...): counted as not passed'),
  avg_score: z.number().nullable(),
  success_rate: z
    .number()
    .nullable()
    .describe('Percent of judged simulations that passed; errored ones count as not passed'),
  last_run: Timestamp.nullable(),
});
export type ScenarioStats = z.infer<typeof ScenarioStats>;

/** The scenarios of a workspace, in figures. */
export const WorkspaceScenarioStats = z.object({
  total_scenarios: z.number().int(),
  active_scenarios: z.number().int(),
  total_simulations: z.number().int(),
  errored_simulations: z.number().int(),
  avg_score_last_30_days: z.number().nullable(),
  most_used_scenario: z
    .object({ id: z.string(), name: z.string(), simulation_count: z.number().int() })
    .nullable(),
});
export type WorkspaceScenarioStats = z.infer<typeof WorkspaceScenarioStats>;

/** `{{names}}` a text uses. */
const placeholdersIn = (text: string): string[] =>
  [...text.matchAll(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g)].map((m) => m[1]!);

/**
 * Each `{{variable}}` the prompt or a script line uses that promptVariables does not declare,
 * by where it is used: refused when a scenario is saved, and (for one saved before that rule)
 * when it is executed.
 */
export function undeclaredVariables(
  scenario: Pick<Scenario, 'prompt' | 'promptVariables' | 'script'>,
): { path: string; message: string }[] {
  const declared = new Set(scenario.promptVariables.map((v) => v.name));
  const texts: [string, string][] = [
    ['prompt', scenario.prompt],
    ...(scenario.script ?? []).map((l, i): [string, string] => [`script[${i}].say`, l.say ?? '']),
  ];
  return texts.flatMap(([path, text]) =>
    [...new Set(placeholdersIn(text))]
      .filter((name) => !declared.has(name))
      .map((name) => ({
        path,
        message: `{{${name}}} is used but not declared in promptVariables`,
      })),
  );
}
