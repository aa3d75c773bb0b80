/**
 * Time is passed in, never read from globals, so that the informer, workqueue and leader-election
 * code can be driven by a fake clock in tests (tools/testing/fake-clock.ts).
 */
export interface Timer {
  /** Cancels the timer; returns false when it had already fired or been cancelled. */
  stop(): boolean;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls fn once after `ms` milliseconds. */
  setTimer(ms: number, fn: () => void): Timer;
  /** Resolves after `ms` milliseconds, or early (without rejecting) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

class RealClock implements Clock {
  now(): number {
    return Date.now();
  }

  setTimer(ms: number, fn: () => void): Timer {
    let fired = false;
    let stopped = false;
    const handle = setTimeout(
      () => {
        fired = true;
        fn();
      },
      Math.max(0, ms),
    );
    return {
      stop: () => {
        if (fired || stopped) return false;
        stopped = true;
        clearTimeout(handle);
        return true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = (): void => {
        clearTimeout(handle);
        resolve();
      };
      const handle = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

export const realClock: Clock = new RealClock();
