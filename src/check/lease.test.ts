import { describe, expect, it } from 'vitest';
import type { Lease } from '../kube/index.js';
import { formatMicroTime, type LeaseSnapshot } from '../lease/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { FakeListerWatcher } from '../../tools/testing/fake-lister-watcher.js';
import type { RunContext } from './context.js';
import { LeaseWindow, watchLease, type StartInformer } from './lease.js';
import type { CheckResult, LeaseCheckSpec } from './types.js';
import { createReadiness } from '../readiness/index.js';

const readiness = await createReadiness();

const T = Date.UTC(2026, 0, 1, 12, 0, 0);
const spec: LeaseCheckSpec = {
  kind: 'lease',
  name: 'lease kube-system/kcm',
  namespace: 'kube-system',
  lease: 'kcm',
  maxRenewAgeMs: 10_000,
  maxTransitions: 1,
  windowMs: 30_000,
  origin: { source: 'flags' },
};

function snap(now: number, observedTime: number, extra: Partial<LeaseSnapshot> = {}): LeaseSnapshot {
  return {
    namespace: 'kube-system',
    name: 'kcm',
    holder: 'a',
    state: 'valid',
    renewAgeMs: now - observedTime,
    expiresInMs: observedTime + 15_000 - now,
    leaseDurationSeconds: 15,
    acquireTime: null,
    renewTime: new Date(observedTime).toISOString(),
    transitions: 4,
    heldForMs: 0,
    strategy: null,
    preferredHolder: null,
    renewedSincePreferred: null,
    lastHolder: null,
    observedTime,
    lastReceivedAt: observedTime,
    resourceVersion: '1',
    skew: null,
    history: [],
    ...extra,
  };
}

describe('what a lease did over the window', () => {
  it('passes a lease renewed every 2 s with no holder change', () => {
    const w = new LeaseWindow(spec, T);
    for (let t = 0; t <= 30_000; t += 250) w.sample(snap(T + t, T + Math.floor(t / 2_000) * 2_000), T + t);
    expect(w.exceeded()).toBeUndefined();
    expect(w.results(T + 30_000)).toEqual([
      { name: 'renew age', passed: true, status: 'passed', measured: 1_750, limit: 10_000, unit: 'ms', message: 'longest without a renewal: 1.75s (holder a)' },
      { name: 'transitions', passed: true, status: 'passed', measured: 0, limit: 1, unit: 'count', message: 'no holder change in 30.0s (holder a)' },
    ]);
  });

  it('until the record changes, the age of the renewTime the holder wrote counts: a long-dead lease does not pass', () => {
    const w = new LeaseWindow(spec, T);
    // First seen now, but renewTime says an hour ago; the record never changes.
    w.sample(snap(T, T, { renewTime: new Date(T - 3_600_000).toISOString(), state: 'valid' }), T);
    expect(w.exceeded()).toBe('the renew age limit was exceeded');
    const [age] = w.results(T + 250);
    expect(age).toMatchObject({ status: 'failed', measured: 3_600_000 });
    expect(age!.message).toBe(
      'no renewal for 1h since 2026-01-01T11:00:00.000Z, over the 10.0s limit (holder a, valid) (watched 250ms of the 30.0s window: the renew age limit was exceeded)',
    );
  });

  it('after a change only our clock counts, and a holder that stops renewing fails the check early', () => {
    const w = new LeaseWindow(spec, T);
    w.sample(snap(T, T, { renewTime: new Date(T - 1_000).toISOString() }), T);
    w.sample(snap(T + 2_000, T + 2_000), T + 2_000);
    w.sample(snap(T + 11_000, T + 2_000, { state: 'expiring' }), T + 11_000);
    expect(w.exceeded()).toBeUndefined();
    w.sample(snap(T + 12_500, T + 2_000, { state: 'expiring' }), T + 12_500);
    expect(w.exceeded()).toBe('the renew age limit was exceeded');
    expect(w.results(T + 12_500)[0]).toMatchObject({ status: 'failed', measured: 10_500 });
  });

  it('counts holder changes, and leaseTransitions increases it did not see as events', () => {
    const w = new LeaseWindow(spec, T);
    w.sample(snap(T, T), T);
    w.acquired({
      type: 'acquired',
      lease: { namespace: 'kube-system', name: 'kcm' },
      at: T + 5_000,
      holder: 'b',
      previousHolder: 'a',
      failoverGapMs: 1_000,
      transitions: 5,
      acquireTime: null,
      previousEndReason: 'replaced',
    });
    w.sample(snap(T + 5_000, T + 5_000, { holder: 'b', transitions: 5 }), T + 5_000);
    expect(w.exceeded()).toBeUndefined();
    // A relist: the lease went b → c → d between two events we saw.
    w.sample(snap(T + 9_000, T + 9_000, { holder: 'd', transitions: 7 }), T + 9_000);
    expect(w.exceeded()).toBe('the transitions limit was exceeded');
    expect(w.results(T + 9_000)[1]).toEqual({
      name: 'transitions',
      passed: false,
      status: 'failed',
      measured: 3,
      limit: 1,
      unit: 'count',
      message:
        '3 holder changes in 9.00s: a → b at 2026-01-01T12:00:05.000Z, over the limit of 1 (watched 9.00s of the 30.0s window: the transitions limit was exceeded)',
    });
  });

  it('fails when the lease is deleted', () => {
    const w = new LeaseWindow(spec, T);
    w.sample(snap(T, T), T);
    w.deleted(T + 1_000);
    expect(w.exceeded()).toBe('the lease was deleted');
    expect(w.results(T + 1_000).map((r) => [r.status, r.measured, r.message.split(' (')[0]])).toEqual([
      ['failed', null, 'the lease was deleted at 2026-01-01T12:00:01.000Z'],
      ['failed', 0, 'the lease was deleted at 2026-01-01T12:00:01.000Z'],
    ]);
  });
});

