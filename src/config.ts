import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';

/**
 * The folder Electron's app.getPath('userData') gives an app named Callbench, so the desktop
 * app and `serve` share one store.
 */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform === 'win32')
    return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Callbench');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Callbench');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Callbench');
}

export const DEFAULT_PORT = 4477;
export const DEFAULT_HOST = '127.0.0.1';

export function osUserName(): string {
  try {
    return userInfo().username || 'local user';
  } catch {
    return 'local user';
  }
}
