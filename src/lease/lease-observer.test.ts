import { describe, expect, it } from 'vitest';
import type { Lease, LeaseSpec } from '../kube/types.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { FakeLeaseClient } from '../../tools/testing/fake-lease-client.js';
import { LeaderElector } from './leader-elector.js';
import { LeaseLock } from './lease-lock.js';
import { LeaseObserver, type LeaseEvent } from './lease-observer.js';
import { formatMicroTime } from './micro-time.js';

const T0 = Date.UTC(2026, 0, 1);
const NS = 'kube-system';
const NAME = 'kube-controller-manager';

let rv = 0;
function lease(spec: LeaseSpec): Lease {
  return { metadata: { namespace: NS, name: NAME, resourceVersion: String(++rv) }, spec };
}

/** A holder's write: `renewAt` is T0-relative on the holder's clock. */
function held(holder: string, renewAt: number, extra: LeaseSpec = {}): Lease {
  return lease({
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: formatMicroTime(T0),
    renewTime: formatMicroTime(T0 + renewAt),
    leaseTransitions: 0,
    ...extra,
  });
}

function setup(): { clock: FakeClock; obs: LeaseObserver; events: LeaseEvent[]; t: () => number } {
  const clock = new FakeClock(T0);
  const events: LeaseEvent[] = [];
  const obs = new LeaseObserver({ clock, onEvent: (e) => events.push(e) });
  return { clock, obs, events, t: () => clock.now() - T0 };
}

describe('LeaseObserver validity (client-go observedTime semantics)', () => {
  it('is valid while observedTime + leaseDurationSeconds > now, whatever renewTime says', async () => {
    const { clock, obs } = setup();
    // renewTime years in the past: still valid, because we only just saw the record.
    obs.observe(held('a', -5 * 365 * 86_400_000));
    expect(obs.snapshotOf(NS, NAME)!.state).toBe('valid');
    expect(obs.isValid(NS, NAME)).toBe(true);
    await clock.step(7_500);
    expect(obs.snapshotOf(NS, NAME)!.state).toBe('valid');
    await clock.step(1);
    expect(obs.snapshotOf(NS, NAME)!.state).toBe('expiring'); // past half the duration
    await clock.step(7_499);
    const snap = obs.snapshotOf(NS, NAME)!;
    expect(snap.state).toBe('expired');
    expect(snap.expiresInMs).toBe(0);
    expect(obs.isValid(NS, NAME)).toBe(false);
    obs.close();
  });

  it('a renewTime in our future does not extend validity', async () => {
    const { clock, obs } = setup();
    obs.observe(held('a', 10 * 365 * 86_400_000));
    await clock.step(15_000);
    expect(obs.snapshotOf(NS, NAME)!.state).toBe('expired');
    obs.close();
  });

  it('the same bytes seen again (resync, polling) do not move observedTime; a change does', async () => {
    const { clock, obs } = setup();
    const first = held('a', 0);
    obs.observe(first);
    await clock.step(10_000);
    obs.observe({ ...first, metadata: { ...first.metadata, resourceVersion: 'resync' } });
    expect(obs.snapshotOf(NS, NAME)!.renewAgeMs).toBe(10_000);
    await clock.step(5_000);
    expect(obs.snapshotOf(NS, NAME)!.state).toBe('expired');
    obs.observe(held('a', 15_000));
    const snap = obs.snapshotOf(NS, NAME)!;
    expect(snap.state).toBe('valid');
    expect(snap.renewAgeMs).toBe(0);
    expect(snap.observedTime).toBe(T0 + 15_000);
    obs.close();
  });

  it('uses the receive time given with the object', () => {
    const { obs } = setup();
    obs.observe(held('a', 0), T0 - 14_000);
    expect(obs.snapshotOf(NS, NAME)!.state).toBe('expiring');
    expect(obs.snapshotOf(NS, NAME)!.renewAgeMs).toBe(14_000);
    obs.close();
  });
});

