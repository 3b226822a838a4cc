import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWav } from '../audio/wav.js';
import { CommandMissing, type ChildProcesses } from './child-processes.js';
import type { Slots } from './slots.js';
import { SpeechError } from './types.js';

/**
 * The operating system's own voice, one child process per utterance: it needs no key, no download
 * and no network, and espeak-ng (GPL) stays a separate program that is never linked in.
 */

/** espeak-ng's and `say`'s rate at speed 1, in words per minute. */
const NORMAL_WPM = 175;
/** The most audio one utterance may produce (about 25 minutes at 22 kHz): a runaway guard. */
const MAX_WAV_BYTES = 64 * 1024 * 1024;

export interface SystemVoiceContext {
  processes: ChildProcesses;
  slots: Slots;
  platform: NodeJS.Platform;
}

export interface SpokenAudio {
  pcm: Int16Array;
  sampleRate: number;
}

/** How one platform's voice is run: the program, and where its WAV comes out. */
export interface Recipe {
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** null: the WAV comes on stdout. */
  wavFile: string | null;
}

// Errors go to stderr as plain text ([Console]::Error), not as PowerShell's CLIXML records.
const SPEAK_ON_WINDOWS = `
$ProgressPreference = 'SilentlyContinue'
$ErrorActionPreference = 'Stop'
try {
  Add-Type -AssemblyName System.Speech
  $synth = New-Object System.Speech.Synthesis.SpeechSynthesizer
  try {
    if ($env:CALLBENCH_TTS_VOICE) { $synth.SelectVoice($env:CALLBENCH_TTS_VOICE) }
    $synth.Rate = [int]$env:CALLBENCH_TTS_RATE
    $format = New-Object System.Speech.AudioFormat.SpeechAudioFormatInfo(16000, [System.Speech.AudioFormat.AudioBitsPerSample]::Sixteen, [System.Speech.AudioFormat.AudioChannel]::Mono)
    $synth.SetOutputToWaveFile($env:CALLBENCH_TTS_OUT, $format)
    $synth.Speak([System.Text.Encoding]::UTF8.GetString([System.Convert]::FromBase64String($env:CALLBENCH_TTS_TEXT)))
  } finally { $synth.Dispose() }
} catch {
  [Console]::Error.WriteLine($_.Exception.Message)
  exit 1
}
`;

/**
 * PowerShell arguments for a fixed script. -EncodedCommand (base64 of UTF-16LE) sidesteps Windows
 * command-line quoting; the text, voice and path arrive in environment variables, never in the
 * script itself.
 */
export const powershellArgs = (script: string): string[] => [
  '-NoProfile',
  '-NonInteractive',
  '-ExecutionPolicy',
  'Bypass',
  '-EncodedCommand',
  Buffer.from(script, 'utf16le').toString('base64'),
];

/** Windows' Rate runs -10..10, where each 10 steps is roughly a factor of three in speed. */
const windowsRate = (speed: number): number =>
  Math.max(-10, Math.min(10, Math.round((10 * Math.log(speed)) / Math.log(3))));

/** espeak-ng's pitch runs 0..99 around 50; 1 leaves the voice's own. */
const espeakPitch = (pitch = 1): string[] =>
  pitch === 1 ? [] : ['-p', String(Math.max(0, Math.min(99, Math.round(50 * pitch))))];

/** The program and arguments that speak `line` on `platform` (exported to test all three). */
export function systemVoiceCommand(
  platform: NodeJS.Platform,
  line: { text: string; voiceId: string | null; speed: number; pitch?: number },
  wavFile: string,
): Recipe {
  const wpm = String(Math.round(NORMAL_WPM * line.speed));
  if (platform === 'darwin') {
    const voice = line.voiceId ? ['-v', line.voiceId] : [];
    const format = ['--data-format=LEI16@16000'];
    return {
      command: 'say',
      args: [...voice, '-r', wpm, '-o', wavFile, ...format, '--', line.text],
      wavFile,
    };
  }
  if (platform === 'win32')
    return {
      command: 'powershell.exe',
      args: powershellArgs(SPEAK_ON_WINDOWS),
      env: {
        CALLBENCH_TTS_TEXT: Buffer.from(line.text, 'utf8').toString('base64'),
        CALLBENCH_TTS_VOICE: line.voiceId ?? '',
        CALLBENCH_TTS_RATE: String(windowsRate(line.speed)),
        CALLBENCH_TTS_OUT: wavFile,
      },
      wavFile,
    };
  const voice = line.voiceId ?? 'en-us';
  return {
    command: 'espeak-ng',
    args: ['--stdout', '-v', voice, '-s', wpm, ...espeakPitch(line.pitch), '--', line.text],
    wavFile: null,
  };
}

/** What to do when the platform's voice program is missing. */
export function missingVoiceProgram(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'the macOS `say` command was not found on this Mac';
  if (platform === 'win32')
    return 'powershell.exe was not found: the Windows voice needs Windows PowerShell with System.Speech';
  return 'espeak-ng is not installed: install it (Debian/Ubuntu: `sudo apt-get install espeak-ng`, Fedora: `sudo dnf install espeak-ng`) or choose a cloud voice';
}

/** Speaks `text` through the system voice; the audio comes back untrimmed, at the voice's own rate. */
export async function speakWithSystemVoice(
  line: { text: string; voiceId: string | null; speed: number; pitch?: number },
  context: SystemVoiceContext,
  signal?: AbortSignal,
): Promise<SpokenAudio> {
  const release = await context.slots.acquire(signal);
  const usesFile = context.platform === 'darwin' || context.platform === 'win32';
  let dir: string | null = null;
  try {
    if (usesFile) dir = await mkdtemp(join(tmpdir(), 'callbench-speech-'));
    const recipe = systemVoiceCommand(context.platform, line, join(dir ?? tmpdir(), 'speech.wav'));
    const result = await context.processes
      .run({ ...recipe, signal, maxOutputBytes: MAX_WAV_BYTES })
      .catch((err: unknown) => {
        if (err instanceof CommandMissing)
          throw new SpeechError('system', missingVoiceProgram(context.platform));
        throw err;
      });
    if (result.code !== 0) {
      const said = result.stderr.trim() || 'no message';
      throw new SpeechError(
        'system',
        `${recipe.command} failed (exit code ${result.code}): ${said}`,
      );
    }
    const wav = recipe.wavFile ? await readFile(recipe.wavFile) : result.stdout;
    return readWav(recipe.command, wav);
  } finally {
    release();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

function readWav(command: string, bytes: Uint8Array): SpokenAudio {
  try {
    const { pcm, sampleRate } = parseWav(bytes);
    return { pcm, sampleRate };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new SpeechError('system', `${command} wrote audio that is not a readable WAV: ${why}`);
  }
}
