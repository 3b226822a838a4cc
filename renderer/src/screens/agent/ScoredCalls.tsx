import type { OperationOutput } from '../../../../src/operations/catalogue';
import {
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TablePagination,
  TableRow,
  TextField,
} from '@mui/material';
import { useState } from 'react';
import type { InputOf } from '../../client';
import { useEngineRefresh } from '../../stores/events';
import { client } from '../../stores/session';
import { ErrorNote, PassChip, fmtDate, fmtNum, useLoad } from '../../ui/common';
import { EmptyState } from '../../ui/EmptyState';

type AgentCall = OperationOutput<'agents.calls'>['calls'][number];
type Reason = NonNullable<AgentCall['evaluation']>['reason'];
type Monitoring = NonNullable<OperationOutput<'agents.get'>['monitoring']>;

const REASON_WORDS: Record<Reason, string> = {
  sampled: 'sampled',
  failed: 'failed at the provider',
  short: 'short call',
  backfill: 'backfill',
  on_demand: 'asked',
};

/** The filters as typed: empty means not filtered. */
export interface CallFilters {
  verdict: '' | 'passed' | 'failed';
  minScore: string;
  maxScore: string;
  metric: string;
  version: string;
  reason: '' | Reason;
}

export const NO_FILTERS: CallFilters = {
  verdict: '',
  minScore: '',
  maxScore: '',
  metric: '',
  version: '',
  reason: '',
};

/** The engine's filters of GET /v1/agents/{id}/calls, from what is typed. */
function queryOf(f: CallFilters): Partial<InputOf<'agents.calls'>> {
  return {
    ...(f.verdict ? { passed: f.verdict === 'passed' } : {}),
    ...(f.minScore.trim() ? { minScore: Number(f.minScore) } : {}),
    ...(f.maxScore.trim() ? { maxScore: Number(f.maxScore) } : {}),
    ...(f.metric ? { metric: f.metric } : {}),
    ...(f.version.trim() ? { version: Number(f.version) } : {}),
    ...(f.reason ? { reason: f.reason } : {}),
  };
}

/** The scorecard's metrics, for the "failing metric" filter. */
function useMetrics(monitoring: Monitoring | null) {
  const card = useLoad(
    async () =>
      monitoring
        ? client().invoke('scorecards.get', {
            workspace_id: monitoring.workspaceId,
            scorecard_id: monitoring.scorecardId,
          })
        : null,
    [monitoring],
  );
  return card.data?.scorecard.metrics ?? [];
}

function FilterBar({
  filters,
  set,
  monitoring,
}: {
  filters: CallFilters;
  set: (f: CallFilters) => void;
  monitoring: Monitoring | null;
}) {
  const metrics = useMetrics(monitoring);
  const field = (k: keyof CallFilters) => ({
    size: 'small' as const,
    value: filters[k],
    onChange: (e: { target: { value: string } }) => set({ ...filters, [k]: e.target.value }),
  });
  return (
    <Stack
      direction="row"
      spacing={1}
      sx={{ mb: 1, flexWrap: 'wrap', rowGap: 1 }}
      role="group"
      aria-label="Call filters"
    >
      <TextField select label="Verdict" {...field('verdict')} sx={{ minWidth: 120 }}>
        <MenuItem value="">any</MenuItem>
        <MenuItem value="passed">passed</MenuItem>
        <MenuItem value="failed">failed</MenuItem>
      </TextField>
      <TextField label="Min score" type="number" {...field('minScore')} sx={{ width: 110 }} />
      <TextField label="Max score" type="number" {...field('maxScore')} sx={{ width: 110 }} />
      <TextField select label="Failing metric" {...field('metric')} sx={{ minWidth: 170 }}>
        <MenuItem value="">any</MenuItem>
        {metrics.map((m) => (
          <MenuItem key={m.id} value={m.id}>
            {m.name}
          </MenuItem>
        ))}
      </TextField>
      <TextField label="Version" type="number" {...field('version')} sx={{ width: 100 }} />
      <TextField select label="Reason" {...field('reason')} sx={{ minWidth: 150 }}>
        <MenuItem value="">any</MenuItem>
        {(Object.keys(REASON_WORDS) as Reason[]).map((r) => (
          <MenuItem key={r} value={r}>
            {REASON_WORDS[r]}
          </MenuItem>
        ))}
      </TextField>
    </Stack>
  );
}

function CallRow({
  call,
  selected,
  onOpen,
}: {
  call: AgentCall;
  selected: boolean;
  onOpen: () => void;
}) {
  const e = call.evaluation;
  return (
    <TableRow
      hover
      selected={selected}
      tabIndex={0}
      onClick={onOpen}
      onKeyDown={(k) => k.key === 'Enter' && onOpen()}
      sx={{ cursor: 'pointer' }}
    >
      <TableCell>{fmtDate(call.startedAt)}</TableCell>
      <TableCell align="right">{fmtNum(e?.score)}</TableCell>
      <TableCell>{e ? <PassChip passed={e.passed} /> : 'not scored'}</TableCell>
      <TableCell>{e ? REASON_WORDS[e.reason] : '—'}</TableCell>
      <TableCell>{call.agentVersion === null ? '—' : `v${call.agentVersion}`}</TableCell>
    </TableRow>
  );
}

/**
 * The agent's imported calls with their scores, newest first, filtered by verdict, score, failing
 * metric and version (by the engine) and by why they were scored (on the page shown).
 */
export function ScoredCalls({
  agentId,
  monitoring,
  selected,
  onOpen,
}: {
  agentId: string;
  monitoring: Monitoring | null;
  selected: string | null;
  onOpen: (callId: string) => void;
}) {
  const [filters, setFilters] = useState<CallFilters>(NO_FILTERS);
  const [page, setPage] = useState({ index: 0, size: 25 });
  const query = queryOf(filters);
  const calls = useLoad(
    () =>
      client().invoke('agents.calls', {
        agent_id: agentId,
        limit: page.size,
        offset: page.index * page.size,
        ...query,
      }),
    [agentId, page, query],
  );
  // Scores land in the background: the page shown is read again as they do.
  useEngineRefresh(
    (e) => e.type === 'call.evaluated' && e.data.agentId === agentId,
    () => void calls.reload(),
    1000,
  );
  const shown = calls.data?.calls ?? [];
  const filter = (f: CallFilters) => {
    setFilters(f);
    setPage({ ...page, index: 0 });
  };
  return (
    <>
      <FilterBar filters={filters} set={filter} monitoring={monitoring} />
      <ErrorNote error={calls.error} />
      <Table size="small" aria-label="Scored calls">
        <TableHead>
          <TableRow>
            <TableCell>Started</TableCell>
            <TableCell align="right">Score</TableCell>
            <TableCell>Verdict</TableCell>
            <TableCell>Reason</TableCell>
            <TableCell>Version</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {shown.map((c) => (
            <CallRow key={c.id} call={c} selected={c.id === selected} onOpen={() => onOpen(c.id)} />
          ))}
        </TableBody>
      </Table>
      <TablePagination
        component="div"
        count={calls.data?.total ?? 0}
        page={page.index}
        rowsPerPage={page.size}
        rowsPerPageOptions={[10, 25, 50, 100]}
        onPageChange={(_e, index) => setPage({ ...page, index })}
        onRowsPerPageChange={(e) => setPage({ index: 0, size: Number(e.target.value) })}
      />
      {calls.data && shown.length === 0 && (
        <EmptyState text="No call here: the filters leave none, or none is imported yet." />
      )}
    </>
  );
}
