/** Small helpers for AbortSignal; no client-go counterpart (Go selects on ctx.Done()). */
/**
 * Settles with `p`, or rejects with the abort reason as soon as `signal` aborts, so that a
 * ListerWatcher that ignores its signal cannot keep an informer from stopping. A value that
 * arrives after the abort is passed to `onLate` (to stop a late watch).
 */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal, onLate?: (v: T) => void): Promise<T> {
  if (signal.aborted) {
    p.then((v) => onLate?.(v), () => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      p.then((v) => onLate?.(v), () => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