describe('LeaseObserver renewals', () => {
  it('counts every renewal received, 50 a second, while observedTime moves only when the record changes as client-go compares it (to the second)', async () => {
    const { clock, obs } = setup();
    await clock.step(500); // half a second into T0's second
    obs.observe(held('a', 500));
    const observed: number[] = [];
    for (let i = 1; i <= 150; i++) {
      await clock.step(20);
      obs.observe(held('a', 500 + i * 20));
      observed.push(obs.snapshotOf(NS, NAME)!.observedTime - T0);
    }
    const tenure = obs.snapshotOf(NS, NAME)!.history[0]!;
    expect(tenure.renewsSeen).toBe(150);
    expect(tenure.lastRenewSeenAt).toBe(T0 + 3_500);
    expect(tenure.lastRenewTime).toBe(formatMicroTime(T0 + 3_500));
    expect(tenure.skew?.samples).toBe(150);
    // observedTime: at each second's first renewal only (1 s, 2 s, 3 s after T0).
    expect([...new Set(observed)]).toEqual([500, 1_000, 2_000, 3_000]);
    // The same version again (a resync) is no renewal.
    obs.observe(held('a', 3_500));
    expect(obs.snapshotOf(NS, NAME)!.history[0]!.renewsSeen).toBe(150);
    // Validity as client-go judges it: 15 s from the last change of the record's bytes.
    await clock.step(15_000 - 500 - 1);
    expect(obs.snapshotOf(NS, NAME)!.state).toBe('expiring');
    await clock.step(1);
    expect(obs.snapshotOf(NS, NAME)!.state).toBe('expired');
    obs.close();
  });
});

describe('LeaseObserver skew report', () => {
  it('reports receive time − renewTime for observed renews, without using it for validity', async () => {
    const { clock, obs } = setup();
    // The holder's clock runs 5 s behind ours.
    obs.observe(held('a', -5_000));
    expect(obs.snapshotOf(NS, NAME)!.skew).toBeNull(); // first sight is not a renew we saw happen
    await clock.step(2_000);
    obs.observe(held('a', 2_000 - 5_000));
    await clock.step(2_000);
    obs.observe(held('a', 4_000 - 5_000 + 200)); // 200 ms delivery latency less
    const snap = obs.snapshotOf(NS, NAME)!;
    expect(snap.skew).toEqual({ lastMs: 4_800, minMs: 4_800, maxMs: 5_000, samples: 2 });
    expect(snap.state).toBe('valid');
    expect(snap.history[0]!.renewsSeen).toBe(2);
    expect(snap.history[0]!.lastRenewSeenAt).toBe(T0 + 4_000);
    expect(snap.history[0]!.lastRenewTime).toBe(formatMicroTime(T0 - 800));
    obs.close();
  });

  it('a holder whose clock is ahead shows negative skew', async () => {
    const { clock, obs } = setup();
    obs.observe(held('a', 0));
    await clock.step(2_000);
    obs.observe(held('a', 2_000 + 3_000));
    expect(obs.snapshotOf(NS, NAME)!.skew?.lastMs).toBe(-3_000);
    obs.close();
  });
});

