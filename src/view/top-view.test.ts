import { describe, expect, it } from 'vitest';
import type { NotificationInfo } from '../informer/index.js';
import type { Lease, LeaseSpec } from '../kube/types.js';
import { formatMicroTime } from '../lease/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { metricsFixture, pollTwice, type Answer } from '../../tools/testing/fake-metrics-source.js';
import { LeaseWatchModel } from '../live/index.js';
import { buildTopView, explainDiscovery, identityHost, sparkline, topQueueCells, type TopInput, type TopTarget } from './top-view.js';

const T0 = Date.UTC(2026, 0, 1);
let rv = 0;

function lease(namespace: string, name: string, spec: LeaseSpec): Lease {
  return { metadata: { namespace, name, resourceVersion: String(++rv) }, spec };
}
function held(namespace: string, name: string, holder: string, renewAt: number, transitions = 0): Lease {
  return lease(namespace, name, {
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: formatMicroTime(T0),
    renewTime: formatMicroTime(T0 + renewAt),
    leaseTransitions: transitions,
  });
}
function info(clock: FakeClock): NotificationInfo {
  return { receivedAt: clock.now(), distributedAt: clock.now(), deltaType: undefined, eventType: undefined, isSync: false };
}

/** A client-go exposition with one queue; counters are totals so far. */
function expo(q: {
  name?: string;
  depth?: number;
  adds?: number;
  retries?: number;
  longest?: number;
  gets?: number;
  master?: [string, number];
  errors?: number;
  controller?: string;
}): string {
  const name = q.name ?? 'deployment';
  const labels = q.controller ? `controller="${q.controller}",name="${name}"` : `name="${name}"`;
  const lines = [
    '# TYPE workqueue_depth gauge',
    `workqueue_depth{${labels}} ${q.depth ?? 0}`,
    '# TYPE workqueue_adds_total counter',
    `workqueue_adds_total{${labels}} ${q.adds ?? 0}`,
    '# TYPE workqueue_retries_total counter',
    `workqueue_retries_total{${labels}} ${q.retries ?? 0}`,
    '# TYPE workqueue_longest_running_processor_seconds gauge',
    `workqueue_longest_running_processor_seconds{${labels}} ${q.longest ?? 0}`,
    '# TYPE workqueue_queue_duration_seconds histogram',
    `workqueue_queue_duration_seconds_bucket{${labels},le="0.1"} ${q.gets ?? 0}`,
    `workqueue_queue_duration_seconds_bucket{${labels},le="+Inf"} ${q.gets ?? 0}`,
    `workqueue_queue_duration_seconds_sum{${labels}} 0`,
    `workqueue_queue_duration_seconds_count{${labels}} ${q.gets ?? 0}`,
  ];
  if (q.master) lines.push('# TYPE leader_election_master_status gauge', `leader_election_master_status{name="${q.master[0]}"} ${q.master[1]}`);
  if (q.errors !== undefined && q.controller)
    lines.push(
      '# TYPE controller_runtime_reconcile_errors_total counter',
      `controller_runtime_reconcile_errors_total{controller="${q.controller}"} ${q.errors}`,
    );
  return `${lines.join('\n')}\n`;
}

function target(source: string, extra: Partial<TopTarget> = {}): TopTarget {
  return { source, component: null, namespace: null, pod: null, host: null, lease: null, foundBy: ['--metrics'], ...extra };
}

const KCM_A = 'kcm-host_1b4e28ba-2fa1-11d2-883f-0016d3cca427';
const KCM_B = 'kcm-host_6fa459ea-ee8a-3ca4-894e-db77e160355e';

async function scene(
  leases: Lease[],
  sources: Record<string, Answer[]>,
  targets: TopTarget[],
  after?: (clock: FakeClock, model: LeaseWatchModel) => Promise<void>,
) {
  const clock = new FakeClock(T0);
  const model = new LeaseWatchModel({ clock });
  for (const l of leases) model.handler.onAdd!(l, true, info(clock));
  model.markSynced();
  const { second } = await pollTwice(sources, 2_000);
  await after?.(clock, model);
  const input: TopInput = { now: clock.now(), leases: model.view().leases, metrics: second, targets };
  model.close();
  return { view: buildTopView(input), input };
}

