import { describe, expect, it } from 'vitest';
import { ago, deployment, event, input, pod, replicaSet } from '../../tools/testing/diagnose-input.js';
import { diagnose } from './diagnose.js';

describe('diagnose: children created', () => {
  it('a ResourceQuota refusing the Pods: FailedCreate at the ReplicaSet, with the quota command', () => {
    const rs = replicaSet({
      replicas: 2,
      conditions: [
        {
          type: 'ReplicaFailure',
          status: 'True',
          reason: 'FailedCreate',
          message: 'pods "web-abc-x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1',
          lastTransitionTime: ago(40),
        },
      ],
    });
    const p1 = pod({ name: 'web-abc-1' });
    const ev = event({
      reason: 'FailedCreate',
      kind: 'ReplicaSet',
      regarding: rs,
      note: 'Error creating: pods "web-abc-x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1',
      count: 7,
      firstAgo: 40,
      lastAgo: 3,
      controller: 'replicaset-controller',
    });
    const d = diagnose(input({ object: deployment({ ready: 1 }), rs: [rs], pods: [p1], events: { seen: true, value: [ev] } }));
    expect(d.verdict).toBe('broken');
    expect(d.link).toBe('children-created');
    expect(d.summary).toContain('ReplicaSet/web-abc could not create a Pod: Error creating: pods "web-abc-x" is forbidden: exceeded quota');
    expect(d.evidence[0]).toMatchObject({ source: 'condition', type: 'ReplicaFailure', reason: 'FailedCreate', forMs: 40_000 });
    expect(d.evidence[1]).toMatchObject({ source: 'event', reason: 'FailedCreate', count: 7, reporter: 'replicaset-controller', forMs: 40_000 });
    expect(d.next).toEqual(['kubectl describe replicaset web-abc -n demo', 'kubectl describe resourcequota -n demo']);
  });

  it('a FailedCreate from before the newest Pod does not explain anything now', () => {
    const rs = replicaSet();
    const old = event({ reason: 'FailedCreate', kind: 'ReplicaSet', regarding: rs, note: 'exceeded quota', firstAgo: 900, lastAgo: 800 });
    expect(diagnose(input({ events: { seen: true, value: [old] } })).verdict).toBe('healthy');
  });

  it('Pods missing past the grace with no Event is broken, with the Lease as context', () => {
    const d = diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-1' })] }));
    expect(d.link).toBe('children-created');
    expect(d.evidence[0]).toMatchObject({ reason: 'PodsMissing' });
  });
});
