import { create } from 'zustand';
import type { InputOf, OutputOf } from '../client';
import { client } from './session';

export type TeamView = OutputOf<'desktop.team.get'>;

/**
 * Desktop only: which engine the window talks to (this computer's, or a team server), shared by
 * the app bar and Settings. Main keeps the URL and the sealed key; the page never sees the key.
 * After a switch main reloads the page, so every screen reads from the engine now in use.
 */
interface TeamState {
  /** Null until loaded, and always in browser mode (a page served by one engine). */
  view: TeamView | null;
  load: () => Promise<void>;
  save: (input: InputOf<'desktop.team.save'>) => Promise<void>;
  /** Main reloads the page after answering. */
  switchTo: (target: TeamView['inUse']) => Promise<void>;
  forget: () => Promise<void>;
}

export const useTeam = create<TeamState>((set) => ({
  view: null,
  async load() {
    if (client().transport === 'ipc') set({ view: await client().invoke('desktop.team.get') });
  },
  async save(input) {
    set({ view: await client().invoke('desktop.team.save', input) });
  },
  async switchTo(target) {
    set({ view: await client().invoke('desktop.team.use', { target }) });
  },
  async forget() {
    set({ view: await client().invoke('desktop.team.forget') });
  },
}));

/** "Team server · host:port" while it is in use, "This computer" otherwise. */
export function engineLabel(view: TeamView): string {
  if (view.inUse !== 'team' || !view.url) return 'This computer';
  try {
    return `Team server · ${new URL(view.url).host}`;
  } catch {
    return 'Team server';
  }
}
