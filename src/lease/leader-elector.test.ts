// Behaviours of client-go tools/leaderelection/leaderelection_test.go (test names in brackets)
// and docs/design/clientgo-semantics.md §6, driven by a fake clock and the in-memory Lease client.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { conflictError, FakeLeaseClient, internalError } from '../../tools/testing/fake-lease-client.js';
import { emptyRecord, recordToLeaseSpec, type LeaderElectionRecord } from './leader-election-record.js';
import { LeaderElector, type LeaderElectionConfig } from './leader-elector.js';
import { LeaseLock } from './lease-lock.js';

const NS = 'foo';
const NAME = 'bar';
const ME = 'baz';
const T0 = Date.UTC(2026, 0, 1);

interface Harness {
  clock: FakeClock;
  client: FakeLeaseClient;
  elector: LeaderElector;
  events: string[];
  newLeaders: string[];
  errors: string[];
  leading: () => AbortSignal | undefined;
  /** Time since T0. */
  t: () => number;
  seed: (r: Partial<LeaderElectionRecord>) => void;
  holder: () => string | null | undefined;
}

function setup(config: Partial<LeaderElectionConfig> & { identity?: string } = {}): Harness {
  const clock = new FakeClock(T0);
  const client = new FakeLeaseClient(clock);
  const lock = new LeaseLock({ namespace: NS, name: NAME, identity: config.identity ?? ME, client });
  const events: string[] = [];
  const newLeaders: string[] = [];
  const errors: string[] = [];
  let leadingSignal: AbortSignal | undefined;
  const t = (): number => clock.now() - T0;
  const elector = new LeaderElector({
    lock,
    clock,
    random: () => 0.5,
    onError: (_err, during) => errors.push(during),
    callbacks: {
      onStartedLeading: (signal) => {
        leadingSignal = signal;
        events.push(`started@${t()}`);
        signal.addEventListener('abort', () => events.push(`leading-aborted@${t()}`));
      },
      onStoppedLeading: () => {
        events.push(`stopped@${t()} holder=${client.peek(NS, NAME)?.spec?.holderIdentity ?? '-'}`);
      },
      onNewLeader: (id) => void newLeaders.push(id),
    },
    ...config,
  });
  return {
    clock,
    client,
    elector,
    events,
    newLeaders,
    errors,
    leading: () => leadingSignal,
    t,
    seed: (r) =>
      void client.put({
        metadata: { namespace: NS, name: NAME },
        spec: recordToLeaseSpec({ ...emptyRecord(), ...r }),
      }),
    holder: () => client.peek(NS, NAME)?.spec?.holderIdentity,
  };
}

const flush = (h: Harness): Promise<void> => h.clock.step(0);

describe('LeaderElector config validation', () => {
  const lock = new LeaseLock({ namespace: NS, name: NAME, identity: ME, client: new FakeLeaseClient() });
  const callbacks = { onStartedLeading: () => {}, onStoppedLeading: () => {} };

  it('accepts client-go defaults (15 s / 10 s / 2 s)', () => {
    const le = new LeaderElector({ lock, callbacks });
    expect([le.leaseDurationMs, le.renewDeadlineMs, le.retryPeriodMs]).toEqual([15_000, 10_000, 2_000]);
  });

  it.each([
    [{ leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }, /leaseDurationMs \(10000\) must be greater than renewDeadlineMs/],
    [{ renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }, /renewDeadlineMs \(2400\) must be greater than retryPeriodMs × 1.2/],
    [{ retryPeriodMs: 0 }, /retryPeriodMs must be a positive number/],
    [{ leaseDurationMs: -1 }, /leaseDurationMs must be a positive number/],
    [{ renewDeadlineMs: Number.NaN }, /renewDeadlineMs must be a positive number/],
  ])('rejects %o', (durations, message) => {
    expect(() => new LeaderElector({ lock, callbacks, ...durations })).toThrow(message);
  });

  it('requires both callbacks and a non-empty identity', () => {
    expect(() => new LeaderElector({ lock, callbacks: { onStoppedLeading: () => {} } as never })).toThrow(/onStartedLeading must be set/);
    expect(() => new LeaderElector({ lock, callbacks: { onStartedLeading: () => {} } as never })).toThrow(/onStoppedLeading must be set/);
    const anonymous = new LeaseLock({ namespace: NS, name: NAME, identity: '', client: new FakeLeaseClient() });
    expect(() => new LeaderElector({ lock: anonymous, callbacks })).toThrow(/identity must not be empty/);
  });
});

