import {
  Alert,
  AlertTitle,
  Box,
  Button,
  Card,
  CardContent,
  Link,
  Stack,
  Typography,
} from '@mui/material';
import type { ReactNode } from 'react';
import { client, useSession, wsInput } from '../stores/session';
import { AdjustedMark, HashText, VerdictChip } from './ComparisonBits';
import {
  costWords,
  percent,
  pointsWords,
  scoreWords,
  shortId,
  runsNeededWords,
  type Comparison,
} from './comparisonWords';
import { ErrorNote, useAction } from './common';
import { Explained } from './Explained';
import { plural } from './words';

type Side = Comparison['baseline'];

/** A side as the engine takes it back: one execution, or several pooled. */
export const sideInput = (side: Side) =>
  side.execution_ids.length === 1
    ? { executionId: side.execution_ids[0] }
    : { executionIds: side.execution_ids };

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Typography variant="body2" component="div">
      <b>{label}:</b> {children}
    </Typography>
  );
}

function Hashes({ hashes, what }: { hashes: string[]; what: string }) {
  if (hashes.length === 0) return <>not recorded</>;
  return (
    <Box component="span" sx={{ display: 'inline-flex', gap: 1, flexWrap: 'wrap' }}>
      {hashes.map((h) => (
        <HashText key={h} hash={h} what={what} />
      ))}
    </Box>
  );
}

/** One side: its executions (links), agent versions, what it tested (hashes) and its cost. */
function SideCard({ name, side }: { name: string; side: Side }) {
  const navigate = useSession((s) => s.navigate);
  return (
    <Card variant="outlined" sx={{ flex: 1, minWidth: 0 }} aria-label={name} component="section">
      <CardContent>
        <Typography variant="h6" component="h2">
          {name}
        </Typography>
        <Fact label={side.execution_ids.length === 1 ? 'Execution' : 'Executions (pooled)'}>
          {side.execution_ids.map((id) => (
            <Link
              key={id}
              component="button"
              sx={{ mr: 1, fontFamily: 'monospace' }}
              onClick={() => navigate(`executions/${id}`)}
              aria-label={`${name} execution ${id}`}
            >
              {shortId(id)}
            </Link>
          ))}
          · {plural(side.simulations, 'simulation')}
        </Fact>
        <Fact label="Agent versions">
          {side.agent_versions.length
            ? side.agent_versions.map((v) => `v${v}`).join(', ')
            : 'none recorded (http agents have none)'}
        </Fact>
        <Fact label="Agent configuration">
          <Hashes hashes={side.agent_config_hashes} what="Agent configuration hash" />
        </Fact>
        <Fact label="Scenario">
          <Hashes hashes={side.scenario_hashes} what="Scenario hash" />
        </Fact>
        <Fact label="Scorecard">
          <Hashes hashes={side.scorecard_hashes} what="Scorecard hash" />
        </Fact>
        <Fact label="Cost">{costWords(side.cost_usd)}</Fact>
      </CardContent>
    </Card>
  );
}

/** Both sides, baseline left and candidate right, as the transcripts are shown. */
export function SidesHeader({ comparison }: { comparison: Comparison }) {
  return (
    <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ mb: 2 }}>
      <SideCard
        name={comparison.rescored_baseline ? 'Baseline (rescored)' : 'Baseline'}
        side={comparison.baseline}
      />
      <SideCard name="Candidate" side={comparison.candidate} />
    </Stack>
  );
}

const HASHED = new Set(['scenario', 'scorecard']);

function ConditionValues({ field, values }: { field: string; values: string[] }) {
  if (values.length === 0) return <>none</>;
  if (HASHED.has(field)) return <Hashes hashes={values} what={`${field} hash`} />;
  return <>{values.join(', ')}</>;
}

/**
 * The sides did not run under the same conditions: a changed scenario or scorecard is a test edit,
 * not an agent change. Rescoring the baseline with the candidate's scorecard removes a scorecard
 * difference (a new comparison; stored simulations stay as they are).
 */
export function ConditionsWarning({ comparison }: { comparison: Comparison }) {
  const navigate = useSession((s) => s.navigate);
  const rescore = useAction(async () => {
    const { comparison: made } = await client().invoke(
      'comparisons.create',
      wsInput({
        baseline: sideInput(comparison.baseline),
        candidate: sideInput(comparison.candidate),
        rescoreBaseline: true,
      }),
    );
    navigate(`comparisons/${made.id}`);
  });
  if (comparison.conditions_differ.length === 0) return null;
  return (
    <Alert
      severity="warning"
      sx={{ mb: 2 }}
      action={
        !comparison.rescored_baseline && (
          <Button color="inherit" disabled={rescore.busy} onClick={() => void rescore.run()}>
            {rescore.busy ? 'Rescoring…' : 'Rescore baseline'}
          </Button>
        )
      }
    >
      <AlertTitle>The sides did not run under the same conditions</AlertTitle>A change here is a
      test edit, not an agent change.
      {!comparison.rescored_baseline &&
        " Rescore baseline scores the baseline's stored transcripts again with the candidate's scorecard (the stored results stay as they are)."}
      <Box component="ul" sx={{ my: 0.5, pl: 2 }}>
        {comparison.conditions_differ.map((d) => (
          <li key={d.field}>
            <b>{d.field}</b>: baseline <ConditionValues field={d.field} values={d.baseline} />,
            candidate <ConditionValues field={d.field} values={d.candidate} />
          </li>
        ))}
      </Box>
      <ErrorNote error={rescore.error} />
    </Alert>
  );
}

/** The overall verdict, big, with both pass rates and the difference in words. */
export function OverallVerdict({ comparison }: { comparison: Comparison }) {
  const o = comparison.overall;
  return (
    <Card variant="outlined" sx={{ mb: 2 }} component="section" aria-label="Overall verdict">
      <CardContent>
        <Stack
          direction="row"
          spacing={2}
          sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}
        >
          <VerdictChip verdict={o.verdict} large />
          <Box>
            <Typography sx={{ fontWeight: 600 }} data-testid="overall-line">
              Pass rate {percent(o.baseline.pass_rate)} → {percent(o.candidate.pass_rate)} over{' '}
              {plural(o.pairs, 'pair')}
              {runsNeededWords(o) && ` · ${runsNeededWords(o)}`}
            </Typography>
            <Typography variant="body2">
              <Explained help="The candidate's pass rate minus the baseline's, in percentage points, with its 95% confidence interval (Newcombe): a verdict needs the whole interval on one side of zero">
                Pass-rate difference
              </Explained>
              : {pointsWords(o.difference.value, o.difference.interval)}
            </Typography>
            <Typography variant="body2">
              <Explained help="The mean change of paired scores (0 to 100), with its 95% bootstrap interval; it informs but never makes the verdict">
                Score change
              </Explained>
              : {scoreWords(o.score.difference, o.score.interval)}
            </Typography>
            <AdjustedMark verdict={o.verdict} adjusted={o.adjusted_verdict} />
            {comparison.rescored_baseline && (
              <Typography variant="body2">
                The baseline was scored again with the candidate's scorecard for this comparison.
              </Typography>
            )}
          </Box>
        </Stack>
      </CardContent>
    </Card>
  );
}