describe('buildTopView: the join', () => {
  it("joins two kube-controller-manager replicas to their Lease by leader_election_master_status and shows the leader's queues", async () => {
    const { view } = await scene(
      [held('kube-system', 'kube-controller-manager', KCM_A, 0, 3)],
      {
        a: [expo({ adds: 10, gets: 10, master: ['kube-controller-manager', 1] }), expo({ adds: 14, gets: 14, master: ['kube-controller-manager', 1] })],
        b: [expo({ name: 'never-seen', master: ['kube-controller-manager', 0] })],
      },
      [target('a'), target('b')],
    );
    expect(view.components).toHaveLength(1);
    const c = view.components[0]!;
    expect(c).toMatchObject({ key: 'kube-system/kube-controller-manager', name: 'kube-controller-manager', state: 'ok', leader: 'a', reasons: [] });
    expect(c.lease).toMatchObject({ holder: KCM_A, state: 'valid', transitions: 3, leaseDurationSeconds: 15, lastFailover: null });
    expect(c.replicas.map((r) => [r.source, r.role, r.roleBecause])).toEqual([
      ['a', 'leader', 'leader_election_master_status 1'],
      ['b', 'standby', 'leader_election_master_status 0'],
    ]);
    expect(c.queues.map((q) => q.name)).toEqual(['deployment']);
    expect(c.queues[0]!.addsPerSecond).toBeCloseTo(2, 6);
  });

  it('ties replicas to a Lease by discovery (component name) and picks the leader by holder identity = Pod name', async () => {
    const pods = ['op-7d9f-abcde', 'op-7d9f-fghij'];
    const { view } = await scene(
      [held('shop', 'op-lock', `${pods[1]}_0c6e2f9a-1111-2222-3333-444455556666`, 0)],
      {
        p0: [expo({ name: 'idle', controller: 'webapp' })],
        p1: [expo({ adds: 2, controller: 'webapp' }), expo({ adds: 6, retries: 4, controller: 'webapp' })],
      },
      pods.map((pod, i) => target(`p${i}`, { pod, namespace: 'shop', lease: 'shop/op-lock', foundBy: [`Pod shop/${pod}: container port metrics`] })),
    );
    const c = view.components[0]!;
    expect(c.key).toBe('shop/op-lock');
    expect(c.replicas.map((r) => r.role)).toEqual(['standby', 'leader']);
    expect(c.replicas[1]!.roleBecause).toContain(`names ${pods[1]}`);
    expect(c.leader).toBe('p1');
    expect(c.state).toBe('retrying');
    expect(c.reasons).toContain('queue webapp/deployment: 2.00 retries/s');
  });

  it('a source joined to no Lease is a component of its own; a Lease with no source says so', async () => {
    const { view } = await scene([held('kube-system', 'kube-scheduler', 'sched_1', 0)], { apiserver: [expo({ name: 'crd_finalizer' })] }, [
      target('apiserver', { component: 'kube-apiserver' }),
    ]);
    const names = view.components.map((c) => [c.key, c.name, c.state, c.note]);
    expect(names).toEqual([
      ['source:kube-apiserver', 'kube-apiserver', 'ok', null],
      ['kube-system/kube-scheduler', 'kube-scheduler', 'ok', 'no metrics source found for it (add one with --metrics)'],
    ]);
  });
});

