import {
  Alert,
  AppBar,
  Box,
  Button,
  Chip,
  CssBaseline,
  Drawer,
  IconButton,
  List,
  ListItem,
  ListItemButton,
  ListItemText,
  Snackbar,
  ThemeProvider,
  Toolbar,
  Tooltip,
  Typography,
} from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { KEY_STORAGE, useSession } from './stores/session';
import { useEngineEventStream } from './stores/events';
import { engineLabel, useTeam } from './stores/team';
import { useSuite } from './stores/suite';
import { Overview } from './screens/Overview';
import { lazyScreen } from './lazyScreen';
import { WorkspaceSwitcher } from './ui/WorkspaceSwitcher';
import { appTheme } from './ui/theme';

// Screens other than the first one load when first opened: the initial bundle carries the shell,
// the client and the overview only.
const Agents = lazyScreen(() => import('./screens/Agents').then((m) => m.Agents));
const AgentDetail = lazyScreen(() => import('./screens/Agents').then((m) => m.AgentDetail));
const Tools = lazyScreen(() => import('./screens/Tools').then((m) => m.Tools));
const ToolDetail = lazyScreen(() => import('./screens/Tools').then((m) => m.ToolDetail));
const Personas = lazyScreen(() => import('./screens/Personas').then((m) => m.Personas));
const Scenarios = lazyScreen(() => import('./screens/Scenarios').then((m) => m.Scenarios));
const Executions = lazyScreen(() => import('./screens/Executions').then((m) => m.Executions));
const ExecutionDetail = lazyScreen(() =>
  import('./screens/Executions').then((m) => m.ExecutionDetail),
);
const SimulationDetail = lazyScreen(() =>
  import('./screens/Executions').then((m) => m.SimulationDetail),
);
const AllSimulations = lazyScreen(() =>
  import('./screens/Executions').then((m) => m.AllSimulations),
);
const Comparisons = lazyScreen(() => import('./screens/Comparisons').then((m) => m.Comparisons));
const ComparisonDetail = lazyScreen(() =>
  import('./screens/Comparisons').then((m) => m.ComparisonDetail),
);
const Scorecards = lazyScreen(() => import('./screens/Scorecards').then((m) => m.Scorecards));
const Schedules = lazyScreen(() => import('./screens/Schedules').then((m) => m.Schedules));
const Alerts = lazyScreen(() => import('./screens/Alerts').then((m) => m.Alerts));
const Settings = lazyScreen(() => import('./screens/Settings').then((m) => m.Settings));

const NAV: [string, string][] = [
  ['', 'Overview'],
  ['agents', 'Agents'],
  ['tools', 'Tools'],
  ['personas', 'Personas'],
  ['scenarios', 'Scenarios'],
  ['executions', 'Executions'],
  ['comparisons', 'Comparisons'],
  ['scorecards', 'Scorecards'],
  ['schedules', 'Schedules'],
  ['alerts', 'Alerts'],
  ['settings', 'Settings'],
];
const WIDTH = 200;

