import {
  Box,
  Button,
  Dialog,
  DialogContent,
  DialogTitle,
  LinearProgress,
  List,
  ListItemButton,
  ListItemText,
  Stack,
  Typography,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { useReview } from '../../stores/review';
import { ErrorNote } from '../common';
import { ReviewMetricPanel, VERDICTS } from './ReviewMetricPanel';
import { NumberedTurns, type Evidence } from '../NumberedTurns';
import type { ReviewScope } from './reviewData';
import type { Verdict } from './reviewQueue';

/*
 * The review flow (#37): the queue, the transcript beside the metric, and one key per label:
 * j/k next/previous, p/f/n pass/fail/not applicable (the next item shows at once). Keys typed in
 * the note (or any field) stay there.
 */

const KEY_VERDICT: Record<string, Verdict> = Object.fromEntries(
  VERDICTS.map((v) => [v.key, v.verdict]),
);

const VERDICT_MARK: Record<Verdict, string> = { pass: 'pass', fail: 'fail', not_applicable: 'n/a' };

const typingIn = (target: EventTarget | null): boolean =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

function QueueList() {
  const { items, index, labels, saving, failures, goTo } = useReview();
  const mark = (key: string) => {
    const label = labels[key];
    if (failures[key]) return '⚠ not saved · ';
    if (saving[key]) return '… ';
    return label ? `${VERDICT_MARK[label.verdict]} · ` : '';
  };
  return (
    <List
      dense
      aria-label="Review queue"
      sx={{ width: 260, flexShrink: 0, overflowY: 'auto', borderRight: 1, borderColor: 'divider' }}
    >
      {items.map((item, i) => (
        <ListItemButton
          key={item.key}
          selected={i === index}
          onClick={() => goTo(i)}
          aria-current={i === index ? 'true' : undefined}
        >
          <ListItemText
            primary={`${i + 1}. ${mark(item.key)}${item.result.name}`}
            secondary={item.title}
          />
        </ListItemButton>
      ))}
    </List>
  );
}

function Progress() {
  const { items, index, labels, savedNow } = useReview();
  const labelled = items.filter((i) => labels[i.key]).length;
  return (
    <Typography variant="body2" aria-label="Review progress" sx={{ ml: 2 }}>
      Item {items.length ? index + 1 : 0} of {items.length} · {labelled} labelled ({savedNow} this
      session) · j/k next/previous · p/f/n pass/fail/not applicable
    </Typography>
  );
}

/** The current item: its transcript beside its metric. */
function CurrentItem() {
  const { items, index, labels, saving, failures, calibration, label } = useReview();
  const item = items[index];
  const [notes, setNotes] = useState<Record<string, string>>({});
  const [chosen, setChosen] = useState<{ key: string; evidence: Evidence } | null>(null);
  if (!item) return null;
  const note = notes[item.key] ?? labels[item.key]?.note ?? '';
  const send = (verdict: Verdict) => void label(verdict, note);
  // The evidence shown: the one chosen on this item, else the judge's first.
  const active = chosen?.key === item.key ? chosen.evidence : (item.result.evidence?.[0] ?? null);
  return (
    <Stack direction="row" spacing={2} sx={{ flex: 1, minHeight: 0, minWidth: 0, pl: 2 }}>
      {/* Anew per item: the transcript starts at its top, or at the evidence. */}
      <Box key={item.key} sx={{ flex: 1, minWidth: 0, overflowY: 'auto', py: 2 }}>
        <NumberedTurns
          turns={item.turns}
          cited={new Set((item.result.evidence ?? []).map((e) => e.turn))}
          active={active}
        />
      </Box>
      <Box sx={{ width: 440, flexShrink: 0, display: 'flex', minHeight: 0 }}>
        <ReviewMetricPanel
          item={item}
          labelState={{
            label: labels[item.key],
            saving: saving[item.key],
            failure: failures[item.key],
          }}
          calibration={calibration.find((m) => m.metric_id === item.result.metric_id)}
          note={note}
          onNote={(text) => setNotes((n) => ({ ...n, [item.key]: text }))}
          onLabel={send}
          onEvidence={(evidence) => setChosen({ key: item.key, evidence })}
        />
      </Box>
      {/* The keys read the note of the item they label: kept here with the item. */}
      <KeyBindings note={note} />
    </Stack>
  );
}

/** Keys on the whole dialog, outside its fields. */
function KeyBindings({ note }: { note: string }) {
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
      const { next, previous, label } = useReview.getState();
      const verdict = KEY_VERDICT[e.key];
      if (e.key === 'j') next();
      else if (e.key === 'k') previous();
      else if (verdict) void label(verdict, note);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [note]);
  return null;
}

/** The review screen over a scorecard's judged results (or one agent's scored calls). */
export function ReviewDialog({
  scope,
  focus,
  onClose,
}: {
  scope: ReviewScope;
  /** A label key (target and metric) to start on, e.g. a disagreement of the calibration. */
  focus?: string;
  onClose: () => void;
}) {
  const { open, close, loading, error, scorecard, items } = useReview();
  const { workspaceId, scorecardId, agentId } = scope;
  // Opened again only when what is reviewed changes, not on every render of the caller.
  useEffect(() => {
    void open({ workspaceId, scorecardId, ...(agentId ? { agentId } : {}) }, focus);
    return close;
  }, [open, close, workspaceId, scorecardId, agentId, focus]);
  return (
    <Dialog open fullScreen onClose={onClose} aria-labelledby="review-title">
      <DialogTitle id="review-title" sx={{ display: 'flex', alignItems: 'center' }}>
        Review: {scorecard?.name ?? '…'}
        <Progress />
        <Box sx={{ flex: 1 }} />
        <Button onClick={onClose}>Close</Button>
      </DialogTitle>
      {loading && <LinearProgress />}
      <DialogContent dividers sx={{ display: 'flex', p: 0, minHeight: 0, overflow: 'hidden' }}>
        <ErrorNote error={error} />
        {!loading && !error && items.length === 0 && (
          <Typography sx={{ p: 2 }}>
            Nothing to review yet: no llm_judge result of this scorecard on a simulation or a scored
            call.
          </Typography>
        )}
        {items.length > 0 && (
          <>
            <QueueList />
            <CurrentItem />
          </>
        )}
      </DialogContent>
    </Dialog>
  );
}