describe('LeaseObserver holder history and failover gap', () => {
  it("after a crash: gap from the expiry we judged to the new holder's first observation", async () => {
    const { clock, obs, events } = setup();
    obs.observe(held('a', 0));
    await clock.step(2_000);
    obs.observe(held('a', 2_000));
    await clock.step(2_000);
    obs.observe(held('a', 4_000)); // last renew we see: expiry judged at +19 s
    await clock.step(15_000);
    expect(events.at(-1)).toEqual({
      type: 'expired',
      lease: { namespace: NS, name: NAME },
      at: T0 + 19_000,
      holder: 'a',
      lastRenewSeenAt: T0 + 4_000,
    });
    await clock.step(3_000);
    obs.observe(held('b', 22_000, { acquireTime: formatMicroTime(T0 + 22_000), leaseTransitions: 1 }));

    const snap = obs.snapshotOf(NS, NAME)!;
    expect(snap.holder).toBe('b');
    expect(snap.transitions).toBe(1);
    expect(snap.history).toHaveLength(2);
    expect(snap.history[0]).toMatchObject({
      holder: 'a',
      firstSeenAt: T0,
      lastRenewSeenAt: T0 + 4_000,
      endedAt: T0 + 19_000,
      endReason: 'expired',
      heldForMs: 19_000,
      failoverGapMs: null,
    });
    expect(snap.history[1]).toMatchObject({
      holder: 'b',
      previousHolder: 'a',
      failoverGapMs: 3_000,
      firstSeenAt: T0 + 22_000,
      transitions: 1,
      acquireTime: formatMicroTime(T0 + 22_000),
      endedAt: null,
    });
    expect(events.filter((e) => e.type === 'acquired')).toEqual([
      expect.objectContaining({ holder: 'a', previousHolder: null, failoverGapMs: null }),
      expect.objectContaining({ holder: 'b', previousHolder: 'a', failoverGapMs: 3_000, transitions: 1 }),
    ]);
    obs.close();
  });

  it('after a release: gap from the release to the new holder', async () => {
    const { clock, obs, events } = setup();
    obs.observe(held('a', 0));
    await clock.step(5_000);
    obs.observe(lease({ holderIdentity: '', leaseDurationSeconds: 1, renewTime: formatMicroTime(T0 + 5_000), leaseTransitions: 0 }));
    let snap = obs.snapshotOf(NS, NAME)!;
    expect(snap.state).toBe('released');
    expect(snap.holder).toBeNull();
    expect(snap.heldForMs).toBeNull();
    expect(events.at(-1)).toEqual({ type: 'released', lease: { namespace: NS, name: NAME }, at: T0 + 5_000, holder: 'a', heldForMs: 5_000, transitions: 0 });
    await clock.step(1_500);
    obs.observe(held('b', 6_500, { leaseTransitions: 1 }));
    snap = obs.snapshotOf(NS, NAME)!;
    expect(snap.history.map((h) => [h.holder, h.endReason, h.failoverGapMs])).toEqual([
      ['a', 'released', null],
      ['b', null, 1_500],
    ]);
    obs.close();
  });

  it('a takeover while the old holder was still valid to us is "replaced" with no gap', async () => {
    const { clock, obs } = setup();
    obs.observe(held('a', 0));
    await clock.step(3_000);
    obs.observe(held('b', 3_000, { leaseTransitions: 1 }));
    const [a, b] = obs.snapshotOf(NS, NAME)!.history;
    expect(a).toMatchObject({ endReason: 'replaced', endedAt: T0 + 3_000, heldForMs: 3_000 });
    expect(b).toMatchObject({ failoverGapMs: 0 });
    obs.close();
  });

  it('held time stops growing once the holder has expired', async () => {
    const { clock, obs } = setup();
    obs.observe(held('a', 0));
    await clock.step(40_000);
    const snap = obs.snapshotOf(NS, NAME)!;
    expect(snap.heldForMs).toBe(15_000);
    expect(snap.history[0]!.heldForMs).toBe(15_000);
    obs.close();
  });

  it('reports deletion and forgets the Lease', async () => {
    const { clock, obs, events } = setup();
    obs.observe(held('a', 0));
    await clock.step(1_000);
    obs.observeDeleted(NS, NAME);
    expect(events.at(-1)).toEqual({ type: 'deleted', lease: { namespace: NS, name: NAME }, at: T0 + 1_000, holder: 'a' });
    expect(obs.snapshot()).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('keeps at most historyLimit tenures', () => {
    const clock = new FakeClock(T0);
    const obs = new LeaseObserver({ clock, historyLimit: 3 });
    for (let i = 0; i < 6; i++) obs.observe(held(`h${i}`, 0, { leaseTransitions: i }));
    expect(obs.snapshotOf(NS, NAME)!.history.map((h) => h.holder)).toEqual(['h3', 'h4', 'h5']);
    obs.close();
  });

  it('snapshots are plain serialisable data with strategy and preferredHolder', () => {
    const { obs } = setup();
    obs.observe(held('a', 0, { strategy: 'OldestEmulationVersion', preferredHolder: 'b' }));
    obs.observe({ ...held('x', 0), metadata: { namespace: 'aaa', name: 'first', resourceVersion: '1' } });
    const all = obs.snapshot();
    expect(all.map((s) => `${s.namespace}/${s.name}`)).toEqual(['aaa/first', `${NS}/${NAME}`]);
    const snap = all[1]!;
    expect(snap).toMatchObject({
      holder: 'a',
      state: 'valid',
      renewAgeMs: 0,
      leaseDurationSeconds: 15,
      acquireTime: formatMicroTime(T0),
      transitions: 0,
      heldForMs: 0,
      strategy: 'OldestEmulationVersion',
      preferredHolder: 'b',
    });
    expect(JSON.parse(JSON.stringify(all))).toEqual(all);
    obs.close();
  });
});

describe('LeaseObserver watching real electors', () => {
  it('sees a crashed leader replaced after leaseDuration and measures the gap', async () => {
    const clock = new FakeClock(T0);
    const client = new FakeLeaseClient(clock);
    const obs = new LeaseObserver({ clock });
    client.onWrite((type, l) => (type === 'DELETED' ? obs.observeDeleted(NS, NAME) : obs.observe(l)));
    const elector = (id: string): LeaderElector =>
      new LeaderElector({
        lock: new LeaseLock({ namespace: NS, name: NAME, identity: id, client }),
        clock,
        random: () => 0.5,
        callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
      });
    const a = new AbortController();
    const b = new AbortController();
    const runA = elector('a').run(a.signal);
    await clock.step(0);
    const runB = elector('b').run(b.signal);
    await clock.step(5_000);
    a.abort(); // a "crashes" without releasing; its last renew was at +4 s
    await runA;
    for (let i = 0; i < 10; i++) await clock.step(2_000);

    const snap = obs.snapshotOf(NS, NAME)!;
    expect(snap.holder).toBe('b');
    expect(snap.transitions).toBe(1);
    const [ta, tb] = snap.history;
    expect(ta).toMatchObject({ holder: 'a', lastRenewSeenAt: T0 + 4_000, endReason: 'expired', endedAt: T0 + 19_000 });
    // b judged a expired at its own observation +6.4 s + 15 s and took over at its next try, +22.4 s.
    expect(tb!.firstSeenAt - T0).toBeCloseTo(22_400, 3);
    expect(tb!.failoverGapMs).toBeCloseTo(3_400, 3);
    b.abort();
    await runB;
    obs.close();
  });

  it('ReleaseOnCancel through the elector: a release, no expiry ever, and the next acquisition names it with its gap', async () => {
    const clock = new FakeClock(T0);
    const events: LeaseEvent[] = [];
    const obs = new LeaseObserver({ clock, onEvent: (e) => events.push(e) });
    const client = new FakeLeaseClient(clock);
    client.onWrite((type, l) => (type === 'DELETED' ? obs.observeDeleted(NS, NAME) : obs.observe(l)));
    const elector = (id: string): LeaderElector =>
      new LeaderElector({
        lock: new LeaseLock({ namespace: NS, name: NAME, identity: id, client }),
        clock,
        random: () => 0.5,
        releaseOnCancel: true,
        callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
      });
    const a = new AbortController();
    const b = new AbortController();
    const runA = elector('a').run(a.signal);
    await clock.step(0);
    const runB = elector('b').run(b.signal);
    await clock.step(5_000);
    const releasedAt = clock.now();
    a.abort();
    await runA;
    // What client-go writes on release: no holder, a 1 s lease, both times the release, transitions kept.
    const written = (await client.get(NS, NAME))!.spec!;
    expect(written).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 });
    expect(written.renewTime).toBe(written.acquireTime);
    expect(events.filter((e) => e.type === 'released')).toEqual([
      { type: 'released', lease: { namespace: NS, name: NAME }, at: releasedAt, holder: 'a', heldForMs: 5_000, transitions: 0 },
    ]);
    let snap = obs.snapshotOf(NS, NAME)!;
    expect(snap.state).toBe('released');
    expect(snap.lastHolder).toEqual({ holder: 'a', endedAt: releasedAt, endReason: 'released' });
    // b takes it at its next try (RetryPeriod 2 s × jitter 1.6 here), not after a lease duration.
    for (let i = 0; i < 4; i++) await clock.step(1_000);
    snap = obs.snapshotOf(NS, NAME)!;
    expect(snap.holder).toBe('b');
    expect(snap.lastHolder).toBeNull();
    const acquired = events.filter((e) => e.type === 'acquired').at(-1)!;
    expect(acquired).toMatchObject({ holder: 'b', previousHolder: 'a', previousEndReason: 'released', transitions: 1 });
    const gap = (acquired as { failoverGapMs: number }).failoverGapMs;
    expect(gap).toBe(acquired.at - releasedAt);
    expect(gap).toBeGreaterThan(0);
    expect(gap).toBeLessThanOrEqual(3_200);
    const [ta, tb] = snap.history;
    expect(ta).toMatchObject({ holder: 'a', endReason: 'released', endedAt: releasedAt, heldForMs: 5_000 });
    expect(tb).toMatchObject({ holder: 'b', previousHolder: 'a', previousEndReason: 'released', failoverGapMs: gap });
    // Long after: the released tenure was never reported as expired.
    for (let i = 0; i < 20; i++) await clock.step(1_000);
    expect(events.some((e) => e.type === 'expired')).toBe(false);
    b.abort();
    await runB;
    obs.close();
  });
});

