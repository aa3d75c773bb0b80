import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.js';
import { hopFiguresOf } from './hop-figures.js';
import { ChainTracker, refOf, type Deletion, type ReconcileView, type TrackedObject } from './chain-tracker.js';
import type { TraceTrigger } from './types.js';
import { createReadiness } from '../readiness/index.js';

const readiness = await createReadiness();

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function deployment(
  generation: number,
  observed: number,
  extra: { replicas?: number; template?: string; annotations?: Record<string, string>; converged?: boolean; finalizers?: string[]; deleting?: boolean } = {},
): KubeObject {
  const replicas = extra.replicas ?? 2;
  return {
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'ns',
      uid: 'dep',
      generation,
      resourceVersion: `${generation}${observed}`,
      ...(extra.finalizers ? { finalizers: extra.finalizers } : {}),
      ...(extra.deleting ? { deletionTimestamp: '2026-01-01T12:00:05Z', deletionGracePeriodSeconds: 0 } : {}),
    },
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
  return {
    kind: 'ReplicaSet',
    metadata: {
      name: `web-${uid}`,
      namespace: 'ns',
      uid,
      creationTimestamp: '2026-01-01T12:00:01Z',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep', controller: true }],
    },
    spec: { replicas },
  };
}

function pod(uid: string, owner: string, conds: string[]): KubeObject {
  return {
    kind: 'Pod',
    metadata: { name: `web-${owner}-${uid}`, namespace: 'ns', uid, creationTimestamp: '2026-01-01T12:00:01Z' },
    spec: { nodeName: conds.includes('PodScheduled') ? 'node-a' : undefined },
    status: {
      phase: conds.includes('Ready') ? 'Running' : 'Pending',
      conditions: conds.map((type) => ({ type, status: 'True', lastTransitionTime: '2026-01-01T12:00:02Z' })),
    },
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
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(
      view(deployment(1, 1, { converged: true }), T0 - 1000, [
        [rs('old', 2), T0 - 1000],
        [pod('p1', 'old', ['PodScheduled', 'Ready']), T0 - 1000, 'old'],
      ]),
    );
    t.setTrigger(restart);
    const hops1 = t.reconcile(
      view(
        deployment(2, 1, { template: '2', converged: true }),
        T0 + 10,
        [
          [rs('old', 2), T0 - 1000],
          [pod('p1', 'old', ['PodScheduled', 'Ready']), T0 - 1000, 'old'],
        ],
        { triggerSeenAt: T0 + 10 },
      ),
      T0 + 20,
    );
    expect(hops1.map((h) => h.kind)).toEqual(['target-modified']);
    expect(hops1[0]!.sinceTriggerMs).toBe(10);

    const hops2 = t.reconcile(
      view(
        deployment(2, 2, { template: '2' }),
        T0 + 50,
        [
          [rs('old', 2), T0 - 1000],
          [rs('new', 1), T0 + 40],
          [pod('p1', 'old', ['PodScheduled', 'Ready']), T0 - 1000, 'old'],
          [pod('p2', 'new', ['PodScheduled']), T0 + 60, 'new'],
        ],
        { triggerSeenAt: T0 + 10 },
      ),
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
    expect(
      t.reconcile(
        view(deployment(2, 2, { template: '2' }), T0 + 50, [
          [rs('new', 1), T0 + 40],
          [pod('p2', 'new', ['PodScheduled']), T0 + 60, 'new'],
        ]),
        T0 + 80,
      ),
    ).toEqual([]);
  });

  it('records scale changes with their direction and converges only after the controller observed the new generation', () => {
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, [[rs('a', 2), T0 - 1000]]));
    t.setTrigger({ kind: 'scale', wrote: 'scaled', at: T0, resourceVersion: '2', generation: 2, writes: 1 });
    expect(t.expectsRollout()).toBe(false); // the tracker has not seen the new spec yet
    // Status still says converged for the old generation: not converged.
    t.reconcile(view(deployment(2, 1, { replicas: 3, converged: true }), T0 + 5, [[rs('a', 2), T0 - 1000]]), T0 + 6);
    expect(t.expectsRollout()).toBe(true);
    expect(t.converged()).toBeUndefined();
    const hops = t.reconcile(view(deployment(2, 2, { replicas: 3, converged: true }), T0 + 30, [[rs('a', 3), T0 + 20]]), T0 + 31);
    expect(hops.map((h) => `${h.kind}:${h.detail ?? ''}`)).toEqual([
      'scaled:2→3 replicas',
      'controller-observed:observedGeneration 2',
      'converged:3 updated, 3 ready, 3 available of 3; Progressing NewReplicaSetAvailable',
    ]);
    expect(t.converged()?.kind).toBe('converged');
    const down = t.reconcile(view(deployment(2, 2, { replicas: 3, converged: true }), T0 + 30, [[rs('a', 1), T0 + 40]]), T0 + 41);
    expect(down.map((h) => `${h.kind}:${h.detail}`)).toEqual(['scaled-down:3→1 replicas']);
  });

  it('does not expect a rollout when only metadata changed, even though a Deployment generation moves', () => {
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000));
    t.setTrigger({ kind: 'annotate', wrote: 'annotated', at: T0, resourceVersion: '22', generation: 2, writes: 1 });
    t.reconcile(view(deployment(2, 2, { converged: true, annotations: { a: 'b' } }), T0 + 10, [], { triggerSeenAt: T0 + 10 }), T0 + 11);
    expect(t.specChanged()).toBe(true);
    expect(t.expectsRollout()).toBe(false);
    expect(t.converged()).toBeUndefined();
    expect(t.hops().map((h) => h.kind)).toEqual(['target-modified', 'controller-observed']);
  });

  it('follows a deletion with a finalizer: terminating, finalizer removed, deleted', () => {
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view(deployment(1, 1, { converged: true, finalizers: ['example.com/hold'] }), T0 - 1000));
    t.setTrigger({ kind: 'watch', wrote: '', at: T0, writes: 0 });
    const h1 = t.reconcile(view(deployment(2, 1, { converged: true, finalizers: ['example.com/hold'], deleting: true }), T0 + 5), T0 + 6);
    expect(h1.map((h) => h.kind)).toEqual(['terminating', 'spec-changed']);
    expect(h1[0]!.serverTime).toBe('2026-01-01T12:00:05Z');
    // The update that removes the last finalizer deletes the object: the cache only sees it gone.
    const deletions = new Map<string, Deletion>([
      ['dep', { at: T0 + 900, tombstone: false, finalState: deployment(2, 1, { finalizers: ['example.com/hold'], deleting: true }) }],
    ]);
    const h2 = t.reconcile(view(undefined, 0, [], { deletions }), T0 + 901);
    expect(h2.map((h) => `${h.kind}:${h.detail ?? ''}`)).toEqual(['finalizer-removed:example.com/hold', 'deleted:']);
    expect(t.isTargetDeleted()).toBe(true);
  });

  it('marks a deletion learnt at a relist as a tombstone', () => {
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view(deployment(1, 1), T0 - 1000, [[pod('p1', 'a', ['Ready']), T0 - 1000, 'a']]));
    t.setTrigger({ kind: 'watch', wrote: '', at: T0, writes: 0 });
    const deletions = new Map<string, Deletion>([['p1', { at: T0 + 50, tombstone: true }]]);
    const hops = t.reconcile(view(deployment(1, 1), T0 - 1000, [], { deletions }), T0 + 60);
    expect(hops).toHaveLength(1);
    expect(hops[0]).toMatchObject({ kind: 'deleted', detail: 'learnt at a relist (tombstone: final state unknown)', sinceTriggerMs: 50 });
  });

  it('attaches Events to the hop they explain, matching replica counts in the note', () => {
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, [[rs('a', 1), T0 - 1000]]));
    t.setTrigger(restart);
    t.reconcile(
      view(deployment(2, 2, { template: '2' }), T0 + 10, [
        [rs('a', 1), T0 - 1000],
        [rs('b', 1), T0 + 20],
      ]),
      T0 + 21,
    );
    t.reconcile(
      view(deployment(2, 2, { template: '2' }), T0 + 10, [
        [rs('a', 0), T0 + 30],
        [rs('b', 2), T0 + 30],
      ]),
      T0 + 31,
    );
    const ev = (note: string) => ({ reason: 'ScalingReplicaSet', note, time: '2026-01-01T12:00:01Z', reportingController: 'deployment-controller' });
    expect(t.addEvent('dep', ev('Scaled up replica set web-b from 0 to 1'))).toBe('created/b');
    expect(t.addEvent('dep', ev('Scaled up replica set web-b from 1 to 2'))).toBe('scaled-2/b');
    expect(t.addEvent('dep', ev('Scaled down replica set web-a from 1 to 0'))).toBe('scaled-0/a');
    expect(t.addEvent('dep', { ...ev('x'), reason: 'Unrelated' })).toBeUndefined();
  });

  it('lists an Event once under its hop, however often it is updated, with the latest count', () => {
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, [[rs('a', 1), T0 - 1000]]));
    t.setTrigger(restart);
    t.reconcile(
      view(deployment(2, 2, { template: '2' }), T0 + 10, [
        [rs('a', 1), T0 - 1000],
        [rs('b', 1), T0 + 20],
        [pod('p1', 'b', ['PodScheduled']), T0 + 30, 'b'],
      ]),
      T0 + 31,
    );
    const scheduled = {
      uid: 'ev-1',
      reason: 'Scheduled',
      note: 'Successfully assigned ns/web-b-p1 to node-a',
      time: '2026-01-01T12:00:01Z',
      reportingController: 'default-scheduler',
    };
    expect(t.addEvent('p1', scheduled)).toBe('scheduled/p1');
    // The same Event again (a later version: the series counted up) attaches to nothing new.
    expect(t.addEvent('p1', { ...scheduled, time: '2026-01-01T12:00:03Z', count: 3 })).toBeUndefined();
    const hop = t.hops().find((h) => h.id === 'scheduled/p1')!;
    expect(hop.events).toHaveLength(1);
    expect(hop.events[0]).toMatchObject({ uid: 'ev-1', count: 3, time: '2026-01-01T12:00:03Z' });
  });

  it('lists an Event that could explain two hops under the first only', () => {
    const t = new ChainTracker('Deployment', readiness);
    const p1 = pod('p1', 'a', ['PodScheduled', 'Ready']);
    t.baseline(
      view(deployment(1, 1, { converged: true }), T0 - 1000, [
        [rs('a', 1), T0 - 1000],
        [p1, T0 - 1000, 'a'],
      ]),
    );
    t.setTrigger(restart);
    const terminating = { ...p1, metadata: { ...p1.metadata, deletionTimestamp: '2026-01-01T12:00:03Z', deletionGracePeriodSeconds: 1 } };
    t.reconcile(
      view(deployment(2, 2, { template: '2' }), T0 + 10, [
        [rs('a', 0), T0 + 20],
        [terminating, T0 + 30, 'a'],
      ]),
      T0 + 31,
    );
    const deleted = new Map<string, Deletion>([['p1', { at: T0 + 40, tombstone: false, finalState: terminating }]]);
    t.reconcile(view(deployment(2, 2, { template: '2' }), T0 + 10, [[rs('a', 0), T0 + 20]], { deletions: deleted }), T0 + 41);
    expect(
      t
        .hops()
        .filter((h) => h.object.uid === 'p1')
        .map((h) => h.kind),
    ).toEqual(['terminating', 'deleted']);
    const del = {
      uid: 'ev-d',
      reason: 'SuccessfulDelete',
      note: 'Deleted pod: web-a-p1',
      time: '2026-01-01T12:00:03Z',
      reportingController: 'replicaset-controller',
    };
    expect(t.addEvent('a', del)).toBe('terminating/p1');
    expect(t.hops().find((h) => h.id === 'deleted/p1')!.events).toEqual([]);
  });

  it('explains a creation only by an Event naming the created object, not by one about the object itself', () => {
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, [[rs('a', 1), T0 - 1000]]));
    t.setTrigger(restart);
    t.reconcile(
      view(deployment(2, 2, { template: '2' }), T0 + 10, [
        [rs('a', 1), T0 - 1000],
        [rs('b', 2), T0 + 20],
        [pod('p1', 'b', []), T0 + 30, 'b'],
        [pod('p2', 'b', []), T0 + 31, 'b'],
      ]),
      T0 + 32,
    );
    const created = (uid: string, pod: string) => ({
      uid,
      reason: 'SuccessfulCreate',
      note: `Created pod: ${pod}`,
      time: '2026-01-01T12:00:01Z',
      reportingController: 'replicaset-controller',
    });
    // Regarding the ReplicaSet web-b; "web-b" is a prefix of the Pod names but not a name in the note.
    expect(t.addEvent('b', created('ev-1', 'web-b-p1'))).toBe('created/p1');
    expect(t.addEvent('b', created('ev-2', 'web-b-p2'))).toBe('created/p2');
    expect(t.hops().find((h) => h.id === 'created/b')!.events).toEqual([]);
  });

  it('keeps hops in the order received when a later reconcile finds an earlier hop', () => {
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, [[rs('a', 1), T0 - 1000]]));
    t.setTrigger(restart);
    t.reconcile(view(deployment(2, 2, { template: '2' }), T0 + 113, [[rs('a', 1), T0 - 1000]], { triggerSeenAt: T0 + 5 }), T0 + 114);
    // The ReplicaSet informer received the new ReplicaSet at +108, but it reached the cache later.
    const late = t.reconcile(
      view(
        deployment(2, 2, { template: '2' }),
        T0 + 113,
        [
          [rs('a', 1), T0 - 1000],
          [rs('b', 1), T0 + 108],
        ],
        { triggerSeenAt: T0 + 5 },
      ),
      T0 + 120,
    );
    expect(late.map((h) => h.id)).toEqual(['created/b']);
    expect(t.hops().map((h) => `${h.kind}+${h.sinceTriggerMs}`)).toEqual(['target-modified+5', 'created+108', 'controller-observed+113']);
    expect(late[0]!.seenBeforeCause).toBeUndefined();
    // What the controller's status write follows is now the ReplicaSet's creation, not our write.
    expect(t.hops()[2]).toMatchObject({ previousId: 'created/b', sincePreviousMs: 5 });
    expect(t.hops()[1]).toMatchObject({ previousId: 'target-modified/dep', sincePreviousMs: 103 });
    // The figures kept as hops were placed are those of the list as it is now.
    expect(t.figures()).toEqual(hopFiguresOf(t.hops()));
    expect(t.figures()).toMatchObject({ ids: ['target-modified/dep', 'created/b', 'controller-observed-2/dep'] });
  });

  it('puts the cause first among hops received at the same instant', () => {
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, [[rs('a', 1), T0 - 1000]]));
    t.setTrigger(restart);
    // The view lists the Pod before its ReplicaSet; both were received at +40.
    const hops = t.reconcile(
      view(
        deployment(2, 1, { template: '2' }),
        T0 + 10,
        [
          [pod('p1', 'b', ['PodScheduled']), T0 + 40, 'b'],
          [rs('b', 1), T0 + 40],
          [rs('a', 1), T0 - 1000],
        ],
        { triggerSeenAt: T0 + 10 },
      ),
      T0 + 41,
    );
    expect(hops.map((h) => `${h.kind}:${h.object.kind}`)).toEqual(['target-modified:Deployment', 'created:ReplicaSet', 'created:Pod', 'scheduled:Pod']);
    expect(t.hops().map((h) => h.id)).toEqual(hops.map((h) => h.id));
  });

  it('says so when a child is seen created before the change of its owner that caused it', () => {
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, [[rs('a', 1), T0 - 1000]]));
    t.setTrigger({ kind: 'watch', wrote: '', at: T0, writes: 0 });
    // The new ReplicaSet arrives before the Deployment's new generation does.
    const first = t.reconcile(
      view(deployment(1, 1, { converged: true }), T0 - 1000, [
        [rs('a', 1), T0 - 1000],
        [rs('b', 1), T0 + 10],
      ]),
      T0 + 11,
    );
    expect(first.map((h) => h.id)).toEqual(['created/b']);
    expect(first[0]!.seenBeforeCause).toBeUndefined();
    expect(t.takeLateCauseMarks()).toEqual([]);
    const second = t.reconcile(
      view(deployment(2, 1, { template: '2' }), T0 + 20, [
        [rs('a', 1), T0 - 1000],
        [rs('b', 1), T0 + 10],
      ]),
      T0 + 21,
    );
    expect(second.map((h) => h.kind)).toEqual(['spec-changed']);
    expect(t.hops().map((h) => h.kind)).toEqual(['created', 'spec-changed']);
    expect(t.hops()[0]!.seenBeforeCause).toBe(true);
    expect(t.takeLateCauseMarks().map((h) => h.id)).toEqual(['created/b']);
    expect(t.takeLateCauseMarks()).toEqual([]);
  });

  it('reports a target our apply created by its creation, never as a MODIFIED of something that was there', () => {
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view(undefined, 0));
    t.setTrigger({ kind: 'apply', wrote: 'applied', at: T0, resourceVersion: '10', generation: 1, writes: 1 });
    const first = deployment(1, 0);
    const target = (obj: KubeObject, at: number): ReconcileView => ({
      ...view(obj, at, [], { triggerSeenAt: T0 + 5 }),
      target: { ref: refOf('Deployment', obj), obj, observedAt: at, firstObservedAt: T0 + 5 },
    });
    expect(t.reconcile(target(first, T0 + 5), T0 + 6).map((h) => h.kind)).toEqual(['created']);
    expect(t.reconcile(target(deployment(1, 1), T0 + 20), T0 + 21).map((h) => h.kind)).toEqual(['controller-observed']);
    expect(t.hops().some((h) => h.kind === 'target-modified')).toBe(false);
  });

  it('reads the facts of changed objects only, and matches Events only with the hops of the objects they concern', () => {
    const t = new ChainTracker('Deployment', readiness);
    const n = 300;
    const withRv = (o: KubeObject, rv: string): KubeObject => ({ ...o, metadata: { ...o.metadata, resourceVersion: rv } });
    const pods = Array.from({ length: n }, (_, i) => withRv(pod(`p${i}`, 'a', ['PodScheduled', 'Ready']), `${100 + i}`));
    const a = rs('a', n);
    const children = (ps: KubeObject[]): [KubeObject, number, string?][] => [
      [a, T0 - 1000],
      ...ps.map((p): [KubeObject, number, string] => [p, T0 - 1000, 'a']),
    ];
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, children(pods)));
    t.setTrigger(restart);
    const reads = () => t.work().factReads;
    const matches = () => t.work().eventMatches;

    // The target changed; the ReplicaSet and every Pod are the versions seen at the baseline.
    let before = reads();
    expect(t.reconcile(view(deployment(2, 1, { template: '2' }), T0 + 10, children(pods), { triggerSeenAt: T0 + 10 }), T0 + 11).map((h) => h.kind)).toEqual([
      'target-modified',
    ]);
    expect(reads() - before).toBe(1);

    // Nothing changed: nothing is read. A relist's copies of the same versions are not changes either.
    const target = deployment(2, 1, { template: '2' });
    before = reads();
    expect(t.reconcile(view(target, T0 + 10, children(pods)), T0 + 12)).toEqual([]);
    expect(t.reconcile(view(target, T0 + 10, children(pods.map((p) => ({ ...p })))), T0 + 13)).toEqual([]);
    expect(reads() - before).toBe(0);

    // One Pod lost readiness: its version alone is read.
    const unready = withRv(pod('p7', 'a', ['PodScheduled']), '999');
    before = reads();
    const hops = t.reconcile(view(target, T0 + 10, children(pods.map((p, i) => (i === 7 ? unready : p)))), T0 + 20);
    expect(hops.map((h) => h.id)).toEqual(['not-ready-999/p7']);
    expect(reads() - before).toBe(1);

    // Every Pod then terminates: n hops. An Event about one Pod is tested against that Pod's hops only.
    const terminating = pods.map((p, i) =>
      withRv({ ...(i === 7 ? unready : p), metadata: { ...p.metadata, deletionTimestamp: '2026-01-01T12:00:03Z' } }, `${2000 + i}`),
    );
    expect(t.reconcile(view(target, T0 + 10, children(terminating)), T0 + 30).filter((h) => h.kind === 'terminating')).toHaveLength(n);
    before = matches();
    const killing = (i: number) => ({
      uid: `ev-${i}`,
      reason: 'Killing',
      note: `Stopping container web`,
      time: '2026-01-01T12:00:03Z',
      reportingController: 'kubelet',
    });
    for (let i = 0; i < n; i++) t.addEvent(`p${i}`, killing(i));
    // A few per Event (its Pod's hops, and the Deployment's: "web" is named in the note), never one per hop.
    expect(matches() - before).toBeLessThanOrEqual(4 * n);
    expect(
      t
        .hops()
        .find((h) => h.id === 'terminating/p7')!
        .events.map((e) => e.uid),
    ).toEqual(['ev-7']);

    // Events that explain no hop yet wait; a new Pod's hops are tested against the Events naming or regarding it only.
    const deleteEvent = (i: number) => ({
      uid: `del-${i}`,
      reason: 'SuccessfulDelete',
      note: `Deleted pod: web-a-p${i}`,
      time: '2026-01-01T12:00:03Z',
      reportingController: 'replicaset-controller',
    });
    for (let i = 0; i < n; i++) t.addEvent('a', deleteEvent(i));
    before = matches();
    const fresh = withRv(pod('q1', 'a', ['PodScheduled']), '5000');
    const created = {
      uid: 'ev-q1',
      reason: 'SuccessfulCreate',
      note: 'Created pod: web-a-q1',
      time: '2026-01-01T12:00:03Z',
      reportingController: 'replicaset-controller',
    };
    expect(t.addEvent('a', created)).toBeUndefined();
    const added = t.reconcile(view(target, T0 + 10, [...children(terminating), [fresh, T0 + 40, 'a']]), T0 + 41);
    expect(added.map((h) => h.id)).toEqual(['created/q1', 'scheduled/q1']);
    expect(added[0]!.events.map((e) => e.uid)).toEqual(['ev-q1']);
    expect(matches() - before).toBeLessThanOrEqual(10);
  });

  it('reads each deletion once from a map that keeps growing, and follows each deleted object once', () => {
    const t = new ChainTracker('Deployment', readiness);
    const n = 200;
    const pods = Array.from({ length: n }, (_, i) => pod(`p${i}`, 'a', ['PodScheduled', 'Ready']));
    const a = rs('a', n);
    const target = deployment(2, 1, { template: '2' });
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, [[a, T0 - 1000], ...pods.map((p): [KubeObject, number, string] => [p, T0 - 1000, 'a'])]));
    t.setTrigger(restart);
    // As the tracer keeps it: one map for the whole trace, one more Pod deleted before each reconcile.
    const deletions = new Map<string, Deletion>();
    let deleted = 0;
    for (let i = 0; i < n; i++) {
      deletions.set(`p${i}`, { at: T0 + 10 + i, tombstone: false, finalState: pods[i] });
      const left = pods.slice(i + 1).map((p): [KubeObject, number, string] => [p, T0 - 1000, 'a']);
      deleted += t.reconcile(view(target, T0 + 10, [[a, T0 - 1000], ...left], { deletions }), T0 + 11 + i).filter((h) => h.kind === 'deleted').length;
    }
    expect(deleted).toBe(n);
    // n reads in all, not one per entry per reconcile (n(n+1)/2).
    expect(t.work().deletionReads).toBe(n);
    // A deletion of an object the chain never held is read and passed over.
    deletions.set('elsewhere', { at: T0 + 500, tombstone: true });
    expect(t.reconcile(view(target, T0 + 10, [[a, T0 - 1000]], { deletions }), T0 + 501)).toEqual([]);
    expect(t.work().deletionReads).toBe(n + 1);
    expect(
      t
        .hops()
        .filter((h) => h.kind === 'deleted')
        .map((h) => h.object.uid),
    ).toEqual(pods.map((p) => p.metadata.uid));
  });

  it('reads the deletions added after reconciles that found none new, and a new map from its start', () => {
    const t = new ChainTracker('Deployment', readiness);
    const pods = ['p0', 'p1', 'p2'].map((name) => pod(name, 'a', ['PodScheduled', 'Ready']));
    const a = rs('a', 3);
    const target = deployment(2, 1, { template: '2' });
    const chain = (left: KubeObject[]): [KubeObject, number, string?][] => [
      [a, T0 - 1000],
      ...left.map((p): [KubeObject, number, string] => [p, T0 - 1000, 'a']),
    ];
    t.baseline(view(deployment(1, 1, { converged: true }), T0 - 1000, chain(pods)));
    t.setTrigger(restart);
    const deletions = new Map<string, Deletion>();
    const deletedNow = (at: number, left: KubeObject[], map = deletions): string[] =>
      t
        .reconcile(view(target, T0 + 10, chain(left), { deletions: map }), at)
        .filter((h) => h.kind === 'deleted')
        .map((h) => h.object.uid);
    // Nothing deleted yet, twice: the map is read to its end each time and stays readable.
    expect(deletedNow(T0 + 11, pods)).toEqual([]);
    expect(deletedNow(T0 + 12, pods)).toEqual([]);
    deletions.set('p0', { at: T0 + 20, tombstone: false, finalState: pods[0] });
    expect(deletedNow(T0 + 21, pods.slice(1))).toEqual(['p0']);
    expect(deletedNow(T0 + 22, pods.slice(1))).toEqual([]);
    deletions.set('p1', { at: T0 + 30, tombstone: false, finalState: pods[1] });
    expect(deletedNow(T0 + 31, pods.slice(2))).toEqual(['p1']);
    expect(t.work().deletionReads).toBe(2);
    // A view built afresh hands over a map of its own: it is read from its start (p0 and p1 are
    // gone already and make no hop again).
    const afresh = new Map(deletions);
    afresh.set('p2', { at: T0 + 40, tombstone: false, finalState: pods[2] });
    expect(deletedNow(T0 + 41, [], afresh)).toEqual(['p2']);
    expect(t.work().deletionReads).toBe(5);
  });

  it('traces a target created after the baseline: its creation is the change, and the rollout converges', () => {
    const t = new ChainTracker('Deployment', readiness);
    t.baseline(view(undefined, 0));
    t.setTrigger({ kind: 'watch', wrote: '', at: T0, writes: 0 });
    const created = { ...deployment(1, 0, { replicas: 1 }), metadata: { ...deployment(1, 0).metadata, creationTimestamp: '2026-01-01T12:00:00Z' } };
    const h1 = t.reconcile(
      { ...view(created, T0 + 5), target: { ref: refOf('Deployment', created), obj: created, observedAt: T0 + 5, firstObservedAt: T0 + 5 } },
      T0 + 6,
    );
    expect(h1.map((h) => h.kind)).toEqual(['created']);
    expect(t.expectsRollout()).toBe(true);
    t.reconcile(
      view(deployment(1, 1, { replicas: 1 }), T0 + 30, [
        [rs('b', 1), T0 + 20],
        [pod('p1', 'b', ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready']), T0 + 25, 'b'],
      ]),
      T0 + 31,
    );
    const done = t.reconcile(
      view(deployment(1, 1, { replicas: 1, converged: true }), T0 + 40, [
        [rs('b', 1), T0 + 20],
        [pod('p1', 'b', ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready']), T0 + 25, 'b'],
      ]),
      T0 + 41,
    );
    expect(done.map((h) => h.kind)).toEqual(['converged']);
    expect(t.hops().filter((h) => h.seenBeforeCause)).toEqual([]);
  });
});
