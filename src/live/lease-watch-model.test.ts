import { describe, expect, it } from 'vitest';
import type { NotificationInfo } from '../informer/index.js';
import { DeletedFinalStateUnknown } from '../informer/index.js';
import type { Lease, LeaseSpec } from '../kube/types.js';
import { formatMicroTime } from '../lease/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { LeaseWatchModel } from './lease-watch-model.js';
import type { LeaseChange } from '../view/lease-view.js';

const T0 = Date.UTC(2026, 0, 1);
let rv = 0;

function lease(namespace: string, name: string, spec: LeaseSpec, labels?: Record<string, string>): Lease {
  return { metadata: { namespace, name, resourceVersion: String(++rv), ...(labels ? { labels } : {}) }, spec };
}

function kcm(holder: string, renewAt: number, transitions = 0): Lease {
  return lease('kube-system', 'kube-controller-manager', {
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: formatMicroTime(T0),
    renewTime: formatMicroTime(T0 + renewAt),
    leaseTransitions: transitions,
  });
}

function node(name: string, renewAt: number): Lease {
  return lease('kube-node-lease', name, { holderIdentity: name, leaseDurationSeconds: 40, renewTime: formatMicroTime(T0 + renewAt) });
}

function info(clock: FakeClock): NotificationInfo {
  return { receivedAt: clock.now(), distributedAt: clock.now(), deltaType: undefined, eventType: undefined, isSync: false };
}

function setup(opts: { sinceMs?: number } = {}): { clock: FakeClock; model: LeaseWatchModel; changes: LeaseChange[]; updates: () => number } {
  const clock = new FakeClock(T0);
  const model = new LeaseWatchModel({ clock, sinceMs: opts.sinceMs ?? null });
  const changes: LeaseChange[] = [];
  let updates = 0;
  model.onChange((c) => changes.push(c));
  model.onUpdate(() => updates++);
  return { clock, model, changes, updates: () => updates };
}

