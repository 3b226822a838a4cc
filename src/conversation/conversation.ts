import { compileUserPattern, patternProblem } from '../domain/patterns.js';
import type { ModelClient } from '../llm/types.js';
import { SpendRefused } from '../llm/spend-refused.js';
import type { Usage } from '../llm/types.js';
import type { Persona } from '../store/personas.js';
import type { Scenario } from '../store/scenarios.js';
import type { ScriptLine } from '../domain/scenarios.js';
import { callerInstructions, fill, stripEnd } from './caller.js';
import type { AgentUnderTest } from './agent-under-test.js';
import type { Turn } from '../domain/simulations.js';
import type { EndReason } from './end-reasons.js';

export class Interrupted extends Error {}

export interface ConversationLimits {
  maxTurns: number;
  maxDurationMs: number;
}

export interface ConversationOutcome {
  turns: Turn[];
  endReason: EndReason;
  /** Script expectations that failed, by turn. */
  failedExpectations: string[];
}

/** One simulated call: who takes part, within which limits, counting what. */
export interface ConversationSetup {
  scenario: Scenario;
  persona: Persona;
  variables: Record<string, string>;
  agent: AgentUnderTest;
  /** The model that plays the caller; null for a scripted scenario. */
  callerModel: ModelClient | null;
  limits: ConversationLimits;
  /** Model calls and tokens, counted as they are spent. */
  usage: Usage;
  /** Asked at each turn: a cancel, or the engine stopping. */
  shouldStop: () => 'cancel' | 'interrupt' | null;
  /**
   * Aborted on a cancel or the engine's stop: the turn in flight (agent request, caller model
   * call) ends at once.
   */
  signal?: AbortSignal;
}

class TurnAborted extends Error {}

/** The step's answer, or a TurnAborted as soon as the signal fires, whichever comes first. */
function unlessAborted<T>(step: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return step;
  if (signal.aborted) return Promise.reject(new TurnAborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new TurnAborted());
    signal.addEventListener('abort', onAbort, { once: true });
    step.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A caller: the next line of the script, or the caller model's next turn. */
export function makeCaller({
  scenario,
  persona,
  variables,
  callerModel: model,
  usage,
}: Pick<ConversationSetup, 'scenario' | 'persona' | 'variables' | 'callerModel' | 'usage'>) {
  if (scenario.script) {
    const lines = scenario.script;
    let i = 0;
    return {
      scripted: true,
      expectation: () => lines[i - 1]?.expect,
      heard(_agentText: string) {},
      next(): Promise<{ text: string; ended: boolean }> {
        if (i >= lines.length) return Promise.resolve({ text: '', ended: true });
        return Promise.resolve({ text: fill(lines[i++]!.say ?? '', variables), ended: false });
      },
    };
  }
  const system = callerInstructions(persona, fill(scenario.prompt, variables));
  // From the caller's side, the agent speaks as the user and the caller as the assistant.
  const history: { role: 'user' | 'assistant'; content: string }[] = [];
  return {
    scripted: false,
    expectation: () => undefined,
    heard(agentText: string) {
      history.push({ role: 'user', content: agentText });
    },
    async next(): Promise<{ text: string; ended: boolean }> {
      if (history.length === 0)
        history.push({ role: 'user', content: '(The call connects. Say your first sentence.)' });
      const out = await model!({ system, messages: history }, usage);
      history.push({ role: 'assistant', content: out.text });
      return stripEnd(out.text);
    },
  };
}

/**
 * One simulated call: caller and agent take turns until one ends it or a limit is reached.
 * `shouldStop` is asked at each turn (cancel, engine stopping).
 */
export async function converse(
  setup: ConversationSetup,
): Promise<ConversationOutcome & { cancelled?: true; failure?: string | null }> {
  const turns: Turn[] = [];
  try {
    return await takeTurns(setup, turns);
  } catch (err) {
    // A spend its cost cap refused: the call ends here, and what was said so far stays on record.
    if (err instanceof SpendRefused)
      return { turns, endReason: 'error', failedExpectations: [], failure: err.message };
    if (!(err instanceof TurnAborted)) throw err;
    // Aborted by the engine's stop (or a lost lease), not a cancel: the simulation runs again.
    if (setup.shouldStop() === 'interrupt') throw new Interrupted('the engine is stopping');
    return { turns, endReason: 'caller_ended', failedExpectations: [], cancelled: true };
  }
}

async function takeTurns(
  setup: ConversationSetup,
  turns: Turn[],
): Promise<ConversationOutcome & { cancelled?: true }> {
  const { agent, limits, shouldStop, signal } = setup;
  const started = Date.now();
  const failedExpectations: string[] = [];
  const caller = makeCaller(setup);
  if (agent.firstMessage) {
    turns.push({ role: 'agent', text: agent.firstMessage, at_ms: 0, latency_ms: 0 });
    caller.heard(agent.firstMessage);
  }
  let replies = 0;
  for (;;) {
    const stop = shouldStop();
    if (stop === 'interrupt') throw new Interrupted('the engine is stopping');
    if (stop === 'cancel')
      return { turns, endReason: 'caller_ended', failedExpectations, cancelled: true };
    if (replies >= limits.maxTurns) return { turns, endReason: 'max_turns', failedExpectations };
    if (Date.now() - started >= limits.maxDurationMs)
      return { turns, endReason: 'max_duration', failedExpectations };

    const said = await unlessAborted(caller.next(), signal);
    if (said.text)
      turns.push({
        role: 'caller',
        text: said.text,
        at_ms: Date.now() - started,
        latency_ms: null,
      });
    if (said.ended) return { turns, endReason: 'caller_ended', failedExpectations };

    const began = Date.now();
    const reply = await unlessAborted(agent.reply(said.text, signal), signal);
    turns.push(...reply.toolTurns);
    turns.push({
      role: 'agent',
      text: reply.text,
      at_ms: Date.now() - started,
      latency_ms: Date.now() - began,
    });
    replies++;
    caller.heard(reply.text);

    const expect = caller.expectation();
    if (expect) {
      const problems = expectationProblems(expect, reply.text, reply.toolTurns);
      turns[turns.length - 1]!.expectation = { passed: problems.length === 0, problems };
      if (problems.length)
        failedExpectations.push(`After "${said.text}" the agent ${problems.join(', ')}.`);
    }
    if (reply.ended) return { turns, endReason: 'agent_ended', failedExpectations };
  }
}

/** What a reply failed of a script line's expectation (empty when it held). */
export function expectationProblems(
  expect: NonNullable<ScriptLine['expect']>,
  replyText: string,
  toolTurns: Turn[] | null,
): string[] {
  const problems: string[] = [];
  if (expect.contains && !replyText.toLowerCase().includes(expect.contains.toLowerCase()))
    problems.push(`did not say "${expect.contains}"`);
  if (expect.regex && patternProblem(expect.regex))
    problems.push(`could not be checked: /${expect.regex}/ ${patternProblem(expect.regex)}`);
  else if (expect.regex && !compileUserPattern(expect.regex, 'i').test(replyText))
    problems.push(`did not match /${expect.regex}/`);
  if (expect.toolCalled && toolTurns === null)
    problems.push(
      `could not be checked for a call of ${expect.toolCalled}: this audio channel does not report tool calls`,
    );
  else if (expect.toolCalled && !toolTurns!.some((t) => t.tool?.name === expect.toolCalled))
    problems.push(`did not call ${expect.toolCalled}`);
  return problems;
}