describe('buildTopView: the state rule', () => {
  const one = (answers: Answer[], extra: Partial<TopTarget> = {}) =>
    scene([held('kube-system', 'kube-controller-manager', KCM_A, 0)], { a: answers }, [target('a', { component: 'kube-controller-manager', ...extra })]);

  it('ok for a queue that moves; backlog at depth 100; stuck when a worker runs 60 s or nothing is taken in a window', async () => {
    expect((await one([expo({ adds: 1, gets: 1 }), expo({ adds: 5, gets: 5, depth: 2 })])).view.components[0]!.state).toBe('ok');
    const backlog = (await one([expo({ depth: 150, adds: 100, gets: 0 }), expo({ depth: 100, adds: 200, gets: 150 })])).view.components[0]!;
    expect(backlog.state).toBe('backlog');
    expect(backlog.reasons[0]).toMatch(/^queue deployment: depth 100/);
    const longRunning = (await one([expo({ longest: 30, gets: 1 }), expo({ longest: 75, gets: 2 })])).view.components[0]!;
    expect(longRunning.state).toBe('stuck');
    expect(longRunning.reasons).toEqual(['queue deployment: an item has been worked on for 75s']);
    const starved = (await one([expo({ depth: 3, gets: 7 }), expo({ depth: 3, gets: 7 })])).view.components[0]!;
    expect(starved.state).toBe('stuck');
    expect(starved.reasons).toEqual(['queue deployment: 3 waiting, none taken in 2.0s']);
  });

  it('retrying beats backlog; unreachable beats stuck; the sort puts the worst first', async () => {
    const both = (await one([expo({ depth: 0, retries: 0, gets: 0 }), expo({ depth: 500, retries: 2, gets: 10 })])).view.components[0]!;
    expect(both.state).toBe('retrying');
    expect(both.reasons).toHaveLength(1);
    const down = (
      await one([expo({ longest: 99 }), { fail: 'unreachable', reason: 'cannot reach https://127.0.0.1:1/metrics: connection refused (ECONNREFUSED)' }])
    ).view.components[0]!;
    expect(down.state).toBe('unreachable');
    expect(down.replicas[0]!.state).toBe('stale');
    expect(down.reasons[0]).toBe('a: cannot reach https://127.0.0.1:1/metrics: connection refused (ECONNREFUSED)');
    // The last good statistics are still shown, under the unreachable state.
    expect(down.queues[0]!.state).toBe('stuck');

    const { view } = await scene(
      [held('kube-system', 'kube-controller-manager', KCM_A, 0), held('kube-system', 'kube-scheduler', 's_1', 0)],
      { kcm: [expo({}), expo({ retries: 4 })], sched: [expo({ name: 'scheduler' }), { fail: 'forbidden', reason: '403 Forbidden: no' }] },
      [target('kcm', { component: 'kube-controller-manager' }), target('sched', { component: 'kube-scheduler' })],
    );
    expect(view.components.map((c) => [c.name, c.state])).toEqual([
      ['kube-scheduler', 'unreachable'],
      ['kube-controller-manager', 'retrying'],
    ]);
  });

  it('a leader that stops answering still leads (its last good scrape) until another replica reports leading: unreachable meanwhile', async () => {
    const kcm = [held('kube-system', 'kube-controller-manager', KCM_A, 0)];
    const targets = [target('a', { component: 'kube-controller-manager' }), target('b', { component: 'kube-controller-manager' })];
    const dead = (
      await scene(
        kcm,
        { a: [expo({ master: ['kube-controller-manager', 1] }), { fail: 'unreachable', reason: 'connection refused' }], b: [expo({ name: 'x' })] },
        targets,
      )
    ).view.components[0]!;
    expect(dead.state).toBe('unreachable');
    expect(dead.leader).toBe('a');
    expect(dead.replicas.map((r) => [r.role, r.roleBecause])).toEqual([
      ['leader', 'leader_election_master_status 1 (its last good scrape)'],
      ['standby', null],
    ]);
    const taken = (
      await scene(
        kcm,
        {
          a: [expo({ master: ['kube-controller-manager', 1] }), { fail: 'unreachable', reason: 'connection refused' }],
          b: [expo({ name: 'x' }), expo({ name: 'x', master: ['kube-controller-manager', 1] })],
        },
        targets,
      )
    ).view.components[0]!;
    expect(taken.leader).toBe('b');
    expect(taken.state).toBe('ok');
    expect(taken.replicas.map((r) => r.role)).toEqual(['standby', 'leader']);
    // Once the Lease has expired, the last good scrape of a dead leader makes it lead no more.
    const expired = (
      await scene(
        kcm,
        { a: [expo({ master: ['kube-controller-manager', 1] }), { fail: 'unreachable', reason: 'connection refused' }], b: [expo({ name: 'x' })] },
        targets,
        async (clock) => {
          await clock.step(16_000);
        },
      )
    ).view.components[0]!;
    expect(expired.state).toBe('no leader');
    expect(expired.leader).toBeNull();
    expect(expired.replicas.map((r) => r.role)).toEqual([null, null]);
  });

  it('no leader once the holder expires, unreachable leader or not; the failover after it, with its gap', async () => {
    let expiredView: ReturnType<typeof buildTopView> | undefined;
    const { view } = await scene(
      [held('kube-system', 'kube-controller-manager', KCM_A, 0, 2)],
      { a: [expo({ master: ['kube-controller-manager', 1] }), { fail: 'unreachable', reason: 'connection refused' }], b: [expo({ name: 'x' })] },
      [target('a', { component: 'kube-controller-manager' }), target('b', { component: 'kube-controller-manager' })],
      async (clock, model) => {
        await clock.step(16_000); // A renewed at T0; 15 s later it has expired as we judge it
        expiredView = buildTopView({
          now: clock.now(),
          leases: model.view().leases,
          metrics: null,
          targets: [target('a', { component: 'kube-controller-manager' })],
        });
        await clock.step(1_500);
        model.handler.onUpdate!(
          held('kube-system', 'kube-controller-manager', KCM_A, 0, 2),
          held('kube-system', 'kube-controller-manager', KCM_B, 17_500, 3),
          info(clock),
        );
      },
    );
    const expired = expiredView!.components[0]!;
    expect(expired.state).toBe('no leader');
    expect(expired.reasons[0]).toBe(`Lease kube-system/kube-controller-manager: ${KCM_A} expired, 1s ago`);
    expect(expired.leader).toBeNull();
    const after = view.components[0]!;
    expect(after.lease!.holder).toBe(KCM_B);
    expect(after.lease!.transitions).toBe(3);
    expect(after.lease!.lastFailover).toEqual({ at: new Date(T0 + 17_500).toISOString(), from: KCM_A, to: KCM_B, gapMs: 2_500, fromEnded: 'expired' });
    expect(after.lease!.history.map((h) => h.holder)).toEqual([KCM_A, KCM_B]);
  });

  it("controller-runtime: the webapp controller's 4 errors and 4 retries in 2 s make it retrying, joined to its Lease by master status (captured scrapes)", async () => {
    const { view } = await scene(
      [held('shop', 'webapp-operator-lock', 'op-7d9f-fghij_1', 0)],
      { op: [metricsFixture('controller-runtime.prom'), metricsFixture('controller-runtime.2.prom')] },
      [target('op')],
    );
    const c = view.components[0]!;
    expect(c.key).toBe('shop/webapp-operator-lock');
    expect(c.leader).toBe('op');
    expect(c.state).toBe('retrying');
    expect(c.errorsPerSecond).toBeCloseTo(2, 6);
    expect(c.reasons).toEqual(['queue webapp: 2.00 retries/s', 'controller webapp: 2.00 errors/s']);
    expect(c.controllers.find((x) => x.controller === 'webapp')!.resultsPerSecond.success).toBeCloseTo(10, 6);
    // Its queue carries the controller's numbers, for the queue's row.
    const webapp = c.queues.find((q) => q.name === 'webapp')!;
    expect(webapp.reconcile!.errorsPerSecond).toBeCloseTo(2, 6);
    expect(topQueueCells(webapp).slice(-3)).toEqual([
      webapp.reconcile!.reconcilesPerSecond!.toFixed(1),
      '2.00',
      `${webapp.reconcile!.activeWorkers ?? '-'}/${webapp.reconcile!.maxConcurrentReconciles ?? '-'}`,
    ]);
  });
});

