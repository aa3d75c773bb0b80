import { describe, expect, it } from 'vitest';
import { DeletedFinalStateUnknown, type NotificationInfo, type ResourceEventHandler, type SyncResourceEventHandler } from '../informer/index.js';
import type { KubeObject, ResourceInfo } from '../kube/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { ChainHandlers } from './chain-handlers.js';
import type { ChainInformers, ChildInformer } from './chain-informers.js';
import type { ChainView } from './chain-view.js';
import { stampReceivedAt } from './received-at.js';
import { WatchTrigger } from './watch-trigger.js';

const T0 = Date.UTC(2026, 0, 1);
const deploymentsInfo = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true } as ResourceInfo;
const podsInfo = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } as ResourceInfo;

/** An informer that only keeps the handlers added to it (whose every call is done when it returns), for the test to call. */
class StubInformer {
  handlers: SyncResourceEventHandler[] = [];
  readonly objects = new Map<string, KubeObject>();
  addEventHandler(h: ResourceEventHandler) {
    const handler = h as SyncResourceEventHandler;
    this.handlers.push(handler);
    return { name: 'trace', hasSynced: () => true, remove: async () => void this.handlers.splice(this.handlers.indexOf(handler), 1) };
  }
  getIndexer() {
    return { getByKey: (key: string) => this.objects.get(key) };
  }
}

function obj(kind: string, name: string, uid: string, rv = '1', owner?: string): KubeObject {
  return {
    kind,
    metadata: {
      name,
      namespace: 'ns',
      uid,
      resourceVersion: rv,
      ...(owner ? { ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: owner }] } : {}),
    },
  };
}

const at = (receivedAt: number, isSync = false): NotificationInfo => ({
  receivedAt,
  distributedAt: receivedAt,
  deltaType: undefined,
  eventType: undefined,
  isSync,
});

function harness(shared = false) {
  const clock = new FakeClock(T0);
  const target = new StubInformer();
  const pods = new StubInformer();
  const child = { info: podsInfo, informer: pods, extra: false, metadataOnly: false } as unknown as ChildInformer;
  const informers = { target, children: [child] } as unknown as ChainInformers;
  const touched: string[] = [];
  const members = new Set<string>(['rs-1']);
  const chain = {
    touch: (_c: ChildInformer, o: KubeObject | DeletedFinalStateUnknown) => touched.push(o instanceof DeletedFinalStateUnknown ? o.key : o.metadata.name!),
    concerns: (o: KubeObject | DeletedFinalStateUnknown) => {
      const k = o instanceof DeletedFinalStateUnknown ? o.obj : o;
      return !k || (k.metadata.ownerReferences ?? []).some((r) => members.has(r.uid));
    },
    has: (uid: string) => members.has(uid),
  } as unknown as ChainView;
  const watch = new WatchTrigger();
  let queued = 0;
  const handlers = new ChainHandlers({
    clock,
    informers,
    chain: () => chain,
    target: { info: deploymentsInfo, namespace: 'ns', name: 'web' },
    shared,
    watch,
    enqueue: () => queued++,
  });
  handlers.handleTarget();
  handlers.handleChildren();
  return { clock, target, pods, handlers, watch, touched, queued: () => queued };
}

