import { describe, expect, it, vi } from 'vitest';
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

  it('tells leaves apart as their JSON does: a number from its string, values JSON cannot write equal', () => {
    // A number and its string are different values (both shown as they read).
    expect(fieldDiff({ n: 1, s: '1', b: true }, { n: '1', s: 1, b: 'true' })).toEqual([
      { path: 'n', from: '1', to: '1' },
      { path: 's', from: '1', to: '1' },
      { path: 'b', from: 'true', to: 'true' },
    ]);
    expect(fieldDiff({ x: Number.NaN, y: Number.POSITIVE_INFINITY, z: null }, { x: Number.NaN, y: Number.NaN, z: null })).toEqual([]);
    expect(fieldDiff({ x: 0 }, { x: -0 })).toEqual([]);
    // Keys of the first object in its order, then those only the second has.
    expect(fieldDiff({ b: 1, a: 1 }, { c: 2, a: 2, b: 2 }).map((c) => c.path)).toEqual(['b', 'a', 'c']);
    const shared = { deep: { list: [1, 2] } };
    expect(fieldDiff({ shared, v: 1 }, { shared, v: 2 })).toEqual([{ path: 'v', from: '1', to: '2' }]);
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

  it('each hop of one version carries the diff from the version before; a version that makes no hop is not diffed', async () => {
    const { fieldDiff: realDiff } = await import('./field-diff.js');
    const diffed: unknown[] = [];
    vi.doMock('./field-diff.js', () => ({
      fieldDiff: (a: KubeObject, b: KubeObject) => {
        diffed.push(b.metadata.name);
        return realDiff(a, b);
      },
    }));
    vi.resetModules();
    const { ChainTracker: Tracker, refOf: ref } = await import('./chain-tracker.js');
    try {
      const pod = (name: string, uid: string, rv: string, labels: Record<string, string>, conditions: { type: string; status: string }[]): KubeObject => ({
        kind: 'Pod',
        metadata: { name, namespace: 'ns', uid, resourceVersion: rv, creationTimestamp: '2026-01-01T12:00:00Z', labels },
        status: { conditions },
      });
      const owner = { kind: 'ReplicaSet', namespace: 'ns', name: 'web-a', uid: 'rs' };
      const view = (objs: KubeObject[], at: number) => ({
        target: undefined,
        descendants: objs.map((o) => ({ ref: ref('Pod', o), owner, obj: o, observedAt: at })),
        deletions: new Map<string, Deletion>(),
        triggerSeenAt: undefined,
      });
      const t = new Tracker('Deployment', readiness);
      t.baseline(view([pod('a', 'pa', '1', { v: '1' }, []), pod('b', 'pb', '1', { v: '1' }, [])], 0));
      t.setTrigger({ kind: 'restart', wrote: 'restarted', at: 0, writes: 1 });
      // a: scheduled and ready at once (two hops, one diff); b: a label only (no hop, no diff).
      const scheduledReady = [
        { type: 'PodScheduled', status: 'True' },
        { type: 'Ready', status: 'True' },
      ];
      const hops = t.reconcile(view([pod('a', 'pa', '2', { v: '1' }, scheduledReady), pod('b', 'pb', '2', { v: '2' }, [])], 10), 11);
      expect(hops.map((h) => `${h.object.name} ${h.kind}`)).toEqual(['a scheduled', 'a ready']);
      const expected = realDiff(pod('a', 'pa', '1', { v: '1' }, []), pod('a', 'pa', '2', { v: '1' }, scheduledReady));
      expect(expected.length).toBeGreaterThan(0);
      for (const h of hops) expect(h.changes).toEqual(expected);
      expect(hops[0]!.changes).toBe(hops[1]!.changes);
      expect(diffed).toEqual(['a']);
    } finally {
      vi.doUnmock('./field-diff.js');
      vi.resetModules();
    }
  });
});
