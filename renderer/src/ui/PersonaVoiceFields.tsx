import { MenuItem, Stack, TextField } from '@mui/material';
import type { InputOf } from '../client';

type Voice = NonNullable<InputOf<'personas.create'>['voice']>;

const VOICE_ENGINES: Record<Voice['engine'], string> = {
  system: 'System voice (offline)',
  openai: 'OpenAI-compatible',
  elevenlabs: 'ElevenLabs',
};

/** A persona's voice in words, for its detail: the engine, the voice, the speed. */
export const voiceName = (voice: Voice | null | undefined) =>
  voice
    ? `${VOICE_ENGINES[voice.engine]}${voice.voiceId ? `, ${voice.voiceId}` : ''}${voice.speed ? ` at ${voice.speed}×` : ''}`
    : VOICE_ENGINES.system;

/** How the persona sounds in audio simulations: an engine, a voice of it, a speed. */
export function VoiceFields({
  voice,
  onChange,
  error,
}: {
  voice: Voice | null;
  onChange: (voice: Voice | null) => void;
  error: (k: string) => string | undefined;
}) {
  const v = voice ?? { engine: 'system' as const, voiceId: null, speed: null };
  return (
    <Stack direction="row" spacing={1} role="group" aria-label="Voice in audio simulations">
      <TextField
        select
        label="Voice engine"
        value={v.engine}
        onChange={(e) => onChange({ ...v, engine: e.target.value as Voice['engine'] })}
        error={Boolean(error('engine'))}
        helperText={error('engine') ?? 'How the caller sounds in audio mode'}
        sx={{ minWidth: 200 }}
      >
        {Object.entries(VOICE_ENGINES).map(([k, label]) => (
          <MenuItem key={k} value={k}>
            {label}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        label="Voice"
        value={v.voiceId ?? ''}
        placeholder={v.engine === 'system' ? 'en-us' : v.engine === 'openai' ? 'alloy' : 'voice id'}
        onChange={(e) => onChange({ ...v, voiceId: e.target.value || null })}
        error={Boolean(error('voiceId'))}
        helperText={error('voiceId')}
      />
      <TextField
        label="Speed"
        type="number"
        value={v.speed ?? ''}
        placeholder="1"
        onChange={(e) => onChange({ ...v, speed: e.target.value ? Number(e.target.value) : null })}
        error={Boolean(error('speed'))}
        helperText={error('speed') ?? '0.5 to 2'}
        sx={{ width: 120 }}
      />
    </Stack>
  );
}