describe('[TestTryAcquireOrRenewLeases] tryAcquireOrRenew', () => {
  it('acquire from no object: Create, no transition', async () => {
    const h = setup();
    expect(await h.elector.tryAcquireOrRenew()).toBe(true);
    expect(h.client.ops()).toEqual(['get', 'create']);
    const spec = h.client.peek(NS, NAME)!.spec!;
    expect(spec).toMatchObject({ holderIdentity: ME, leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(spec.acquireTime).toBe('2026-01-01T00:00:00.000000Z');
    expect(h.elector.isLeader()).toBe(true);
    await flush(h);
    expect(h.newLeaders).toEqual([]); // reported by the loops, see run tests
  });

  it('acquire from object without a holder (unled): takes it at once, transitions + 1', async () => {
    const h = setup();
    h.seed({});
    expect(await h.elector.tryAcquireOrRenew()).toBe(true);
    expect(h.client.ops()).toEqual(['get', 'update']);
    expect(h.client.peek(NS, NAME)!.spec).toMatchObject({ holderIdentity: ME, leaseTransitions: 1 });
  });

  it('acquire from empty led, acked object: an empty holder observed just now is free', async () => {
    const h = setup();
    h.seed({ holderIdentity: '', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.000000Z', leaderTransitions: 4 });
    expect(await h.elector.tryAcquireOrRenew()).toBe(true);
    expect(h.client.peek(NS, NAME)!.spec).toMatchObject({ holderIdentity: ME, leaseTransitions: 5 });
  });

  it("don't acquire from led, acked object: held by someone else and observed recently", async () => {
    const h = setup();
    h.seed({ holderIdentity: 'bing', leaseDurationSeconds: 15 });
    expect(await h.elector.tryAcquireOrRenew()).toBe(false);
    expect(h.client.ops()).toEqual(['get']);
    expect(h.elector.getLeader()).toBe('bing');
    expect(h.elector.isLeader()).toBe(false);
    expect(h.holder()).toBe('bing');
  });

  it("acquire from led object with the lease duration seconds: the holder's own duration counts", async () => {
    const h = setup();
    h.seed({ holderIdentity: 'bing', leaseDurationSeconds: 3 });
    expect(await h.elector.tryAcquireOrRenew()).toBe(false); // observed at T0
    await h.clock.step(2_999);
    expect(await h.elector.tryAcquireOrRenew()).toBe(false);
    await h.clock.step(1); // T0 + 3 s: not after now any more
    expect(await h.elector.tryAcquireOrRenew()).toBe(true);
    expect(h.client.peek(NS, NAME)!.spec).toMatchObject({ holderIdentity: ME, leaseTransitions: 1 });
  });

  it('acquire from led, unacked object: a stale observation (no change for leaseDuration) expires', async () => {
    const h = setup();
    h.seed({ holderIdentity: 'bing', leaseDurationSeconds: 15, renewTime: '2030-01-01T00:00:00.000000Z' });
    expect(await h.elector.tryAcquireOrRenew()).toBe(false);
    await h.clock.step(15_000);
    // renewTime lies in our future: ignored, only our observation time matters.
    expect(await h.elector.tryAcquireOrRenew()).toBe(true);
    expect(h.client.peek(NS, NAME)!.spec).toMatchObject({ holderIdentity: ME, leaseTransitions: 1 });
    expect(h.client.peek(NS, NAME)!.spec!.acquireTime).toBe('2026-01-01T00:00:15.000000Z');
  });

  it('a change of the record restarts the wait (observedTime is when the bytes last changed)', async () => {
    const h = setup();
    h.seed({ holderIdentity: 'bing', leaseDurationSeconds: 15, renewTime: '2020-01-01T00:00:00.000000Z' });
    expect(await h.elector.tryAcquireOrRenew()).toBe(false);
    await h.clock.step(10_000);
    h.client.patchSpec(NS, NAME, { renewTime: '2020-01-01T00:00:10.000000Z' });
    expect(await h.elector.tryAcquireOrRenew()).toBe(false); // change seen at +10 s
    await h.clock.step(14_999);
    expect(await h.elector.tryAcquireOrRenew()).toBe(false);
    await h.clock.step(1);
    expect(await h.elector.tryAcquireOrRenew()).toBe(true);
  });

  it('renew already acquired object: keeps acquireTime and the transition count', async () => {
    const h = setup();
    h.seed({
      holderIdentity: ME,
      leaseDurationSeconds: 15,
      acquireTime: '2025-12-31T23:00:00.123456Z',
      renewTime: '2025-12-31T23:59:58.000000Z',
      leaderTransitions: 7,
    });
    expect(await h.elector.tryAcquireOrRenew()).toBe(true);
    expect(h.client.ops()).toEqual(['get', 'update']);
    expect(h.client.peek(NS, NAME)!.spec).toMatchObject({
      holderIdentity: ME,
      leaseTransitions: 7,
      acquireTime: '2025-12-31T23:00:00.123456Z',
      renewTime: '2026-01-01T00:00:00.000000Z',
    });
  });
});

describe('tryAcquireOrRenew fast path', () => {
  it('skips the Get while we hold a valid lease, keeping acquireTime and transitions', async () => {
    const h = setup();
    await h.elector.tryAcquireOrRenew();
    h.client.clearCalls();
    await h.clock.step(2_000);
    expect(await h.elector.tryAcquireOrRenew()).toBe(true);
    expect(h.client.ops()).toEqual(['update']);
    expect(h.client.peek(NS, NAME)!.spec).toMatchObject({
      acquireTime: '2026-01-01T00:00:00.000000Z',
      renewTime: '2026-01-01T00:00:02.000000Z',
      leaseTransitions: 0,
    });
  });

  it('falls back to the slow path when the optimistic update fails, and renews', async () => {
    const h = setup();
    await h.elector.tryAcquireOrRenew();
    h.client.patchSpec(NS, NAME, { leaseDurationSeconds: 15 }); // someone else's write moves the resourceVersion
    h.client.clearCalls();
    expect(await h.elector.tryAcquireOrRenew()).toBe(true);
    expect(h.client.calls.map((c) => `${c.op}:${c.outcome}`)).toEqual(['update:conflict', 'get:ok', 'update:ok']);
    expect(h.errors[0]).toMatch(/optimistic update/);
  });

  it('loses to a takeover seen on the slow path', async () => {
    const h = setup();
    await h.elector.tryAcquireOrRenew();
    h.client.patchSpec(NS, NAME, { holderIdentity: 'other' });
    h.client.clearCalls();
    expect(await h.elector.tryAcquireOrRenew()).toBe(false);
    expect(h.client.ops()).toEqual(['update', 'get']);
    expect(h.elector.getLeader()).toBe('other');
    expect(h.holder()).toBe('other');
  });

  it('is not taken once our own lease has expired by our clock', async () => {
    const h = setup();
    await h.elector.tryAcquireOrRenew();
    await h.clock.step(15_000);
    h.client.clearCalls();
    expect(await h.elector.tryAcquireOrRenew()).toBe(true);
    expect(h.client.ops()).toEqual(['get', 'update']);
  });
});

describe('LeaderElector.run', () => {
  it('acquires, starts leading asynchronously, renews every RetryPeriod, stops on cancel', async () => {
    const h = setup();
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    await flush(h);
    expect(h.events).toEqual(['started@0']);
    // Create, then the renew loop's immediate first renew (fast path).
    expect(h.client.ops()).toEqual(['get', 'create', 'update']);
    expect(h.newLeaders).toEqual([ME]);
    await h.clock.step(2_000);
    await h.clock.step(2_000);
    expect(h.client.callsOf('update').map((c) => c.at - T0)).toEqual([0, 2_000, 4_000]);
    expect(h.client.peek(NS, NAME)!.spec!.leaseTransitions).toBe(0); // renews keep the count
    ac.abort();
    await done;
    expect(h.events).toEqual(['started@0', 'leading-aborted@4000', `stopped@4000 holder=${ME}`]);
    expect(h.leading()?.aborted).toBe(true);
  });

  it('retries acquiring every RetryPeriod with jitter (×1.2 at most) until the holder lapses', async () => {
    const h = setup();
    h.seed({ holderIdentity: 'other', leaseDurationSeconds: 15, leaderTransitions: 2 });
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    for (let i = 0; i < 6; i++) await h.clock.step(3_200);
    // random() = 0.5: 2 s + 0.5 × 1.2 × 2 s = 3.2 s between attempts.
    expect(h.client.callsOf('get').map((c) => c.at - T0)).toEqual([0, 3_200, 6_400, 9_600, 12_800, 16_000]);
    expect(h.client.callsOf('update')[0]!.at - T0).toBe(16_000);
    expect(h.client.peek(NS, NAME)!.spec).toMatchObject({ holderIdentity: ME, leaseTransitions: 3 });
    expect(h.newLeaders).toEqual(['other', ME]);
    ac.abort();
    await done;
  });

  it('jitter spans [RetryPeriod, 2.2 × RetryPeriod) with the injected random source', async () => {
    for (const [r, gap] of [
      [0, 2_000],
      [0.999, 2_000 + 0.999 * 1.2 * 2_000],
    ] as const) {
      const h = setup({ random: () => r });
      h.seed({ holderIdentity: 'other', leaseDurationSeconds: 15 });
      const ac = new AbortController();
      const done = h.elector.run(ac.signal);
      await h.clock.step(gap);
      const at = h.client.callsOf('get').map((c) => c.at - T0);
      expect(at).toHaveLength(2);
      expect(at[0]).toBe(0);
      expect(at[1]).toBeCloseTo(gap, 3);
      ac.abort();
      await done;
    }
  });

  it('gives up leadership when renewing fails for RenewDeadline', async () => {
    const h = setup();
    const done = h.elector.run();
    await flush(h);
    h.client.clearCalls();
    h.client.failNext('update', internalError(), 1000);
    h.client.failNext('get', internalError(), 1000);
    await h.clock.step(2_000); // first failing renew at +2 s, deadline at +12 s
    for (let i = 0; i < 5; i++) await h.clock.step(2_000);
    await done;
    expect(h.client.callsOf('update').map((c) => c.at - T0)).toEqual([2_000, 4_000, 6_000, 8_000, 10_000]);
    expect(h.events).toEqual(['started@0', 'leading-aborted@12000', `stopped@12000 holder=${ME}`]);
  });

  it('a renew that succeeds within RenewDeadline keeps leading', async () => {
    const h = setup();
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    await flush(h);
    h.client.failNext('update', internalError(), 3);
    h.client.failNext('get', internalError(), 3);
    for (let i = 0; i < 5; i++) await h.clock.step(2_000);
    expect(h.events).toEqual(['started@0']);
    expect(
      h.client
        .callsOf('update')
        .filter((c) => c.outcome === 'ok')
        .map((c) => c.at - T0),
    ).toEqual([0, 8_000, 10_000]);
    ac.abort();
    await done;
  });

  it('runs onStoppedLeading on exit even if it never led', async () => {
    const h = setup();
    h.seed({ holderIdentity: 'other', leaseDurationSeconds: 15 });
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    await h.clock.step(5_000);
    ac.abort();
    await done;
    expect(h.events).toEqual(['stopped@5000 holder=other']);
    expect(h.newLeaders).toEqual(['other']);
  });

  it('refuses a second concurrent run', async () => {
    const h = setup();
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    await expect(h.elector.run()).rejects.toThrow(/already running/);
    ac.abort();
    await done;
  });

  it('reports callback errors to onError instead of crashing', async () => {
    const errors: string[] = [];
    const clock = new FakeClock(T0);
    const client = new FakeLeaseClient(clock);
    const elector = new LeaderElector({
      lock: new LeaseLock({ namespace: NS, name: NAME, identity: ME, client }),
      clock,
      onError: (err, during) => errors.push(`${during}: ${(err as Error).message}`),
      callbacks: {
        onStartedLeading: async () => {
          throw new Error('boom');
        },
        onStoppedLeading: () => {},
      },
    });
    const ac = new AbortController();
    const done = elector.run(ac.signal);
    await clock.step(0);
    expect(errors).toEqual(['onStartedLeading: boom']);
    ac.abort();
    await done;
  });
});

describe('ReleaseOnCancel', () => {
  it('on cancel: Get, then write an empty holder with a 1 s lease, transitions unchanged', async () => {
    const h = setup({ releaseOnCancel: true });
    h.seed({ holderIdentity: 'old', leaseDurationSeconds: 15, leaderTransitions: 4 });
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    await h.clock.step(16_000); // 'old' lapses; taken at +16 s (transitions 5)
    await h.clock.step(1_000);
    h.client.clearCalls();
    ac.abort();
    await done;
    expect(h.client.ops()).toEqual(['get', 'update']);
    expect(h.client.peek(NS, NAME)!.spec).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: '2026-01-01T00:00:17.000000Z',
      renewTime: '2026-01-01T00:00:17.000000Z',
      leaseTransitions: 5,
    });
    // Released before onStoppedLeading ran.
    expect(h.events.at(-1)).toBe('stopped@17000 holder=');
    expect(h.elector.isLeader()).toBe(false);
  });

  it('[TestReleaseMethodCallsGet] release reads first and retries on conflict', async () => {
    const h = setup({ releaseOnCancel: true });
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    await flush(h);
    h.client.clearCalls();
    h.client.failNext('update', conflictError(NAME));
    ac.abort();
    await h.clock.step(11); // retry.DefaultRetry: ~10 ms between tries
    await done;
    expect(h.client.calls.map((c) => `${c.op}:${c.outcome}`)).toEqual(['get:ok', 'update:injected-error', 'get:ok', 'update:ok']);
    expect(h.holder()).toBe('');
  });

  it('does not release a lease someone else holds by now', async () => {
    const h = setup({ releaseOnCancel: true });
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    await flush(h);
    h.client.patchSpec(NS, NAME, { holderIdentity: 'thief' });
    ac.abort();
    await done;
    expect(h.holder()).toBe('thief');
    expect(h.client.callsOf('update').at(-1)!.holder).toBe(ME); // the last write was our renew
  });

  it('without releaseOnCancel the lease is left to expire', async () => {
    const h = setup();
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    await flush(h);
    ac.abort();
    await done;
    expect(h.holder()).toBe(ME);
  });

  it('[TestReleaseOnCancellation] cancelled during an Update: releases, and the late update conflicts', async () => {
    const h = setup({ releaseOnCancel: true });
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    await flush(h);
    const gate = h.client.blockNext('update');
    await h.clock.step(2_000);
    const blocked = await gate.reached; // the renew's update is in flight
    ac.abort();
    await done; // the elector did not wait for the stuck call
    expect(h.holder()).toBe('');
    gate.release();
    await flush(h);
    expect(blocked.outcome).toBe('conflict');
    expect(h.holder()).toBe('');
  });

  it('[TestReleaseOnCancellation] cancelled during an Update that lands later: the Get sees the new version', async () => {
    const h = setup({ releaseOnCancel: true });
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    await flush(h);
    const renew = h.client.blockNext('update');
    await h.clock.step(2_000);
    const renewCall = await renew.reached;
    const releaseGet = h.client.blockNext('get');
    ac.abort();
    await releaseGet.reached; // release has started with its Get
    renew.release(); // the abandoned renew lands first, moving the resourceVersion
    await flush(h);
    expect(renewCall.outcome).toBe('ok');
    releaseGet.release();
    await done;
    expect(h.client.callsOf('update').at(-1)).toMatchObject({ holder: '', outcome: 'ok' });
    expect(h.holder()).toBe('');
  });

  it('[TestReleaseOnCancellation] cancelled during a Get: still releases', async () => {
    const h = setup({ releaseOnCancel: true });
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    await flush(h);
    h.client.failNext('update'); // fast path fails, so the renew goes to Get
    const gate = h.client.blockNext('get', { rejectOnAbort: true });
    await h.clock.step(2_000);
    await gate.reached;
    ac.abort();
    await done;
    expect(h.holder()).toBe('');
    // The acquire's Get (not found), the renew's Get (abandoned), release's Get.
    expect(h.client.callsOf('get').map((c) => c.outcome)).toEqual(['not-found', 'aborted', 'ok']);
    expect(h.events.at(-1)).toBe('stopped@2000 holder=');
  });

  it('release gives up after RenewDeadline if the API hangs', async () => {
    const h = setup({ releaseOnCancel: true });
    const ac = new AbortController();
    const done = h.elector.run(ac.signal);
    await flush(h);
    const gate = h.client.blockNext('get');
    let finished = false;
    void done.then(() => (finished = true));
    ac.abort();
    await gate.reached;
    await h.clock.step(9_999);
    expect(finished).toBe(false);
    await h.clock.step(1);
    expect(finished).toBe(true);
    expect(h.holder()).toBe(ME);
    expect(h.errors.at(-1)).toMatch(/release: get/);
  });
});

describe('coordinated leader election', () => {
  const strategy = 'OldestEmulationVersion';

  it('never creates the Lease', async () => {
    const h = setup({ coordinated: true });
    expect(await h.elector.tryCoordinatedRenew()).toBe(false);
    expect(h.client.ops()).toEqual(['get']);
  });

  it('renews only while the holder, keeping strategy, acquireTime and transitions', async () => {
    const h = setup({ coordinated: true });
    h.seed({
      holderIdentity: ME,
      leaseDurationSeconds: 15,
      acquireTime: '2026-01-01T00:00:00.000000Z',
      renewTime: '2026-01-01T00:00:00.000000Z',
      leaderTransitions: 2,
      strategy,
    });
    await h.clock.step(1_000);
    expect(await h.elector.tryCoordinatedRenew()).toBe(true);
    expect(h.client.ops()).toEqual(['get', 'update']);
    expect(h.client.peek(NS, NAME)!.spec).toMatchObject({
      holderIdentity: ME,
      strategy,
      leaseTransitions: 2,
      acquireTime: '2026-01-01T00:00:00.000000Z',
      renewTime: '2026-01-01T00:00:01.000000Z',
    });
  });

  it('does not take a lease held by another candidate, valid or not', async () => {
    const h = setup({ coordinated: true });
    h.seed({ holderIdentity: 'other', leaseDurationSeconds: 15, strategy });
    expect(await h.elector.tryCoordinatedRenew()).toBe(false);
    await h.clock.step(30_000);
    expect(await h.elector.tryCoordinatedRenew()).toBe(false);
    expect(h.client.ops()).toEqual(['get', 'get']);
  });

  it('stops renewing when a preferredHolder is named, and leadership lapses', async () => {
    const h = setup({ coordinated: true });
    h.seed({ holderIdentity: ME, leaseDurationSeconds: 15, strategy, renewTime: '2026-01-01T00:00:00.000000Z' });
    const done = h.elector.run();
    await flush(h);
    expect(h.events).toEqual(['started@0']);
    h.client.patchSpec(NS, NAME, { preferredHolder: 'newer' });
    h.client.clearCalls();
    for (let i = 0; i < 6; i++) await h.clock.step(2_000);
    await done;
    expect(h.client.ops().every((op) => op === 'get')).toBe(true);
    expect(h.events).toEqual(['started@0', 'leading-aborted@12000', `stopped@12000 holder=${ME}`]);
  });
});

describe('check (healthz)', () => {
  it('fails only when we think we lead but have not renewed for leaseDuration + tolerance', async () => {
    const h = setup();
    expect(h.elector.check(0)).toBeUndefined();
    await h.elector.tryAcquireOrRenew();
    await h.clock.step(15_000 + 1_000);
    expect(h.elector.check(2_000)).toBeUndefined();
    await h.clock.step(1_001);
    expect(h.elector.check(2_000)?.message).toMatch(/failed election to renew leadership on lease foo\/bar/);
  });
});
