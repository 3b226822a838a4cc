import { fork, type ChildProcess } from 'node:child_process';
import { childEnv } from '../child-env.js';
import { ToolFailure } from './outcome.js';
import type { SqliteReadReply, SqliteReadRequest } from './sqlite-reader.js';

/** Must equal sqlite-reader's READER_FLAG (a type import only: the reader's program stays out of the engine). */
const READER_FLAG = '--callbench-sqlite-reader';

/**
 * The reader's program: beside this module when the engine runs from its TypeScript sources (the
 * CLI and the tests, through tsx), else the desktop bundle's sibling file.
 */
const readerScript = (): URL =>
  new URL(
    import.meta.url.endsWith('.ts') ? './sqlite-reader-from-source.mjs' : './sqlite-reader.mjs',
    import.meta.url,
  );

/** Idle readers kept for the next query; more start when queries run side by side. */
const IDLE_READERS = 2;
const idle: ChildProcess[] = [];

/** An idle reader doesn't keep the engine's process alive; a busy one does. */
function hold(child: ChildProcess, busy: boolean): void {
  if (busy) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}

function startReader(): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = fork(readerScript(), [READER_FLAG], {
      execArgv: [],
      // Never the engine's keys; Electron adds ELECTRON_RUN_AS_NODE to a fork's env itself.
      env: childEnv(),
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const failed = (reason: string) =>
      reject(new ToolFailure('query_error', `The SQLite reader could not start: ${reason}`));
    child.once('message', () => {
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      resolve(child);
    });
    child.once('error', (err) => failed(err.message));
    child.once('exit', (code) => failed(`it exited with code ${code}`));
  });
}

function release(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || !child.connected) return;
  if (idle.length >= IDLE_READERS) {
    child.kill();
    return;
  }
  hold(child, false);
  idle.push(child);
}

/**
 * Runs a read-only SQLite query in a reader process, never on the engine's thread. Past the
 * timeout the reader is killed (the only way to stop SQLite mid-step) and the call is a `timeout`.
 */
export async function readSqliteOffThread(
  request: SqliteReadRequest,
  timeoutMs: number,
): Promise<unknown[]> {
  const child = idle.pop() ?? (await startReader());
  hold(child, true);
  const reply = await new Promise<SqliteReadReply>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      child.removeListener('message', onMessage);
      child.removeListener('exit', onExit);
    };
    const onMessage = (message: SqliteReadReply) => {
      done();
      resolve(message);
    };
    const onExit = (code: number | null, signal: string | null) => {
      done();
      reject(new ToolFailure('query_error', `The SQLite reader stopped (${signal ?? code})`));
    };
    const timer = setTimeout(() => {
      done();
      child.kill('SIGKILL');
      reject(new ToolFailure('timeout', `The query did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send(request);
  });
  release(child);
  if ('error' in reply) throw new ToolFailure(reply.error.type, reply.error.message);
  return reply.rows;
}