describe('LeaseObserver release semantics', () => {
  it('a Lease released while we watch reports no expiry, however long nobody takes it; a later acquisition names the release', async () => {
    const { clock, obs, events } = setup();
    obs.observe(held('a', 0, { leaseTransitions: 3 }));
    await clock.step(2_000);
    obs.observe(
      lease({
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: formatMicroTime(T0 + 2_000),
        renewTime: formatMicroTime(T0 + 2_000),
        leaseTransitions: 3,
      }),
    );
    await clock.step(60_000);
    expect(events.map((e) => e.type)).toEqual(['acquired', 'released']);
    const snap = obs.snapshotOf(NS, NAME)!;
    expect(snap).toMatchObject({ state: 'released', holder: null, transitions: 3, lastHolder: { holder: 'a', endedAt: T0 + 2_000, endReason: 'released' } });
    obs.observe(held('b', 62_000, { leaseTransitions: 4 }));
    expect(events.at(-1)).toMatchObject({
      type: 'acquired',
      holder: 'b',
      previousHolder: 'a',
      previousEndReason: 'released',
      failoverGapMs: 60_000,
      transitions: 4,
    });
    obs.close();
  });

  it('an acquisition after an expiry or a takeover names that instead; a Lease first seen released has no previous holder', async () => {
    const { clock, obs, events } = setup();
    obs.observe(held('a', 0));
    await clock.step(20_000);
    obs.observe(held('b', 20_000, { leaseTransitions: 1 }));
    expect(events.at(-1)).toMatchObject({ type: 'acquired', holder: 'b', previousEndReason: 'expired', failoverGapMs: 5_000 });
    await clock.step(1_000);
    obs.observe(held('c', 21_000, { leaseTransitions: 2 }));
    expect(events.at(-1)).toMatchObject({ type: 'acquired', holder: 'c', previousEndReason: 'replaced', failoverGapMs: 0 });
    obs.close();

    const second = setup();
    second.obs.observe(lease({ holderIdentity: '', leaseDurationSeconds: 1, renewTime: formatMicroTime(T0 - 5_000), leaseTransitions: 7 }));
    expect(second.obs.snapshotOf(NS, NAME)).toMatchObject({ state: 'released', lastHolder: null });
    await second.clock.step(1_000);
    second.obs.observe(held('d', 1_000, { leaseTransitions: 8 }));
    expect(second.events.at(-1)).toMatchObject({ type: 'acquired', holder: 'd', previousHolder: null, previousEndReason: null, failoverGapMs: null });
    second.obs.close();
  });

  it('a preferred holder named by the election controller: whether the holder keeps renewing', async () => {
    const { clock, obs } = setup();
    const coordinated = { strategy: 'OldestEmulationVersion' };
    obs.observe(held('a', 0, coordinated));
    expect(obs.snapshotOf(NS, NAME)!.renewedSincePreferred).toBeNull();
    await clock.step(1_000);
    obs.observe(held('a', 0, { ...coordinated, preferredHolder: 'b' }));
    expect(obs.snapshotOf(NS, NAME)!.renewedSincePreferred).toBe(false);
    await clock.step(2_000);
    obs.observe(held('a', 3_000, { ...coordinated, preferredHolder: 'b' }));
    expect(obs.snapshotOf(NS, NAME)!.renewedSincePreferred).toBe(true);
    // The controller hands it over: the new holder is the preferred one, nothing is asked any more.
    await clock.step(15_000);
    obs.observe(held('b', 18_000, coordinated));
    expect(obs.snapshotOf(NS, NAME)!.renewedSincePreferred).toBeNull();
    obs.close();
  });
});
