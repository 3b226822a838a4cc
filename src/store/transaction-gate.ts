import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Keeps everyone else off a database connection while a transaction holds it. A transaction's body
 * awaits, and while it does, other work's calls would otherwise run on the same connection and
 * land inside the transaction (and be rolled back with it). Calls made while no transaction is
 * open or waiting run at once.
 */
export class TransactionGate {
  /** Settles when the last transaction asked for has ended. */
  private tail: Promise<void> = Promise.resolve();
  /** Transactions open or waiting. */
  private pending = 0;

  /** Runs a call at once when the connection is free, or after the transactions ahead of it. */
  run<R>(call: () => R): Promise<R> {
    return this.pending === 0 ? settle(call) : this.tail.then(call);
  }

  /** Runs body alone: after what is ahead of it, and before anything asked for later. */
  async exclusive<R>(body: () => Promise<R>): Promise<R> {
    const ahead = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    this.pending += 1;
    try {
      await ahead;
      return await body();
    } finally {
      this.pending -= 1;
      release();
    }
  }
}

/** Runs now and answers a promise; a throw becomes a rejection. */
export function settle<R>(run: () => R): Promise<R> {
  try {
    return Promise.resolve(run());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

/**
 * Tells whether code runs inside a transaction's body that is still open. Its body must call the
 * store it was given: a call on the outer store waits for the transaction, which waits for the
 * body. Tracking the body's asynchronous context costs every promise a little, so only tests
 * turn this on.
 */
export class TransactionBodies {
  private readonly context = new AsyncLocalStorage<{ open: boolean }>();

  async run<T>(body: () => Promise<T>): Promise<T> {
    const mark = { open: true };
    try {
      return await this.context.run(mark, body);
    } finally {
      mark.open = false; // work the body started that outlives it may use the outer store
    }
  }

  insideOne(): boolean {
    return this.context.getStore()?.open === true;
  }
}
