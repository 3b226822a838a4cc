import { CommandMissing, type ChildProcesses } from './child-processes.js';
import { missingVoiceProgram, powershellArgs } from './system-voice.js';

/** PowerShell's first start on a cold machine can take seconds. */
const CHECK_TIMEOUT_MS = 15_000;
const LISTING_BYTES = 1024 * 1024;

const LIST_WINDOWS_VOICES = `
$ProgressPreference = 'SilentlyContinue'
$ErrorActionPreference = 'Stop'
[Console]::OutputEncoding = [System.Text.Encoding]::UTF8
try {
  Add-Type -AssemblyName System.Speech
  $synth = New-Object System.Speech.Synthesis.SpeechSynthesizer
  try {
    foreach ($voice in $synth.GetInstalledVoices()) { if ($voice.Enabled) { $voice.VoiceInfo.Name } }
  } finally { $synth.Dispose() }
} catch {
  [Console]::Error.WriteLine($_.Exception.Message)
  exit 1
}
`;

/** macOS `say -v ?` lines: the name, two or more spaces, the locale, then `# sample text`. */
const sayVoiceNames = (listing: string): string[] =>
  listing
    .split('\n')
    .map((line) => line.split(/\s{2,}/)[0]?.trim() ?? '')
    .filter(Boolean);

/**
 * Why the system voice `voiceId` cannot speak on this machine, or null. Linux asks espeak-ng to
 * load the voice without speaking; macOS and Windows list their installed voices.
 */
export async function systemVoiceProblem(
  voiceId: string | null,
  context: { processes: ChildProcesses; platform: NodeJS.Platform },
): Promise<string | null> {
  const { platform, processes } = context;
  const signal = AbortSignal.timeout(CHECK_TIMEOUT_MS);
  const run = (command: string, args: string[]) =>
    processes.run({ command, args, signal, maxOutputBytes: LISTING_BYTES });
  try {
    if (platform === 'darwin') {
      const listing = await run('say', ['-v', '?']);
      if (!voiceId || sayVoiceNames(listing.stdout.toString('utf8')).includes(voiceId)) return null;
      return `the macOS voice "${voiceId}" is not installed (see \`say -v ?\` for the installed ones)`;
    }
    if (platform === 'win32') {
      const listing = await run('powershell.exe', powershellArgs(LIST_WINDOWS_VOICES));
      if (listing.code !== 0) return `Windows speech is unavailable: ${listing.stderr.trim()}`;
      const names = listing.stdout
        .toString('utf8')
        .split(/\r?\n/)
        .map((name) => name.trim());
      if (!voiceId || names.includes(voiceId)) return null;
      return `the Windows voice "${voiceId}" is not installed (installed: ${names.filter(Boolean).join(', ')})`;
    }
    const voice = voiceId ?? 'en-us';
    const loaded = await run('espeak-ng', ['-q', '-v', voice, '--', '']);
    if (loaded.code === 0) return null;
    return `the espeak-ng voice "${voice}" is not installed (see \`espeak-ng --voices\` for the installed ones)`;
  } catch (err) {
    if (err instanceof CommandMissing) return missingVoiceProgram(platform);
    if (signal.aborted)
      return `the system voice did not answer within ${CHECK_TIMEOUT_MS / 1000} s`;
    return `the system voice could not be checked: ${err instanceof Error ? err.message : String(err)}`;
  }
}
