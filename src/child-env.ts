/**
 * The environment of every child process the engine starts (espeak-ng, say, PowerShell, the SQLite
 * reader). A child never inherits the engine's: that holds CALLBENCH_SECRET_KEY, API keys and
 * model keys, which a voice program or a reader has no use for and could leak (a crash dump, a
 * plugin, /proc). It gets what finds programs, its home, its locale and its temp dir, and on
 * Windows the few variables without which a program cannot start at all.
 */
const KEPT = new Set([
  'PATH',
  'HOME',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  // Windows: the system folder (Winsock and COM need it), the profile, how programs are found.
  'SYSTEMROOT',
  'WINDIR',
  'SYSTEMDRIVE',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'PATHEXT',
  'COMSPEC',
]);

/** Locale categories (LC_ALL, LC_CTYPE...) decide how a voice reads its text. */
const isKept = (name: string): boolean => {
  const upper = name.toUpperCase(); // Windows names are case-insensitive: Path, SystemRoot
  return KEPT.has(upper) || upper.startsWith('LC_');
};

/**
 * The minimal environment taken from `from`, plus `extra` (a child's own inputs, such as the text
 * a PowerShell script speaks).
 */
export function childEnv(
  extra: Record<string, string> = {},
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(from))
    if (value !== undefined && isKept(name)) env[name] = value;
  return { ...env, ...extra };
}
