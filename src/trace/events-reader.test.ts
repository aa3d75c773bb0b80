import { describe, expect, it } from 'vitest';
import type { NotificationInfo, ResourceEventHandler, SharedIndexInformer, SyncResourceEventHandler } from '../informer/index.js';
import type { KubeObject, ResourceInfo } from '../kube/index.js';
import { EventBudget, EventsReader } from './events-reader.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-01-01T12:00:00Z');
const note = {} as NotificationInfo;
const pod = (n: number) => ({ uid: `pod-${n}`, label: `Pod/web-${n}` });

const info: ResourceInfo = {
  group: 'events.k8s.io',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
  shortNames: [],
  singularName: 'event',
  verbs: ['list', 'watch'],
};

/** Only what the reader uses of an informer: its one handler. */
/** The reader's handler, which does its work before it returns (the reader keeps no promise). */
function fakeInformer(): { informer: SharedIndexInformer; handler: () => SyncResourceEventHandler } {
  let handler: ResourceEventHandler | undefined;
  const informer = {
    addEventHandler(h: ResourceEventHandler) {
      handler = h;
      return { hasSynced: () => true };
    },
  } as unknown as SharedIndexInformer;
  return { informer, handler: () => handler as SyncResourceEventHandler };
}

function event(n: number, regarding: string, at: number, rv = '1', count?: number): KubeObject {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: `e-${n}`, namespace: 'ns', uid: `ev-${n}`, resourceVersion: rv },
    reason: 'Pulled',
    note: `event ${n}`,
    eventTime: new Date(at).toISOString(),
    regarding: { kind: 'Pod', name: regarding, uid: regarding },
    ...(count ? { series: { count, lastObservedTime: new Date(at).toISOString() } } : {}),
  } as KubeObject;
}

describe('EventBudget', () => {
  it('keeps Events within the TTL and cuts older ones, counted in one line', () => {
    const b = new EventBudget({ ttlMs: HOUR, perObject: 10 });
    expect(b.admit('a', pod(1), NOW - HOUR + 1, NOW)).toBe(true);
    expect(b.admit('b', pod(1), NOW - HOUR - 1, NOW)).toBe(false);
    expect(b.admit('c', pod(2), NOW - 2 * HOUR, NOW)).toBe(false);
    expect(b.takeCutNote()).toBe("Events not read: 2 older than the API server's 1h event TTL");
    expect(b.takeCutNote()).toBeUndefined();
  });

  it('keeps at most perObject distinct Events per object; a kept one stays kept, a deleted one frees its place', () => {
    const b = new EventBudget({ ttlMs: HOUR, perObject: 3 });
    for (const uid of ['a', 'b', 'c']) expect(b.admit(uid, pod(1), NOW, NOW)).toBe(true);
    expect(b.admit('d', pod(1), NOW, NOW)).toBe(false);
    // Another object has a budget of its own; a kept Event's next version is still kept.
    expect(b.admit('x', pod(2), NOW, NOW)).toBe(true);
    expect(b.admit('a', pod(1), NOW, NOW)).toBe(true);
    expect(b.size).toBe(4);
    b.forget('b');
    expect(b.size).toBe(3);
    expect(b.admit('d', pod(1), NOW, NOW)).toBe(true);
    expect(b.admit('e', pod(1), NOW, NOW)).toBe(false);
    expect(b.takeCutNote()).toBe('Events not read: 2 Event versions past 3 Events per object (2 about Pod/web-1)');
  });

  it('names the three objects with the most cut, then how many more', () => {
    const b = new EventBudget({ ttlMs: HOUR, perObject: 1 });
    for (let o = 1; o <= 5; o++) for (let e = 0; e <= o; e++) b.admit(`${o}-${e}`, pod(o), NOW, NOW);
    b.admit('old', pod(9), 0, NOW);
    expect(b.takeCutNote()).toBe(
      "Events not read: 15 Event versions past 1 Events per object (5 about Pod/web-5, 4 about Pod/web-4, 3 about Pod/web-3 and 2 more objects); 1 older than the API server's 1h event TTL",
    );
  });

  it('10,000 Events about one object: what it remembers stays at the cap', () => {
    const b = new EventBudget({ ttlMs: HOUR, perObject: 100 });
    let kept = 0;
    for (let i = 0; i < 10_000; i++) if (b.admit(`e${i}`, pod(1), NOW, NOW)) kept++;
    expect(kept).toBe(100);
    expect(b.size).toBe(100);
    expect(b.takeCutNote()).toBe('Events not read: 9900 Event versions past 100 Events per object (9900 about Pod/web-1)');
  });
});

describe('EventsReader bounded', () => {
  it('hands over at most perObject Events about one object, recurring ones still counted up, and says what it cut', () => {
    const { informer, handler } = fakeInformer();
    const reader = new EventsReader(
      info,
      informer,
      () => undefined,
      { ttlMs: HOUR, perObject: 5 },
      () => NOW,
    );
    for (let i = 0; i < 50; i++) handler().onAdd!(event(i, 'web-1', NOW), false, note);
    handler().onAdd!(event(100, 'web-2', NOW), false, note);
    const first = reader.readNew(NOW - 500);
    expect(first.map((e) => e.event.note)).toEqual(['event 0', 'event 1', 'event 2', 'event 3', 'event 4', 'event 100']);
    expect(reader.takeCutNote()).toBe('Events not read: 45 Event versions past 5 Events per object (45 about Pod/web-1)');
    // A kept Event recurring is handed over again with its count; a cut one stays cut.
    handler().onUpdate!(event(0, 'web-1', NOW), event(0, 'web-1', NOW + 10, '2', 2), note);
    handler().onUpdate!(event(10, 'web-1', NOW), event(10, 'web-1', NOW + 10, '2', 2), note);
    const second = reader.readNew(NOW - 500);
    expect(second.map((e) => [e.event.note, e.event.count])).toEqual([['event 0', 2]]);
    // Since the last note, one more version cut; since the start, 46.
    expect(reader.takeCutNote()).toBe('Events not read: 1 Event version past 5 Events per object (1 about Pod/web-1)');
    expect(reader.cutTotal()).toBe('Events not read: 46 Event versions past 5 Events per object (46 about Pod/web-1)');
    // Deleted at its TTL on the server: its place goes to the next Event about the object.
    handler().onDelete!(event(1, 'web-1', NOW), note);
    handler().onAdd!(event(200, 'web-1', NOW + 20), false, note);
    expect(reader.readNew(NOW - 500).map((e) => e.event.note)).toEqual(['event 200']);
    expect(reader.budget.size).toBe(6);
  });

  it('passes over an Event older than the TTL even after the trigger', () => {
    const { informer, handler } = fakeInformer();
    const reader = new EventsReader(
      info,
      informer,
      () => undefined,
      { ttlMs: HOUR, perObject: 5 },
      () => NOW + 2 * HOUR,
    );
    handler().onAdd!(event(1, 'web-1', NOW), false, note);
    expect(reader.readNew(NOW - 500)).toEqual([]);
    expect(reader.takeCutNote()).toBe("Events not read: 1 older than the API server's 1h event TTL");
  });
});
