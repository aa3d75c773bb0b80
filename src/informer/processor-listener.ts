/**
 * Mirrors processorListener and the notification types of client-go tools/cache/shared_informer.go,
 * with tools/cache/synctrack's SingleFileTracker: one unbounded, ordered buffer per handler and a
 * loop that hands notifications to the handler one at a time, so that a slow handler only delays
 * itself.
 *
 * Deliberate differences:
 * - A handler may return a Promise; the listener awaits it before the next notification.
 * - Handlers get a third argument, NotificationInfo, with the Delta's type, when it was received
 *   and when it was handed to this listener, so a tracer can time each hop.
 * - A handler that throws (or rejects) is reported through `onHandlerError` and the listener pauses
 *   1 s (client-go: the panic is logged, the goroutine restarts after 1 s, and by default the
 *   process crashes). An initial-list add that throws still counts as handled for hasSynced.
 * - One loop instead of the pop/run goroutine pair; a run of 1000 synchronous handler calls yields
 *   to the event loop once so a huge backlog does not starve I/O.
 * - The buffer starts at 16 slots, not 1024, and goes back to 16 once drained (k8s.io/utils'
 *   Ring with a NormalSize): a trace adds a handler to each of a namespace's shared informers,
 *   and a set of 200 traces holds ~4,000 listeners, idle nearly all the time; 1,024 slots each
 *   were 30 MiB of empty arrays. A burst (a relist, the replay of a cache to a new handler) grows
 *   the buffer by doubling as before, and it is let go once handled.
 * - A handler that joins a running informer gets the cache as one entry, the objects listed once
 *   (addInitial), and each initial-list add's notification is made as it is handed over, not all
 *   at once: 400 traces joining namespaces of 1,000 objects queued 400,000 notifications.
 */
import type { Clock } from '../clock.js';
import type { KubeObject, WatchEventType } from '../kube/types.js';
import type { DeltaType } from './delta-fifo.js';
import { RingGrowing } from './ring-buffer.js';
import type { DeletedFinalStateUnknown } from './store.js';

/** What a handler can learn about the delta behind a notification. */
export interface NotificationInfo {
  /** Clock time (ms) the delta was queued in the DeltaFIFO (synthetic adds: when the handler was added). */
  readonly receivedAt: number;
  /** Clock time (ms) the informer handed the notification to the listeners. */
  readonly distributedAt: number;
  /** The Delta's type; undefined for the synthetic adds a handler added after start receives. */
  readonly deltaType: DeltaType | undefined;
  /** The raw watch event type, when the delta came straight from a watch event. */
  readonly eventType: WatchEventType | undefined;
  /** An update whose resourceVersion did not change (a resync or an unchanged relist item). */
  readonly isSync: boolean;
}

/**
 * Receives notifications from an informer (client-go ResourceEventHandler). Calls for one handler
 * are serial and in order; a returned Promise is awaited before the next call.
 * - onAdd: an object appeared; isInInitialList is true for the initial list (and for the synthetic
 *   adds a handler added after start receives).
 * - onUpdate: an object changed, or a resync re-delivered it (oldObj === newObj state, isSync).
 * - onDelete: an object is gone; a DeletedFinalStateUnknown when the deletion was found at a relist.
 */
export interface ResourceEventHandler {
  onAdd?(obj: KubeObject, isInInitialList: boolean, info: NotificationInfo): void | Promise<void>;
  onUpdate?(oldObj: KubeObject, newObj: KubeObject, info: NotificationInfo): void | Promise<void>;
  onDelete?(obj: KubeObject | DeletedFinalStateUnknown, info: NotificationInfo): void | Promise<void>;
}

/** A handler every call of which is done when it returns (a view model's): nothing to await. */
export type SyncResourceEventHandler = {
  [K in keyof ResourceEventHandler]-?: (...args: Parameters<NonNullable<ResourceEventHandler[K]>>) => void;
};

export type NotificationKind = 'add' | 'update' | 'delete';

