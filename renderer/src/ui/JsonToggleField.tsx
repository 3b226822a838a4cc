import { Box, FormControlLabel, Stack, Switch, TextField, Typography } from '@mui/material';
import { useState, type ReactNode } from 'react';
import { useReportParse } from './parseProblems';

// No value (and null, "none") is blank text.
const asText = (value: unknown) =>
  value === undefined || value === null ? '' : JSON.stringify(value, null, 2);

/**
 * A raw JSON view of a value: checked as it is typed, its parse error shown under it, and the
 * dialog's Save kept disabled while it does not parse. Blank text is no value (undefined).
 */
export function JsonText({
  label,
  value,
  onChange,
  error,
  helperText,
  minRows = 3,
  onParses,
}: {
  label: string;
  value: unknown;
  onChange: (value: unknown) => void;
  /** Told, at each edit, whether the text parses. */
  onParses?: (parses: boolean) => void;
  error?: string;
  helperText?: string;
  minRows?: number;
}) {
  // The text is the truth while it is edited: a value that parsed earlier is never shown instead.
  const [text, setText] = useState(() => asText(value));
  const [problem, setProblem] = useState<string | null>(null);
  useReportParse(problem === null);
  const edit = (next: string) => {
    setText(next);
    try {
      onChange(next.trim() ? JSON.parse(next) : undefined);
      setProblem(null);
      onParses?.(true);
    } catch (err) {
      setProblem(`Not valid JSON: ${(err as Error).message}`);
      onParses?.(false);
    }
  };
  return (
    <TextField
      label={label}
      multiline
      minRows={minRows}
      fullWidth
      value={text}
      error={Boolean(problem ?? error)}
      helperText={problem ?? error ?? helperText}
      slotProps={{
        htmlInput: { spellCheck: false, style: { fontFamily: 'monospace', fontSize: 13 } },
      }}
      onChange={(e) => edit(e.target.value)}
    />
  );
}

/**
 * A value edited with a form, or as raw JSON behind a "JSON" switch. Both views edit the same
 * value, so switching shows what the other showed. Back to the form is refused while the JSON does
 * not parse, or holds something the form cannot show (`formProblem` says what).
 */
export function JsonToggleField({
  label,
  jsonLabel,
  value,
  onChange,
  form,
  formProblem,
  error,
  helperText,
  minRows = 6,
}: {
  /** The group's name, e.g. "Scorecard metrics"; the switch is "<label> as JSON". */
  label: string;
  /** The raw view's own label (e.g. the shape it takes). */
  jsonLabel: string;
  value: unknown;
  onChange: (value: unknown) => void;
  /** The form, editing `value` through `onChange` itself. */
  form: ReactNode;
  /** Why the form cannot show `value` (null when it can). */
  formProblem?: (value: unknown) => string | null;
  error?: string;
  helperText?: string;
  minRows?: number;
}) {
  const [asJson, setAsJson] = useState(false);
  const [parses, setParses] = useState(true);
  const unfit = asJson && parses ? (formProblem?.(value) ?? null) : null;
  const stuck = asJson && (!parses || unfit !== null);
  return (
    <Box role="group" aria-label={label}>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
        <Typography variant="subtitle2" component="h3">
          {label}
        </Typography>
        <FormControlLabel
          label="JSON"
          control={
            <Switch
              checked={asJson}
              disabled={stuck}
              onChange={(e) => setAsJson(e.target.checked)}
              slotProps={{ input: { 'aria-label': `${label} as JSON` } }}
            />
          }
        />
      </Stack>
      {asJson ? (
        <JsonText
          label={jsonLabel}
          value={value}
          onChange={onChange}
          onParses={setParses}
          error={error}
          helperText={unfit ?? helperText}
          minRows={minRows}
        />
      ) : (
        <Stack spacing={1}>
          {form}
          {error && (
            <Typography color="error" variant="caption" role="alert">
              {error}
            </Typography>
          )}
        </Stack>
      )}
    </Box>
  );
}
