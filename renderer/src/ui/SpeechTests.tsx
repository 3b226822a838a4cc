import { Alert, Button, MenuItem, Stack, TextField } from '@mui/material';
import { useState } from 'react';
import type { OutputOf } from '../client';
import { client } from '../stores/session';
import { ErrorNote, useAction } from './common';

/**
 * Settings → Speech: "Test voice" and "Test speech-to-text", like a model role's "Test
 * connection": one real try with what is saved, said in words beside the button.
 */

type VoiceTest = OutputOf<'settings.testVoice'>;
type SttTest = OutputOf<'settings.testSpeechToText'>;

/** The voice test's outcome: what it made, how long it took, and a player for the speech. */
function VoiceResult({ result }: { result: VoiceTest }) {
  return (
    <Alert severity={result.ok ? 'success' : 'warning'} sx={{ py: 0 }} role="status">
      {result.message}
      {result.ok && ` in ${result.latencyMs} ms`}
      {result.audio && (
        <audio
          controls
          src={result.audio}
          aria-label="Test voice recording"
          style={{ display: 'block', height: 32, marginTop: 4 }}
        />
      )}
    </Alert>
  );
}

type Engine = 'system' | 'openai' | 'elevenlabs';

/**
 * "Test voice": a short sentence in the chosen voice (the system voice, or a cloud engine once
 * it is configured, with its voice id); its length, its latency, and a player.
 */
function TestVoiceButton({ engines }: { engines: Engine[] }) {
  const [result, setResult] = useState<VoiceTest | null>(null);
  const [engine, setEngine] = useState<Engine>('system');
  const [voiceId, setVoiceId] = useState('');
  const action = useAction(() =>
    client().invoke('settings.testVoice', {
      voice: { engine, voiceId: voiceId.trim() || null, speed: null },
    }),
  );
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
      <TextField
        select
        size="small"
        label="Voice engine"
        value={engine}
        onChange={(e) => setEngine(e.target.value as Engine)}
        sx={{ width: 160 }}
      >
        {engines.map((e) => (
          <MenuItem key={e} value={e}>
            {e}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        size="small"
        label="Voice id (optional)"
        placeholder={engine === 'openai' ? 'alloy' : engine === 'system' ? 'en-us' : ''}
        value={voiceId}
        onChange={(e) => setVoiceId(e.target.value)}
        sx={{ width: 170 }}
      />
      <Button
        variant="outlined"
        disabled={action.busy}
        onClick={() => void action.run().then((r) => setResult(r ?? null))}
      >
        {action.busy ? 'Testing…' : 'Test voice'}
      </Button>
      {result && !action.busy && <VoiceResult result={result} />}
      <ErrorNote error={action.error} />
    </Stack>
  );
}

/** "Test speech-to-text": a known sentence, said by the system voice, read back by the engine. */
function TestSpeechToTextButton() {
  const [result, setResult] = useState<SttTest | null>(null);
  const action = useAction(() => client().invoke('settings.testSpeechToText'));
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
      <Button
        variant="outlined"
        disabled={action.busy}
        onClick={() => void action.run().then((r) => setResult(r ?? null))}
      >
        {action.busy ? 'Testing…' : 'Test speech-to-text'}
      </Button>
      {result && !action.busy && (
        <Alert severity={result.ok ? 'success' : 'warning'} sx={{ py: 0 }} role="status">
          {result.ok ? `Said “${result.expected}”; ${result.message}` : result.message}
          {result.ok && ` in ${result.latencyMs} ms`}
        </Alert>
      )}
      <ErrorNote error={action.error} />
    </Stack>
  );
}

/** The tests, with the cloud voice engines that have a connection offered beside the system voice. */
export function SpeechTests({
  configured,
}: {
  configured: { openai: boolean; elevenlabs: boolean };
}) {
  const engines: Engine[] = [
    'system',
    ...(['openai', 'elevenlabs'] as const).filter((e) => configured[e]),
  ];
  return (
    <Stack spacing={1} sx={{ mb: 2 }} role="group" aria-label="Speech tests">
      <TestVoiceButton engines={engines} />
      <TestSpeechToTextButton />
    </Stack>
  );
}
