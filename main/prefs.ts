import { z } from 'zod';
import type { Bounds } from './window.js';

/** Desktop-only preferences (electron-store); everything else lives in the engine's store. */
export interface DesktopPrefs {
  windowBounds: Bounds;
  theme: 'light' | 'dark' | 'system';
  server: { enabled: boolean; port: number };
  team: TeamPrefs;
}

/**
 * The team server: its URL, its API key sealed by the OS keychain (safeStorage, base64; never the
 * key itself), and which engine the window talks to.
 */
export interface TeamPrefs {
  url: string | null;
  sealedKey: string | null;
  inUse: 'local' | 'team';
}

export const NO_TEAM: TeamPrefs = { url: null, sealedKey: null, inUse: 'local' };

export const DEFAULT_PREFS: DesktopPrefs = {
  windowBounds: { width: 1280, height: 820 },
  theme: 'system',
  server: { enabled: true, port: 4477 },
  team: NO_TEAM,
};

/** What the Settings screen may change. */
export const PrefsPatch = z.strictObject({
  theme: z.enum(['light', 'dark', 'system']).optional(),
  server: z
    .strictObject({
      enabled: z.boolean().optional(),
      port: z.number().int().min(1_024).max(65_535).optional(),
    })
    .optional(),
});

/** The subset of electron-store main uses (a Map-backed fake in tests). */
export interface PrefsStore {
  get<K extends keyof DesktopPrefs>(key: K): DesktopPrefs[K];
  set<K extends keyof DesktopPrefs>(key: K, value: DesktopPrefs[K]): void;
}
