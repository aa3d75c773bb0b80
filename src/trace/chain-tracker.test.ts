import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.js';
import { ChainTracker, refOf, type Deletion, type ReconcileView, type TrackedObject } from './chain-tracker.js';
import type { TraceTrigger } from './types.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function deployment(generation: number, observed: number, extra: { replicas?: number; template?: string; annotations?: Record<string, string>; converged?: boolean; finalizers?: string[]; deleting?: boolean } = {}): KubeObject {
  const replicas = extra.replicas ?? 2;
  return {
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns', uid: 'dep', generation, resourceVersion: `${generation}${observed}`, ...(extra.finalizers ? { finalizers: extra.finalizers } : {}), ...(extra.deleting ? { deletionTimestamp: '2026-01-01T12:00:05Z', deletionGracePeriodSeconds: 0 } : {}) },
    spec: { replicas, template: { metadata: { annotations: { v: extra.template ?? '1' } } } },
    status: {
      observedGeneration: observed,
      replicas,
      updatedReplicas: extra.converged ? replicas : 0,
      readyReplicas: extra.converged ? replicas : 0,
      availableReplicas: extra.converged ? replicas : 0,
      conditions: [{ type: 'Progressing', status: 'True', reason: extra.converged ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated' }],
    },
  };
}

function rs(uid: string, replicas: number): KubeObject {
  return { kind: 'ReplicaSet', metadata: { name: `web-${uid}`, namespace: 'ns', uid, creationTimestamp: '2026-01-01T12:00:01Z', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep', controller: true }] }, spec: { replicas } };
}

function pod(uid: string, owner: string, conds: string[]): KubeObject {
  return {
    kind: 'Pod',
    metadata: { name: `web-${owner}-${uid}`, namespace: 'ns', uid, creationTimestamp: '2026-01-01T12:00:01Z' },
    spec: { nodeName: conds.includes('PodScheduled') ? 'node-a' : undefined },
    status: { phase: conds.includes('Ready') ? 'Running' : 'Pending', conditions: conds.map((type) => ({ type, status: 'True', lastTransitionTime: '2026-01-01T12:00:02Z' })) },
  };
}

const depRef = { kind: 'Deployment', namespace: 'ns', name: 'web', uid: 'dep' };

function view(target: KubeObject | undefined, at: number, children: [KubeObject, number, string?][] = [], extra: Partial<ReconcileView> = {}): ReconcileView {
  const tracked = (o: KubeObject, t: number, ownerUid?: string): TrackedObject => ({
    ref: refOf(o.kind!, o),
    owner: ownerUid === undefined ? depRef : { kind: 'ReplicaSet', namespace: 'ns', name: `web-${ownerUid}`, uid: ownerUid },
    obj: o,
    observedAt: t,
  });
  return {
    target: target ? { ref: refOf('Deployment', target), obj: target, observedAt: at } : undefined,
    descendants: children.map(([o, t, owner]) => tracked(o, t, owner)),
    deletions: new Map<string, Deletion>(),
    triggerSeenAt: undefined,
    ...extra,
  };
}

const restart: TraceTrigger = { kind: 'restart', wrote: 'restarted', at: T0, resourceVersion: '21', generation: 2, writes: 1 };

describe('ChainTracker', () => {
  it('reports nothing before the trigger, then each new fact once, in causal order', () => {
    const t = new ChainTracker('Deployment');
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, [[rs('old', 2), T0 - 1000], [pod('p1', 'old', ['PodScheduled', 'Ready']), T0 - 1000, 'old']]));
    t.setTrigger(restart);
    const hops1 = t.reconcile(view(deployment(2, 1, { template: '2', converged: true }), T0 + 10, [[rs('old', 2), T0 - 1000], [pod('p1', 'old', ['PodScheduled', 'Ready']), T0 - 1000, 'old']], { triggerSeenAt: T0 + 10 }), T0 + 20);
    expect(hops1.map((h) => h.kind)).toEqual(['target-modified']);
    expect(hops1[0]!.sinceTriggerMs).toBe(10);

    const hops2 = t.reconcile(
      view(deployment(2, 2, { template: '2' }), T0 + 50, [
        [rs('old', 2), T0 - 1000],
        [rs('new', 1), T0 + 40],
        [pod('p1', 'old', ['PodScheduled', 'Ready']), T0 - 1000, 'old'],
        [pod('p2', 'new', ['PodScheduled']), T0 + 60, 'new'],
      ], { triggerSeenAt: T0 + 10 }),
      T0 + 70,
    );
    expect(hops2.map((h) => `${h.kind}:${h.object.kind}`)).toEqual(['created:ReplicaSet', 'controller-observed:Deployment', 'created:Pod', 'scheduled:Pod']);
    const scheduled = hops2.find((h) => h.kind === 'scheduled')!;
    expect(scheduled.detail).toBe('node node-a');
    expect(scheduled.serverTime).toBe('2026-01-01T12:00:02Z');
    // A Pod's hop follows its own previous hop; the ReplicaSet's follows the latest hop anywhere.
    expect(scheduled.previousId).toBe('created/p2');
    expect(hops2.find((h) => h.kind === 'created' && h.object.kind === 'ReplicaSet')!.previousId).toBe('target-modified/dep');
    // Seeing the same state again gives no new hops.
    expect(t.reconcile(view(deployment(2, 2, { template: '2' }), T0 + 50, [[rs('new', 1), T0 + 40], [pod('p2', 'new', ['PodScheduled']), T0 + 60, 'new']]), T0 + 80)).toEqual([]);
  });

  it('records scale changes with their direction and converges only after the controller observed the new generation', () => {
    const t = new ChainTracker('Deployment');
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, [[rs('a', 2), T0 - 1000]]));
    t.setTrigger({ kind: 'scale', wrote: 'scaled', at: T0, resourceVersion: '2', generation: 2, writes: 1 });
    expect(t.expectsRollout()).toBe(false); // the tracker has not seen the new spec yet
    // Status still says converged for the old generation: not converged.
    t.reconcile(view(deployment(2, 1, { replicas: 3, converged: true }), T0 + 5, [[rs('a', 2), T0 - 1000]]), T0 + 6);
    expect(t.expectsRollout()).toBe(true);
    expect(t.converged()).toBeUndefined();
    const hops = t.reconcile(view(deployment(2, 2, { replicas: 3, converged: true }), T0 + 30, [[rs('a', 3), T0 + 20]]), T0 + 31);
    expect(hops.map((h) => `${h.kind}:${h.detail ?? ''}`)).toEqual(['scaled:2→3 replicas', 'controller-observed:observedGeneration 2', 'converged:3 updated, 3 ready, 3 available of 3; Progressing NewReplicaSetAvailable']);
    expect(t.converged()?.kind).toBe('converged');
    const down = t.reconcile(view(deployment(2, 2, { replicas: 3, converged: true }), T0 + 30, [[rs('a', 1), T0 + 40]]), T0 + 41);
    expect(down.map((h) => `${h.kind}:${h.detail}`)).toEqual(['scaled-down:3→1 replicas']);
  });

  it('does not expect a rollout when only metadata changed, even though a Deployment generation moves', () => {
    const t = new ChainTracker('Deployment');
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000));
    t.setTrigger({ kind: 'annotate', wrote: 'annotated', at: T0, resourceVersion: '22', generation: 2, writes: 1 });
    t.reconcile(view(deployment(2, 2, { converged: true, annotations: { a: 'b' } }), T0 + 10, [], { triggerSeenAt: T0 + 10 }), T0 + 11);
    expect(t.specChanged()).toBe(true);
    expect(t.expectsRollout()).toBe(false);
    expect(t.converged()).toBeUndefined();
    expect(t.hops().map((h) => h.kind)).toEqual(['target-modified', 'controller-observed']);
  });

  it('follows a deletion with a finalizer: terminating, finalizer removed, deleted', () => {
    const t = new ChainTracker('Deployment');
    t.baseline(view(deployment(1, 1, { converged: true, finalizers: ['example.com/hold'] }), T0 - 1000));
    t.setTrigger({ kind: 'watch', wrote: '', at: T0, writes: 0 });
    const h1 = t.reconcile(view(deployment(2, 1, { converged: true, finalizers: ['example.com/hold'], deleting: true }), T0 + 5), T0 + 6);
    expect(h1.map((h) => h.kind)).toEqual(['terminating', 'spec-changed']);
    expect(h1[0]!.serverTime).toBe('2026-01-01T12:00:05Z');
    // The update that removes the last finalizer deletes the object: the cache only sees it gone.
    const deletions = new Map<string, Deletion>([['dep', { at: T0 + 900, tombstone: false, finalState: deployment(2, 1, { finalizers: ['example.com/hold'], deleting: true }) }]]);
    const h2 = t.reconcile(view(undefined, 0, [], { deletions }), T0 + 901);
    expect(h2.map((h) => `${h.kind}:${h.detail ?? ''}`)).toEqual(['finalizer-removed:example.com/hold', 'deleted:']);
    expect(t.isTargetDeleted()).toBe(true);
  });

  it('marks a deletion learnt at a relist as a tombstone', () => {
    const t = new ChainTracker('Deployment');
    t.baseline(view(deployment(1, 1), T0 - 1000, [[pod('p1', 'a', ['Ready']), T0 - 1000, 'a']]));
    t.setTrigger({ kind: 'watch', wrote: '', at: T0, writes: 0 });
    const deletions = new Map<string, Deletion>([['p1', { at: T0 + 50, tombstone: true }]]);
    const hops = t.reconcile(view(deployment(1, 1), T0 - 1000, [], { deletions }), T0 + 60);
    expect(hops).toHaveLength(1);
    expect(hops[0]).toMatchObject({ kind: 'deleted', detail: 'learnt at a relist (tombstone: final state unknown)', sinceTriggerMs: 50 });
  });

  it('attaches Events to the hop they explain, matching replica counts in the note', () => {
    const t = new ChainTracker('Deployment');
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, [[rs('a', 1), T0 - 1000]]));
    t.setTrigger(restart);
    t.reconcile(view(deployment(2, 2, { template: '2' }), T0 + 10, [[rs('a', 1), T0 - 1000], [rs('b', 1), T0 + 20]]), T0 + 21);
    t.reconcile(view(deployment(2, 2, { template: '2' }), T0 + 10, [[rs('a', 0), T0 + 30], [rs('b', 2), T0 + 30]]), T0 + 31);
    const ev = (note: string) => ({ reason: 'ScalingReplicaSet', note, time: '2026-01-01T12:00:01Z', reportingController: 'deployment-controller' });
    expect(t.addEvent('dep', ev('Scaled up replica set web-b from 0 to 1'), T0 + 40)).toEqual(['created/b']);
    expect(t.addEvent('dep', ev('Scaled up replica set web-b from 1 to 2'), T0 + 41)).toEqual(['scaled-2/b']);
    expect(t.addEvent('dep', ev('Scaled down replica set web-a from 1 to 0'), T0 + 42)).toEqual(['scaled-0/a']);
    expect(t.addEvent('dep', { ...ev('x'), reason: 'Unrelated' }, T0 + 43)).toEqual([]);
  });
});
