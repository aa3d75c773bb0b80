import { describe, expect, it } from 'vitest';
import type { LeaseSnapshot } from '../lease/index.js';
import { LeaseWindow } from './lease.js';
import type { LeaseCheckSpec } from './types.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0);
const spec: LeaseCheckSpec = { kind: 'lease', name: 'lease kube-system/kcm', namespace: 'kube-system', lease: 'kcm', maxRenewAgeMs: 10_000, maxTransitions: 1, windowMs: 30_000, origin: { source: 'flags' } };

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
    expect(age!.message).toBe('no renewal for 1h since 2026-01-01T11:00:00.000Z, over the 10.0s limit (holder a, valid) (watched 250ms of the 30.0s window: the renew age limit was exceeded)');
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
    w.acquired({ type: 'acquired', lease: { namespace: 'kube-system', name: 'kcm' }, at: T + 5_000, holder: 'b', previousHolder: 'a', failoverGapMs: 1_000, transitions: 5, acquireTime: null });
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
      message: '3 holder changes in 9.00s: a → b at 2026-01-01T12:00:05.000Z, over the limit of 1 (watched 9.00s of the 30.0s window: the transitions limit was exceeded)',
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