/** One notification, shared (read-only) by every listener it is given to. It is its own info. */
export class Notification implements NotificationInfo {
  constructor(
    readonly kind: NotificationKind,
    /** The new object for add/update; the deleted object (or tombstone) for delete. */
    readonly obj: KubeObject | DeletedFinalStateUnknown,
    /** The old object for update. */
    readonly oldObj: KubeObject | undefined,
    readonly isInInitialList: boolean,
    readonly receivedAt: number,
    readonly distributedAt: number,
    readonly deltaType: DeltaType | undefined,
    readonly eventType: WatchEventType | undefined,
    readonly isSync: boolean,
  ) {}
}

export type HandlerErrorCallback = (err: unknown, listener: ProcessorListener, notification: Notification) => void;

export interface ProcessorListenerOptions {
  name: string;
  handler: ResourceEventHandler;
  /** The period the handler asked for (ms), after the 1 s minimum. */
  requestedResyncPeriod: number;
  /** The effective period (ms). */
  resyncPeriod: number;
  now: number;
  clock: Clock;
  /** The informer's HasSynced. */
  upstreamHasSynced: () => boolean;
  onHandlerError?: HandlerErrorCallback;
  /** The buffer's size when empty; it doubles as needed and shrinks back once drained. Default 16. */
  bufferSize?: number;
}

