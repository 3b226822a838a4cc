import type { InputOf, OutputOf } from '../client';
import {
  Box,
  Button,
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  type TextFieldProps,
  Typography,
} from '@mui/material';
import { useEffect, useState, type ReactNode } from 'react';
import {
  ALERT_CONDITION_TYPES,
  ALERT_OPERATORS,
  ALERT_SEVERITIES,
} from '../generated/catalogue-enums';
import { useAlerts } from '../stores/resources';
import { client } from '../stores/session';
import { useEngineRefresh } from '../stores/events';
import { JsonField, StatusChip, fieldError, fmtDate, useAction, useLoad } from '../ui/common';
import { EditorDialog } from '../ui/EditorDialog';
import { deliveryWords } from '../ui/deliveryWords';
import { ResourcePage } from '../ui/ResourcePage';
import { EmptyState } from '../ui/EmptyState';
import { RowActions } from '../ui/RowActions';
import {
  choiceItems,
  firstMetricOf,
  hasThreshold,
  rangeOf,
  targetKeyOf,
  targetLabelOf,
  useConditionChoices,
} from '../ui/AlertConditionPickers';
import {
  PRODUCTION_FIELD_LABELS,
  ProductionConditionFields,
  ProductionConditionText,
  isProductionType,
  productionConditionOf,
  productionStartValues,
} from '../ui/ProductionAlertFields';

/** The new-alert form, as typed: the condition and notifications are built from it on save. */
interface AlertForm {
  name: string;
  severity: string;
  type: string;
  target: string;
  metric: string;
  operator: string;
  threshold: string;
  timeWindow: string;
  email: string;
  /** Production conditions: one metric of the monitoring scorecard ('' all), alpha, minimum. */
  metricId: string;
  alpha: string;
  minSamples: string;
}

type AlertField = (
  k: keyof AlertForm,
  label: string,
  options?: TextFieldProps & { hint?: string },
) => ReactNode;

/**
 * What the alert watches: its condition's type, target, and (but a config change) its bound; the
 * target and the metric are picked from what exists, each metric with its threshold's range.
 */
function ConditionFields({
  type,
  metric,
  target: targetId,
  onType,
  field: f,
}: {
  type: string;
  metric: string;
  target: string;
  onType: (type: string) => void;
  field: AlertField;
}) {
  const choices = useConditionChoices(type);
  const target = targetLabelOf(type);
  return (
    <>
      {f('type', 'Condition', {
        onChange: (e) => onType(e.target.value),
        select: true,
        children: ALERT_CONDITION_TYPES.map((s) => (
          <MenuItem key={s} value={s}>
            {s.replace(/_/g, ' ')}
          </MenuItem>
        )),
      })}
      {isProductionType(type) && (
        <ProductionConditionFields type={type} agentId={targetId} field={f} />
      )}
      {!isProductionType(type) &&
        f('target', target, {
          select: true,
          children: choiceItems(choices.targets, `No ${target.toLowerCase()} yet`),
        })}
      {hasThreshold(type) && (
        <Stack direction="row" spacing={1}>
          {f('metric', 'Metric', {
            select: true,
            sx: { minWidth: 220 },
            children: choiceItems(choices.metrics, 'No metric'),
          })}
          {f('operator', 'Operator', {
            select: true,
            children: ALERT_OPERATORS.map((s) => (
              <MenuItem key={s} value={s}>
                {s.replace(/_/g, ' ')}
              </MenuItem>
            )),
          })}
          {f('threshold', 'Threshold', { type: 'number', hint: rangeOf(metric) })}
          {f('timeWindow', 'Window', { hint: '15m, 2h, 1d' })}
        </Stack>
      )}
    </>
  );
}

/** The condition sent, built from the form's fields for its type. */
function conditionOf(form: AlertForm): Record<string, unknown> {
  const condition: Record<string, unknown> = {
    type: form.type,
    [targetKeyOf(form.type)]: form.target || undefined,
    timeWindow: form.timeWindow || undefined,
  };
  if (isProductionType(form.type)) Object.assign(condition, productionConditionOf(form.type, form));
  if (hasThreshold(form.type))
    Object.assign(condition, {
      metric: form.metric,
      operator: form.operator,
      threshold: Number(form.threshold),
    });
  return condition;
}

/** The form once another condition type is picked: a target of that type, its metric and bounds. */
const withType = (form: AlertForm, type: string): AlertForm => ({
  ...form,
  type,
  target: '',
  metric: firstMetricOf(type),
  ...productionStartValues(type),
});

