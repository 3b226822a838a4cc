import { Box, Stack, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import type { OutputOf } from '../client';
import { client } from '../stores/session';
import { ActionButton, ConfirmButton, ErrorNote, fieldError, useAction } from './common';
import { SpeechTests } from './SpeechTests';

type Speech = OutputOf<'settings.get'>['speech'];
type EngineKey = keyof Speech;

const ENGINES: { key: EngineKey; title: string; hint: string }[] = [
  {
    key: 'openai',
    title: 'OpenAI-compatible voices',
    hint: 'Persona voices with engine "openai" (/audio/speech)',
  },
  {
    key: 'elevenlabs',
    title: 'ElevenLabs voices',
    hint: 'Persona voices with engine "elevenlabs"',
  },
  {
    key: 'stt',
    title: 'Speech-to-text',
    hint: "The agent's words where its audio line carries no text (Twilio Media Streams, Vapi with a model caller)",
  },
];

/** One cloud speech engine: where it is, its model, its key (answered masked). */
function SpeechEngine({
  engine,
  current,
  onSaved,
}: {
  engine: (typeof ENGINES)[number];
  current: Speech[EngineKey];
  onSaved: () => void;
}) {
  const [form, setForm] = useState({
    baseUrl: current?.baseUrl ?? '',
    model: current?.model ?? '',
    apiKey: current?.apiKey ?? '',
  });
  const save = useAction(async () => {
    await client().invoke('settings.update', {
      speech: {
        [engine.key]: {
          ...(form.baseUrl ? { baseUrl: form.baseUrl } : {}),
          ...(form.model ? { model: form.model } : {}),
          apiKey: form.apiKey,
        },
      },
    });
    onSaved();
  });
  const remove = useAction(async () => {
    await client().invoke('settings.update', { speech: { [engine.key]: null } });
    onSaved();
  });
  const err = (k: string) => fieldError(save.error, `speech.${engine.key}.${k}`);
  return (
    <Box sx={{ mb: 2 }} role="group" aria-label={engine.title}>
      <Typography variant="subtitle1">{engine.title}</Typography>
      <Typography variant="caption" component="div" sx={{ mb: 1 }}>
        {engine.hint}
      </Typography>
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap' }}>
        {(['baseUrl', 'model', 'apiKey'] as const).map((k) => (
          <TextField
            key={k}
            size="small"
            label={
              { baseUrl: 'Base URL (default: the vendor)', model: 'Model', apiKey: 'API key' }[k]
            }
            type={k === 'apiKey' ? 'password' : 'text'}
            value={form[k]}
            onChange={(e) => setForm({ ...form, [k]: e.target.value })}
            error={Boolean(err(k))}
            helperText={err(k)}
          />
        ))}
        <ActionButton busy={save.busy} onClick={() => void save.run()}>
          Save
        </ActionButton>
        {current && (
          <ConfirmButton
            color="warning"
            question={`Remove ${engine.title}?`}
            consequence="Its URL and key are forgotten; audio simulations that need it are refused until one is set."
            confirmLabel="Remove"
            onConfirm={() => remove.run()}
          >
            Remove
          </ConfirmButton>
        )}
      </Stack>
      <ErrorNote error={save.error ?? remove.error} />
    </Box>
  );
}

/**
 * Speech engines of audio simulations: the offline system voice needs nothing; cloud voices and
 * speech-to-text need a key. And how long call recordings are kept.
 */
export function SpeechSettings({
  speech,
  retentionDays,
  onSaved,
}: {
  speech: Speech;
  retentionDays: number;
  onSaved: () => void;
}) {
  const [days, setDays] = useState(String(retentionDays));
  const saveDays = useAction(async () => {
    await client().invoke('settings.update', { recordings: { retentionDays: Number(days) } });
    onSaved();
  });
  return (
    <>
      <Typography variant="body2" sx={{ mb: 2 }}>
        Personas speak with the system voice (espeak-ng on Linux, say on macOS, System.Speech on
        Windows) unless their voice names a cloud engine.
      </Typography>
      {ENGINES.map((e) => (
        <SpeechEngine
          key={`${e.key}-${speech[e.key]?.apiKey ?? ''}`}
          engine={e}
          current={speech[e.key]}
          onSaved={onSaved}
        />
      ))}
      <SpeechTests
        configured={{ openai: Boolean(speech.openai), elevenlabs: Boolean(speech.elevenlabs) }}
      />
      <Stack direction="row" spacing={1}>
        <TextField
          size="small"
          type="number"
          label="Keep recordings (days)"
          value={days}
          onChange={(e) => setDays(e.target.value)}
          error={Boolean(fieldError(saveDays.error, 'recordings.retentionDays'))}
          helperText={fieldError(saveDays.error, 'recordings.retentionDays')}
        />
        <ActionButton busy={saveDays.busy} onClick={() => void saveDays.run()}>
          Save
        </ActionButton>
      </Stack>
      <ErrorNote error={saveDays.error} />
    </>
  );
}
