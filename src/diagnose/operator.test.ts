import { describe, expect, it } from 'vitest';
import type { Kube, KubeObject } from '../kube/index.js';
import { parseExposition } from '../metrics/parse.js';
import type { TimedScrape } from '../metrics/index.js';
import { controllerQueue, leaseMatchesManager, objectReconciles, queueNamedFor, readControllerBehind, statusManager } from './operator.js';

const scrape = (atMs: number, text: string): TimedScrape => ({ atMs, families: parseExposition(text).families });

/** controller-runtime's metrics of an operator with two controllers, one of them busy. */
function operatorMetrics(o: { leader: boolean; rayAdds: number; rayRetries: number; success: number; error: number; jobAdds?: number }): string {
  return [
    '# TYPE leader_election_master_status gauge',
    `leader_election_master_status{name="ray-operator-leader"} ${o.leader ? 1 : 0}`,
    '# TYPE workqueue_adds_total counter',
    `workqueue_adds_total{controller="raycluster",name="raycluster"} ${o.rayAdds}`,
    `workqueue_adds_total{controller="rayjob",name="rayjob"} ${o.jobAdds ?? 0}`,
    '# TYPE workqueue_retries_total counter',
    `workqueue_retries_total{controller="raycluster",name="raycluster"} ${o.rayRetries}`,
    `workqueue_retries_total{controller="rayjob",name="rayjob"} 0`,
    '# TYPE workqueue_depth gauge',
    'workqueue_depth{controller="raycluster",name="raycluster"} 2',
    'workqueue_depth{controller="rayjob",name="rayjob"} 0',
    '# TYPE controller_runtime_reconcile_total counter',
    `controller_runtime_reconcile_total{controller="raycluster",result="success"} ${o.success}`,
    `controller_runtime_reconcile_total{controller="raycluster",result="error"} ${o.error}`,
    'controller_runtime_reconcile_total{controller="rayjob",result="success"} 0',
    '',
  ].join('\n');
}