const SYNC_CALLS_PER_YIELD = 1000;
/** A listener's buffer when it is empty (see the file header). */
const LISTENER_BUFFER_SIZE = 16;
const PAUSE_AFTER_HANDLER_ERROR_MS = 1000;

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class ProcessorListener {
  readonly name: string;
  readonly handler: ResourceEventHandler;
  readonly requestedResyncPeriod: number;
  private resyncPeriodMs: number;
  private nextResync = 0;
  private readonly buffer: RingGrowing<Notification>;
  /** The cache replayed to a handler that joined a running informer, handed over before the buffer. */
  private replay: { items: readonly KubeObject[]; next: number; at: number } | undefined;
  private readonly clock: Clock;
  private readonly upstreamHasSynced: () => boolean;
  private readonly onHandlerError: HandlerErrorCallback | undefined;
  private started = false;
  private stopped = false;
  private running = false;
  private drainDone: Promise<void> = Promise.resolve();
  private readonly stopController = new AbortController();
  /** Initial-list adds queued and not yet handled (synctrack.SingleFileTracker). */
  private initialPending = 0;
  delivered = 0;
  handlerErrors = 0;

  constructor(options: ProcessorListenerOptions) {
    this.name = options.name;
    this.handler = options.handler;
    this.requestedResyncPeriod = options.requestedResyncPeriod;
    this.resyncPeriodMs = options.resyncPeriod;
    this.clock = options.clock;
    this.upstreamHasSynced = options.upstreamHasSynced;
    this.onHandlerError = options.onHandlerError;
    const size = options.bufferSize ?? LISTENER_BUFFER_SIZE;
    this.buffer = new RingGrowing(size, size);
    this.determineNextResync(options.now);
  }

  get resyncPeriod(): number {
    return this.resyncPeriodMs;
  }

  setResyncPeriod(period: number): void {
    this.resyncPeriodMs = period;
  }

  /** Due for a resync at `now`. */
  shouldResync(now: number): boolean {
    if (this.resyncPeriodMs === 0) return false;
    return now >= this.nextResync;
  }

  determineNextResync(now: number): void {
    this.nextResync = now + this.resyncPeriodMs;
  }

  /** The informer has synced and every initial-list add given to this handler has returned. */
  hasSynced(): boolean {
    if (!this.upstreamHasSynced()) return false;
    return this.initialPending <= 0;
  }

  /** Notifications waiting for the handler. */
  backlog(): number {
    return this.buffer.length + (this.replay ? this.replay.items.length - this.replay.next : 0);
  }

  /** Queues a notification; never blocks, never drops (until stopped). */
  add(n: Notification): void {
    if (this.stopped) return;
    if (n.kind === 'add' && n.isInInitialList) this.initialPending++;
    this.buffer.writeOne(n);
    this.schedule();
  }

  /**
   * Queues the initial-list adds of a handler joining a running informer: `items` (the cache as
   * listed now, which the caller gives away), each delivered as onAdd(obj, true) with `at` as its
   * times, before any notification added after. Called once, before any add().
   */
  addInitial(items: readonly KubeObject[], at: number): void {
    if (this.stopped || items.length === 0) return;
    this.initialPending += items.length;
    this.replay = { items, next: 0, at };
    this.schedule();
  }

  /** Starts delivering. */
  run(): void {
    if (this.started) return;
    this.started = true;
    this.schedule();
  }

  /** Drops what is buffered and resolves once the handler call in progress (if any) has returned. */
  stop(): Promise<void> {
    this.stopped = true;
    this.buffer.clear();
    this.replay = undefined;
    this.stopController.abort();
    return this.drainDone;
  }

  isStopped(): boolean {
    return this.stopped;
  }

  private schedule(): void {
    if (this.running || !this.started || this.stopped || this.backlog() === 0) return;
    this.running = true;
    // Start on a later microtask: the caller (the informer's handleDeltas) must finish giving the
    // notification to every listener before any handler runs. One function made once: an informer
    // shared by many traces wakes thousands of idle listeners per notification.
    queueMicrotask(this.startDrain);
  }

  /**
   * Hands the buffer to the handler: here, one call after another, while its calls return at once
   * (nothing is allocated per call); a call that returns a Promise or throws, or a run of
   * SYNC_CALLS_PER_YIELD calls, goes on in resumeDrain() once that is over.
   */
  private readonly startDrain = (): void => {
    let syncCalls = 0;
    while (!this.stopped && this.backlog() > 0) {
      const n = this.nextNotification();
      let r: unknown;
      try {
        r = this.call(n);
      } catch (err) {
        this.handled(n);
        this.drainDone = this.resumeDrain(this.afterError(err, n));
        return;
      }
      if (isThenable(r)) {
        this.drainDone = this.resumeDrain(this.awaitCall(r, n));
        return;
      }
      this.handled(n);
      if (++syncCalls >= SYNC_CALLS_PER_YIELD) {
        this.drainDone = this.resumeDrain(yieldToEventLoop());
        return;
      }
    }
    this.running = false;
  };

  /** The next notification: the replayed cache's next object first, then the buffer's. */
  private nextNotification(): Notification {
    const r = this.replay;
    if (!r) return this.buffer.readOne() as Notification;
    const item = r.items[r.next++] as KubeObject;
    if (r.next >= r.items.length) this.replay = undefined;
    return new Notification('add', item, undefined, true, r.at, r.at, undefined, undefined, false);
  }

  /** Once `pending` (a call in progress, the pause after an error, a yield) is over, the drain goes on. */
  private async resumeDrain(pending: Promise<void>): Promise<void> {
    try {
      await pending;
    } catch (err) {
      this.running = false;
      throw err;
    }
    this.startDrain();
  }

  private async awaitCall(r: PromiseLike<unknown>, n: Notification): Promise<void> {
    try {
      await r;
    } catch (err) {
      this.handled(n);
      return this.afterError(err, n);
    }
    this.handled(n);
  }

  /** A handler call returned (or threw): counted, and an initial-list add no longer pending. */
  private handled(n: Notification): void {
    this.delivered++;
    if (n.kind === 'add' && n.isInInitialList) this.initialPending--;
  }

  /** A handler call threw or rejected: reported, then the listener pauses. */
  private async afterError(error: unknown, n: Notification): Promise<void> {
    this.handlerErrors++;
    try {
      this.onHandlerError?.(error, this, n);
    } catch {
      // ignore
    }
    await this.clock.sleep(PAUSE_AFTER_HANDLER_ERROR_MS, this.stopController.signal);
  }

  private call(n: Notification): unknown {
    const h = this.handler;
    switch (n.kind) {
      case 'add':
        return h.onAdd?.(n.obj as KubeObject, n.isInInitialList, n);
      case 'update':
        return h.onUpdate?.(n.oldObj as KubeObject, n.obj as KubeObject, n);
      case 'delete':
        return h.onDelete?.(n.obj, n);
    }
  }
}