describe('LeaseWatchModel', () => {
  it('does not report the holders found at start as changes, and marks them heldAtStart', () => {
    const { clock, model, changes } = setup();
    model.handler.onAdd!(kcm('a', 0), true, info(clock));
    model.markSynced();
    expect(changes).toEqual([]);
    const view = model.view();
    expect(view.synced).toBe(true);
    expect(view.leases).toHaveLength(1);
    expect(view.leases[0]!.holder).toBe('a');
    expect(view.leases[0]!.history[0]!.heldAtStart).toBe(true);
    model.close();
  });

  it('a killed leader: expired, then acquired by the next with a gap and the time since the last renew', async () => {
    const { clock, model, changes } = setup();
    model.handler.onAdd!(kcm('a', 0), true, info(clock));
    model.markSynced();
    await clock.step(2_000);
    model.handler.onUpdate!(kcm('a', 0), kcm('a', 2_000), info(clock)); // last renew seen at +2s
    // a dies; its lease expires at +17s on our clock; b takes over at +19s.
    await clock.step(15_000);
    expect(changes.map((c) => c.type)).toEqual(['expired']);
    expect(changes[0]).toMatchObject({ holder: 'a', role: 'leader', lastRenewAt: new Date(T0 + 2_000).toISOString() });
    expect(model.view().leases[0]!.state).toBe('expired');
    expect(model.view().leases[0]!.severity).toBe('bad');
    await clock.step(2_000);
    model.handler.onUpdate!(kcm('a', 2_000), kcm('b', 19_000, 1), info(clock));
    expect(changes.map((c) => c.type)).toEqual(['expired', 'acquired']);
    expect(changes[1]).toMatchObject({ holder: 'b', previousHolder: 'a', failoverGapMs: 2_000, sinceLastRenewMs: 17_000, transitions: 1 });
    const row = model.view().leases[0]!;
    expect(row.history.map((h) => [h.holder, h.endReason, h.failoverGapMs, h.sinceLastRenewMs])).toEqual([
      ['a', 'expired', null, null],
      ['b', null, 2_000, 17_000],
    ]);
    expect(row.state).toBe('valid');
    model.close();
  });

  it('the timer re-judges states without events: valid, expiring past half the duration, expired', async () => {
    const { clock, model, updates } = setup();
    model.start();
    model.handler.onAdd!(kcm('a', 0), true, info(clock));
    model.markSynced();
    const before = updates();
    await clock.step(7_000);
    expect(updates()).toBe(before); // nothing changed yet
    await clock.step(1_000);
    expect(model.view().leases[0]!.state).toBe('expiring');
    expect(model.view().leases[0]!.severity).toBe('warn');
    expect(updates()).toBe(before + 1);
    await clock.step(7_000);
    expect(model.view().leases[0]!.state).toBe('expired');
    expect(updates()).toBeGreaterThanOrEqual(before + 2);
    model.close();
  });

  it('node leases are summarised apart; stale once not renewed within their duration; resumed when renewed again', async () => {
    const { clock, model, changes } = setup();
    model.handler.onAdd!(node('n1', 0), true, info(clock));
    model.handler.onAdd!(node('n2', 0), true, info(clock));
    model.handler.onAdd!(kcm('a', 0), true, info(clock));
    model.markSynced();
    for (let t = 10_000; t <= 50_000; t += 10_000) {
      await clock.step(10_000);
      model.handler.onUpdate!(node('n1', t - 10_000), node('n1', t), info(clock));
      model.handler.onUpdate!(kcm('a', t - 10_000), kcm('a', t), info(clock));
    }
    // n2 has not been renewed for 50 s (> 40 s).
    let view = model.view();
    expect(view.leases.map((l) => l.name)).toEqual(['kube-controller-manager']);
    expect(view.nodes.total).toBe(2);
    expect(view.nodes.staleCount).toBe(1);
    expect(view.nodes.leases[0]).toMatchObject({ name: 'n2', holder: 'n2', stale: true, renewAgeMs: 50_000, renewTimeAgeMs: 50_000, leaseDurationSeconds: 40 });
    expect(view.nodes.leases[1]).toMatchObject({ name: 'n1', stale: false });
    expect(changes).toEqual([expect.objectContaining({ type: 'expired', role: 'node', holder: 'n2' })]);
    model.handler.onUpdate!(node('n2', 0), node('n2', 50_000), info(clock));
    view = model.view();
    expect(view.nodes.staleCount).toBe(0);
    expect(changes.at(-1)).toMatchObject({ type: 'resumed', role: 'node', holder: 'n2', failoverGapMs: 10_000 });
    model.close();
  });

  it('apiserver identity leases are their own summary', () => {
    const { clock, model } = setup();
    model.handler.onAdd!(
      lease(
        'kube-system',
        'apiserver-x',
        { holderIdentity: 'apiserver-x_1', leaseDurationSeconds: 3600 },
        { 'apiserver.kubernetes.io/identity': 'kube-apiserver' },
      ),
      true,
      info(clock),
    );
    const view = model.view();
    expect(view.leases).toEqual([]);
    expect(view.apiservers.total).toBe(1);
    model.close();
  });

  it('a release and a deletion (also as a tombstone) are changes', async () => {
    const { clock, model, changes } = setup();
    model.handler.onAdd!(kcm('a', 0), false, info(clock));
    expect(changes.map((c) => c.type)).toEqual(['acquired']); // created while we watched
    await clock.step(1_000);
    model.handler.onUpdate!(kcm('a', 0), lease('kube-system', 'kube-controller-manager', { holderIdentity: '', leaseDurationSeconds: 1 }), info(clock));
    expect(changes.at(-1)).toMatchObject({ type: 'released', holder: 'a', heldForMs: 1_000 });
    model.handler.onDelete!(new DeletedFinalStateUnknown('kube-system/kube-controller-manager', kcm('a', 0)), info(clock));
    expect(changes.at(-1)).toMatchObject({ type: 'deleted', namespace: 'kube-system', name: 'kube-controller-manager' });
    expect(model.view().leases).toEqual([]);
    model.close();
  });

  it('--since bounds history rows and changes, keeping the current tenure', async () => {
    const { clock, model } = setup({ sinceMs: 60_000 });
    model.handler.onAdd!(kcm('a', 0), true, info(clock));
    await clock.step(1_000);
    model.handler.onUpdate!(kcm('a', 0), kcm('b', 1_000, 1), info(clock)); // a replaced at +1s
    await clock.step(1_000);
    model.handler.onUpdate!(kcm('b', 1_000), kcm('c', 2_000, 2), info(clock));
    expect(model.view().leases[0]!.history.map((h) => h.holder)).toEqual(['a', 'b', 'c']);
    expect(model.view().changes).toHaveLength(2);
    await clock.step(60_000); // window from +2s: a's end (+1s) is outside, b's (+2s) inside
    const view = model.view();
    expect(view.leases[0]!.history.map((h) => h.holder)).toEqual(['b', 'c']);
    expect(view.changes.map((c) => [c.type, c.holder])).toEqual([
      ['acquired', 'c'],
      ['expired', 'c'],
    ]);
    model.close();
  });

  it('metrics: leader_election_master_status by lease name beside the lease', () => {
    const { clock, model } = setup();
    model.handler.onAdd!(kcm('a', 0), true, info(clock));
    model.setMetrics([
      { source: 'kcm-1', ok: true, stale: false, error: null, leaderElection: [{ name: 'kube-controller-manager', isLeader: true, value: 1 }] },
      {
        source: 'kcm-2',
        ok: false,
        stale: true,
        error: 'no answer within 5s',
        leaderElection: [{ name: 'kube-controller-manager', isLeader: false, value: 0 }],
      },
      { source: 'sched', ok: true, stale: false, error: null, leaderElection: [{ name: 'kube-scheduler', isLeader: true, value: 1 }] },
    ]);
    const view = model.view();
    expect(view.leases[0]!.masterStatus).toEqual([
      { source: 'kcm-1', isLeader: true, value: 1, stale: false, error: null },
      { source: 'kcm-2', isLeader: false, value: 0, stale: true, error: 'no answer within 5s' },
    ]);
    expect(view.metricsErrors).toEqual([{ source: 'kcm-2', error: 'no answer within 5s' }]);
    model.close();
  });

  it('the view survives a JSON round trip unchanged (plain data)', () => {
    const { clock, model } = setup();
    model.handler.onAdd!(kcm('a', 0), true, info(clock));
    model.handler.onAdd!(node('n1', 0), true, info(clock));
    const view = model.view();
    expect(JSON.parse(JSON.stringify(view))).toEqual(view);
    model.close();
  });
});
