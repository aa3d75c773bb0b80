import { describe, expect, it } from 'vitest';
import { abortable, abortError, whenAborted } from './abort.js';

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('a promise raced against an abort signal', () => {
  it('settles with the promise while the signal has not aborted', async () => {
    const ac = new AbortController();
    await expect(abortable(Promise.resolve(7), ac.signal)).resolves.toBe(7);
    await expect(abortable(Promise.reject(new Error('refused')), ac.signal)).rejects.toThrow('refused');
  });

  it('rejects with the abort reason as soon as the signal aborts, and hands a late value to onLate', async () => {
    const ac = new AbortController();
    const call = deferred<string>();
    const late: string[] = [];
    const raced = abortable(call.promise, ac.signal, (v) => late.push(v));
    const reason = new Error('deadline passed');
    ac.abort(reason);
    await expect(raced).rejects.toBe(reason);
    call.resolve('watch');
    await call.promise;
    await Promise.resolve();
    expect(late).toEqual(['watch']);
  });

  it('rejects at once when the signal has already aborted; a late rejection is ignored', async () => {
    const ac = new AbortController();
    ac.abort(new Error('stopped'));
    const call = deferred<number>();
    const late: number[] = [];
    await expect(abortable(call.promise, ac.signal, (v) => late.push(v))).rejects.toThrow('stopped');
    call.reject(new Error('too late'));
    await call.promise.catch(() => {});
    expect(late).toEqual([]);
  });

  it('a value that came before the abort is not late', async () => {
    const ac = new AbortController();
    const late: number[] = [];
    await expect(abortable(Promise.resolve(1), ac.signal, (v) => late.push(v))).resolves.toBe(1);
    ac.abort();
    await Promise.resolve();
    expect(late).toEqual([]);
  });

  it('without a signal it is the promise itself', () => {
    const p = Promise.resolve(1);
    expect(abortable(p, undefined)).toBe(p);
  });

  it('an abort reason that is not an Error becomes an AbortError carrying it', () => {
    const ac = new AbortController();
    ac.abort('shutting down');
    expect(abortError(ac.signal)).toMatchObject({ name: 'AbortError', message: 'shutting down' });
    const plain = new AbortController();
    plain.abort();
    expect(abortError(plain.signal)).toBe(plain.signal.reason);
  });
});

describe('waiting for an abort', () => {
  it('resolves when the signal aborts, and at once when it has', async () => {
    const ac = new AbortController();
    let resolved = false;
    const waiting = whenAborted(ac.signal).then(() => (resolved = true));
    await Promise.resolve();
    expect(resolved).toBe(false);
    ac.abort();
    await waiting;
    expect(resolved).toBe(true);
    await expect(whenAborted(ac.signal)).resolves.toBeUndefined();
  });
});
