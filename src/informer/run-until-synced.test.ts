import { describe, expect, it } from 'vitest';
import { CliError, ClusterError } from '../errors.js';
import type { Kube } from '../kube/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { FakeListerWatcher, fakeErrors } from '../../tools/testing/fake-lister-watcher.js';
import { runUntilSynced } from './run-until-synced.js';
import { SharedIndexInformer } from './shared-informer.js';

const kube = { connection: { server: 'https://fake:6443', userName: 'tester' } } as unknown as Kube;

function informer(lw: FakeListerWatcher, clock: FakeClock): SharedIndexInformer {
  return new SharedIndexInformer(lw, { clock, name: lw.description });
}

/** Steps the fake clock until the promise settles; returns its result or rejection. */
async function outcome(clock: FakeClock, p: Promise<void>, maxMs = 120_000): Promise<{ ok: true } | { ok: false; error: unknown }> {
  let result: { ok: true } | { ok: false; error: unknown } | undefined;
  p.then(
    () => (result = { ok: true }),
    (error: unknown) => (result = { ok: false, error }),
  );
  for (let t = 0; t <= maxMs && !result; t += 50) await clock.step(50);
  if (!result) throw new Error('still pending');
  return result;
}

describe('runUntilSynced', () => {
  it('starts the informers and resolves once every cache has synced', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const informers = [
      informer(new FakeListerWatcher({ description: 'a', objects: [{ metadata: { name: 'x', namespace: 'n' } }] }), clock),
      informer(new FakeListerWatcher({ description: 'b' }), clock),
    ];
    expect(await outcome(clock, runUntilSynced(kube, informers, { signal: ac.signal, timeoutMs: 5_000, clock }))).toEqual({ ok: true });
    expect(informers.every((i) => i.hasStarted() && i.hasSynced())).toBe(true);
    expect(informers[0]!.getStore().list()).toHaveLength(1);
    ac.abort();
  });

  it('resolves as the last cache syncs, also when the lists were empty, not at the next 100 ms check', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const started = clock.now();
    const informers = [informer(new FakeListerWatcher({ description: 'empty' }), clock), informer(new FakeListerWatcher({ description: 'also empty' }), clock)];
    let done = false;
    void runUntilSynced(kube, informers, { signal: ac.signal, timeoutMs: 5_000, clock }).then(() => (done = true));
    for (let i = 0; i < 10 && !done; i++) await clock.step(0);
    expect(done).toBe(true);
    expect(clock.now()).toBe(started);
    ac.abort();
  });

  it('fails at once, as the user reads it, when the first list is refused', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const lw = new FakeListerWatcher({ description: 'pods in n' });
    lw.failList(fakeErrors.forbidden('pods is forbidden: User "tester" cannot list resource "pods"'));
    const seen: string[] = [];
    const r = await outcome(
      clock,
      runUntilSynced(kube, [informer(lw, clock)], { signal: ac.signal, timeoutMs: 60_000, clock, onEvent: (e) => seen.push(e.kind) }),
    );
    expect(r.ok).toBe(false);
    expect((r as { error: unknown }).error).toBeInstanceOf(CliError);
    expect(((r as { error: unknown }).error as Error).message).toMatch(/forbidden/);
    // The refusal is the error; it is not also passed on as progress.
    expect(seen).not.toContain('list-failed');
    expect(clock.now() - Date.UTC(2026, 0, 1)).toBeLessThan(1_000);
    ac.abort();
  });

  it('no longer waits for an informer that its own signal stopped before it synced, and leaves it unsynced', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const own = new AbortController();
    const lw = new FakeListerWatcher({ description: 'never synced' });
    lw.failList(...Array.from({ length: 50 }, () => fakeErrors.internalError()));
    const stopped = new SharedIndexInformer(lw, { clock, name: lw.description, signal: own.signal });
    const other = informer(new FakeListerWatcher({ description: 'synced', objects: [{ metadata: { name: 'x', namespace: 'n' } }] }), clock);
    const p = runUntilSynced(kube, [stopped, other], { signal: ac.signal, timeoutMs: 60_000, clock });
    await clock.step(2_000);
    own.abort();
    expect(await outcome(clock, p)).toEqual({ ok: true });
    expect(clock.now() - Date.UTC(2026, 0, 1)).toBeLessThan(3_000);
    expect(stopped.isStopped()).toBe(true);
    expect(stopped.hasSynced()).toBe(false);
    expect(other.isStopped()).toBe(false);
    // Asked again, a stopped informer is not waited for either.
    expect(await outcome(clock, runUntilSynced(kube, [stopped, other], { signal: ac.signal, timeoutMs: 60_000, clock }))).toEqual({ ok: true });
    ac.abort();
  });

  it('gives up after the timeout on the injected clock, naming the caches that did not sync', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const lw = new FakeListerWatcher({ description: 'slow' });
    lw.failList(...Array.from({ length: 50 }, () => fakeErrors.internalError()));
    const r = await outcome(clock, runUntilSynced(kube, [informer(lw, clock)], { signal: ac.signal, timeoutMs: 3_000, clock }));
    expect(r.ok).toBe(false);
    const err = (r as { error: unknown }).error as ClusterError;
    expect(err).toBeInstanceOf(ClusterError);
    expect(err.message).toMatch(/^informer caches did not sync within 3s: slow/);
    expect(clock.now() - Date.UTC(2026, 0, 1)).toBeGreaterThanOrEqual(3_000);
    expect(clock.now() - Date.UTC(2026, 0, 1)).toBeLessThan(3_200);
    ac.abort();
  });
});
