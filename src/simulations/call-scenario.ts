import type { TranscriptTurn } from '../domain/providers.js';
import type { ScriptLine } from '../domain/scenarios.js';
import type { StoredCall } from '../store/calls.js';

/**
 * A scenario made from a real call (`POST /v1/calls/{id}/scenario`): the caller becomes a persona,
 * what they said becomes the script in order, and what the agent answered each time becomes that
 * line's reference answer, so a regression on a production conversation can be replayed.
 */

/** The limits the scenario and persona inputs set (src/operations/scenarios.ts, personas.ts). */
const MAX_NAME = 200;
const MAX_LINE = 5_000;
const MAX_LINES = 200;
const MAX_PROMPT = 20_000;

export interface CallScenarioDraft {
  persona: { name: string; prompt: string };
  scenario: { name: string; prompt: string; script: ScriptLine[] | null };
}

const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/**
 * The caller's turns in order, each with the agent's reply that followed it (every agent turn up
 * to the caller's next, joined): a caller turn no reply followed has no reference.
 */
export function scriptOf(transcript: TranscriptTurn[]): ScriptLine[] {
  const lines: { say: string; replies: string[] }[] = [];
  for (const turn of transcript) {
    const text = turn.text.trim();
    if (!text) continue;
    if (turn.role === 'user') lines.push({ say: text, replies: [] });
    else lines.at(-1)?.replies.push(text);
  }
  return lines.slice(0, MAX_LINES).map(({ say, replies }) => {
    const line: ScriptLine = { say: clip(say, MAX_LINE) };
    if (replies.length) line.reference = clip(replies.join(' '), MAX_LINE);
    return line;
  });
}

/** When and where the call happened, in words. */
function describeCall(call: StoredCall, agentName: string): string {
  const when = call.startedAt ? ` on ${call.startedAt.slice(0, 10)}` : '';
  return `a real call to ${agentName}${when} (provider call ${call.providerCallId})`;
}

/** The scenario's prompt: the call's summary, or what the call was when it has none. */
function promptOf(call: StoredCall, agentName: string, lines: number): string {
  const summary = call.summary?.trim();
  if (summary) return clip(summary, MAX_PROMPT);
  const outcome =
    call.successful === null ? '' : call.successful ? ' It went well.' : ' It went badly.';
  return `Replay ${describeCall(call, agentName)}: the caller says the ${lines} line${lines === 1 ? '' : 's'} of the script, in order.${outcome}`;
}

/** The persona's prompt: who the caller was, and how they spoke (their first words as a sample). */
function personaPromptOf(call: StoredCall, agentName: string, script: ScriptLine[]): string {
  const sample = script
    .slice(0, 3)
    .map((l) => `"${l.say}"`)
    .join(' ');
  const words = sample ? ` They said, among other things: ${sample}` : '';
  return clip(
    `You are the caller of ${describeCall(call, agentName)}. Speak as they did, in their words and at their pace.${words}`,
    MAX_PROMPT,
  );
}

/** The persona and scenario a call makes; `name` names the scenario (default: from the call). */
export function draftFromCall(
  call: StoredCall,
  agent: { name: string },
  name?: string,
): CallScenarioDraft {
  const script = scriptOf(call.transcript);
  const day = call.startedAt ? ` (${call.startedAt.slice(0, 10)})` : '';
  return {
    persona: {
      name: clip(`Caller of ${call.providerCallId}`, MAX_NAME),
      prompt: personaPromptOf(call, agent.name, script),
    },
    scenario: {
      name: clip(name ?? `${agent.name}: call ${call.providerCallId}${day}`, MAX_NAME),
      prompt: promptOf(call, agent.name, script.length),
      script: script.length ? script : null,
    },
  };
}
