import { stringify } from 'yaml';

/**
 * A suite file's YAML text: YAML 1.2, keys in the object's own order (the file's schema order,
 * see file-order.ts), two-space indents, no line folding, multi-line texts as block literals,
 * no anchors or aliases, LF line ends and a final newline. The same object always gives the same
 * bytes, which is what makes an export reviewable in git.
 */
export function toYaml(object: unknown): string {
  const text = stringify(object, {
    version: '1.2',
    indent: 2,
    lineWidth: 0,
    minContentWidth: 0,
    aliasDuplicateObjects: false,
    blockQuote: 'literal',
    nullStr: 'null',
    trueStr: 'true',
    falseStr: 'false',
  });
  // The writer ends lines with LF only (a CR inside a text is written escaped).
  return text.endsWith('\n') ? text : `${text}\n`;
}
