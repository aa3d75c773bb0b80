import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.js';
import type { Deletion, ReconcileView } from './chain-tracker.js';
import { WatchTrigger } from './watch-trigger.js';

const T0 = Date.UTC(2026, 0, 1);

function web(rv: string, o: { generation?: number; labels?: Record<string, string>; ready?: number } = {}): KubeObject {
  return {
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns', uid: 'dep', resourceVersion: rv, generation: o.generation ?? 1, ...(o.labels ? { labels: o.labels } : {}) },
    status: { readyReplicas: o.ready ?? 1 },
  };
}

/** What a reconcile reads: the target as the cache holds it (received at `at`), and the deletions seen. */
function view(target: KubeObject | undefined, at = T0, deletions = new Map<string, Deletion>()): ReconcileView {
  return {
    target: target ? { ref: { kind: 'Deployment', namespace: 'ns', name: 'web', uid: 'dep' }, obj: target, observedAt: at } : undefined,
    descendants: [],
    deletions,
    triggerSeenAt: undefined,
  };
}

describe('WatchTrigger', () => {
  it('makes no trigger until it watches', () => {
    const w = new WatchTrigger();
    w.received(web('2'), T0 + 1);
    expect(w.notice(view(web('2')), 'dep')).toBeUndefined();
  });

  it('takes the first version after the baseline as the change, timed by when our informer received it', () => {
    const w = new WatchTrigger();
    const base = web('1');
    w.watch(base, false);
    w.received(base, T0 + 1);
    expect(w.notice(view(base), 'dep')).toBeUndefined();
    w.received(web('2', { generation: 2 }), T0 + 10);
    w.received(web('3', { generation: 3 }), T0 + 20);
    // The reconcile reads the newest version; the change is the first one after the baseline.
    expect(w.notice(view(web('3', { generation: 3 }), T0 + 20), 'dep')).toEqual({
      kind: 'watch',
      wrote: '',
      at: T0 + 10,
      resourceVersion: '2',
      generation: 3,
      writes: 0,
    });
  });

  it('without a version received in between, takes the version the reconcile reads, at its receipt', () => {
    const w = new WatchTrigger();
    w.watch(web('1'), false);
    expect(w.notice(view(web('4'), T0 + 40), 'dep')).toEqual({ kind: 'watch', wrote: '', at: T0 + 40, resourceVersion: '4', generation: 1, writes: 0 });
  });

  it('with ignoreStatus, a version that changes only the status is not the change; one that changes a label is', () => {
    const w = new WatchTrigger();
    w.watch(web('1'), true);
    w.received(web('2', { ready: 2 }), T0 + 10);
    expect(w.notice(view(web('2', { ready: 2 })), 'dep')).toBeUndefined();
    w.received(web('3', { ready: 2, labels: { a: 'b' } }), T0 + 20);
    expect(w.notice(view(web('3', { ready: 2, labels: { a: 'b' } }), T0 + 20), 'dep')).toMatchObject({ at: T0 + 20, resourceVersion: '3' });
  });

  it('for a target that does not exist yet, takes its creation as the change', () => {
    const w = new WatchTrigger();
    w.watch(undefined, true);
    expect(w.notice(view(undefined), undefined)).toBeUndefined();
    w.received(web('7'), T0 + 70);
    expect(w.notice(view(web('7'), T0 + 70), 'dep')).toMatchObject({ at: T0 + 70, resourceVersion: '7' });
  });

  it('for a target created after the watch began, its creation is the change, at when it was created', () => {
    const w = new WatchTrigger();
    w.watchCreated(T0 - 500, web('5'));
    w.received(web('6'), T0 + 60);
    expect(w.notice(view(web('6'), T0 + 60), 'dep')).toMatchObject({ at: T0 - 500, resourceVersion: '5' });
  });

  it('takes the deletion of the target as the change, at when our informer received it', () => {
    const w = new WatchTrigger();
    w.watch(web('1'), false);
    expect(w.notice(view(undefined), 'dep')).toBeUndefined();
    const deletions = new Map<string, Deletion>([['dep', { at: T0 + 90, tombstone: false }]]);
    expect(w.notice(view(undefined, T0, deletions), 'dep')).toEqual({ kind: 'watch', wrote: '', at: T0 + 90, writes: 0 });
    expect(w.notice(view(undefined, T0, deletions), undefined)).toBeUndefined();
  });
});
