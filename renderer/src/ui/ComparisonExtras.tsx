import { Box, Link, Stack, Typography } from '@mui/material';
import { useSession } from '../stores/session';
import { caseName, percent, sampleSizeWords, shortId, type Comparison } from './comparisonWords';
import { Explained } from './Explained';
import { plural } from './words';

const PASS_K_HELP =
  'pass^k: the share of cases whose runs all passed. Below the pass rate, runs of a case disagree (flaky)';

/** A case by its ids, named from the comparison's rows where it has one. */
function caseOf(comparison: Comparison, scenarioId: string, personaId: string | null) {
  const row = comparison.rows.find(
    (r) => r.scenario_id === scenarioId && r.persona_id === personaId,
  );
  return row ? caseName(row) : `scenario ${shortId(scenarioId)}`;
}

/** How consistent each side is, and how many runs it would take to see a 10-point change. */
export function ConsistencySection({ comparison }: { comparison: Comparison }) {
  const f = comparison.flakiness;
  const sideLine = (name: string, side: typeof f.baseline) =>
    `${name}: pass^k ${percent(side.pass_k)}${
      side.disagreeing.length
        ? `; runs disagree in ${side.disagreeing
            .map((d) => caseOf(comparison, d.scenario_id, d.persona_id))
            .join(', ')}`
        : ''
    }`;
  return (
    <Box component="section" aria-label="Consistency and sample size" sx={{ mb: 3 }}>
      <Typography variant="h6" component="h2">
        Consistency and sample size
      </Typography>
      <Typography>
        <Explained help={PASS_K_HELP}>Flakiness</Explained>
      </Typography>
      <Typography variant="body2">{sideLine('Baseline', f.baseline)}</Typography>
      <Typography variant="body2">{sideLine('Candidate', f.candidate)}</Typography>
      <Typography sx={{ mt: 1 }} data-testid="sample-size">
        <Explained help="Runs per scenario × persona for an 80% chance of seeing a 10-point change in pass rate (two-sided, 5%), at the pass rate seen here">
          {sampleSizeWords(comparison.sample_size)}
        </Explained>
      </Typography>
    </Box>
  );
}

function SimulationLinks({ ids }: { ids: string[] }) {
  const navigate = useSession((s) => s.navigate);
  return (
    <Stack direction="row" useFlexGap sx={{ flexWrap: 'wrap', columnGap: 1 }}>
      {ids.map((id) => (
        <Link
          key={id}
          component="button"
          sx={{ fontFamily: 'monospace' }}
          aria-label={`simulation ${id}`}
          onClick={() => navigate(`simulations/${id}`)}
        >
          {shortId(id)}
        </Link>
      ))}
    </Stack>
  );
}

/** Simulations in no statistic: those without a partner, and those without an outcome. */
export function LeftOutSection({ comparison }: { comparison: Comparison }) {
  const { unpaired, errored } = comparison;
  if (unpaired.length === 0 && errored.simulation_ids.length === 0) return null;
  return (
    <Box component="section" aria-label="Left out" sx={{ mb: 3 }}>
      <Typography variant="h6" component="h2">
        Left out of the statistics
      </Typography>
      {unpaired.length > 0 && (
        <>
          <Typography>
            <Explained help="No simulation of the other side ran the same case (scenario × persona × agent) as the same run">
              Unpaired
            </Explained>
            : {plural(unpaired.length, 'simulation')}
          </Typography>
          {(['baseline', 'candidate'] as const).map((side) => {
            const ids = unpaired.filter((u) => u.side === side);
            if (ids.length === 0) return null;
            const cases = [
              ...new Set(ids.map((u) => caseOf(comparison, u.scenario_id, u.persona_id))),
            ];
            return (
              <Box key={side} sx={{ ml: 2 }}>
                <Typography variant="body2">
                  {side}: {cases.join(', ')}
                </Typography>
                <SimulationLinks ids={ids.map((u) => u.simulation_id)} />
              </Box>
            );
          })}
        </>
      )}
      {errored.simulation_ids.length > 0 && (
        <>
          <Typography sx={{ mt: 1 }}>
            <Explained help="Failed, cancelled or skipped simulations: they have no outcome, so their pairs are in no statistic (an outage is never a regression)">
              No outcome
            </Explained>
            : baseline {errored.baseline} · candidate {errored.candidate}
          </Typography>
          <Box sx={{ ml: 2 }}>
            <SimulationLinks ids={errored.simulation_ids} />
          </Box>
        </>
      )}
    </Box>
  );
}