describe('ChainHandlers', () => {
  it("notes the target's first receipt and each version's once, counts its watch events but not resyncs, and queues each time", () => {
    const h = harness();
    const [on] = h.target.handlers;
    on!.onAdd(obj('Deployment', 'web', 'dep', '1'), true, at(T0 + 1));
    on!.onUpdate(obj('Deployment', 'web', 'dep', '1'), obj('Deployment', 'web', 'dep', '2'), at(T0 + 2));
    on!.onUpdate(obj('Deployment', 'web', 'dep', '2'), obj('Deployment', 'web', 'dep', '2'), at(T0 + 3, true));
    on!.onUpdate(obj('Deployment', 'web', 'dep', '2'), obj('Deployment', 'web', 'dep', '2'), at(T0 + 4));
    expect(h.handlers.versionReceivedAt('1')).toBe(T0 + 1);
    expect(h.handlers.versionReceivedAt('2')).toBe(T0 + 2);
    expect(h.handlers.targetWatchEvents).toBe(2);
    expect(h.queued()).toBe(4);
    expect(h.handlers.track('Deployment', obj('Deployment', 'web', 'dep', '2')).firstObservedAt).toBe(T0 + 1);
  });

  it('tells the watch trigger every version of the target it receives', () => {
    const h = harness();
    h.watch.watch(obj('Deployment', 'web', 'dep', '1'), false);
    h.target.handlers[0]!.onUpdate(obj('Deployment', 'web', 'dep', '1'), obj('Deployment', 'web', 'dep', '2'), at(T0 + 20));
    const view = {
      target: h.handlers.track('Deployment', obj('Deployment', 'web', 'dep', '3')),
      descendants: [],
      deletions: h.handlers.deletions,
      triggerSeenAt: undefined,
    };
    expect(h.watch.notice(view, 'dep')).toMatchObject({ at: T0 + 20, resourceVersion: '2' });
  });

  it('notes each deletion once seen, a tombstone as such, and touches the chain for every child it is told of', () => {
    const h = harness();
    const [on] = h.pods.handlers;
    on!.onAdd(obj('Pod', 'p1', 'p1', '1', 'rs-1'), false, at(T0 + 1));
    on!.onUpdate(obj('Pod', 'p1', 'p1', '1', 'rs-1'), obj('Pod', 'p1', 'p1', '2', 'rs-1'), at(T0 + 2, true));
    on!.onDelete(obj('Pod', 'p1', 'p1', '2', 'rs-1'), at(T0 + 3));
    on!.onDelete(new DeletedFinalStateUnknown('ns/p2', obj('Pod', 'p2', 'p2', '1', 'rs-1')), at(T0 + 4));
    expect([...h.handlers.deletions]).toEqual([
      ['p1', { at: T0 + 3, tombstone: false, finalState: obj('Pod', 'p1', 'p1', '2', 'rs-1') }],
      ['p2', { at: T0 + 4, tombstone: true, finalState: obj('Pod', 'p2', 'p2', '1', 'rs-1') }],
    ]);
    expect(h.touched).toEqual(['p1', 'p1', 'p1', 'ns/p2']);
    // A resync of a child queues nothing: nothing changed.
    expect(h.queued()).toBe(3);
  });

  it('shared with other traces, keeps to its own target and chain; alone, takes everything its informers hold as its own', () => {
    const shared = harness(true);
    shared.target.handlers[0]!.onAdd(obj('Deployment', 'api', 'api'), false, at(T0 + 1));
    shared.pods.handlers[0]!.onAdd(obj('Pod', 'other', 'o1', '1', 'rs-9'), false, at(T0 + 1));
    expect(shared.queued()).toBe(0);
    expect(shared.touched).toEqual([]);
    shared.pods.handlers[0]!.onAdd(obj('Pod', 'mine', 'm1', '1', 'rs-1'), false, at(T0 + 2));
    expect(shared.queued()).toBe(1);

    const alone = harness(false);
    alone.target.handlers[0]!.onAdd(obj('Deployment', 'api', 'api'), false, at(T0 + 1));
    alone.pods.handlers[0]!.onAdd(obj('Pod', 'other', 'o1', '1', 'rs-9'), false, at(T0 + 1));
    expect(alone.queued()).toBe(2);
  });

  it('tracks an object at when our informer received it, else now', () => {
    const h = harness();
    const stamped = stampReceivedAt(new FakeClock(T0 + 42))(obj('Pod', 'p1', 'p1')) as KubeObject;
    expect(h.handlers.track('Pod', stamped).observedAt).toBe(T0 + 42);
    h.clock.set(T0 + 99);
    const tracked = h.handlers.track('Pod', obj('Pod', 'p2', 'p2'), { kind: 'ReplicaSet', name: 'rs', uid: 'rs-1' });
    expect(tracked).toMatchObject({ ref: { kind: 'Pod', name: 'p2', uid: 'p2' }, owner: { uid: 'rs-1' }, observedAt: T0 + 99, firstObservedAt: undefined });
  });

  it('keeps an Event when it may be about the chain: the target, a member, a deletion, or an object the chain owns or the cache lacks', () => {
    const h = harness(true);
    h.pods.handlers[0]!.onDelete(obj('Pod', 'gone', 'gone', '1', 'rs-1'), at(T0));
    h.pods.objects.set('ns/mine', obj('Pod', 'mine', 'm1', '1', 'rs-1'));
    h.pods.objects.set('ns/other', obj('Pod', 'other', 'o1', '1', 'rs-9'));
    const about = (r: { uid?: string; kind?: string; name?: string; namespace?: string }) => h.handlers.concernsEvent(r, 'dep');
    expect(about({})).toBe(true);
    expect(about({ uid: 'dep' })).toBe(true);
    expect(about({ uid: 'rs-1' })).toBe(true);
    expect(about({ uid: 'gone' })).toBe(true);
    expect(about({ uid: 'new-uid', kind: 'Deployment', name: 'web' })).toBe(true);
    expect(about({ uid: 'm1', kind: 'Pod', name: 'mine', namespace: 'ns' })).toBe(true);
    expect(about({ uid: 'x1', kind: 'Pod', name: 'not-cached', namespace: 'ns' })).toBe(true);
    expect(about({ uid: 'o1', kind: 'Pod', name: 'other', namespace: 'ns' })).toBe(false);
    expect(about({ uid: 's1', kind: 'Service', name: 'web', namespace: 'ns' })).toBe(false);
  });

  it('takes its handlers away on detach', () => {
    const h = harness();
    h.handlers.detach();
    expect(h.target.handlers).toEqual([]);
    expect(h.pods.handlers).toEqual([]);
  });
});
