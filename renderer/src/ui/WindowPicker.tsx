import { ToggleButton, ToggleButtonGroup } from '@mui/material';
import type { InputOf } from '../client';

/** The analytics windows the engine takes, the same for tools and agents. */
export type AnalyticsWindow = NonNullable<InputOf<'tools.analytics'>['window']>;

/** Each window as the picker names it; typed by the operation, so a new one must be named here. */
export const WINDOW_LABELS: Record<AnalyticsWindow, string> = {
  '1h': 'Last hour',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  all: 'All time',
};

/** Picks the time window analytics read (last hour to all time). */
export function WindowPicker({
  value,
  onChange,
}: {
  value: AnalyticsWindow;
  onChange: (window: AnalyticsWindow) => void;
}) {
  return (
    <ToggleButtonGroup
      size="small"
      exclusive
      value={value}
      aria-label="Time window"
      // A click on the pressed button would clear the choice: the window stays as it was.
      onChange={(_e, next: AnalyticsWindow | null) => next && onChange(next)}
      sx={{ flexWrap: 'wrap', my: 1 }}
    >
      {(Object.keys(WINDOW_LABELS) as AnalyticsWindow[]).map((w) => (
        <ToggleButton key={w} value={w}>
          {WINDOW_LABELS[w]}
        </ToggleButton>
      ))}
    </ToggleButtonGroup>
  );
}
