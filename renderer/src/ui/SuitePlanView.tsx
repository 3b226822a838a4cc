import { Alert, AlertTitle, Box, Chip, Stack, Typography } from '@mui/material';
import { ApiError, type OutputOf } from '../client';

/** What `suite.plan` answers: the entries by action, and every problem with its position. */
export type SuitePlan = OutputOf<'suite.plan'>['plan'];
export type SuiteProblem = SuitePlan['problems'][number];
type Entry = SuitePlan['entries'][number];

const SECTIONS: { action: Entry['action']; title: string }[] = [
  { action: 'create', title: 'To create' },
  { action: 'update', title: 'To update' },
  { action: 'delete', title: 'To delete' },
];

/** `personas/frank.yaml:3:7`, as an editor or a terminal names a place in a file. */
export const problemPlace = (p: SuiteProblem) => `${p.file}:${p.line}:${p.column}`;

/**
 * The problems of a refused apply (400 `suite_invalid`, its details the plan's problems), or null
 * for any other error (shown as errors are).
 */
export function refusedProblems(error: unknown): SuiteProblem[] | null {
  if (!(error instanceof ApiError) || error.code !== 'suite_invalid') return null;
  if (!Array.isArray(error.details)) return [];
  return (error.details as SuiteProblem[]).filter(
    (p) => typeof p?.file === 'string' && typeof p.line === 'number',
  );
}

/** "3 to create · 1 to update · 4 unchanged": the plan in one line. */
export function planSummary(entries: readonly Entry[]): string {
  const count = (action: Entry['action']) => entries.filter((e) => e.action === action).length;
  const parts = [
    [count('create'), 'to create'],
    [count('update'), 'to update'],
    [count('delete'), 'to delete'],
    [count('unchanged'), 'unchanged'],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, words]) => `${n} ${words}`);
  return said.length ? said.join(' · ') : 'The suite defines nothing';
}

/** Every problem, grouped by file, each at file:line:column with its field. */
export function SuiteProblems({ problems, title }: { problems: SuiteProblem[]; title: string }) {
  const files = [...new Set(problems.map((p) => p.file))];
  return (
    <Alert severity="error" role="alert" sx={{ my: 1 }}>
      <AlertTitle>{title}</AlertTitle>
      {files.map((file) => (
        <Box key={file} component="section" aria-label={`Problems in ${file}`} sx={{ mb: 1 }}>
          <Typography variant="subtitle2" component="h3">
            {file}
          </Typography>
          <Box component="ul" sx={{ m: 0, pl: 2 }}>
            {problems
              .filter((p) => p.file === file)
              .map((p, i) => (
                <li key={i}>
                  <Box component="code" sx={{ fontSize: 13 }}>
                    {problemPlace(p)}
                  </Box>
                  {p.field ? (
                    <>
                      {' '}
                      <b>{p.field}</b>
                    </>
                  ) : null}
                  : {p.message}
                </li>
              ))}
          </Box>
        </Box>
      ))}
    </Alert>
  );
}

/** One resource the apply would change: its kind, key, name and file, and the fields changed. */
function EntryRow({ entry }: { entry: Entry }) {
  return (
    <Box component="li" sx={{ py: 0.5 }}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <Chip size="small" variant="outlined" label={entry.kind} />
        <Typography component="span" sx={{ fontFamily: 'monospace' }}>
          {entry.key}
        </Typography>
        {entry.name && entry.name !== entry.key && (
          <Typography component="span">“{entry.name}”</Typography>
        )}
        <Typography component="span" variant="body2" color="text.secondary">
          {entry.file}
        </Typography>
      </Stack>
      {entry.action === 'update' && entry.changes.length > 0 && (
        <Typography variant="body2" color="text.secondary" sx={{ pl: 1 }}>
          Changes: {entry.changes.join(', ')}
        </Typography>
      )}
    </Box>
  );
}

/** The plan as the tester reads it before applying: creates, updates with fields, deletes. */
export function SuitePlanView({ plan }: { plan: SuitePlan }) {
  return (
    <Box aria-label="Plan" role="region" sx={{ mt: 2 }}>
      <Typography role="status" sx={{ mb: 1 }}>
        {planSummary(plan.entries)}
      </Typography>
      {plan.problems.length > 0 && (
        <SuiteProblems
          problems={plan.problems}
          title={`${plan.problems.length} ${plan.problems.length === 1 ? 'problem' : 'problems'}: nothing can be applied until the files are fixed`}
        />
      )}
      {SECTIONS.map(({ action, title }) => {
        const entries = plan.entries.filter((e) => e.action === action);
        if (!entries.length) return null;
        return (
          <Box key={action} component="section" aria-label={title} sx={{ mb: 1 }}>
            <Typography
              variant="subtitle1"
              component="h3"
              color={action === 'delete' ? 'error' : undefined}
            >
              {title} ({entries.length})
            </Typography>
            <Box component="ul" sx={{ m: 0, pl: 2, listStyle: 'none' }}>
              {entries.map((e) => (
                <EntryRow key={`${e.kind}:${e.key}`} entry={e} />
              ))}
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}
