import { TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import type { OutputOf } from '../client';
import { client, wsInput } from '../stores/session';
import { fieldError } from './common';
import { useReportParse } from './parseProblems';

type Preview = OutputOf<'schedules.preview'>;

/** How long typing must pause before the engine is asked (one request per pause, not per key). */
const PAUSE_MS = 250;

/** "Mon 30 Nov 09:00" in the tester's own time zone. */
export function runWords(iso: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((p) => p.type === type)?.value ?? '';
  return `${part('weekday')} ${part('day')} ${part('month')} ${part('hour')}:${part('minute')}`;
}

/**
 * The engine's reading of a periodicity as it is typed (its own strict cron rules, so the preview
 * never disagrees with a save): the next runs, or why it is refused.
 */
function usePreview(periodicity: string, timezone: string) {
  const [state, setState] = useState<{ preview: Preview | null; error: unknown }>({
    preview: null,
    error: null,
  });
  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      client()
        .invoke('schedules.preview', wsInput({ periodicity: periodicity.trim(), timezone }))
        .then(
          (preview) => current && setState({ preview, error: null }),
          (error: unknown) => current && setState({ preview: null, error }),
        );
    }, PAUSE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [periodicity, timezone]);
  return state;
}

/** The preview's line: the next runs in the tester's time, and the periodicity in words. */
function PreviewLine({ preview, timezone }: { preview: Preview; timezone: string }) {
  const mine = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const words = preview.description
    ? ` · ${preview.description}${timezone === mine ? '' : ` (${timezone})`}`
    : '';
  return (
    <Typography variant="body2" aria-label="Next runs" aria-live="polite">
      Next: {preview.nextRuns.map(runWords).join(', ')} (your time, {mine}){words}
    </Typography>
  );
}

/**
 * The periodicity field of a schedule editor with its preview under it; an expression the engine
 * refuses shows why under the field and keeps Save disabled (as a JSON view that does not parse).
 */
export function PeriodicityField({
  value,
  timezone,
  saveError,
  onChange,
}: {
  value: string;
  timezone: string;
  saveError: unknown;
  onChange: (periodicity: string) => void;
}) {
  const { preview, error } = usePreview(value, timezone);
  const refused = fieldError(error, 'periodicity');
  useReportParse(!refused && value.trim() !== '');
  const problem = refused ?? fieldError(saveError, 'periodicity');
  return (
    <>
      <TextField
        label="Periodicity"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        error={Boolean(problem)}
        helperText={
          problem ?? 'hourly, daily, weekly, monthly, or a cron expression such as 0 9 * * 1-5'
        }
      />
      {preview && !refused && <PreviewLine preview={preview} timezone={timezone} />}
    </>
  );
}
