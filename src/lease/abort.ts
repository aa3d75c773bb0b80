/**
 * Cancellation helpers for the leader elector: Go contexts expressed with AbortSignals whose
 * timeouts run on the injected Clock.
 */
import type { Clock } from '../clock.js';

/** The error a call rejects with when its signal aborted first. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const err = new Error(typeof reason === 'string' ? reason : 'aborted');
  err.name = 'AbortError';
  return err;
}

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts, leaving the promise to finish
 * unobserved. Leader election must stop waiting at its deadline even if a client ignores the
 * signal; the API server's resourceVersion check makes any late write harmless.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** A child signal: aborts with its parent, after `timeoutMs` on `clock` if given, or by hand. */
export class ChildSignal {
  private readonly controller = new AbortController();
  private readonly onParentAbort: () => void;
  private readonly timer: { stop(): boolean } | undefined;

  constructor(
    private readonly parent: AbortSignal | undefined,
    timeout?: { clock: Clock; ms: number; reason: string },
  ) {
    this.onParentAbort = () => this.controller.abort(parent?.reason);
    if (parent?.aborted) this.controller.abort(parent.reason);
    else parent?.addEventListener('abort', this.onParentAbort, { once: true });
    this.timer = timeout?.clock.setTimer(timeout.ms, () => this.controller.abort(new TimeoutError(timeout.reason)));
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    this.controller.abort(reason);
  }

  /** Detaches from the parent and stops the timer; the signal is aborted if it was not yet. */
  dispose(): void {
    this.parent?.removeEventListener('abort', this.onParentAbort);
    this.timer?.stop();
    if (!this.controller.signal.aborted) this.controller.abort(new Error('done'));
  }
}

export class TimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}