describe('the operator behind a custom resource', () => {
  it('names the manager of its newest status write, never a person’s client or this tool', () => {
    const obj = (fields: { manager: string; subresource?: string; time: string }[]): KubeObject => ({
      metadata: { name: 'x', managedFields: fields.map((f) => ({ ...f, operation: 'Update' })) },
    });
    expect(
      statusManager(
        obj([
          { manager: 'kubectl-client-side-apply', time: '2026-01-01T00:00:05Z' },
          { manager: 'kuberay-operator', subresource: 'status', time: '2026-01-01T00:00:03Z' },
          { manager: 'kuberay-operator', time: '2026-01-01T00:00:02Z' },
        ]),
      ),
    ).toBe('kuberay-operator');
    expect(
      statusManager(
        obj([
          { manager: 'kubectl-informer-trace', time: '2026-01-01T00:00:05Z' },
          { manager: 'my-operator', time: '2026-01-01T00:00:04Z' },
        ]),
      ),
    ).toBe('my-operator');
    expect(statusManager(obj([{ manager: 'kubectl', time: '2026-01-01T00:00:05Z' }]))).toBeUndefined();
  });

  it('matches a Lease to a manager by name, without its -leader, -lock or -election ending', () => {
    expect(leaseMatchesManager('ray-operator-leader', 'kuberay-operator')).toBe(true);
    expect(leaseMatchesManager('widget-operator', 'widget-operator')).toBe(true);
    expect(leaseMatchesManager('cert-manager-controller', 'cert-manager-cainjector')).toBe(false);
    expect(leaseMatchesManager('kube-controller-manager', 'kuberay-operator')).toBe(false);
    expect(leaseMatchesManager('ab-lock', 'ab')).toBe(false);
  });

  it('measures the queue of the controller named after the kind over the trace, from the leader, and names its Lease', () => {
    const before = new Map([
      ['http://a/metrics', scrape(0, operatorMetrics({ leader: false, rayAdds: 0, rayRetries: 0, success: 0, error: 0 }))],
      ['http://b/metrics', scrape(0, operatorMetrics({ leader: true, rayAdds: 10, rayRetries: 1, success: 8, error: 1 }))],
    ]);
    const after = new Map([
      ['http://a/metrics', scrape(20_000, operatorMetrics({ leader: false, rayAdds: 0, rayRetries: 0, success: 0, error: 0 }))],
      ['http://b/metrics', scrape(20_000, operatorMetrics({ leader: true, rayAdds: 25, rayRetries: 7, success: 14, error: 6 }))],
    ]);
    const r = controllerQueue({ kind: 'RayCluster', resource: 'rayclusters', singularName: 'raycluster' }, before, after);
    expect(r.leaseNames).toEqual(['ray-operator-leader']);
    expect(r.queue).toEqual({
      source: 'http://b/metrics',
      sourceIs: 'leader',
      foundBy: [],
      queue: 'raycluster',
      controller: 'raycluster',
      matchedBy: 'kind',
      alsoMatched: [],
      depth: 2,
      adds: 15,
      retries: 6,
      reconciles: { success: 6, error: 5 },
      workTime: null,
      objectReconciles: [],
      windowMs: 20_000,
    });
  });

  it('falls back to the only controller whose queue took adds, and says why when there is none', () => {
    const before = new Map([['m', scrape(0, operatorMetrics({ leader: true, rayAdds: 0, rayRetries: 0, success: 0, error: 0, jobAdds: 3 }))]]);
    const after = new Map([['m', scrape(10_000, operatorMetrics({ leader: true, rayAdds: 0, rayRetries: 0, success: 0, error: 0, jobAdds: 9 }))]]);
    expect(controllerQueue({ kind: 'Job2' }, before, after).queue).toMatchObject({ controller: 'rayjob', matchedBy: 'activity', adds: 6 });
    const idle = controllerQueue({ kind: 'Widget', resource: 'widgets' }, before, before);
    expect(idle.queue).toBeNull();
    expect(idle).toMatchObject({ why: 'no queue named for Widget or widgets among raycluster, rayjob, and none took adds during the trace' });
    expect(controllerQueue({ kind: 'Widget' }, new Map(), new Map())).toMatchObject({ queue: null, why: 'no metrics source answered' });
  });

  it("matches a client-go queue named for the kind, in any case and spelling, and never another kind's", () => {
    const t = { kind: 'Rollout', resource: 'rollouts', singularName: 'rollout' };
    for (const n of ['Rollouts', 'rollouts', 'rollout', 'ROLLOUT', 'rollouts-controller', 'rollout_queue']) expect(queueNamedFor(n, t), n).toBe(true);
    for (const n of ['AnalysisRuns', 'Experiments', 'rollouts-notifications', 'controller', '']) expect(queueNamedFor(n, t), n).toBe(false);
  });

  /** A client-go operator's metrics (Argo Rollouts' shape): queues named after kinds, no controller label, a reconcile histogram per object. */
  function clientGoMetrics(o: { rollouts: number; retries: number; analysis: number; reconciles: number; sum: number; leader?: boolean }): string {
    return [
      ...(o.leader === undefined
        ? []
        : ['# TYPE leader_election_master_status gauge', `leader_election_master_status{name="argo-rollouts-controller-lock"} ${o.leader ? 1 : 0}`]),
      '# TYPE workqueue_adds_total counter',
      `workqueue_adds_total{name="Rollouts"} ${o.rollouts}`,
      `workqueue_adds_total{name="AnalysisRuns"} ${o.analysis}`,
      `workqueue_adds_total{name="Experiments"} 0`,
      '# TYPE workqueue_retries_total counter',
      `workqueue_retries_total{name="Rollouts"} ${o.retries}`,
      '# TYPE workqueue_depth gauge',
      'workqueue_depth{name="Rollouts"} 1',
      '# TYPE workqueue_work_duration_seconds histogram',
      `workqueue_work_duration_seconds_bucket{name="Rollouts",le="0.01"} ${o.rollouts}`,
      `workqueue_work_duration_seconds_bucket{name="Rollouts",le="0.1"} ${o.rollouts}`,
      `workqueue_work_duration_seconds_bucket{name="Rollouts",le="+Inf"} ${o.rollouts}`,
      `workqueue_work_duration_seconds_sum{name="Rollouts"} ${o.rollouts * 0.004}`,
      `workqueue_work_duration_seconds_count{name="Rollouts"} ${o.rollouts}`,
      '# TYPE rollout_reconcile histogram',
      `rollout_reconcile_bucket{name="demo",namespace="shop",le="+Inf"} ${o.reconciles}`,
      `rollout_reconcile_sum{name="demo",namespace="shop"} ${o.sum}`,
      `rollout_reconcile_count{name="demo",namespace="shop"} ${o.reconciles}`,
      `rollout_reconcile_count{name="other",namespace="shop"} 99`,
      '',
    ].join('\n');
  }

  it("joins a client-go queue by its name, from the replica whose queue moved, with work time and the operator's reconciles of the traced object", () => {
    const t = { kind: 'Rollout', resource: 'rollouts', singularName: 'rollout', namespace: 'shop', name: 'demo' };
    const idle = clientGoMetrics({ rollouts: 0, retries: 0, analysis: 0, reconciles: 0, sum: 0 });
    const before = new Map([
      ['http://a/metrics', scrape(0, idle)],
      ['http://b/metrics', scrape(0, clientGoMetrics({ rollouts: 10, retries: 20, analysis: 2, reconciles: 5, sum: 0.05 }))],
    ]);
    const after = new Map([
      ['http://a/metrics', scrape(30_000, idle)],
      ['http://b/metrics', scrape(30_000, clientGoMetrics({ rollouts: 50, retries: 86, analysis: 4, reconciles: 14, sum: 0.14 }))],
    ]);
    const r = controllerQueue(t, before, after);
    expect(r.queue).toMatchObject({
      source: 'http://b/metrics',
      sourceIs: 'moved',
      queue: 'Rollouts',
      controller: 'Rollouts',
      matchedBy: 'queue-name',
      adds: 40,
      retries: 66,
      depth: 1,
      objectReconciles: [{ metric: 'rollout_reconcile', count: 9 }],
      windowMs: 30_000,
    });
    expect(r.queue?.workTime?.observations).toBe(40);
    expect(r.queue?.objectReconciles[0]?.meanSeconds).toBeCloseTo(0.01, 6);
    // A replica that says it leads is preferred, even when its queue is quiet.
    const led = new Map(
      [...after].map(([k, v]) => [
        k,
        k === 'http://a/metrics' ? scrape(30_000, clientGoMetrics({ rollouts: 0, retries: 0, analysis: 0, reconciles: 0, sum: 0, leader: true })) : v,
      ]),
    );
    expect(controllerQueue(t, before, led).queue).toMatchObject({ source: 'http://a/metrics', sourceIs: 'leader', adds: 0 });
  });

  it("reads an operator's own per-object metric as an increase, a series born during the trace whole, and a restart's smaller total as all new", () => {
    const t = { kind: 'Rollout', namespace: 'shop', name: 'demo' };
    const at = (n: number, sum: number) => scrape(0, clientGoMetrics({ rollouts: 0, retries: 0, analysis: 0, reconciles: n, sum }));
    expect(objectReconciles(at(7, 0.7), at(3, 0.3), t)).toEqual([{ metric: 'rollout_reconcile', count: 4, meanSeconds: expect.closeTo(0.1, 6) as number }]);
    expect(objectReconciles(at(7, 0.7), scrape(0, ''), t)).toMatchObject([{ count: 7 }]);
    expect(objectReconciles(at(2, 0.2), at(9, 0.9), t)).toMatchObject([{ count: 2 }]);
    expect(objectReconciles(at(7, 0.7), at(3, 0.3), { kind: 'Rollout', namespace: 'other', name: 'demo' })).toEqual([]);
  });

  it('says which replicas found through the Lease were tried when none answered, and the flag that helps', async () => {
    const r = await readControllerBehind(
      {} as Kube,
      { kind: 'Rollout', resource: 'rollouts', singularName: 'rollout' },
      { metadata: { name: 'demo', namespace: 'shop' } },
      { scrapes: { before: new Map(), after: new Map() }, foundBy: new Map([['http://127.0.0.1:18500/metrics', ['EndpointSlice shop/op-1 …']]]) },
    );
    expect(r.behind.unseen).toContain(
      'its workqueue: no metrics source answered (tried the replicas found through its Lease: http://127.0.0.1:18500/metrics; give --metrics with their endpoints)',
    );
  });
});
