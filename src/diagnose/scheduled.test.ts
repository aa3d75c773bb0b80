import { describe, expect, it } from 'vitest';
import { ago, deployment, event, input, lease, pod } from '../../tools/testing/diagnose-input.js';
import { diagnose } from './diagnose.js';

describe('diagnose: scheduled', () => {
  it('Pods too big for any node: the PodScheduled condition and the FailedScheduling Event', () => {
    const msg = '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.';
    const p = pod({
      name: 'web-abc-1',
      node: null,
      createdAgo: 20,
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: msg, lastTransitionTime: ago(20) }],
    });
    const ev = event({ reason: 'FailedScheduling', kind: 'Pod', regarding: p, note: msg, firstAgo: 20, lastAgo: 2, count: 3, controller: 'default-scheduler' });
    const d = diagnose(input({ object: deployment({ ready: 1, replicas: 2 }), pods: [pod({ name: 'web-abc-2' }), p], events: { seen: true, value: [ev] } }));
    expect(d.link).toBe('scheduled');
    expect(d.summary).toContain('1 Pod cannot be scheduled: Unschedulable: 0/2 nodes are available: 2 Insufficient cpu.');
    expect(d.evidence[0]).toMatchObject({
      object: { kind: 'Pod', name: 'web-abc-1' },
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      forMs: 20_000,
    });
    expect(d.evidence[1]).toMatchObject({ source: 'event', reason: 'FailedScheduling', count: 3, reporter: 'default-scheduler' });
    expect(d.next).toEqual(['kubectl describe pod web-abc-1 -n demo', 'kubectl describe nodes']);
  });

  it("Pods never considered while kube-scheduler's Lease is expired", () => {
    const p = pod({ name: 'web-abc-1', node: null, createdAgo: 60, conditions: [] });
    const d = diagnose(
      input({
        object: deployment({ ready: 1 }),
        pods: [pod({ name: 'web-abc-2' }), p],
        leases: [lease('kube-controller-manager', 1), lease('kube-scheduler', 80)],
      }),
    );
    expect(d.link).toBe('scheduled');
    expect(d.summary).toContain("kube-scheduler's leader Lease is not renewed");
    expect(d.evidence.map((e) => e.reason)).toEqual(['NotScheduled', 'Expired']);
    expect(d.next[0]).toBe('kubectl get lease kube-scheduler -n kube-system -o yaml');
  });
});
