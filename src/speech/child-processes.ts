import { spawn, type ChildProcess } from 'node:child_process';
import { childEnv } from '../child-env.js';

/** The program is not on this machine (spawn's ENOENT). */
export class CommandMissing extends Error {
  constructor(readonly command: string) {
    super(`${command} was not found`);
    this.name = 'CommandMissing';
  }
}

export interface ProcessRun {
  command: string;
  args: string[];
  /**
   * Added to the child's minimal environment (how values reach a script without being quoted in);
   * nothing else of this process's environment reaches it (src/child-env.ts).
   */
  env?: Record<string, string>;
  /** Aborting kills the process; the run then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Past this much stdout the process is killed and the run fails. */
  maxOutputBytes: number;
}

export interface ProcessResult {
  stdout: Buffer;
  stderr: string;
  code: number | null;
}

/** Keeps what stderr says short enough to quote in an error. */
const STDERR_KEPT = 2000;

/**
 * Runs programs to completion, collecting their output, and can kill every one still running:
 * the speech engine ends its synthesisers when it closes, whoever started them.
 */
export class ChildProcesses {
  private readonly running = new Map<ChildProcess, (reason: Error) => void>();

  run(options: ProcessRun): Promise<ProcessResult> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const child = spawn(options.command, options.args, {
        env: childEnv(options.env),
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      });
      const out: Buffer[] = [];
      let outBytes = 0;
      let stderr = '';
      let failure: Error | null = null;
      const stop = (reason: Error): void => {
        failure ??= reason;
        child.kill('SIGKILL');
      };
      const onAbort = (): void => stop(signal?.reason as Error);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.running.set(child, stop);

      child.stdout.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > options.maxOutputBytes)
          stop(new Error(`${options.command} wrote more than ${options.maxOutputBytes} bytes`));
        else out.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8');
      });
      const settle = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.running.delete(child);
      };
      child.on('error', (err: NodeJS.ErrnoException) => {
        settle();
        reject(err.code === 'ENOENT' ? new CommandMissing(options.command) : (failure ?? err));
      });
      child.on('close', (code) => {
        settle();
        if (failure) reject(failure);
        else resolve({ stdout: Buffer.concat(out), stderr: stderr.slice(0, STDERR_KEPT), code });
      });
    });
  }

  /** Kills every running process; each one's run rejects with `reason`. */
  killAll(reason: Error): void {
    for (const stop of this.running.values()) stop(reason);
  }

  get count(): number {
    return this.running.size;
  }
}