function AlertEditor({ onClose }: { onClose: (saved: boolean) => void }) {
  const [form, setForm] = useState<AlertForm>({
    name: '',
    severity: 'medium',
    type: 'tool_performance',
    target: '',
    metric: 'success_rate',
    operator: 'less_than',
    threshold: '95',
    timeWindow: '1h',
    email: '',
    metricId: '',
    alpha: '',
    minSamples: '',
  });
  const [extra, setExtra] = useState<unknown>({ os: true });
  const save = useAction(async () => {
    const condition = conditionOf(form);
    const notifications = {
      ...(extra as Record<string, unknown>),
      ...(form.email ? { email: form.email.split(',').map((e) => e.trim()) } : {}),
    };
    await client().invoke('alerts.create', {
      name: form.name,
      severity: form.severity as InputOf<'alerts.create'>['severity'],
      // Built from the form's fields; the engine validates it and names any bad one.
      condition: condition as InputOf<'alerts.create'>['condition'],
      notifications,
    });
    onClose(true);
  });
  const f = (
    k: keyof AlertForm,
    label: string,
    { hint, ...extra2 }: TextFieldProps & { hint?: string } = {},
  ) => {
    // The target is sent as the condition's toolId, scenarioId or agentId: its refusal is said here.
    const path = k === 'target' ? targetKeyOf(form.type) : k;
    const problem = fieldError(save.error, path) ?? fieldError(save.error, `condition.${path}`);
    return (
      <TextField
        label={label}
        value={form[k]}
        onChange={(e) => setForm({ ...form, [k]: e.target.value })}
        error={Boolean(problem)}
        helperText={problem ?? hint}
        {...extra2}
      />
    );
  };
  return (
    <EditorDialog
      title="New alert"
      saveLabel="Save alert"
      save={save}
      onClose={() => onClose(false)}
      fields={isProductionType(form.type) ? PRODUCTION_FIELD_LABELS : undefined}
    >
      {f('name', 'Name')}
      {f('severity', 'Severity', {
        select: true,
        children: ALERT_SEVERITIES.map((s) => (
          <MenuItem key={s} value={s}>
            {s}
          </MenuItem>
        )),
      })}
      <ConditionFields
        type={form.type}
        metric={form.metric}
        target={form.target}
        onType={(type) => setForm(withType(form, type))}
        field={f}
      />
      {f('email', 'E-mail to (comma-separated)')}
      <JsonField
        label='Other channels: {"os": true, "slack": {"channel", "webhookUrl"}, "webhook": {"url", "secret"}}'
        value={extra}
        onChange={setExtra}
        error={fieldError(save.error, 'notifications')}
      />
    </EditorDialog>
  );
}

function AlertEvents({ id }: { id: string }) {
  const events = useLoad(() => client().invoke('alerts.events', { alert_id: id }), [id]);
  return (
    <Box sx={{ pl: 4 }} aria-label="Alert events">
      {(events.data?.events ?? []).length === 0 && (
        <Typography variant="body2">No events yet.</Typography>
      )}
      {(events.data?.events ?? []).map((e) => (
        <Typography key={e.id} variant="body2">
          {fmtDate(e.at)} · {e.state} · value {e.value} ·{' '}
          {(e.deliveries ?? []).map((d) => deliveryWords(d, 'sent')).join(', ')}
        </Typography>
      ))}
    </Box>
  );
}

export function Alerts({ focus }: { focus?: string }) {
  const { items, error, load } = useAlerts();
  const [creating, setCreating] = useState(false);
  const [open, setOpen] = useState<string | null>(focus ?? null);
  const [testResult, setTestResult] = useState<OutputOf<'alerts.test'> | null>(null);
  useEffect(() => void load(), [load]);
  // A new focus (a notification clicked) opens that alert: state adjusted while rendering.
  const [focused, setFocused] = useState(focus);
  if (focus !== focused) {
    setFocused(focus);
    setOpen(focus ?? null);
  }
  useEngineRefresh(
    (e) => e.type.startsWith('alert.'),
    () => void load(),
  );
  const test = useAction(async (id: string) =>
    setTestResult(await client().invoke('alerts.test', { alert_id: id })),
  );
  const remove = useAction(async (id: string) => {
    await client().invoke('alerts.delete', { alert_id: id });
    await load();
  });
  return (
    <ResourcePage
      title="Alerts"
      newLabel="New alert"
      onNew={() => setCreating(true)}
      error={error ?? test.error ?? remove.error}
    >
      {testResult && (
        <Box role="status" aria-label="Test notification result" sx={{ mb: 2 }}>
          <Typography>Test notification sent:</Typography>
          {testResult.results.map((r) => (
            <Typography
              key={r.channel}
              variant="body2"
              color={
                !r.delivered ? 'error' : r.where === 'console' ? 'text.secondary' : 'success.main'
              }
            >
              {deliveryWords(r)}
            </Typography>
          ))}
        </Box>
      )}
      <Table size="small" aria-label="Alerts">
        <TableHead>
          <TableRow>
            <TableCell>Name</TableCell>
            <TableCell>Condition</TableCell>
            <TableCell>Severity</TableCell>
            <TableCell>State</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {items.flatMap((a) => [
            <TableRow key={a.id} hover selected={open === a.id}>
              <TableCell>{a.name}</TableCell>
              <TableCell>
                {isProductionType(a.condition.type) ? (
                  <ProductionConditionText condition={a.condition} />
                ) : (
                  <>
                    {a.condition.type.replace(/_/g, ' ')} {a.condition.metric ?? ''}{' '}
                    {a.condition.operator?.replace(/_/g, ' ') ?? ''} {a.condition.threshold ?? ''}
                  </>
                )}
              </TableCell>
              <TableCell>{a.severity}</TableCell>
              <TableCell>
                <StatusChip value={a.state} />
              </TableCell>
              <RowActions
                remove={{
                  kind: 'alert',
                  name: a.name,
                  consequence: 'It stops watching, and its history of events goes with it.',
                  onConfirm: () => remove.run(a.id),
                }}
              >
                <Button size="small" onClick={() => setOpen(open === a.id ? null : a.id)}>
                  Events
                </Button>
                <Button size="small" onClick={() => void test.run(a.id)}>
                  Send test
                </Button>
              </RowActions>
            </TableRow>,
            open === a.id ? (
              <TableRow key={`${a.id}-events`}>
                <TableCell colSpan={5}>
                  <AlertEvents id={a.id} />
                </TableCell>
              </TableRow>
            ) : null,
          ])}
        </TableBody>
      </Table>
      {items.length === 0 && !error && (
        <EmptyState
          text="No alerts yet. An alert watches a figure (a tool's error rate, an agent's score) and tells you when it crosses a line."
          actionLabel="Create your first alert"
          onAction={() => setCreating(true)}
        />
      )}
      {creating && (
        <AlertEditor
          onClose={(saved) => {
            setCreating(false);
            if (saved) void load();
          }}
        />
      )}
    </ResourcePage>
  );
}
