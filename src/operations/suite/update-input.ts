import { ToolInput } from '../../tools/definition.js';
import type { FileObject, SuiteKind } from './kinds.js';
import type { StoredResource } from './stored.js';

/**
 * A planned update as its operation must receive it for the stored resource to end up as the plan
 * said (#38): a top-level field the file leaves out keeps its stored value, and inside the objects
 * the file gives, the file is the whole truth (diff.ts). The update operations differ in how they
 * take a change, so each kind is sent what its own needs:
 * - personas, scorecards, scenarios and schedules replace each top-level field sent, whole (a
 *   persona's `voice`, a scenario's `script`): the file's fields as they are;
 * - tools.update replaces the whole definition: the fields the file leaves out are sent as stored;
 * - alerts.update merges `condition` and `notifications` key by key: a key stored there that the
 *   file lacks is sent as null, which removes it.
 */

/** The alert objects alerts.update merges key by key rather than replacing. */
const ALERT_MERGED = ['condition', 'notifications'] as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The tool's stored input fields the file leaves out (secrets in clear, as `stored` holds them). */
function keptToolFields(input: FileObject, stored: StoredResource): FileObject {
  return Object.fromEntries(
    Object.entries(stored.resource).filter(
      ([field, value]) =>
        Object.hasOwn(ToolInput, field) && !(field in input) && value !== undefined,
    ),
  );
}

/** Each merged object of the input with a null for each key the stored one has and it lacks. */
function alertRemovals(input: FileObject, stored: StoredResource): FileObject {
  const out: FileObject = { ...input };
  for (const field of ALERT_MERGED) {
    const given = input[field];
    const before = stored.resource[field];
    if (!isObject(given) || !isObject(before)) continue;
    const removed = Object.keys(before).filter(
      (key) => !(key in given) && before[key] !== undefined,
    );
    out[field] = { ...given, ...Object.fromEntries(removed.map((key) => [key, null])) };
  }
  return out;
}

/** The update operation's input for a file's input fields and the resource they update. */
export function updateInput(
  kind: SuiteKind,
  input: FileObject,
  stored: StoredResource,
): FileObject {
  if (kind === 'tool') return { ...keptToolFields(input, stored), ...input };
  if (kind === 'alert') return alertRemovals(input, stored);
  return input;
}
