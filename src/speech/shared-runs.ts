/**
 * One run per key however many callers ask at once: a batch of simulations starting together asks
 * for the same scripted lines, and each line should be synthesised once. Every caller can give up
 * on its own (its signal); the run itself is aborted only when the last caller has given up.
 */
interface Run<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
}

export class SharedRuns<T> {
  private readonly runs = new Map<string, Run<T>>();

  join(key: string, start: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const run = this.runs.get(key) ?? this.begin(key, start);
    run.waiters++;
    if (!signal) return run.promise;
    return new Promise<T>((resolve, reject) => {
      const leave = (): void => {
        const giveUp = (): void => reject(signal.reason as Error);
        run.waiters--;
        if (run.waiters > 0) return giveUp();
        if (this.runs.get(key) === run) this.runs.delete(key);
        run.controller.abort(signal.reason);
        // The last caller out waits for the run to wind down (its process killed and reaped), so
        // nothing it started outlives the rejection.
        run.promise.then(giveUp, giveUp);
      };
      signal.addEventListener('abort', leave, { once: true });
      run.promise.then(
        (value) => {
          signal.removeEventListener('abort', leave);
          resolve(value);
        },
        (err: Error) => {
          signal.removeEventListener('abort', leave);
          reject(err);
        },
      );
    });
  }

  /** Aborts every run in progress with `reason`. */
  abortAll(reason: Error): void {
    for (const run of this.runs.values()) run.controller.abort(reason);
    this.runs.clear();
  }

  private begin(key: string, start: (signal: AbortSignal) => Promise<T>): Run<T> {
    const controller = new AbortController();
    const promise = start(controller.signal).finally(() => {
      if (this.runs.get(key) === run) this.runs.delete(key);
    });
    // Every caller may have left before it settles: its failure then has no one to reach.
    promise.catch(() => undefined);
    const run: Run<T> = { promise, controller, waiters: 0 };
    this.runs.set(key, run);
    return run;
  }
}
