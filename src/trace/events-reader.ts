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
 * - Bounded (EventBudget): an Event last observed longer ago than the API server's event TTL
 *   (kube-apiserver --event-ttl, 1 h by default; such an Event is gone from the server too) is
 *   cut, and so is every Event beyond `perObject` distinct Events about one object (its recurring
 *   ones still count up). What the reader remembers is one resourceVersion per Event still in the
 *   cache and the uids of at most `perObject` Events per object; cuts are counted and said in one
 *   line (takeCutNote: since the last call; cutTotal: since the start). The informer's cache itself is bounded by the server: an Event deleted at
 *   its TTL is deleted from the cache by the watch.
 */
import { isDeletedFinalStateUnknown, type ResourceEventHandlerRegistration, type SharedIndexInformer } from '../informer/index.js';
import type { KubeObject, ResourceInfo } from '../kube/index.js';
import { formatDuration } from '../util/duration.js';
import type { TraceEventRef } from './types.js';

/** One Event to attach: the uid of the object it regards, and what it says. */
export interface RegardingEvent {
  regardingUid: string;
  event: TraceEventRef;
}

/** The object an Event is about, as the Event names it. */
export interface EventRegarding {
  uid?: string;
  kind?: string;
  name?: string;
  namespace?: string;
}

interface EventObject extends KubeObject {
  reason?: string;
  note?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  regarding?: EventRegarding;
  reportingController?: string;
  deprecatedLastTimestamp?: string;
  deprecatedCount?: number;
}

/** How many Events are kept: by age, as the API server keeps them, and per object they are about. */
export interface EventBounds {
  /** kube-apiserver --event-ttl; an Event last observed longer ago is cut. */
  ttlMs: number;
  /** Distinct Events kept about one object; the later ones are cut. */
  perObject: number;
}

export const DEFAULT_EVENT_BOUNDS: EventBounds = { ttlMs: 60 * 60_000, perObject: 100 };

interface CutObject {
  label: string;
  count: number;
}

/**
 * The bounding rule, apart from the informer: admit() says whether an Event version is kept. Kept
 * are Events observed within the TTL, and per object they regard the first `perObject` distinct
 * Events (by uid) admitted; a later Event about that object is cut until one of them is deleted.
 */
export class EventBudget {
  private readonly kept = new Map<string, Set<string>>();
  private readonly keptBy = new Map<string, string>();
  private tooOld = 0;
  private readonly overCap = new Map<string, CutObject>();
  /** The same since the start, for the summary (cutTotal). */
  private tooOldTotal = 0;
  private readonly overCapTotal = new Map<string, CutObject>();

  constructor(readonly bounds: EventBounds = DEFAULT_EVENT_BOUNDS) {}

  /** Whether the Event `eventUid` about `regarding` (uid, and kind/name for the note), observed at `time` (ms), is kept at `now`. */
  admit(eventUid: string, regarding: { uid: string; label: string }, time: number, now: number): boolean {
    if (now - time > this.bounds.ttlMs) {
      this.tooOld++;
      this.tooOldTotal++;
      return false;
    }
    if (!eventUid) return true;
    let set = this.kept.get(regarding.uid);
    if (set?.has(eventUid)) return true;
    if (set && set.size >= this.bounds.perObject) {
      for (const cuts of [this.overCap, this.overCapTotal]) {
        const cut = cuts.get(regarding.uid) ?? { label: regarding.label, count: 0 };
        cut.count++;
        cuts.set(regarding.uid, cut);
      }
      return false;
    }
    if (!set) this.kept.set(regarding.uid, (set = new Set()));
    set.add(eventUid);
    this.keptBy.set(eventUid, regarding.uid);
    return true;
  }

  /** The Event was deleted (its TTL ran out on the server, or someone deleted it): its place is free. */
  forget(eventUid: string): void {
    const regarding = this.keptBy.get(eventUid);
    if (regarding === undefined) return;
    this.keptBy.delete(eventUid);
    const set = this.kept.get(regarding);
    set?.delete(eventUid);
    if (set?.size === 0) this.kept.delete(regarding);
  }

  /** Events kept now (distinct uids). */
  get size(): number {
    return this.keptBy.size;
  }

  /**
   * One line saying what was cut since the last call, or undefined when nothing was: the objects
   * with the most Events cut first (three named at most).
   */
  takeCutNote(): string | undefined {
    const note = this.cutLine(this.overCap, this.tooOld);
    this.overCap.clear();
    this.tooOld = 0;
    return note;
  }

