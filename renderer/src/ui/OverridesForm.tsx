import { Checkbox, FormControlLabel, Stack, TextField, Typography } from '@mui/material';
import {
  isRow,
  leavesOf,
  numberOf,
  textOf,
  valueAt,
  withPath,
  type Leaf,
  type Row,
} from './rowValues';

/** One leaf: its synced value shown until the tester types another, which becomes an override. */
function LeafInput({
  leaf,
  override,
  onChange,
}: {
  leaf: Leaf;
  override: unknown;
  onChange: (value: unknown) => void;
}) {
  const label = leaf.path.join('.');
  const current = override ?? leaf.synced;
  // A value equal to the synced one is no override.
  const set = (v: unknown) => onChange(v === leaf.synced ? undefined : v);
  if (typeof leaf.synced === 'boolean')
    return (
      <FormControlLabel
        label={label}
        control={<Checkbox checked={current === true} onChange={(e) => set(e.target.checked)} />}
      />
    );
  const isNumber = typeof leaf.synced === 'number';
  return (
    <TextField
      label={label}
      type={isNumber ? 'number' : 'text'}
      multiline={!isNumber && String(leaf.synced).length > 80}
      maxRows={8}
      value={textOf(current)}
      helperText={override === undefined ? 'synced' : `override (synced: ${textOf(leaf.synced)})`}
      onChange={(e) => set(isNumber ? numberOf(e.target.value) : e.target.value)}
    />
  );
}

/**
 * The synced configuration tree with one field per leaf (string, number, boolean): a field edited
 * away from its synced value is an override, set back to it is none. `overrides` is the tree of
 * overrides, as agents.update takes it.
 */
export function OverridesForm({
  synced,
  overrides,
  onChange,
}: {
  synced: unknown;
  overrides: Row;
  onChange: (overrides: Row) => void;
}) {
  const leaves = leavesOf(synced);
  const syncedPaths = new Set(leaves.map((l) => l.path.join('.')));
  const unsynced = leavesOf(overrides).filter((l) => !syncedPaths.has(l.path.join('.')));
  if (leaves.length === 0 && unsynced.length === 0)
    return (
      <Typography variant="body2" color="text.secondary">
        No synced configuration yet: write overrides in the JSON view.
      </Typography>
    );
  return (
    <Stack spacing={1.5}>
      {leaves.map((leaf) => (
        <LeafInput
          key={leaf.path.join('.')}
          leaf={leaf}
          override={valueAt(overrides, leaf.path)}
          onChange={(v) => onChange(withPath(overrides, leaf.path, v))}
        />
      ))}
      {unsynced.length > 0 && (
        <Typography variant="body2" color="text.secondary">
          Also overridden, with no synced value (edit them in the JSON view):{' '}
          {unsynced.map((l) => `${l.path.join('.')} = ${textOf(l.synced)}`).join(', ')}
        </Typography>
      )}
    </Stack>
  );
}

/** Why the form cannot show overrides (null when it can). */
export const overridesProblem = (v: unknown): string | null =>
  v === undefined || isRow(v) ? null : 'Overrides are an object: fix the JSON, or save it as it is';
