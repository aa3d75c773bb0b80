/**
 * The Events that explain the hops: events.k8s.io/v1 in the target's namespace, read as the
 * informer delivers them.
 *
 * Contract:
 * - Only the versions received since the last read are read, each Event's newest, in the order
 *   they first came: thousands of Events stay in the cache during a large rollout.
 * - An Event version is read once (by uid and resourceVersion); a resync's redelivery of an object
 *   already read is passed over without building its key.
 * - Events older than a second before the trigger's second are not about the change.
 * - A recurring Event is one object whose series count (deprecatedCount for one recorded through
 *   the core API) goes up: it is handed over once per version, with the count.
 */
import { isDeletedFinalStateUnknown, type SharedIndexInformer } from '../informer/index.js';
import type { KubeObject, ResourceInfo } from '../kube/index.js';
import type { TraceEventRef } from './types.js';

/** One Event to attach: the uid of the object it regards, and what it says. */
export interface RegardingEvent {
  regardingUid: string;
  event: TraceEventRef;
}

interface EventObject extends KubeObject {
  reason?: string;
  note?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  regarding?: { uid?: string };
  reportingController?: string;
  deprecatedLastTimestamp?: string;
  deprecatedCount?: number;
}

export class EventsReader {
  /** Event versions the informer has handed us so far. */
  private received = 0;
  /** The Events delivered since the last read, each one's newest version, by uid (bounded by the cache). */
  private unread = new Map<unknown, KubeObject>();
  /** Event objects already read: the cache keeps an object until a new version replaces it. */
  private readonly alreadyRead = new WeakSet<KubeObject>();
  private readonly seen = new Set<string>();

  /** `onNews` is called for every Event version delivered: a read is due. */
  constructor(
    readonly info: ResourceInfo,
    readonly informer: SharedIndexInformer,
    onNews: () => void,
  ) {
    const received = (obj: KubeObject): void => {
      this.received++;
      this.unread.set(obj.metadata.uid || obj, obj);
      onNews();
    };
    informer.addEventHandler(
      {
        onAdd: (obj) => received(obj as KubeObject),
        onUpdate: (_old, obj) => received(obj as KubeObject),
        onDelete: (obj) => {
          const o = isDeletedFinalStateUnknown(obj) ? obj.obj : (obj as KubeObject);
          if (o) this.unread.delete(o.metadata.uid || o);
        },
      },
      { name: 'trace-events' },
    );
  }

  /** How many Event versions the informer has handed us so far. */
  seenCount(): number {
    return this.received;
  }

  /** The Events delivered since the last read that are about a change made at `triggerAt` (our clock, ms). */
  readNew(triggerAt: number): RegardingEvent[] {
    const unread = this.unread;
    this.unread = new Map();
    const out: RegardingEvent[] = [];
    for (const obj of unread.values()) {
      if (this.alreadyRead.has(obj)) continue;
      this.alreadyRead.add(obj);
      const uid = obj.metadata.uid ?? '';
      const ev = obj as EventObject;
      const time = ev.series?.lastObservedTime ?? ev.eventTime ?? ev.deprecatedLastTimestamp ?? obj.metadata.creationTimestamp;
      const key = `${uid}/${obj.metadata.resourceVersion}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      if (!time || Date.parse(time) < Math.floor(triggerAt / 1000) * 1000 - 1000) continue;
      const count = ev.series?.count ?? ev.deprecatedCount;
      const event: TraceEventRef = {
        uid: uid || undefined,
        reason: ev.reason ?? '',
        note: ev.note ?? '',
        time,
        reportingController: ev.reportingController,
        ...(count !== undefined && count > 1 ? { count } : {}),
      };
      out.push({ regardingUid: ev.regarding?.uid ?? '', event });
    }
    return out;
  }
}
