import { describe, expect, it } from 'vitest';
import type { NotificationInfo, ResourceEventHandler, SharedIndexInformer, SyncResourceEventHandler } from '../informer/index.js';
import type { KubeObject, ResourceInfo } from '../kube/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { ChainEvents } from './chain-events.js';
import { EventsReader } from './events-reader.js';
import type { TraceEvent, TraceEventRef, TraceTrigger } from './types.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const note = {} as NotificationInfo;
const info = { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true } as ResourceInfo;
const trigger: TraceTrigger = { kind: 'restart', wrote: 'restarted', at: NOW - 500, writes: 1 };

function event(n: number, regarding: string): KubeObject {
  return {
    kind: 'Event',
    metadata: { name: `e-${n}`, namespace: 'ns', uid: `ev-${n}`, resourceVersion: '1' },
    reason: 'Pulled',
    note: `event ${n}`,
    eventTime: new Date(NOW).toISOString(),
    regarding: { kind: 'Pod', name: regarding, uid: regarding },
  } as KubeObject;
}

/** A reader over an informer whose one handler the test calls, and a tracker that attaches Events about `p1` only. */
function harness() {
  let handler: ResourceEventHandler | undefined;
  const informer = {
    addEventHandler(h: ResourceEventHandler) {
      handler = h;
      return { hasSynced: () => true };
    },
  } as unknown as SharedIndexInformer;
  const reader = new EventsReader(
    info,
    informer,
    () => undefined,
    { ttlMs: 3_600_000, perObject: 2 },
    () => NOW,
  );
  const attached: [string, TraceEventRef][] = [];
  const tracker = {
    addEvent: (uid: string, e: TraceEventRef) => (uid === 'p1' ? (attached.push([uid, e]), `ready/${uid}`) : undefined),
  };
  const emitted: TraceEvent[] = [];
  const events = new ChainEvents(reader, { clock: new FakeClock(NOW), tracker, emit: (e) => emitted.push(e) });
  return { events, add: (e: KubeObject) => (handler as SyncResourceEventHandler).onAdd(e, false, note), attached, emitted };
}

describe('ChainEvents', () => {
  it('reads nothing before the trigger; then what came meanwhile, each Event a hop takes said once', () => {
    const h = harness();
    h.add(event(1, 'p1'));
    h.add(event(2, 'p2'));
    h.events.read(undefined);
    expect(h.attached).toEqual([]);
    h.events.read(trigger);
    expect(h.attached.map(([uid, e]) => [uid, e.note])).toEqual([['p1', 'event 1']]);
    expect(h.emitted).toEqual([{ type: 'event', hopId: 'ready/p1', event: h.attached[0]![1] }]);
    h.events.read(trigger);
    expect(h.emitted).toHaveLength(1);
  });

  it('says that the bounds cut Events once, when they first cut', () => {
    const h = harness();
    for (let i = 0; i < 4; i++) h.add(event(i, 'p1'));
    h.events.read(trigger);
    for (let i = 10; i < 13; i++) h.add(event(i, 'p1'));
    h.events.read(trigger);
    const notes = h.emitted.filter((e) => e.type === 'note');
    expect(notes).toEqual([
      {
        type: 'note',
        at: NOW,
        level: 'info',
        message: 'Events not read: 2 Event versions past 2 Events per object (2 about Pod/p1); later ones are counted, not said (the total is in the summary)',
      },
    ]);
    expect(h.events.reader.cutTotal()).toBe('Events not read: 5 Event versions past 2 Events per object (5 about Pod/p1)');
  });
});
