import { AsyncLocalStorage } from 'node:async_hooks';

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