describe('the lease check over time', () => {
  /** The record as the holder writes it: a renewal is a renewTime in another second (the record keeps seconds). */
  function lease(holder: string, renewedAt: number, transitions: number): Lease {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { namespace: 'kube-system', name: 'kcm' },
      spec: { holderIdentity: holder, leaseDurationSeconds: 15, renewTime: formatMicroTime(renewedAt), leaseTransitions: transitions },
    };
  }

  const startInformer: StartInformer = async (informer, signal) => {
    void informer.run(signal);
    await informer.waitForCacheSync(signal);
  };

  /** A check started on a fake clock, run until its cache has synced and its window began (t0). */
  async function start(check: Partial<LeaseCheckSpec>, objects: Lease[] = [lease('a', T, 0)]) {
    const clock = new FakeClock(T);
    const lw = new FakeListerWatcher({ objects });
    const abort = new AbortController();
    const log: string[] = [];
    const ctx: RunContext = { signal: abort.signal, log: (line) => log.push(line), syncTimeoutMs: 5_000, clock, readiness };
    let results: CheckResult[] | undefined;
    const done = watchLease(lw, 'kube-system', { ...spec, ...check }, ctx, startInformer).then((r) => (results = r));
    while (log.length === 0 && results === undefined && clock.now() < T + 5_000) await clock.step(100);
    const t0 = clock.now();
    return { clock, lw, abort, log, done, t0, at: (ms: number) => new Date(t0 + ms).toISOString(), results: () => results };
  }

  it('runs the whole window while the holder renews, and passes', async () => {
    const c = await start({ windowMs: 20_000 });
    expect(c.log).toEqual(['holder a (valid); watching for 20.0s']);
    for (let t = 0; t < 18_000; t += 2_000) {
      c.lw.modify(lease('a', T + 1_000 + t, 0));
      await c.clock.step(2_000);
    }
    c.lw.modify(lease('a', T + 19_000, 0));
    await c.clock.step(1_999);
    expect(c.results()).toBeUndefined();
    await c.clock.step(1);
    await c.done;
    expect(c.results()).toEqual([
      { name: 'renew age', passed: true, status: 'passed', measured: 2_000, limit: 10_000, unit: 'ms', message: 'longest without a renewal: 2.00s (holder a)' },
      { name: 'transitions', passed: true, status: 'passed', measured: 0, limit: 1, unit: 'count', message: 'no holder change in 20.0s (holder a)' },
    ]);
  });

  it('waits for holder changes and ends early once there are more than the limit allows', async () => {
    const c = await start({});
    await c.clock.step(5_000);
    c.lw.modify(lease('b', T + 5_000, 1));
    await c.clock.step(5_000);
    expect(c.results()).toBeUndefined();
    c.lw.modify(lease('c', T + 10_000, 2));
    // Counted as it arrives; the check ends at its next sample, a quarter of a second later.
    await c.clock.step(250);
    await c.done;
    expect(c.log.slice(1)).toEqual(['the transitions limit was exceeded: ending early']);
    expect(c.results()![1]).toEqual({
      name: 'transitions',
      passed: false,
      status: 'failed',
      measured: 2,
      limit: 1,
      unit: 'count',
      message: `2 holder changes in 10.3s: a → b at ${c.at(5_000)}, b → c at ${c.at(10_000)}, over the limit of 1 (watched 10.3s of the 30.0s window: the transitions limit was exceeded)`,
    });
  });

  it('fails a holder that stops renewing as soon as its renew age is over the limit', async () => {
    const c = await start({ maxTransitions: undefined });
    c.lw.modify(lease('a', T + 1_000, 0));
    await c.clock.step(3_000);
    c.lw.modify(lease('a', T + 4_000, 0));
    await c.clock.step(10_000);
    expect(c.results()).toBeUndefined();
    await c.clock.step(250);
    await c.done;
    expect(c.results()).toEqual([
      {
        name: 'renew age',
        passed: false,
        status: 'failed',
        measured: 10_250,
        limit: 10_000,
        unit: 'ms',
        message: `no renewal for 10.3s since ${c.at(3_000)}, over the 10.0s limit (holder a, expiring) (watched 13.3s of the 30.0s window: the renew age limit was exceeded)`,
      },
    ]);
  });

  it('an interrupt ends the window early, with what was seen until then', async () => {
    const c = await start({});
    c.lw.modify(lease('a', T + 1_000, 0));
    await c.clock.step(4_000);
    c.abort.abort();
    await c.done;
    expect(c.clock.pendingTimers()).toBe(0);
    expect(c.results()!.map((r) => [r.status, r.measured, r.message])).toEqual([
      ['passed', 4_000, 'longest without a renewal: 4.00s (holder a) (watched 4.00s of the 30.0s window: interrupted)'],
      ['passed', 0, 'no holder change in 4.00s (holder a) (watched 4.00s of the 30.0s window: interrupted)'],
    ]);
  });

  it('a lease that is not there fails without waiting for the window', async () => {
    const c = await start({}, []);
    await c.done;
    expect(c.t0 - T).toBeLessThan(1_000);
    expect(c.log).toEqual([]);
    expect(c.results()!.map((r) => [r.name, r.status, r.message])).toEqual([
      ['renew age', 'failed', 'lease kube-system/kcm not found'],
      ['transitions', 'failed', 'lease kube-system/kcm not found'],
    ]);
  });
});
