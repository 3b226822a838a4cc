import { TextField } from '@mui/material';

/** What an execution or simulation cost, or why it is not known (never a guess). */
export function costWords(c: { cost_usd: number | null; unpriced_models: string[] }): string {
  if (c.cost_usd !== null)
    return `$${c.cost_usd < 0.01 ? c.cost_usd.toFixed(4) : c.cost_usd.toFixed(2)}`;
  return c.unpriced_models.length ? `unpriced: ${c.unpriced_models.join(', ')}` : 'cost unknown';
}

/** The Execute dialog's spend cap: blank is none. */
export function MaxCostField({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
}) {
  return (
    <TextField
      label="Max cost (USD)"
      type="number"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={Boolean(error)}
      helperText={
        error ??
        "Optional hard cap: each simulation reserves its estimated cost as it starts, and each model call's worst case before making it; those left without budget are skipped. Needs every model in play priced (Settings → Prices)"
      }
      slotProps={{ htmlInput: { min: 0, step: 0.01 } }}
    />
  );
}
