import { Button, Table, TableBody, TableCell, TableHead, TableRow, TextField } from '@mui/material';
import { useEffect, useState } from 'react';
import type { OutputOf } from '../client';
import { useScorecards } from '../stores/resources';
import { client, wsInput } from '../stores/session';
import { fieldError, useAction } from '../ui/common';
import { EditorDialog } from '../ui/EditorDialog';
import { JsonToggleField } from '../ui/JsonToggleField';
import { MetricForm } from '../ui/MetricForm';
import { withStoredIds } from '../ui/metricIds';
import { ResourcePage, useEditor } from '../ui/ResourcePage';
import { EmptyState } from '../ui/EmptyState';
import { RowActions } from '../ui/RowActions';
import { ScorecardReview } from '../ui/review/ScorecardReview';
import { rowsOf, rowsProblem } from '../ui/rowValues';

type Scorecard = OutputOf<'scorecards.list'>['scorecards'][number];
type MetricType = Scorecard['metrics'][number]['type'];

// Every metric type with its config, keyed by the catalogue's own list: a new type fails to
// compile here until it is described.
const METRIC_CONFIGS: Record<MetricType, string> = {
  llm_judge: '{criterion, requirements?: [1 to 20 statements]}',
  tool_called: '{tool, arguments?}',
  tool_not_called: '{tool}',
  contains: '{text, caseSensitive?}',
  not_contains: '{text, caseSensitive?}',
  regex: '{pattern, flags?}',
  max_turns: '{max}',
  max_latency_ms: '{max}',
  ended_by: '{who: "agent" | "caller"}',
  max_response_latency_ms: '{max, on?: "p90" | "max"}',
  max_time_to_first_audio_ms: '{max}',
  max_talk_over_ms: '{max}',
  max_barge_in_stop_ms: '{max, on?: "p90" | "max"}',
  max_false_yields: '{max}',
  reprompts_after_silence: '{withinMs?}',
  max_asr_wer: '{max} (0.1 = 10%)',
};
const AUDIO_ONLY: MetricType[] = [
  'max_response_latency_ms',
  'max_time_to_first_audio_ms',
  'max_talk_over_ms',
  'max_barge_in_stop_ms',
  'max_false_yields',
  'reprompts_after_silence',
  'max_asr_wer',
];
const describe = (types: MetricType[]) => types.map((t) => `${t} ${METRIC_CONFIGS[t]}`).join(', ');
const TYPES = Object.keys(METRIC_CONFIGS) as MetricType[];
const METRIC_HELP = `Types and their config: ${describe(
  TYPES.filter((t) => !AUDIO_ONLY.includes(t)),
)}. Audio simulations only: ${describe(AUDIO_ONLY)}.`;

const EXAMPLE = [
  {
    name: 'Looks the order up',
    category: 'task completion',
    type: 'tool_called',
    config: { tool: 'order_status' },
    weight: 1,
    critical: false,
  },
];

function ScorecardEditor({
  scorecard,
  onClose,
}: {
  scorecard: Scorecard | null;
  onClose: (saved: boolean) => void;
}) {
  const [name, setName] = useState(scorecard?.name ?? '');
  const [threshold, setThreshold] = useState(String(scorecard?.passThreshold ?? 70));
  // Edited with the form or as JSON: each metric as the tester wrote it, without the id the
  // engine gave it (saved with it again: withStoredIds). What is saved is what is on screen: Save waits while the JSON does not parse.
  const [metrics, setMetrics] = useState<unknown>(
    scorecard?.metrics.map(({ id: _id, ...m }) => m) ?? EXAMPLE,
  );
  const save = useAction(async () => {
    // The metrics are JSON the tester wrote: the engine validates each and names any bad one.
    const body = {
      name: String(name),
      passThreshold: Number(threshold),
      metrics: Array.isArray(metrics)
        ? withStoredIds(metrics, scorecard?.metrics ?? [])
        : (metrics as unknown[]),
    };
    if (scorecard)
      await client().invoke('scorecards.update', wsInput({ scorecard_id: scorecard.id, ...body }));
    else await client().invoke('scorecards.create', wsInput(body));
    onClose(true);
  });
  return (
    <EditorDialog
      title={scorecard ? 'Edit scorecard' : 'New scorecard'}
      saveLabel="Save scorecard"
      save={save}
      onClose={() => onClose(false)}
      maxWidth="md"
    >
      <TextField
        label="Name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={Boolean(fieldError(save.error, 'name'))}
        helperText={fieldError(save.error, 'name')}
      />
      <TextField
        label="Pass threshold (0 to 100)"
        type="number"
        value={threshold}
        onChange={(e) => setThreshold(e.target.value)}
        error={Boolean(fieldError(save.error, 'passThreshold'))}
        helperText={fieldError(save.error, 'passThreshold')}
      />
      <JsonToggleField
        label="Scorecard metrics"
        jsonLabel='Metrics: [{"name", "type", "config", "weight"}]'
        helperText={METRIC_HELP}
        value={metrics}
        onChange={setMetrics}
        formProblem={rowsProblem}
        form={<MetricForm metrics={rowsOf(metrics) ?? []} onChange={setMetrics} />}
        error={fieldError(save.error, 'metrics')}
        minRows={8}
      />
    </EditorDialog>
  );
}

export function Scorecards() {
  const { items, error, load } = useScorecards();
  const reload = () => load({ limit: 100 });
  const editor = useEditor<Scorecard>(reload);
  // The scorecard whose judge calibration (and review) shows under the list, as last listed.
  const [calibratingId, setCalibratingId] = useState<string | null>(null);
  const calibrating = items.find((s) => s.id === calibratingId);
  useEffect(() => void load({ limit: 100 }), [load]);
  const remove = useAction(async (id: string) => {
    await client().invoke('scorecards.delete', wsInput({ scorecard_id: id }));
    await reload();
  });
  return (
    <ResourcePage
      title="Scorecards"
      newLabel="New scorecard"
      onNew={() => editor.open(null)}
      error={error ?? remove.error}
    >
      <Table size="small" aria-label="Scorecards">
        <TableHead>
          <TableRow>
            <TableCell>Name</TableCell>
            <TableCell>Metrics</TableCell>
            <TableCell>Pass threshold</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((s) => (
            <TableRow key={s.id} hover>
              <TableCell>{s.name}</TableCell>
              <TableCell>{s.metrics.map((m) => m.name).join(', ')}</TableCell>
              <TableCell>{s.passThreshold}</TableCell>
              <RowActions
                onEdit={() => editor.open(s)}
                remove={{
                  kind: 'scorecard',
                  name: s.name,
                  consequence: 'Its metrics are gone for good; past simulations keep their scores.',
                  onConfirm: () => remove.run(s.id),
                  check: () =>
                    client().invoke(
                      'scorecards.delete',
                      wsInput({ scorecard_id: s.id, dryRun: true }),
                    ),
                }}
              >
                <Button size="small" onClick={() => setCalibratingId(s.id)}>
                  Calibration
                </Button>
              </RowActions>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {items.length === 0 && !error && (
        <EmptyState
          text="No scorecards yet. A scorecard lists what a call must get right, and how each point is measured."
          actionLabel="Create a scorecard"
          onAction={() => editor.open(null)}
        />
      )}
      {calibrating && <ScorecardReview key={calibrating.id} scorecard={calibrating} />}
      {editor.editing !== undefined && (
        <ScorecardEditor scorecard={editor.editing} onClose={editor.close} />
      )}
    </ResourcePage>
  );
}
