import { Box, Button, Paper, TextField, Typography } from '@mui/material';
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ApiError, httpClient, ipcClient, type Client } from './client';
import { KEY_STORAGE, WORKSPACE_STORAGE, useSession } from './stores/session';

async function connect(client: Client): Promise<void> {
  const { workspaces } = await client.invoke('workspaces.list');
  if (client.transport === 'ipc') {
    const { theme } = await client.invoke('desktop.preferences.get');
    useSession.setState({
      theme:
        theme === 'system'
          ? matchMedia('(prefers-color-scheme: dark)').matches
            ? 'dark'
            : 'light'
          : theme,
    });
  }
  // The workspace shown last time, while it still exists; the first one otherwise.
  const remembered = localStorage.getItem(WORKSPACE_STORAGE);
  const shown = workspaces.find((w) => w.id === remembered) ?? workspaces[0];
  useSession.getState().setClient(client, shown.id);
}

function browserClient(key: string | null): Client {
  return httpClient(key, () => {
    localStorage.removeItem(KEY_STORAGE);
    useSession.getState().askForKey();
  });
}

/** Browser mode without a key the server handed over: ask for one. */
function KeyPrompt() {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    try {
      await connect(browserClient(key.trim()));
      localStorage.setItem(KEY_STORAGE, key.trim());
      render();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <Box sx={{ display: 'grid', placeItems: 'center', minHeight: '100vh' }}>
      <Paper
        component="form"
        sx={{ p: 4, width: 420 }}
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Typography variant="h5" component="h1" gutterBottom>
          Callbench
        </Typography>
        <Typography variant="body2" gutterBottom>
          Open the one-time login link that `serve` printed, or enter an API key of this engine
          (`npm run cli -- keys create` makes one).
        </Typography>
        <TextField
          label="API key"
          type="password"
          fullWidth
          value={key}
          onChange={(e) => setKey(e.target.value)}
          error={Boolean(error)}
          helperText={error}
          autoFocus
        />
        <Button type="submit" variant="contained" sx={{ mt: 2 }}>
          Connect
        </Button>
      </Paper>
    </Box>
  );
}

/**
 * Desktop: the engine in use did not answer at start (a team server out of reach). Says why, and
 * offers to try again or to go back to this computer (main reloads the page either way).
 */
function Unreachable({ client, error }: { client: Client; error: unknown }) {
  const [problem, setProblem] = useState<unknown>(null);
  const shown = problem ?? error;
  return (
    <Box sx={{ display: 'grid', placeItems: 'center', minHeight: '100vh' }}>
      <Paper sx={{ p: 4, width: 520 }} role="alert">
        <Typography variant="h5" component="h1" gutterBottom>
          The engine does not answer
        </Typography>
        <Typography variant="body2" gutterBottom>
          {shown instanceof Error ? shown.message : String(shown)}
        </Typography>
        <Button variant="contained" sx={{ mt: 2, mr: 1 }} onClick={() => location.reload()}>
          Try again
        </Button>
        <Button
          sx={{ mt: 2 }}
          onClick={() =>
            void client.invoke('desktop.team.use', { target: 'local' }).catch(setProblem)
          }
        >
          Use this computer
        </Button>
      </Paper>
    </Box>
  );
}

const root = createRoot(document.getElementById('root')!);
let startFailure: { client: Client; error: unknown } | null = null;
function render(): void {
  const { needsKey, client } = useSession.getState();
  root.render(
    <StrictMode>
      {startFailure ? (
        <Unreachable {...startFailure} />
      ) : needsKey || !client ? (
        <KeyPrompt />
      ) : (
        <App />
      )}
    </StrictMode>,
  );
}
useSession.subscribe((s, before) => {
  if (s.needsKey !== before.needsKey || s.client !== before.client) render();
});

async function start(): Promise<void> {
  if (window.callbench) {
    const ipc = ipcClient(window.callbench);
    return connect(ipc).catch((error: unknown) => void (startFailure = { client: ipc, error }));
  }
  // A session from a login link first (the page itself holds no secret), then a key entered before.
  const stored = localStorage.getItem(KEY_STORAGE);
  try {
    return await connect(httpClient(null, () => useSession.getState().askForKey()));
  } catch {
    // no session: try the stored key, then ask
  }
  if (stored) {
    try {
      return await connect(browserClient(stored));
    } catch {
      // the stored key no longer works: ask
    }
  }
  useSession.getState().askForKey();
}
void start().then(render);
