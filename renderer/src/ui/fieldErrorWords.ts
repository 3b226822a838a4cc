/**
 * An engine error's `details` in the screen's words (pure: no React, no store): which field on
 * screen says a problem, the setting that fixes it, and the note's title without the paths.
 */

/** A field problem as the engine names it. */
export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * The fields a form shows, by the engine's path (a prefix: `voice` covers `voice.speed`), with
 * their labels on screen: the note leaves their problems to the fields.
 */
export type FieldLabels = Record<string, string>;

/** Whether `path` is `field` or inside it (`field.x`, `field[0]`): fieldError's own rule. */
export const isWithin = (path: string, field: string): boolean =>
  path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);

/** The label of the field on screen that shows this problem, if the form shows one. */
export function labelOf(labels: FieldLabels | undefined, path: string): string | null {
  const found = Object.entries(labels ?? {})
    .filter(([field]) => isWithin(path, field))
    .sort(([a], [b]) => b.length - a.length)[0];
  return found ? found[1] : null;
}

/** The settings section that fixes a problem, as `settings/<section>` and its name on screen. */
export function settingFor(problem: FieldProblem): { route: string; name: string } | null {
  const said = `${problem.path} ${problem.message}`;
  if (/settings\.llm|language model/.test(said))
    return { route: 'settings/models', name: 'Settings → Language models' };
  if (/settings\.speech\.stt|speech-to-text/.test(said))
    return { route: 'settings/speech', name: 'Settings → Speech' };
  if (/settings\.speech|speech engine/.test(said))
    return { route: 'settings/speech', name: 'Settings → Speech' };
  if (/\bsmtp\b|SMTP/.test(said)) return { route: 'settings/smtp', name: 'Settings → E-mail' };
  return null;
}

/**
 * The note's title for a validation error: the engine's message lists every detail with its
 * path ("Nothing can run: settings.llm.caller: ..."), which the note says again, better; its
 * opening words are kept ("Nothing can run"), else "Not saved". A message that does not list
 * them (its own sentence) is kept whole.
 */
export function titleOf(message: string, problems: FieldProblem[]): string {
  if (!problems.length) return message;
  const cut = Math.min(
    ...problems
      .flatMap((p) => [`${p.path}: ${p.message}`, `${p.path} ${p.message}`])
      .map((said) => message.indexOf(said))
      .filter((i) => i >= 0),
    message.length,
  );
  const opening = message.slice(0, cut).replace(/[\s:;,]+$/, '');
  return opening || 'Not saved';
}
