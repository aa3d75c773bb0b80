import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.js';
import { ChainTracker, refOf, type Deletion } from './chain-tracker.js';
import { fieldDiff } from './field-diff.js';
import { createReadiness } from '../readiness/index.js';

const readiness = await createReadiness();

describe('fieldDiff', () => {
  it('cuts a huge value to one short line that says its whole size', () => {
    const big = (c: string) => c.repeat(1.4 * 1024 * 1024);
    const before = { metadata: { name: 'web', annotations: { blob: big('a') } }, spec: { replicas: 1 } };
    const after = { metadata: { name: 'web', annotations: { blob: big('b') } }, spec: { replicas: 1 } };
    const d = fieldDiff(before, after);
    expect(d).toEqual([{ path: 'metadata.annotations.blob', from: `${'a'.repeat(47)}… (1.4 MiB)`, to: `${'b'.repeat(47)}… (1.4 MiB)` }]);
    expect(fieldDiff({ x: 'y'.repeat(48) }, { x: 'z'.repeat(49) })).toEqual([{ path: 'x', from: 'y'.repeat(48), to: `${'z'.repeat(47)}… (49 bytes)` }]);
    expect(fieldDiff({ x: 1 }, { x: { list: Array.from({ length: 300 }, (_, i) => i) } })[0]!.to).toMatch(/^\{"list":\[0,1,2,.*… \(1\.1 KiB\)$/);
  });

  it('lists changed leaves, keys conditions by type, and leaves bookkeeping out', () => {
    const before = {
      metadata: { name: 'web', resourceVersion: '10', annotations: { a: '1' }, managedFields: [{ manager: 'x' }] },
      spec: { replicas: 2 },
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'PodScheduled', status: 'True' },
        ],
      },
    };
    const after = {
      metadata: { name: 'web', resourceVersion: '11', annotations: { a: '1', 'kubectl.kubernetes.io/restartedAt': 'now' }, managedFields: [{ manager: 'y' }] },
      spec: { replicas: 3 },
      status: {
        conditions: [
          { type: 'PodScheduled', status: 'True' },
          { type: 'Ready', status: 'True' },
        ],
      },
    };
    expect(fieldDiff(before, after)).toEqual([
      { path: 'metadata.annotations["kubectl.kubernetes.io/restartedAt"]', to: 'now' },
      { path: 'spec.replicas', from: '2', to: '3' },
      { path: 'status.conditions[Ready].status', from: 'False', to: 'True' },
    ]);
  });

  it('compares unkeyed lists whole, shortens long values and caps the count', () => {
    expect(fieldDiff({ f: ['a'] }, { f: ['a', 'b'] })).toEqual([{ path: 'f', from: '["a"]', to: '["a","b"]' }]);
    const long = 'x'.repeat(100);
    expect(fieldDiff({}, { v: long })[0]!.to).toBe(`${'x'.repeat(47)}… (100 bytes)`);
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    const d = fieldDiff({}, many, 5);
    expect(d).toHaveLength(5);
    expect(d[4]).toEqual({ path: '… 16 more fields' });
  });
});

describe('the hop carries what its object version changed', () => {
  it('a ReplicaSet scaled up: spec.replicas in the hop; a new object has no changes', () => {
    const rs = (replicas: number, rv: string): KubeObject => ({
      kind: 'ReplicaSet',
      metadata: { name: 'web-a', namespace: 'ns', uid: 'rs', resourceVersion: rv, creationTimestamp: '2026-01-01T12:00:00Z' },
      spec: { replicas },
    });
    const pod: KubeObject = { kind: 'Pod', metadata: { name: 'web-a-1', namespace: 'ns', uid: 'p1', creationTimestamp: '2026-01-01T12:00:01Z' } };
    const owner = { kind: 'Deployment', namespace: 'ns', name: 'web', uid: 'dep' };
    const view = (objs: KubeObject[], at: number) => ({
      target: undefined,
      descendants: objs.map((o) => ({ ref: refOf(o.kind!, o), owner, obj: o, observedAt: at })),
      deletions: new Map<string, Deletion>(),
      triggerSeenAt: undefined,
    });
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view([rs(1, '1')], 0));
    t.setTrigger({ kind: 'scale', wrote: 'scaled', at: 0, writes: 1 });
    const hops = t.reconcile(view([rs(2, '2'), pod], 10), 11);
    expect(hops.find((h) => h.kind === 'scaled')?.changes).toEqual([{ path: 'spec.replicas', from: '1', to: '2' }]);
    expect(hops.find((h) => h.kind === 'created')?.changes).toBeUndefined();
  });
});
