import { Box, Typography } from '@mui/material';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { OutputOf } from '../client';
import { client, wsInput } from '../stores/session';
import { ErrorNote, PassChip, StatusChip, fmtNum } from './common';
import { EmptyState } from './EmptyState';
import { modeWords } from './words';

type SimulationRow = OutputOf<'simulations.list'>['simulations'][number];

const PAGE = 100;
const ROW = 40;
const DELETED = '(deleted)';
const fmtTime = (iso: string) => new Date(iso).toLocaleTimeString();
const COLUMNS = '1.6fr 0.9fr 0.9fr 0.7fr 0.7fr 0.8fr 0.6fr 0.9fr';

/** The simulations' rows by index, fetched a page at a time (and again, in place, on request). */
function useSimulationPages(executionId: string | undefined) {
  const [total, setTotal] = useState<number | null>(null);
  const [rows, setRows] = useState<Map<number, SimulationRow>>(new Map());
  const [error, setError] = useState<unknown>(null);
  // Pages being fetched; `true` when asked again meanwhile (the answer under way may be older).
  const pending = useRef(new Map<number, boolean>());
  const fetchPage = useCallback(
    async (page: number, refresh = false): Promise<void> => {
      if (pending.current.has(page)) {
        if (refresh) pending.current.set(page, true);
        return;
      }
      // Fetched again while a newer answer was asked for during the fetch.
      for (let again = true; again; again = pending.current.get(page) === true) {
        pending.current.set(page, false);
        try {
          const data = await client().invoke(
            'simulations.list',
            wsInput({
              limit: PAGE,
              offset: page * PAGE,
              ...(executionId ? { execution_id: executionId } : {}),
            }),
          );
          setTotal(data.pagination.total);
          setRows((before) => {
            const next = new Map(before);
            data.simulations.forEach((s, i) => next.set(page * PAGE + i, s));
            return next;
          });
        } catch (err) {
          setError(err);
        }
      }
      pending.current.delete(page);
    },
    [executionId],
  );
  // Another execution: start afresh (its rows dropped while rendering; the list fetches page 0).
  const [shownFor, setShownFor] = useState(executionId);
  if (executionId !== shownFor) {
    setShownFor(executionId);
    setRows(new Map());
  }
  return { total, rows, error, fetchPage };
}

/** One simulation's cells: what it ran (text or audio), its score and result, its status. */
function SimulationCells({ s }: { s: SimulationRow }) {
  return (
    <>
      <Typography role="gridcell" variant="body2" noWrap title={`simulation ${s.id}`}>
        {s.scenario_name ?? DELETED} · {fmtTime(s.created_at)}
      </Typography>
      <Typography role="gridcell" variant="body2" noWrap>
        {s.persona_name ?? (s.persona_id ? DELETED : '—')}
      </Typography>
      <Typography role="gridcell" variant="body2" noWrap>
        {s.agent_name ?? (s.agent_id ? DELETED : '—')}
      </Typography>
      <Typography role="gridcell" variant="body2" noWrap title={`channel ${s.channel}`}>
        {modeWords(s.mode)} · {s.channel}
      </Typography>
      <div role="gridcell">{fmtNum(s.score)}</div>
      <div role="gridcell">
        {s.status === 'completed' ? (
          <PassChip passed={s.passed} />
        ) : s.error ? (
          <Typography variant="body2" color="error" noWrap title={s.error}>
            {s.error}
          </Typography>
        ) : null}
      </div>
      <div role="gridcell">{s.turn_count}</div>
      <div role="gridcell">
        <StatusChip value={s.status} />
      </div>
    </>
  );
}

const HEADER = (
  <Box
    role="row"
    sx={{
      display: 'grid',
      gridTemplateColumns: COLUMNS,
      px: 1,
      py: 0.5,
      fontWeight: 600,
      borderBottom: 1,
      borderColor: 'divider',
    }}
  >
    {['Scenario', 'Persona', 'Agent', 'Mode', 'Score', 'Result', 'Turns', 'Status'].map((h) => (
      <div key={h} role="columnheader">
        {h}
      </div>
    ))}
  </Box>
);

/**
 * Every simulation (or one execution's), however many: rows are rendered only where the list is
 * scrolled, and fetched a page at a time as they come into view.
 */
export function SimulationList({
  executionId,
  onOpen,
  refreshKey = 0,
}: {
  executionId?: string;
  onOpen: (id: string) => void;
  refreshKey?: number;
}) {
  const { total, rows, error, fetchPage } = useSimulationPages(executionId);
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => void fetchPage(0), [fetchPage]);

  const virtualizer = useVirtualizer({
    count: total ?? 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const visiblePages = useRef<number[]>([0]);
  useEffect(() => {
    visiblePages.current = [...new Set(items.map((i) => Math.floor(i.index / PAGE)))];
    const missing = new Set(
      items.filter((i) => !rows.has(i.index)).map((i) => Math.floor(i.index / PAGE)),
    );
    for (const p of missing) void fetchPage(p);
  }, [items, rows, fetchPage]);
  // Progress elsewhere: the rows in view are read again, in place (no flicker, no jump).
  useEffect(() => {
    if (refreshKey)
      for (const p of visiblePages.current.length ? visiblePages.current : [0])
        void fetchPage(p, true);
  }, [refreshKey, fetchPage]);

  const open = (s: SimulationRow | undefined) => s && onOpen(s.id);
  return (
    <Box>
      <ErrorNote error={error} />
      {/* One grid holds the header and the rows (axe: a row needs a grid, a grid its rows). */}
      <Box role="grid" aria-label="Simulations" aria-rowcount={(total ?? 0) + 1}>
        <div role="rowgroup">{HEADER}</div>
        <Box
          ref={scroller}
          role="rowgroup"
          data-testid="simulation-list"
          data-total={total ?? ''}
          sx={{ height: 'calc(100vh - 260px)', minHeight: 300, overflow: 'auto' }}
        >
          <Box sx={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((item) => {
              const s = rows.get(item.index);
              return (
                <Box
                  key={item.key}
                  role="row"
                  aria-rowindex={item.index + 2}
                  tabIndex={0}
                  onClick={() => open(s)}
                  onKeyDown={(e) => e.key === 'Enter' && open(s)}
                  sx={{
                    position: 'absolute',
                    top: 0,
                    left: 0,
                    right: 0,
                    height: ROW,
                    transform: `translateY(${item.start}px)`,
                    display: 'grid',
                    gridTemplateColumns: COLUMNS,
                    alignItems: 'center',
                    px: 1,
                    cursor: 'pointer',
                    borderBottom: 1,
                    borderColor: 'divider',
                    '&:hover, &:focus': { bgcolor: 'action.hover' },
                  }}
                >
                  {s ? <SimulationCells s={s} /> : <div role="gridcell">Loading…</div>}
                </Box>
              );
            })}
          </Box>
        </Box>
      </Box>
      {total === 0 && (
        <EmptyState text="No simulations yet. Each execution of a scenario adds its simulated calls here." />
      )}
    </Box>
  );
}
