import {
  Alert,
  AlertTitle,
  Box,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Stack,
  TextField,
  Typography,
  type TextFieldProps,
} from '@mui/material';
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { ApiError } from '../client';
import { useReportParse } from './parseProblems';
import { SettingLink, labelOf, titleOf, type FieldLabels } from './fieldErrors';

/**
 * An engine error where it happened, in words, with the fields it names. `fields`: the fields the
 * form shows (engine path → label), whose problems are said at the field (fieldError) and not
 * again here; when every problem is at a field, there is no note at all.
 */
export function ErrorNote({ error, fields }: { error: unknown; fields?: FieldLabels }) {
  if (!error) return null;
  const e =
    error instanceof ApiError
      ? error
      : new ApiError('error', 0, error instanceof Error ? error.message : JSON.stringify(error));
  const rest = e.fields.filter((f) => labelOf(fields, f.path) === null);
  if (e.fields.length && !rest.length) return null;
  return (
    <Alert severity="error" role="alert" sx={{ my: 1 }}>
      <AlertTitle>{titleOf(e.message, e.fields)}</AlertTitle>
      {rest.map((f) => (
        <div key={f.path}>
          <b>{f.path || 'input'}</b>: {f.message}
          <SettingLink problem={f} />
        </div>
      ))}
      {!e.fields.length && <SettingLink problem={{ path: '', message: e.message }} />}
    </Alert>
  );
}

/** The engine's message for one field, for a TextField's helperText. */
export function fieldError(error: unknown, path: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return error.fields.find(
    (f) => f.path === path || f.path.startsWith(`${path}.`) || f.path.startsWith(`${path}[`),
  )?.message;
}

/** Runs an action, keeping its error to show and whether it is under way. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(
    async (...args: A): Promise<R | undefined> => {
      setBusy(true);
      setError(null);
      try {
        return await fn(...args);
      } catch (err) {
        setError(err);
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [fn],
  );
  return { run, error, busy, setError };
}

/** Loads once (and again when `deps` change); answers the data, the error and a reload. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  // The latest fn is kept in a ref so that only `deps` (compared by value) decide when to reload.
  const latest = useRef(fn);
  useEffect(() => {
    latest.current = fn;
  });
  const key = JSON.stringify(deps);
  const load = useCallback(async () => {
    try {
      setState({ data: await latest.current(), error: null, loading: false });
    } catch (error) {
      setState({ data: null, error, loading: false });
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load, key]);
  return { ...state, reload: load };
}

export function Page({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Box component="main" aria-label={title} sx={{ p: 3, flex: 1, minWidth: 0 }}>
      <Stack direction="row" sx={{ mb: 2, alignItems: 'center', justifyContent: 'space-between' }}>
        <Typography variant="h5" component="h1">
          {title}
        </Typography>
        <Stack direction="row" spacing={1}>
          {actions}
        </Stack>
      </Stack>
      {children}
    </Box>
  );
}

const COLORS: Record<string, 'success' | 'error' | 'warning' | 'info' | 'default'> = {
  completed: 'success',
  passed: 'success',
  active: 'success',
  good: 'success',
  resolved: 'success',
  ok: 'success',
  idle: 'default',
  failed: 'error',
  error: 'error',
  firing: 'error',
  needs_credentials: 'error',
  needs_improvement: 'warning',
  running: 'info',
  queued: 'default',
  cancelled: 'warning',
  // Stopped by its execution's cost cap before it ran.
  skipped: 'warning',
  paused: 'warning',
  disconnected: 'warning',
};

export const StatusChip = ({ value }: { value: string | null | undefined }) =>
  value ? (
    <Chip
      size="small"
      label={value.replace(/_/g, ' ')}
      color={COLORS[value] ?? 'default'}
      variant="outlined"
    />
  ) : null;

export const PassChip = ({ passed }: { passed: boolean | null }) =>
  passed === null ? (
    <Chip size="small" label="not scored" variant="outlined" />
  ) : (
    <Chip size="small" label={passed ? 'passed' : 'failed'} color={passed ? 'success' : 'error'} />
  );

/**
 * JSON for the fields a form does not cover; invalid JSON is shown at the field, never sent, and
 * keeps the Save of the dialog around it disabled.
 */
