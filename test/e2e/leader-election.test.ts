/**
 * Three LeaderElector candidates compete for one Lease on the real API server, with client-go's
 * default timings (LeaseDuration 15 s, RenewDeadline 10 s, RetryPeriod 2 s). A LeaseObserver,
 * fed by polling the Lease, records the holder changes and failover gaps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiLeaseClient } from '../../src/kube/index.js';
import { LeaseObserver } from '../../src/lease/index.js';
import { DEFAULT_LEASE_DURATION_MS, DEFAULT_RETRY_PERIOD_MS, JITTER_FACTOR, LeaderElector } from '../../src/lease/leader-elector.js';
import { LeaseLock } from '../../src/lease/lease-lock.js';
import { adminKube, createNamespace, deleteNamespace, eventually, uniqueName } from './helpers.js';

interface Candidate {
  id: string;
  elector: LeaderElector;
  controller: AbortController;
  done: Promise<void>;
  /** run() has resolved: onStoppedLeading has returned, so the candidate no longer acts as leader. */
  finished: boolean;
  startedAt: number[];
  stoppedAt: number[];
}

describe('leader election on the real API server', () => {
  const kube = adminKube();
  const leases = new ApiLeaseClient(kube.client);
  const ns = uniqueName('it-election');
  const leaseName = 'three-candidates';
  const candidates: Candidate[] = [];
  let violations = 0;
  let maxLeaders = 0;
  let monitor: NodeJS.Timeout | undefined;
  let poller: NodeJS.Timeout | undefined;
  const observer = new LeaseObserver();

  beforeAll(async () => {
    await createNamespace(kube, ns);
  });
  afterAll(async () => {
    clearInterval(monitor);
    clearInterval(poller);
    for (const c of candidates) c.controller.abort();
    await Promise.all(candidates.map((c) => c.done));
    observer.close();
    await deleteNamespace(kube, ns);
  });

  function start(id: string, releaseOnCancel: boolean): Candidate {
    const controller = new AbortController();
    const c: Candidate = {
      id,
      controller,
      startedAt: [],
      stoppedAt: [],
      done: Promise.resolve(),
      finished: false,
      elector: undefined as unknown as LeaderElector,
    };
    c.elector = new LeaderElector({
      lock: new LeaseLock({ namespace: ns, name: leaseName, identity: id, client: leases }),
      releaseOnCancel,
      callbacks: {
        onStartedLeading: () => {
          c.startedAt.push(Date.now());
        },
        onStoppedLeading: () => {
          c.stoppedAt.push(Date.now());
        },
      },
    });
    c.done = c.elector.run(controller.signal).then(() => {
      c.finished = true;
    });
    candidates.push(c);
    return c;
  }

  const leaders = (): Candidate[] => candidates.filter((c) => !c.controller.signal.aborted && c.elector.isLeader());

  it('keeps exactly one leader, hands over on release within about a RetryPeriod, and after about LeaseDuration without', async () => {
    // Continuously: never more than one running candidate believes it leads. A candidate stopped
    // without release keeps its last record (as client-go's IsLeader does) but has stopped leading.
    monitor = setInterval(() => {
      const n = candidates.filter((c) => !c.finished && c.elector.isLeader()).length;
      maxLeaders = Math.max(maxLeaders, n);
      if (n > 1) violations++;
    }, 20);
    poller = setInterval(() => {
      leases.get(ns, leaseName).then(
        (l) => l && observer.observe(l),
        () => undefined,
      );
    }, 100);

    // A leads first (it starts alone); then B (releases on cancel) and C (does not) compete.
    const a = start('candidate-a', true);
    await eventually('candidate-a to lead', async () => a.elector.isLeader(), 30_000, 20);
    await eventually('the observer to see candidate-a', async () => observer.snapshotOf(ns, leaseName)?.holder === 'candidate-a', 10_000, 20);
    const b = start('candidate-b', true);
    const c = start('candidate-c', false);

    // 1. Cancel A with ReleaseOnCancel: B or C leads within about one RetryPeriod (with jitter).
    let t0 = Date.now();
    a.controller.abort();
    await a.done;
    const second = await eventually('a leader after the release', async () => leaders()[0], 30_000, 20);
    const releaseHandover = Date.now() - t0;
    expect([b, c]).toContain(second);
    // The observer polls every 100 ms: let it see each holder before the next hand-over.
    await eventually(`the observer to see ${second.id}`, async () => observer.snapshotOf(ns, leaseName)?.holder === second.id, 10_000, 20);
    expect(releaseHandover).toBeLessThan(DEFAULT_RETRY_PERIOD_MS * JITTER_FACTOR * 2 + 1_500);

    // Make C the leader: if B won, release it too (a second release hand-over).
    if (second === b) {
      b.controller.abort();
      await b.done;
      await eventually('candidate-c to lead', async () => c.elector.isLeader(), 30_000, 20);
      await eventually('the observer to see candidate-c', async () => observer.snapshotOf(ns, leaseName)?.holder === 'candidate-c', 10_000, 20);
    } else {
      // C won: B, still a candidate, would race D for C's expired Lease below. It holds nothing,
      // so stopping it changes no record.
      b.controller.abort();
      await b.done;
      expect(c.elector.isLeader()).toBe(true);
    }

    // 2. Stop C WITHOUT release: its Lease is left to expire, so D waits about LeaseDuration.
    const d = start('candidate-d', true);
    // D must have read C's record before C stops, so that D's wait runs from a sighting of C's
    // lease and the hand-over below measures about one LeaseDuration.
    await eventually('candidate-d to observe candidate-c leading', async () => d.elector.getLeader() === 'candidate-c', 10_000, 20);
    t0 = Date.now();
    c.controller.abort();
    await c.done;
    await eventually('candidate-d to lead', async () => d.elector.isLeader(), 60_000, 20);
    const expiryHandover = Date.now() - t0;
    expect(expiryHandover).toBeGreaterThan(DEFAULT_LEASE_DURATION_MS - DEFAULT_RETRY_PERIOD_MS * JITTER_FACTOR - 1_000);
    // D sees C's last renew up to one jittered retry after it, and acquires up to one more after that sighting's expiry.
    expect(expiryHandover).toBeLessThan(DEFAULT_LEASE_DURATION_MS + 2 * DEFAULT_RETRY_PERIOD_MS * (1 + JITTER_FACTOR) + 2_000);

    expect(violations).toBe(0);
    expect(maxLeaders).toBe(1);

    // The observer saw the same holders in order, with gaps that agree with the hand-overs.
    await eventually('the observer to see candidate-d', async () => observer.snapshotOf(ns, leaseName)?.holder === 'candidate-d', 10_000, 50);
    const snap = observer.snapshotOf(ns, leaseName)!;
    const holders = snap.history.map((h) => h.holder).filter((h) => h !== '');
    expect(holders[0]).toBe('candidate-a');
    expect(holders.at(-1)).toBe('candidate-d');
    expect(holders).toContain('candidate-c');
    const afterRelease = snap.history.find((h) => h.holder === second.id)!;
    // After a release the gap is the wait for the next try: at most the hand-over we timed.
    expect(afterRelease.failoverGapMs).not.toBeNull();
    expect(afterRelease.failoverGapMs!).toBeGreaterThanOrEqual(0);
    expect(afterRelease.failoverGapMs!).toBeLessThanOrEqual(releaseHandover + 500);
    const afterExpiry = snap.history.at(-1)!;
    const cTenure = snap.history.filter((h) => h.holder === 'candidate-c').at(-1)!;
    expect(cTenure.endReason).toBe('expired');
    // After an expiry, the gap runs from the expiry we judged to D's first sighting: well under
    // the hand-over time, which also contains the LeaseDuration wait.
    expect(afterExpiry.failoverGapMs).not.toBeNull();
    expect(afterExpiry.failoverGapMs!).toBeGreaterThanOrEqual(0);
    expect(afterExpiry.failoverGapMs!).toBeLessThan(2 * DEFAULT_RETRY_PERIOD_MS * (1 + JITTER_FACTOR) + 2_000);
    expect(afterExpiry.failoverGapMs!).toBeLessThan(expiryHandover - DEFAULT_LEASE_DURATION_MS / 2);
  });
});
