import { describe, expect, it } from 'vitest';
import { deployment, input, lease } from '../../tools/testing/diagnose-input.js';
import { diagnose } from './diagnose.js';

/** kube-controller-manager's deployment queue, as its metrics say it: 4 deep and retrying. */
const deploymentQueue = {
  seen: true as const,
  value: [
    {
      name: 'deployment',
      controller: null,
      depth: 4,
      addsPerSecond: 1,
      retriesPerSecond: 0.5,
      addsTotal: 10,
      retriesTotal: 3,
      queueTime: { p50: null, p99: null, observations: null, basis: null },
      workTime: { p50: null, p99: null, observations: null, basis: null },
      unfinishedWorkSeconds: 0,
      longestRunningProcessorSeconds: 0,
    },
  ],
};

describe('diagnose: controller observed', () => {
  it('generation not observed and the leader Lease expired: broken, with the Lease and how long', () => {
    const d = diagnose(
      input({ object: deployment({ generation: 3, observed: 2, changedAgo: 50 }), leases: [lease('kube-controller-manager', 45), lease('kube-scheduler', 1)] }),
    );
    expect(d.verdict).toBe('broken');
    expect(d.link).toBe('controller-observed');
    expect(d.evidence[0]).toMatchObject({
      object: { kind: 'Deployment', name: 'web' },
      reason: 'GenerationNotObserved',
      message: 'observedGeneration 2 < generation 3',
      forMs: 50_000,
    });
    const l = d.evidence.find((e) => e.source === 'lease')!;
    expect(l).toMatchObject({ object: { kind: 'Lease', namespace: 'kube-system', name: 'kube-controller-manager' }, reason: 'Expired', forMs: 30_000 });
    expect(l.message).toContain('expired 30.0s ago');
    expect(d.next).toContain('kubectl get lease kube-controller-manager -n kube-system -o yaml');
  });

  it('a released Lease (no holder) is broken even before the generation lags past the grace', () => {
    const released = lease('kube-controller-manager', 3, '');
    const d = diagnose(input({ object: deployment({ generation: 3, observed: 2, changedAgo: 2 }), leases: [released, lease('kube-scheduler', 1)] }));
    expect(d.link).toBe('controller-observed');
    expect(d.evidence.some((e) => e.reason === 'Released')).toBe(true);
  });

  it('a missing Lease is evidence too', () => {
    const d = diagnose(
      input({
        object: deployment({ generation: 3, observed: 2, changedAgo: 40 }),
        leases: [{ component: 'kube-controller-manager', namespace: 'kube-system', name: 'kube-controller-manager', lease: { seen: true, value: undefined } }],
      }),
    );
    expect(d.link).toBe('controller-observed');
    expect(d.evidence.find((e) => e.source === 'lease')!.reason).toBe('NotFound');
  });

  it('a lag inside the grace period with a renewed Lease is progressing', () => {
    const d = diagnose(input({ object: deployment({ generation: 3, observed: 2, changedAgo: 3 }) }));
    expect(d.verdict).toBe('healthy');
    expect(d.links.find((l) => l.link === 'controller-observed')!.status).toBe('progressing');
  });

  it('a lag past the grace with a renewed Lease names the queue when its metrics were read', () => {
    const d = diagnose(input({ object: deployment({ generation: 3, observed: 2, changedAgo: 60 }), queues: deploymentQueue }));
    expect(d.link).toBe('controller-observed');
    expect(d.summary).toContain('holds its Lease');
    expect(d.evidence.find((e) => e.source === 'queue')).toMatchObject({
      object: { name: 'deployment' },
      reason: 'Retrying',
      message: 'depth 4, retries/s 0.50',
    });
  });

  it('a custom resource named Deployment is not reconciled by kube-controller-manager: its deployment queue is no evidence', () => {
    const custom = { ...deployment({ generation: 3, observed: 2, changedAgo: 60 }), apiVersion: 'example.com/v1', kind: 'Deployment' };
    const d = diagnose(input({ object: custom, queues: deploymentQueue }));
    expect(d.link).toBe('controller-observed');
    expect(d.evidence.find((e) => e.source === 'queue')).toBeUndefined();
  });

  it('an unreadable Lease with the generation lagging is still broken (what was seen), and says what was not seen', () => {
    const d = diagnose(
      input({
        object: deployment({ generation: 3, observed: 2, changedAgo: 60 }),
        leases: [
          {
            component: 'kube-controller-manager',
            namespace: 'kube-system',
            name: 'kube-controller-manager',
            lease: { seen: false, why: 'forbidden: get leases in kube-system (403)' },
          },
        ],
      }),
    );
    expect(d.verdict).toBe('broken');
    expect(d.link).toBe('controller-observed');
    expect(d.summary).toContain('Lease could not be read');
    expect(d.unseen).toEqual([{ what: 'Lease kube-system/kube-controller-manager', why: 'forbidden: get leases in kube-system (403)' }]);
  });
});
