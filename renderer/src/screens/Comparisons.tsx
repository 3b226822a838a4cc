import {
  Box,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TablePagination,
  TableRow,
  Typography,
} from '@mui/material';
import { useState, type ReactNode } from 'react';
import { client, useSession, wsInput } from '../stores/session';
import { VerdictChip } from '../ui/ComparisonBits';
import { ConsistencySection, LeftOutSection } from '../ui/ComparisonExtras';
import { ConditionsWarning, OverallVerdict, SidesHeader } from '../ui/ComparisonHeader';
import { PairsDialog } from '../ui/ComparisonPairs';
import { CompareDialogButton } from '../ui/ComparisonPick';
import { CaseTable, MetricTable } from '../ui/ComparisonTables';
import { VoiceSection } from '../ui/ComparisonVoice';
import { percent, type CaseRow, type Comparison } from '../ui/comparisonWords';
import { EmptyState } from '../ui/EmptyState';
import { ErrorNote, Page, fmtDate, useLoad } from '../ui/common';
import { plural } from '../ui/words';

const PAGE = 25;

/** A side in a few words: how many executions and simulations, which agent versions. */
const sideWords = (side: Comparison['baseline']) =>
  `${plural(side.execution_ids.length, 'execution')}, ${plural(side.simulations, 'simulation')}${
    side.agent_versions.length ? ` (v${side.agent_versions.join(', v')})` : ''
  }`;

/** The scenarios a comparison covers, by their names now. */
const scenariosOf = (c: Comparison) =>
  [...new Set(c.rows.map((r) => r.scenario_name ?? '(deleted scenario)'))].join(', ') || '—';

/** Stored comparisons, newest first. */
export function Comparisons() {
  const navigate = useSession((s) => s.navigate);
  const [page, setPage] = useState(0);
  const list = useLoad(
    () => client().invoke('comparisons.list', wsInput({ limit: PAGE, offset: page * PAGE })),
    [page],
  );
  const items = list.data?.comparisons ?? [];
  const total = list.data?.pagination.total ?? 0;
  return (
    <Page title="Comparisons" actions={<CompareDialogButton />}>
      <ErrorNote error={list.error} />
      <Table size="small" aria-label="Comparisons">
        <TableHead>
          <TableRow>
            <TableCell>Verdict</TableCell>
            <TableCell>Scenarios</TableCell>
            <TableCell>Baseline</TableCell>
            <TableCell>Candidate</TableCell>
            <TableCell>Pass rate</TableCell>
            <TableCell>Created</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((c) => (
            <TableRow
              key={c.id}
              hover
              tabIndex={0}
              sx={{ cursor: 'pointer' }}
              onClick={() => navigate(`comparisons/${c.id}`)}
              onKeyDown={(k) => k.key === 'Enter' && navigate(`comparisons/${c.id}`)}
            >
              <TableCell>
                <VerdictChip verdict={c.overall.verdict} />
              </TableCell>
              <TableCell>{scenariosOf(c)}</TableCell>
              <TableCell>
                {sideWords(c.baseline)}
                {c.rescored_baseline ? ' · rescored' : ''}
              </TableCell>
              <TableCell>{sideWords(c.candidate)}</TableCell>
              <TableCell>
                {percent(c.overall.baseline.pass_rate)} → {percent(c.overall.candidate.pass_rate)}
              </TableCell>
              <TableCell>{fmtDate(c.created_at)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {!list.loading && total === 0 && !list.error && (
        <EmptyState
          text="No comparisons yet. A comparison tells whether a candidate run is better or worse than a baseline, beyond chance: open an execution and compare it with its previous run, or pick executions here."
          actionLabel="Go to Executions"
          onAction={() => navigate('executions')}
        />
      )}
      {total > PAGE && (
        <TablePagination
          component="div"
          count={total}
          page={page}
          rowsPerPage={PAGE}
          rowsPerPageOptions={[PAGE]}
          onPageChange={(_e, p) => setPage(p)}
        />
      )}
    </Page>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box component="section" aria-label={title} sx={{ mb: 3 }}>
      <Typography variant="h6" component="h2">
        {title}
      </Typography>
      {children}
    </Box>
  );
}

/** One comparison: both sides, the warning, the verdict, then every table. */
export function ComparisonDetail({ id }: { id: string }) {
  const found = useLoad(
    () => client().invoke('comparisons.get', wsInput({ comparison_id: id })),
    [id],
  );
  const [open, setOpen] = useState<CaseRow | null>(null);
  const c = found.data?.comparison;
  return (
    <Page
      title={c ? `Comparison: ${scenariosOf(c)}` : 'Comparison'}
      actions={<CompareDialogButton />}
    >
      <ErrorNote error={found.error} />
      {c && (
        <>
          <SidesHeader comparison={c} />
          <ConditionsWarning comparison={c} />
          <OverallVerdict comparison={c} />
          <Section title="Cases">
            {c.rows.length ? (
              <CaseTable rows={c.rows} onOpen={setOpen} />
            ) : (
              <Typography>No case ran on both sides.</Typography>
            )}
          </Section>
          {c.metrics.length > 0 && (
            <Section title="Metrics">
              <MetricTable rows={c.metrics} />
            </Section>
          )}
          {c.voice && <VoiceSection voice={c.voice} />}
          <ConsistencySection comparison={c} />
          <LeftOutSection comparison={c} />
          {open && <PairsDialog comparison={c} row={open} onClose={() => setOpen(null)} />}
        </>
      )}
    </Page>
  );
}
