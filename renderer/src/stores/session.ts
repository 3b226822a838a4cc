import { create } from 'zustand';
import type { Client } from '../client';

/** Who we talk to and where we are: the client, the workspace, the theme and the current route. */
interface SessionState {
  client: Client | null;
  workspaceId: string | null;
  theme: 'light' | 'dark';
  route: string[];
  /** Set when the page has no key (browser mode) or the key was refused. */
  needsKey: boolean;
  setClient: (client: Client, workspaceId: string) => void;
  /** Shows another workspace (remembered for the next start); detail pages go back to their list. */
  setWorkspace: (workspaceId: string) => void;
  setTheme: (theme: 'light' | 'dark') => void;
  navigate: (path: string) => void;
  askForKey: () => void;
  /** Forgets the key this page was given, if any, and asks again (after the engine's logout). */
  signedOut: () => void;
}

/** Where a key typed into the page (browser mode) is remembered. */
export const KEY_STORAGE = 'callbench.apiKey';

/** Where the workspace last shown is remembered. */
export const WORKSPACE_STORAGE = 'callbench.workspace';

const routeOf = (hash: string): string[] => hash.replace(/^#\/?/, '').split('/').filter(Boolean);

export const useSession = create<SessionState>((set) => ({
  client: null,
  workspaceId: null,
  theme: (localStorage.getItem('callbench.theme') as 'light' | 'dark' | null) ?? 'light',
  route: routeOf(location.hash),
  needsKey: false,
  setClient: (client, workspaceId) => set({ client, workspaceId, needsKey: false }),
  setWorkspace(workspaceId) {
    localStorage.setItem(WORKSPACE_STORAGE, workspaceId);
    set({ workspaceId });
    const [section] = useSession.getState().route;
    useSession.getState().navigate(section ?? '');
  },
  setTheme(theme) {
    localStorage.setItem('callbench.theme', theme);
    set({ theme });
    // In the desktop app the theme is a desktop preference, kept with the window's other settings.
    const c = useSession.getState().client;
    if (c?.transport === 'ipc')
      void c.invoke('desktop.preferences.update', { theme }).catch(() => {});
  },
  navigate(path) {
    location.hash = `#/${path.replace(/^\//, '')}`;
  },
  askForKey: () => set({ needsKey: true }),
  signedOut() {
    localStorage.removeItem(KEY_STORAGE);
    set({ needsKey: true, client: null });
  },
}));

window.addEventListener('hashchange', () => useSession.setState({ route: routeOf(location.hash) }));

/** The client, once connected (screens render only after that). */
export const client = (): Client => useSession.getState().client!;
export const ws = (): string => useSession.getState().workspaceId!;
/** Workspace operations take the workspace id with the rest of their input. */
/** An operation's input on the current workspace. */
export const wsInput = <T extends object = Record<never, never>>(
  input?: T,
): T & { workspace_id: string } =>
  ({ workspace_id: ws(), ...(input ?? {}) }) as T & { workspace_id: string };