describe('sparkline', () => {
  it('draws bars scaled to the maximum, spaces for absent points', () => {
    expect(sparkline([0, 1, 2, 4, null, 8])).toBe('▁▂▃▅ █');
    expect(sparkline([0, 0])).toBe('▁▁');
    expect(sparkline([1, 2, 3], 2)).toBe('▆█');
  });
});

describe('helpers', () => {
  it('identityHost takes the part before the last underscore', () => {
    expect(identityHost('op-7d9f-abcde_0c6e2f9a-1111')).toBe('op-7d9f-abcde');
    expect(identityHost('my_host_name_uuid')).toBe('my_host_name');
    expect(identityHost('plain')).toBe('plain');
  });

  it('explainDiscovery says how each source was found and what could not be searched', () => {
    const text = explainDiscovery({
      targets: [
        target('svc', {
          component: 'kube-scheduler',
          foundBy: ['EndpointSlice kube-system/kube-scheduler-1 of Service kube-system/kube-scheduler'],
          lease: 'kube-system/kube-scheduler',
        }),
      ],
      discoveryErrors: ['Pods in all namespaces: 403 Forbidden'],
    });
    expect(text).toBe(
      'svc (kube-scheduler)\n  found: EndpointSlice kube-system/kube-scheduler-1 of Service kube-system/kube-scheduler\n  lease: kube-system/kube-scheduler\nnot searched: Pods in all namespaces: 403 Forbidden\n',
    );
  });
});