export function JsonField({
  value,
  onChange,
  label,
  error,
  helperText,
  ...rest
}: { value: unknown; onChange: (v: unknown) => void; label: string; error?: string } & Omit<
  TextFieldProps,
  'value' | 'onChange' | 'error'
>) {
  const [text, setText] = useState(() => JSON.stringify(value ?? null, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  useReportParse(problem === null);
  return (
    <TextField
      {...rest}
      label={label}
      multiline
      minRows={3}
      fullWidth
      value={text}
      error={Boolean(problem || error)}
      helperText={problem ?? error ?? helperText}
      slotProps={{
        htmlInput: { spellCheck: false, style: { fontFamily: 'monospace', fontSize: 13 } },
      }}
      onChange={(e) => {
        setText(e.target.value);
        try {
          onChange(e.target.value.trim() ? JSON.parse(e.target.value) : undefined);
          setProblem(null);
        } catch (err) {
          setProblem(`Not valid JSON: ${(err as Error).message}`);
        }
      }}
    />
  );
}

export const ActionButton = ({
  busy,
  children,
  ...rest
}: { busy?: boolean; children: ReactNode } & Parameters<typeof Button>[0]) => (
  <Button variant="contained" disabled={busy || rest.disabled} {...rest}>
    {busy ? 'Working…' : children}
  </Button>
);

export const fmtDate = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString() : '—';
export const fmtNum = (n: number | null | undefined, unit = '') =>
  n === null || n === undefined ? '—' : `${Math.round(n * 100) / 100}${unit}`;

/** What a connection test answers (agents.testConnection, settings.testModel). */
interface ConnectionTestResult {
  ok: boolean;
  latencyMs: number;
  message: string;
}

/** "Test connection": runs `test` once and says what happened, in words, beside the button. */
export function ConnectionTestButton({
  label,
  test,
}: {
  label: string;
  test: () => Promise<ConnectionTestResult>;
}) {
  const action = useAction(test);
  const [result, setResult] = useState<ConnectionTestResult | null>(null);
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
      <Button
        variant="outlined"
        disabled={action.busy}
        aria-label={label}
        onClick={() => void action.run().then((r) => setResult(r ?? null))}
      >
        {action.busy ? 'Testing…' : 'Test connection'}
      </Button>
      {result && !action.busy && (
        <Alert severity={result.ok ? 'success' : 'warning'} sx={{ py: 0 }} role="status">
          {result.message}
          {result.ok && ` (${result.latencyMs} ms)`}
        </Alert>
      )}
      <ErrorNote error={action.error} />
    </Stack>
  );
}

/**
 * A button for something that cannot be undone: it asks first, naming what will be lost, and
 * acts only on the second, deliberate click.
 */
export function ConfirmButton({
  children,
  question,
  consequence,
  confirmLabel,
  onConfirm,
  color = 'error',
  size,
  disabled,
  check,
}: {
  children: ReactNode;
  /** The dialog's title, e.g. `Delete the persona "Frank"?` */
  question: string;
  /** What happens, in a sentence. */
  consequence: string;
  confirmLabel: string;
  onConfirm: () => unknown;
  color?: 'error' | 'warning' | 'inherit' | 'primary';
  size?: 'small' | 'medium';
  disabled?: boolean;
  /**
   * Asked before the question (a delete's dry run): its refusal (the thing is in use) is shown
   * instead of asking whether to do what would then be refused.
   */
  check?: () => Promise<unknown>;
}) {
  const [open, setOpen] = useState(false);
  const [refusal, setRefusal] = useState<unknown>(null);
  const refusalId = useId();
  const ask = async () => {
    try {
      if (check) await check();
      setOpen(true);
    } catch (err) {
      setRefusal(err);
    }
  };
  return (
    <>
      <Button size={size} color={color} disabled={disabled} onClick={() => void ask()}>
        {children}
      </Button>
      <Dialog open={Boolean(refusal)} onClose={() => setRefusal(null)} aria-labelledby={refusalId}>
        <DialogTitle id={refusalId}>Cannot {confirmLabel.toLowerCase()}</DialogTitle>
        <DialogContent>
          <ErrorNote error={refusal} />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setRefusal(null)}>OK</Button>
        </DialogActions>
      </Dialog>
      <Dialog open={open} onClose={() => setOpen(false)}>
        <DialogTitle>{question}</DialogTitle>
        <DialogContent>
          <DialogContentText>{consequence}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>Keep it</Button>
          <Button
            color={color}
            variant="contained"
            onClick={() => {
              setOpen(false);
              void onConfirm();
            }}
          >
            {confirmLabel}
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
