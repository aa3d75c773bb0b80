import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.js';
import { parseExposition } from '../metrics/parse.js';
import type { TimedScrape } from '../metrics/index.js';
import { controllerQueue, leaseMatchesManager, statusManager } from './operator.js';

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
    const r = controllerQueue('RayCluster', before, after);
    expect(r.leaseNames).toEqual(['ray-operator-leader']);
    expect(r.queue).toEqual({
      source: 'http://b/metrics',
      controller: 'raycluster',
      matchedBy: 'kind',
      depth: 2,
      adds: 15,
      retries: 6,
      reconciles: { success: 6, error: 5 },
      windowMs: 20_000,
    });
  });

  it('falls back to the only controller whose queue took adds, and says why when there is none', () => {
    const before = new Map([['m', scrape(0, operatorMetrics({ leader: true, rayAdds: 0, rayRetries: 0, success: 0, error: 0, jobAdds: 3 }))]]);
    const after = new Map([['m', scrape(10_000, operatorMetrics({ leader: true, rayAdds: 0, rayRetries: 0, success: 0, error: 0, jobAdds: 9 }))]]);
    expect(controllerQueue('Job2', before, after).queue).toMatchObject({ controller: 'rayjob', matchedBy: 'activity', adds: 6 });
    const idle = controllerQueue('Widget', before, before);
    expect(idle.queue).toBeNull();
    expect(idle).toMatchObject({ why: 'no controller named widget among raycluster, rayjob, and none took adds during the trace' });
    expect(controllerQueue('Widget', new Map(), new Map())).toMatchObject({ queue: null, why: 'no metrics source answered' });
  });
});
