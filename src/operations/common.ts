import { z } from 'zod';

/** Schemas shared by several resources: ids, tags, paging, answers. */
export const Id = z.string().min(1).max(128);
export const WorkspaceParams = { workspace_id: Id };

export const Tag = z.string().trim().min(1).max(64);
export const Tags = z.array(Tag).max(50);

/** `a,b,c` in a query string; an array over IPC. */
export const CommaList = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : v,
  z.array(Tag).max(50),
);

/** `true`/`false` in a query string; a boolean over IPC. */
export const QueryBoolean = z.preprocess(
  (v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v),
  z.boolean(),
);

export const Paging = {
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
};

export const SortOrder = z.enum(['asc', 'desc']);

export const Pagination = z.object({
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  has_more: z.boolean(),
});

export const pagination = (
  total: number,
  limit: number,
  offset: number,
): z.infer<typeof Pagination> => ({
  total,
  page: Math.floor(offset / limit) + 1,
  limit,
  has_more: offset + limit < total,
});

/** Names for a message a person reads: the first few, quoted, and how many more there are. */
export function nameList(items: { name: string }[], max = 3): string {
  const shown = items
    .slice(0, max)
    .map((i) => `'${i.name}'`)
    .join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

/**
 * Resources that hold another, counted and named for a person: "2 scenarios: Refund, Late order"
 * (the first few names, then how many more). Their ids stay in the error's details.
 */
export function countedNames(items: { name: string }[], noun: string, max = 3): string {
  const names = items.slice(0, max).map((i) => i.name);
  const more = items.length > max ? ` and ${items.length - max} more` : '';
  return `${items.length} ${noun}${items.length === 1 ? '' : 's'}: ${names.join(', ')}${more}`;
}

export const Deleted = z.object({ deleted: z.literal(true), id: z.string() });
export const deleted = (id: string) => ({ deleted: true as const, id });

/**
 * `?dryRun=true` on a delete: every refusal it would meet (in use: 409 naming the users), and
 * nothing deleted. The interface asks it before its "delete for good?" question.
 */
export const DryRunQuery = {
  dryRun: QueryBoolean.optional().describe(
    'true: check only; answers 200 {deleted: false, dryRun: true} or the refusal, deletes nothing',
  ),
};
export const DeletedOrChecked = Deleted.or(
  z.object({ deleted: z.literal(false), id: z.string(), dryRun: z.literal(true) }),
);
export const checked = (id: string) => ({ deleted: false as const, id, dryRun: true as const });

// Shapes every record has: defined with the records in src/domain/.
export { Timestamp, UserRef } from '../domain/records.js';

/** What a connection test answers (agents and models). */
export const ConnectionTestSchema = z.object({
  ok: z.boolean(),
  latencyMs: z.number().int(),
  message: z.string().describe('What answered, or why not'),
});
