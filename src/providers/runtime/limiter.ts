// A FIFO concurrency limiter: at most `maxConcurrency` holders at once, the rest wait in arrival order.

/** Hands out slots; `acquire` resolves with the function that gives the slot back. */
export interface Limiter {
  /** Waits for a free slot. Rejects with the signal's reason if the signal aborts first (the place in line is given up). */
  acquire(signal?: AbortSignal): Promise<() => void>;
}

/** Creates a limiter with `maxConcurrency` slots (at least one). */
export function createLimiter(maxConcurrency: number): Limiter {
  const slots = Math.max(1, Math.floor(maxConcurrency) || 1);
  let active = 0;
  const waiting: (() => void)[] = [];

  const releaser = (): (() => void) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Handing the slot straight to the next in line keeps the order FIFO: no newcomer can take it in between.
      const next = waiting.shift();
      if (next) next();
      else active--;
    };
  };

  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (active < slots) {
        active++;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const onAbort = (): void => {
          waiting.splice(waiting.indexOf(grant), 1);
          reject(signal?.reason);
        };
        const grant = (): void => {
          signal?.removeEventListener("abort", onAbort);
          resolve(releaser());
        };
        waiting.push(grant);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
}
