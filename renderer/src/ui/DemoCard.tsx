import { Button, Card, CardContent, LinearProgress, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { client, useSession } from '../stores/session';
import { ErrorNote, useAction } from './common';

type Progress = { text: string; audio: string };

/** How far one execution got, in words; polled with the engine's long wait. */
async function waitForExecution(
  workspaceId: string,
  executionId: string,
  said: (status: string) => void,
): Promise<void> {
  for (;;) {
    const { execution } = await client().invoke('executions.get', {
      workspace_id: workspaceId,
      execution_id: executionId,
      wait: 10,
    });
    said(execution.status === 'running' ? 'running' : execution.status);
    if (execution.status !== 'running') return;
  }
}

/**
 * The first run, in one click: the built-in demo agent (no account, key or model) called in text
 * and in audio, scored by a scorecard that needs no model. When both executions end, the Demo
 * workspace is shown with their results.
 */
export function DemoCard() {
  const { setWorkspace, navigate } = useSession();
  const [progress, setProgress] = useState<Progress | null>(null);
  const start = useAction(async () => {
    const made = await client().invoke('demo.run', { mode: 'both' });
    const [textId, audioId] = made.executionIds;
    setProgress({ text: 'running', audio: 'running' });
    await Promise.all([
      waitForExecution(made.workspaceId, textId, (text) => setProgress((p) => p && { ...p, text })),
      waitForExecution(made.workspaceId, audioId, (audio) =>
        setProgress((p) => p && { ...p, audio }),
      ),
    ]);
    setWorkspace(made.workspaceId);
    navigate('executions');
  });
  return (
    <Card data-testid="demo-card">
      <CardContent>
        <Typography variant="h6" component="h2">
          Try it in a minute
        </Typography>
        <Typography sx={{ my: 1 }}>
          Run the built-in demo agent: a small order-support agent served by Callbench itself. A
          scripted caller rings it once in text and once by voice, and a scorecard that needs no
          model checks what it said, the tool it called and how fast it answered. Nothing leaves
          this machine.
        </Typography>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
          <Button variant="contained" onClick={() => void start.run()} disabled={start.busy}>
            Run the demo
          </Button>
          {progress && (
            <Typography role="status">
              Text call: {progress.text} · Voice call: {progress.audio}
            </Typography>
          )}
        </Stack>
        {start.busy && <LinearProgress sx={{ mt: 2 }} aria-label="Demo running" />}
        <ErrorNote error={start.error} />
      </CardContent>
    </Card>
  );
}
