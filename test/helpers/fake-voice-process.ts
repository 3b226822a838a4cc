import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { BrainOptions, FakeBrainRecord } from './fake-voice-brain.js';

/**
 * The fake Twilio agent and its speech-to-text server in a process of their own
 * (voice-fakes-process.ts): what they do and when is on their own clock, whatever this process's
 * thread is doing. Tests that hold the engine's thread up on purpose need the far side elsewhere.
 */
export interface VoiceFakesProcess {
  delayMs: number;
  mediaStreamUrl: string;
  agentUrl: string;
  sttUrl: string;
  /** What each call's brain recorded, on the fakes' clock. */
  truth(): Promise<FakeBrainRecord[]>;
  stop(): Promise<void>;
}

export async function startVoiceFakesProcess(
  brain: Partial<BrainOptions> = {},
): Promise<VoiceFakesProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/helpers/voice-fakes-process.ts', JSON.stringify(brain)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the voice fakes exited (${code})`)));
  });
  const urls = JSON.parse(first) as {
    delayMs: number;
    mediaStreamUrl: string;
    agentUrl: string;
    sttUrl: string;
    truthUrl: string;
  };
  return {
    ...urls,
    truth: async () => (await (await fetch(urls.truthUrl)).json()) as FakeBrainRecord[],
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
