/**
 * A promise raced against an AbortSignal: what Go gets from selecting on ctx.Done() beside a call.
 * The informer uses it so that a ListerWatcher that ignores its signal cannot keep it from
 * stopping; leader election, so that a client that ignores it cannot hold a renew attempt past its
 * deadline.
 */

/** The error a call rejects with when its signal aborted first: the abort reason when it is an Error. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const err = new Error(typeof reason === 'string' ? reason : 'aborted');
  err.name = 'AbortError';
  return err;
}

/**
 * Settles with `promise`, or rejects with abortError(signal) as soon as `signal` aborts (at once
 * when it already has). The promise is left to finish: a value it resolves with after the abort is
 * passed to `onLate` (to stop a late watch, say), and a late rejection is ignored. Without a
 * signal, `promise` itself is returned.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined, onLate?: (value: T) => void): Promise<T> {
  if (!signal) return promise;
  const late = (): void => {
    promise.then(
      (v) => onLate?.(v),
      () => {},
    );
  };
  if (signal.aborted) {
    late();
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      late();
      reject(abortError(signal));
    };
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

/** Resolves when `signal` aborts (at once when it already has); never rejects. */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
