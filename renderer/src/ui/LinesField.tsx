import { TextField } from '@mui/material';
import { useState } from 'react';

/*
 * A list of short statements typed one per line (an llm_judge metric's requirements): blank
 * lines and surrounding spaces are left out, and an empty list is no list at all.
 */

const linesOf = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

export function LinesField({
  label,
  value,
  helperText,
  onChange,
}: {
  label: string;
  value: unknown;
  helperText?: string;
  onChange: (lines: string[] | undefined) => void;
}) {
  const lines = Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  const [text, setText] = useState(lines.join('\n'));
  // What was typed stays as typed (a line just begun included) while it says the same list; a
  // list changed elsewhere (the JSON view) shows as that list.
  const shown = sameList(linesOf(text), lines) ? text : lines.join('\n');
  return (
    <TextField
      label={label}
      multiline
      minRows={2}
      value={shown}
      helperText={helperText}
      onChange={(e) => {
        setText(e.target.value);
        const next = linesOf(e.target.value);
        onChange(next.length ? next : undefined);
      }}
      sx={{ flex: 1 }}
    />
  );
}