function Screen({ route }: { route: string[] }) {
  const [section, id, sub] = route;
  switch (section) {
    case 'agents':
      return id ? <AgentDetail id={id} /> : <Agents />;
    case 'tools':
      return id ? <ToolDetail id={id} /> : <Tools />;
    case 'personas':
      return <Personas />;
    case 'scenarios':
      return <Scenarios />;
    case 'executions':
      return id ? <ExecutionDetail id={id} /> : <Executions />;
    case 'simulations':
      return id && id !== 'all' ? <SimulationDetail id={id} /> : <AllSimulations />;
    case 'comparisons':
      return id ? <ComparisonDetail id={id} /> : <Comparisons />;
    case 'scorecards':
      return <Scorecards />;
    case 'schedules':
      return <Schedules />;
    case 'alerts':
      return <Alerts focus={id ?? sub} />;
    case 'settings':
      return <Settings />;
    default:
      return <Overview />;
  }
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Desktop only: which engine the window reads, this computer's or the team server. A click on the
 * team server goes back to this computer (main reloads the page); on this computer, to Settings.
 */
function EngineChip() {
  const transport = useSession((s) => s.client?.transport);
  const navigate = useSession((s) => s.navigate);
  const { view, load, switchTo } = useTeam();
  const [error, setError] = useState<string | null>(null);
  const fail = (e: unknown) => setError(messageOf(e));
  useEffect(() => {
    if (transport === 'ipc') load().catch((e: unknown) => setError(messageOf(e)));
  }, [transport, load]);
  if (transport !== 'ipc' || !view) return null;
  const onTeam = view.inUse === 'team';
  const goHome = () => switchTo('local').catch(fail);
  return (
    <>
      <Tooltip
        title={
          onTeam
            ? `Reading the team server at ${view.url}. Click to use this computer instead.`
            : 'Reading this computer. Connect to a team server in Settings.'
        }
      >
        <Chip
          size="small"
          variant="outlined"
          label={engineLabel(view)}
          aria-label={`Engine in use: ${engineLabel(view)}`}
          onClick={() => (onTeam ? void goHome() : navigate('settings'))}
          sx={{ mr: 1, color: 'inherit', borderColor: 'currentColor' }}
        />
      </Tooltip>
      <ErrorToast error={error} onClose={() => setError(null)} />
    </>
  );
}

/** An action's failure, shown for a while at the foot of the window. */
function ErrorToast({ error, onClose }: { error: string | null; onClose: () => void }) {
  return (
    <Snackbar open={Boolean(error)} autoHideDuration={8_000} onClose={onClose}>
      <Alert severity="error" onClose={onClose}>
        {error}
      </Alert>
    </Snackbar>
  );
}

/**
 * Browser mode only (the desktop app has nothing to sign out of): ends the login session, forgets
 * a key typed into the page, and asks again.
 */
function SignOut() {
  const signOut = useSession((s) => s.client?.signOut);
  const signedOut = useSession((s) => s.signedOut);
  const [error, setError] = useState<string | null>(null);
  if (!signOut) return null;
  return (
    <>
      <Button
        color="inherit"
        onClick={() => {
          // The key typed into this page is forgotten at once: a reload before the engine has
          // answered must not sign back in with it.
          localStorage.removeItem(KEY_STORAGE);
          void signOut().then(signedOut, (e: unknown) => setError(messageOf(e)));
        }}
      >
        Sign out
      </Button>
      <ErrorToast error={error} onClose={() => setError(null)} />
    </>
  );
}

export function App() {
  const { theme: mode, setTheme, route, navigate, workspaceId } = useSession();
  const suiteApplied = useSuite((s) => s.applied);
  const theme = useMemo(() => appTheme(mode), [mode]);
  useEngineEventStream();
  useEffect(() => {
    document.body.dataset.ready = 'true';
  }, []);
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <Box sx={{ display: 'flex', minHeight: '100vh' }}>
        <AppBar position="fixed" sx={{ zIndex: (t) => t.zIndex.drawer + 1 }}>
          <Toolbar variant="dense">
            <Typography variant="h6" component="div" sx={{ flex: 1 }}>
              Callbench
            </Typography>
            <EngineChip />
            <WorkspaceSwitcher />
            <Tooltip title={`Switch to ${mode === 'light' ? 'dark' : 'light'} theme`}>
              <IconButton
                color="inherit"
                aria-label="Switch theme"
                onClick={() => setTheme(mode === 'light' ? 'dark' : 'light')}
              >
                {mode === 'light' ? '☾' : '☀'}
              </IconButton>
            </Tooltip>
            <SignOut />
          </Toolbar>
        </AppBar>
        <Drawer
          variant="permanent"
          sx={{ width: WIDTH, [`& .MuiDrawer-paper`]: { width: WIDTH, boxSizing: 'border-box' } }}
        >
          <Toolbar variant="dense" />
          <nav aria-label="Sections">
            <List dense>
              {/* Each button in its own item: a list holds only list items (axe: list). */}
              {NAV.map(([path, label]) => (
                <ListItem key={label} disablePadding>
                  <ListItemButton
                    selected={
                      (route[0] ?? '') === path ||
                      (path === 'executions' && route[0] === 'simulations')
                    }
                    onClick={() => navigate(path)}
                  >
                    <ListItemText primary={label} />
                  </ListItemButton>
                </ListItem>
              ))}
            </List>
          </nav>
        </Drawer>
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Toolbar variant="dense" />
          {/* Another workspace, or a suite applied to it: every screen starts over with its data. */}
          <Screen key={`${workspaceId}:${suiteApplied}`} route={route} />
        </Box>
      </Box>
    </ThemeProvider>
  );
}
