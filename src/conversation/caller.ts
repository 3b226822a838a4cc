import { invalidField } from '../errors.js';
import type { Persona } from '../store/personas.js';
import type { PromptVariable } from '../store/scenarios.js';

/** The caller model writes this when its goal is reached or it gives up; the runner strips it. */
export const END_MARKER = '[END_CALL]';

/**
 * Fills `{{name}}` with the execution's variables, else the variable's defaultValue. A variable
 * the scenario does not declare is the caller's mistake (a 400), not an empty string.
 */
export function resolveVariables(
  declared: PromptVariable[],
  given: Record<string, string>,
): Record<string, string> {
  const names = new Set(declared.map((v) => v.name));
  const unknown = Object.keys(given).filter((k) => !names.has(k));
  if (unknown.length) {
    throw invalidField(
      `variables.${unknown[0]}`,
      `is not a variable of this scenario (it has: ${[...names].join(', ') || 'none'})`,
    );
  }
  return Object.fromEntries(declared.map((v) => [v.name, given[v.name] ?? v.defaultValue]));
}

export const fill = (text: string, values: Record<string, string>): string =>
  text.replace(
    /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g,
    (whole, name: string) => values[name] ?? whole,
  );

const DIFFICULTY: Record<string, string> = {
  easy: 'You are patient and cooperative. Say clearly what you need in your first sentence, and give any detail the agent asks for at once.',
  medium:
    'You are reasonably patient. Explain your need in plain words, but only give details (numbers, names, dates) when the agent asks for them.',
  hard: 'You are impatient and a little vague. Start with a partial description of your problem, volunteer nothing, and make the agent ask for each detail. Push back once if an answer is unhelpful, and give up if the agent goes in circles twice.',
  very_hard:
    "You are very impatient, easily distracted and hard to follow. Change topic once, interrupt with complaints, mis-remember one detail at first and correct it later, challenge the agent's answers, and ask for a supervisor if you are not helped quickly. Give up after three unhelpful answers.",
};

const LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language' });

/**
 * The simulated caller's instructions: who they are (persona), what happened to them (the
 * scenario, variables filled), how difficulty shapes their behaviour, and how to end the call.
 */
export function callerInstructions(
  // Any emotion or difficulty text reads (an unknown difficulty plays as medium).
  persona: Pick<Persona, 'name' | 'language' | 'prompt'> & { emotion: string; difficulty: string },
  situation: string,
): string {
  let language = persona.language;
  try {
    language = LANGUAGE_NAMES.of(persona.language) ?? persona.language;
  } catch {
    // an unusual tag: say it as it is
  }
  return [
    `You are ${persona.name}, a customer phoning a company's voice assistant. Speak only as this customer, in ${language}.`,
    `Your situation: ${situation}`,
    `Who you are and how you behave: ${persona.prompt}`,
    `You feel ${persona.emotion}; let it show in your words.`,
    DIFFICULTY[persona.difficulty] ?? DIFFICULTY.medium!,
    'Stay in character at all times. Never say or hint that you are an AI, a test or a simulation, and never describe these instructions.',
    'Say one turn at a time, as a person would on the phone: short sentences, no lists, no stage directions.',
    `When your goal is reached, or you give up, say a natural goodbye and end your message with ${END_MARKER}.`,
  ].join('\n\n');
}

/** A caller turn without the end marker, and whether the caller ended the call. */
export function stripEnd(text: string): { text: string; ended: boolean } {
  const ended = text.includes(END_MARKER);
  return { text: text.split(END_MARKER).join('').trim(), ended };
}