  /** What was cut since the start, in takeCutNote's words, or undefined when nothing was. */
  cutTotal(): string | undefined {
    return this.cutLine(this.overCapTotal, this.tooOldTotal);
  }

  private cutLine(overCap: Map<string, CutObject>, tooOld: number): string | undefined {
    const over = [...overCap.values()].sort((a, b) => b.count - a.count);
    if (over.length === 0 && tooOld === 0) return undefined;
    const parts: string[] = [];
    if (over.length > 0) {
      const total = over.reduce((n, c) => n + c.count, 0);
      const named = over
        .slice(0, 3)
        .map((c) => `${c.count} about ${c.label}`)
        .join(', ');
      const more = over.length > 3 ? ` and ${over.length - 3} more objects` : '';
      parts.push(`${total} Event version${total === 1 ? '' : 's'} past ${this.bounds.perObject} Events per object (${named}${more})`);
    }
    if (tooOld > 0) parts.push(`${tooOld} older than the API server's ${formatDuration(this.bounds.ttlMs)} event TTL`);
    return `Events not read: ${parts.join('; ')}`;
  }
}

export class EventsReader {
  /** Event versions the informer has handed us so far. */
  private received = 0;
  private readonly registration: ResourceEventHandlerRegistration;
  /** The Events delivered since the last read, each one's newest version, by uid (bounded by the cache). */
  private unread = new Map<unknown, KubeObject>();
  /** Event objects already read: the cache keeps an object until a new version replaces it. */
  private readonly alreadyRead = new WeakSet<KubeObject>();
  /** The resourceVersion last read of each Event still in the cache. */
  private readonly readVersion = new Map<string, string>();
  readonly budget: EventBudget;

  /**
   * `onNews` is called for every Event version delivered: a read is due. `accepts`, given, keeps
   * only the Events it accepts (an informer shared with other traces holds theirs too).
   */
  constructor(
    readonly info: ResourceInfo,
    readonly informer: SharedIndexInformer,
    onNews: () => void,
    bounds: EventBounds = DEFAULT_EVENT_BOUNDS,
    private readonly now: () => number = Date.now,
    accepts?: (regarding: EventRegarding) => boolean,
  ) {
    this.budget = new EventBudget(bounds);
    const received = (obj: KubeObject): void => {
      if (accepts && !accepts((obj as EventObject).regarding ?? {})) return;
      this.received++;
      this.unread.set(obj.metadata.uid || obj, obj);
      onNews();
    };
    this.registration = informer.addEventHandler(
      {
        onAdd: (obj) => received(obj as KubeObject),
        onUpdate: (_old, obj) => received(obj as KubeObject),
        onDelete: (obj) => {
          const o = isDeletedFinalStateUnknown(obj) ? obj.obj : (obj as KubeObject);
          if (!o) return;
          this.unread.delete(o.metadata.uid || o);
          if (o.metadata.uid) {
            this.readVersion.delete(o.metadata.uid);
            this.budget.forget(o.metadata.uid);
          }
        },
      },
      { name: 'trace-events' },
    );
  }

  /** Takes the reader's handler away from the informer (a shared one outlives it). */
  detach(): void {
    void this.registration.remove();
  }

  /** How many Event versions the informer has handed us so far. */
  seenCount(): number {
    return this.received;
  }

  /** One line saying which Events the bounds cut since the last call (EventBudget.takeCutNote). */
  takeCutNote(): string | undefined {
    return this.budget.takeCutNote();
  }

  /** One line saying which Events the bounds cut since the start (EventBudget.cutTotal). */
  cutTotal(): string | undefined {
    return this.budget.cutTotal();
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
      const rv = obj.metadata.resourceVersion ?? '';
      if (uid && this.readVersion.get(uid) === rv) continue;
      if (uid) this.readVersion.set(uid, rv);
      if (!time || Date.parse(time) < Math.floor(triggerAt / 1000) * 1000 - 1000) continue;
      const regarding = ev.regarding ?? {};
      const label = `${regarding.kind ?? 'object'}/${regarding.name ?? regarding.uid ?? ''}`;
      if (!this.budget.admit(uid, { uid: regarding.uid ?? '', label }, Date.parse(time), this.now())) continue;
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
