import { Box, Button, IconButton, Stack, Typography } from '@mui/material';
import { useState, type ReactNode } from 'react';

/** A list with its items moved: `from` to `to`, the others keeping their order. */
const moved = <T,>(items: readonly T[], from: number, to: number): T[] => {
  const next = [...items];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item);
  return next;
};

let lastKey = 0;
const nextKey = () => ++lastKey;

/**
 * Rows have no id of their own: each gets a key that moves with it, so that a row's own state (a
 * JSON field being typed) follows the row when it is moved. Rows changed from outside get new keys.
 */
function useRowKeys(count: number) {
  const [keys, setKeys] = useState<number[]>(() => Array.from({ length: count }, nextKey));
  if (keys.length === count) return [keys, setKeys] as const;
  const fresh = Array.from({ length: count }, nextKey);
  setKeys(fresh);
  return [fresh, setKeys] as const;
}

/** Up, down and remove for row `index`, each named for its row ("Move line 2 up"). */
function RowButtons({
  name,
  index,
  count,
  move,
  remove,
}: {
  name: string;
  index: number;
  count: number;
  move: (to: number) => void;
  remove: () => void;
}) {
  const row = `${name} ${index + 1}`;
  return (
    <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
      <IconButton
        size="small"
        aria-label={`Move ${row} up`}
        disabled={index === 0}
        onClick={() => move(index - 1)}
      >
        ↑
      </IconButton>
      <IconButton
        size="small"
        aria-label={`Move ${row} down`}
        disabled={index === count - 1}
        onClick={() => move(index + 1)}
      >
        ↓
      </IconButton>
      <Button size="small" color="error" aria-label={`Remove ${row}`} onClick={remove}>
        Remove
      </Button>
    </Stack>
  );
}

/**
 * Rows of a list edited in place: each row a group named "<name> <n>" with its fields, moved up
 * and down or removed by its buttons; "Add <name>" appends `newRow()`.
 */
export function RowList<T>({
  name,
  rows,
  onChange,
  newRow,
  renderRow,
  empty,
}: {
  /** One row's name, e.g. "line", "metric". */
  name: string;
  rows: readonly T[];
  onChange: (rows: T[]) => void;
  newRow: () => T;
  renderRow: (row: T, update: (row: T) => void, index: number) => ReactNode;
  /** Said when there is no row. */
  empty: string;
}) {
  const [keys, setKeys] = useRowKeys(rows.length);
  const update = (index: number) => (row: T) =>
    onChange(rows.map((r, i) => (i === index ? row : r)));
  const change = (next: T[], nextKeys: number[]) => {
    setKeys(nextKeys);
    onChange(next);
  };
  return (
    <Stack spacing={1}>
      {rows.length === 0 && (
        <Typography variant="body2" color="text.secondary">
          {empty}
        </Typography>
      )}
      {rows.map((row, index) => (
        <Box
          key={keys[index]}
          role="group"
          aria-label={`${name} ${index + 1}`}
          sx={{ border: 1, borderColor: 'divider', borderRadius: 1, p: 1.5 }}
        >
          <Stack direction="row" sx={{ justifyContent: 'space-between', mb: 1 }}>
            <Typography variant="caption" color="text.secondary">
              {name} {index + 1}
            </Typography>
            <RowButtons
              name={name}
              index={index}
              count={rows.length}
              move={(to) => change(moved(rows, index, to), moved(keys, index, to))}
              remove={() =>
                change(
                  rows.filter((_, i) => i !== index),
                  keys.filter((_, i) => i !== index),
                )
              }
            />
          </Stack>
          {renderRow(row, update(index), index)}
        </Box>
      ))}
      <Box>
        <Button
          size="small"
          variant="outlined"
          onClick={() => change([...rows, newRow()], [...keys, nextKey()])}
        >
          Add {name}
        </Button>
      </Box>
    </Stack>
  );
}
