import { Box, Button, IconButton, Stack, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import type { OutputOf } from '../client';
import { client } from '../stores/session';
import { ActionButton, ErrorNote, fieldError, useAction } from './common';

type Prices = OutputOf<'settings.get'>['prices'];
type Kind = keyof Prices;

/** Each list's fields: the names it is keyed by, then its prices (dollars). */
const KINDS: { kind: Kind; title: string; names: string[]; amounts: string[]; hint: string }[] = [
  {
    kind: 'llm',
    title: 'Language models',
    names: ['model'],
    amounts: ['inputPerMTok', 'cachedInputPerMTok', 'outputPerMTok'],
    hint: 'Dollars per million tokens; the model name as the role settings give it',
  },
  {
    kind: 'tts',
    title: 'Voices (text-to-speech)',
    names: ['engine', 'model'],
    amounts: ['perMChars'],
    hint: 'Dollars per million characters; engine openai or elevenlabs (the system voice is free)',
  },
  {
    kind: 'stt',
    title: 'Speech-to-text',
    names: ['engine', 'model'],
    amounts: ['perMinute'],
    hint: 'Dollars per minute transcribed; engine openai',
  },
  {
    kind: 'calls',
    title: 'Audio calls',
    names: ['provider'],
    amounts: ['perMinute'],
    hint: "The provider's charge per minute of an audio call (the demo agent is free)",
  },
];

const LABELS: Record<string, string> = {
  model: 'Model',
  engine: 'Engine',
  provider: 'Provider',
  inputPerMTok: 'Input $/M',
  cachedInputPerMTok: 'Cached input $/M',
  outputPerMTok: 'Output $/M',
  perMChars: '$/M characters',
  perMinute: '$/minute',
};

type Row = Record<string, string>;
type Form = Record<Kind, Row[]>;

const formOf = (prices: Prices): Form =>
  Object.fromEntries(
    KINDS.map(({ kind }) => [
      kind,
      (prices[kind] as Record<string, string | number>[]).map((p) =>
        Object.fromEntries(Object.entries(p).map(([k, v]) => [k, String(v)])),
      ),
    ]),
  ) as Form;

/** The form as settings.update takes it: amounts as numbers (a blank one is sent as it is, refused). */
const pricesOf = (form: Form) =>
  Object.fromEntries(
    KINDS.map(({ kind, amounts }) => [
      kind,
      form[kind].map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([k, v]) => [k, amounts.includes(k) && v !== '' ? Number(v) : v]),
        ),
      ),
    ]),
  ) as unknown as Prices;

/**
 * What simulations cost: prices of models, voices, transcription and providers' calls. A model in
 * play without a price leaves costs unknown, never guessed; a spend cap needs every one priced.
 */
export function PricesSettings({ prices, onSaved }: { prices: Prices; onSaved: () => void }) {
  const [form, setForm] = useState<Form>(() => formOf(prices));
  const save = useAction(async () => {
    await client().invoke('settings.update', { prices: pricesOf(form) });
    onSaved();
  });
  const setRow = (kind: Kind, i: number, row: Row | null) =>
    setForm({
      ...form,
      [kind]:
        row === null
          ? form[kind].filter((_, j) => j !== i)
          : form[kind].map((old, j) => (j === i ? row : old)),
    });
  return (
    <Box aria-label="Prices">
      {KINDS.map(({ kind, title, names, amounts, hint }) => (
        <Box key={kind} sx={{ mb: 2 }} role="group" aria-label={`${title} prices`}>
          <Typography variant="subtitle1">{title}</Typography>
          <Typography variant="caption" component="div" sx={{ mb: 1 }}>
            {hint}
          </Typography>
          {form[kind].map((row, i) => (
            <Stack key={i} direction="row" spacing={1} sx={{ mb: 1, flexWrap: 'wrap' }}>
              {[...names, ...amounts].map((field) => {
                const err = fieldError(save.error, `prices.${kind}[${i}].${field}`);
                return (
                  <TextField
                    key={field}
                    size="small"
                    label={LABELS[field]}
                    type={amounts.includes(field) ? 'number' : 'text'}
                    value={row[field] ?? ''}
                    onChange={(e) => setRow(kind, i, { ...row, [field]: e.target.value })}
                    error={Boolean(err)}
                    helperText={err}
                  />
                );
              })}
              <IconButton
                aria-label={`Remove ${title} price ${i + 1}`}
                onClick={() => setRow(kind, i, null)}
              >
                ×
              </IconButton>
            </Stack>
          ))}
          <Button
            size="small"
            onClick={() =>
              setForm({
                ...form,
                [kind]: [
                  ...form[kind],
                  Object.fromEntries([...names, ...amounts].map((f) => [f, ''])),
                ],
              })
            }
          >
            Add {title.toLowerCase()} price
          </Button>
        </Box>
      ))}
      <ActionButton busy={save.busy} onClick={() => void save.run()}>
        Save prices
      </ActionButton>
      <ErrorNote error={save.error} />
    </Box>
  );
}
