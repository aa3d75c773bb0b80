/**
 * Mirrors client-go tools/cache/shared_informer.go (sharedIndexInformer) and controller.go (the
 * pop loop and processDeltas): one Reflector feeding one DeltaFIFO, popped into an Indexer, with
 * every change handed to any number of handlers through their own ProcessorListener.
 *
 * Behaviour kept (docs/design/clientgo-semantics.md §4 has the whole picture):
 * - handleDeltas, oldest delta first: Sync/Replaced/Added/Updated → indexer.update + onUpdate if the
 *   key is cached, else indexer.add + onAdd(obj, isInInitialList); Deleted → indexer.delete +
 *   onDelete. The indexer always changes before the notification is queued.
 * - An update with an unchanged resourceVersion is a sync: only listeners due for resync get it.
 * - Per-handler resync: under 1 s becomes 1 s; below the check period it lowers the check period
 *   before start, or is raised to it after start; effective = max(requested, check), 0 if either is 0.
 * - A handler added after start gets, at once and in order, a synthetic onAdd(obj, true) per cached
 *   object; its registration's hasSynced waits for those to return.
 * - setTransform / setWatchErrorHandler fail once started; addEventHandler and addIndexers fail
 *   once stopped. A second run() only warns.
 *
 * Deliberate differences:
 * - run(signal) is async and resolves after the reflector, the pop loop and every listener have
 *   stopped. JavaScript is single-threaded, so the blockDeltas lock is not needed: handleDeltas
 *   and addEventHandler never interleave.
 * - The default transform drops metadata.managedFields (client-go has none by default).
 * - An index function that throws during handleDeltas is reported (stats, 'warning' event) and the
 *   pop loop goes on; in client-go it panics.
 * - Handlers receive a NotificationInfo as their last argument (delta type, receive time).
 * - onDelta() observes each delta as it is applied (no client-go counterpart; for tools that show
 *   the DeltaFIFO's traffic).
 * - waitForCacheSync polls every 100 ms on the injected clock, like client-go.
 */
import type { Clock } from '../clock.js';
import { realClock } from '../clock.js';
import type { KubeObject, ListerWatcher } from '../kube/types.js';
import type { BackoffOptions } from './backoff.js';
import { DeltaFIFO, ErrFIFOClosed, type Delta, type Deltas, type DeltaType } from './delta-fifo.js';
import { Notification, ProcessorListener, type ResourceEventHandler } from './processor-listener.js';
import { Reflector, type WatchErrorContext, type WatchErrorHandler } from './reflector.js';
import { determineResyncPeriod, MINIMUM_RESYNC_PERIOD_MS, SharedProcessor } from './shared-processor.js';
import {
  describeError,
  errorMessage,
  InformerEventHub,
  InformerStatsRecorder,
  observeLatency,
  type InformerEvent,
  type InformerEventKind,
  type InformerEventLevel,
  type InformerEventListener,
  type InformerStats,
} from './stats.js';
import { newerResourceVersion } from './resource-version.js';
import { DeletedFinalStateUnknown, deletionHandlingMetaNamespaceKeyFunc, newIndexer, type Indexer, type Store, type TransformFunc } from './store.js';
import type { Indexers } from './thread-safe-store.js';
import { stripManagedFields } from './transform.js';

/** How often waitForCacheSync checks (client-go syncedPollPeriod). */
export const SYNCED_POLL_PERIOD_MS = 100;

export interface SharedIndexInformerOptions {
  /** For events and stats. Default: the ListerWatcher's description. */
  name?: string;
  /** Default handler resync period and resync check period (ms); 0 = never. */
  resyncPeriod?: number;
  indexers?: Indexers;
  /** Runs on every object on its way in. Default stripManagedFields; null for none. */
  transform?: TransformFunc | null;
  clock?: Clock;
  /** Random numbers in [0, 1) for watch timeouts and backoff jitter. */
  random?: () => number;
  useWatchList?: boolean;
  watchListPageSize?: number;
  /** ms; counts only above 30 s. */
  minWatchTimeout?: number;
  /** ms a watch may stay silent past its timeout before it counts as stalled; 0 = never. Default 15 s. */
  watchStallGrace?: number;
  /** ms; default 0. */
  maxInternalErrorRetryDuration?: number;
  expectedGVK?: { apiVersion: string; kind: string };
  backoff?: BackoffOptions;
  watchErrorHandler?: WatchErrorHandler;
  /** Subscribed before anything runs (same as calling onEvent()). */
  onEvent?: InformerEventListener;
  /**
   * Also stops the informer, as run()'s signal does: for one whose end is decided apart from the
   * others it runs with (a trace's kind left out when its first list is refused).
   */
  signal?: AbortSignal;
}

/** One delta as the informer applied it to its indexer (see SharedIndexInformer.onDelta). */
export interface ObservedDelta {
  type: DeltaType;
  /** The object's key ("namespace/name", or the tombstone's key). */
  key: string;
  resourceVersion: string;
  /** Clock time (ms) the reflector received it. */
  receivedAt: number;
  /** Clock time (ms) the informer applied it to the indexer. */
  appliedAt: number;
  /** The object; for a tombstone, the last state the cache knew (if any). */
  object: KubeObject | undefined;
  /** A deletion found by a relist: the object's final state is unknown. */
  tombstone: boolean;
  /** Part of the initial list, before the informer synced. */
  initial: boolean;
}

export type DeltaObserver = (delta: ObservedDelta) => void;

export interface HandlerOptions {
  /** Requested resync period (ms); default the informer's. */
  resyncPeriod?: number;
  /** For stats and events. Default "handler-N". */
  name?: string;
}

/** What addEventHandler returns (client-go ResourceEventHandlerRegistration). */
export interface ResourceEventHandlerRegistration {
  readonly name: string;
  /** The informer has synced and every initial-list add given to this handler has returned. */
  hasSynced(): boolean;
  /** Removes the handler; its buffered notifications are dropped. Resolves when its current call has returned. */
  remove(): Promise<void>;
}

class Registration implements ResourceEventHandlerRegistration {
  constructor(
    private readonly informer: SharedIndexInformer,
    readonly listener: ProcessorListener,
  ) {}

  get name(): string {
    return this.listener.name;
  }

  hasSynced(): boolean {
    return this.listener.hasSynced();
  }

  remove(): Promise<void> {
    return this.informer.removeEventHandler(this);
  }
}

/** Resolves true once every function returns true, checking every 100 ms; false if the signal aborts first. */
export async function waitForCacheSync(signal: AbortSignal, cacheSyncs: ReadonlyArray<() => boolean>, clock: Clock = realClock): Promise<boolean> {
  for (;;) {
    if (cacheSyncs.every((f) => f())) return true;
    if (signal.aborted) return false;
    await clock.sleep(SYNCED_POLL_PERIOD_MS, signal);
  }
}

export class SharedIndexInformer {
  readonly name: string;
  private readonly indexer: Indexer;
  private readonly processor: SharedProcessor;
  private readonly hub = new InformerEventHub();
  private readonly recorder = new InformerStatsRecorder();
  private readonly clock: Clock;
  private readonly options: SharedIndexInformerOptions;
  private fifo: DeltaFIFO | undefined;
  private reflector: Reflector | undefined;
  private started = false;
  private stopped = false;
  private syncedAnnounced = false;
  private resyncCheckPeriod: number;
  private readonly defaultEventHandlerResyncPeriod: number;
  private transform: TransformFunc | undefined;
  private watchErrorHandler: WatchErrorHandler | undefined;
  private handlerSeq = 0;
  private deltaObservers: DeltaObserver[] = [];
  private readonly handleDeltasBound = (deltas: Deltas, isInInitialList: boolean): void => this.handleDeltas(deltas, isInInitialList);

  constructor(
    private readonly lw: ListerWatcher,
    options: SharedIndexInformerOptions = {},
  ) {
    this.options = options;
    this.name = options.name ?? lw.description;
    this.clock = options.clock ?? realClock;
    this.defaultEventHandlerResyncPeriod = options.resyncPeriod ?? 0;
    this.resyncCheckPeriod = this.defaultEventHandlerResyncPeriod;
    this.indexer = newIndexer(deletionHandlingMetaNamespaceKeyFunc, options.indexers ?? {});
    this.processor = new SharedProcessor(this.clock);
    this.transform = options.transform === null ? undefined : (options.transform ?? stripManagedFields);
    this.watchErrorHandler = options.watchErrorHandler;
    if (options.onEvent) this.hub.on(options.onEvent);
  }

  /** Subscribes to the informer's events ("relisting after 410 Expired", ...); returns an unsubscribe. */
  onEvent(listener: InformerEventListener): () => void {
    return this.hub.on(listener);
  }

  /**
   * Observes every delta as the pop loop applies it, after the indexer changed and before handlers
   * hear of it: type, key, resourceVersion and receive time, in the order the informer processes
   * them (per key, the order received). Returns an unsubscribe. Observers run synchronously on the
   * pop loop, so they must be quick; with none subscribed nothing is computed or allocated.
   */
  onDelta(observer: DeltaObserver): () => void {
    this.deltaObservers = [...this.deltaObservers, observer];
    return () => {
      this.deltaObservers = this.deltaObservers.filter((o) => o !== observer);
    };
  }

  getStore(): Store {
    return this.indexer;
  }

  getIndexer(): Indexer {
    return this.indexer;
  }

  getListerWatcher(): ListerWatcher {
    return this.lw;
  }

  hasStarted(): boolean {
    return this.started;
  }

  isStopped(): boolean {
    return this.stopped;
  }

  /** The FIFO has delivered the initial list (false before run). */
  hasSynced(): boolean {
    return this.fifo?.hasSynced() ?? false;
  }

  /** Keys waiting in the DeltaFIFO (0 before run): at 0 the cache holds all that was received. */
  queuedKeys(): number {
    return this.fifo?.length ?? 0;
  }

  /** Notifications waiting in the handlers' buffers, all handlers together: stats().backlog, without the rest of stats(). */
  backlog(): number {
    return this.processor.backlog();
  }

  lastSyncResourceVersion(): string {
    return this.reflector?.lastSyncResourceVersion() ?? '';
  }

  /** Sets the transform (null for none). Throws once started. */
  setTransform(transform: TransformFunc | null): void {
    if (this.started) throw new Error('informer has already started');
    this.transform = transform ?? undefined;
  }

  /** Sets the handler told about every reflector error. Throws once started. */
  setWatchErrorHandler(handler: WatchErrorHandler): void {
    if (this.started) throw new Error('informer has already started');
    this.watchErrorHandler = handler;
  }

  /** Adds indexers and indexes what is cached. Throws once stopped or on a duplicate name. */
  addIndexers(indexers: Indexers): void {
    if (this.stopped) throw new Error('indexer was not added because it has stopped already');
    this.indexer.addIndexers(indexers);
  }

  /**
   * Adds a handler. `resyncPeriod` (ms) follows client-go's rules. After start the handler first
   * receives a synthetic onAdd(obj, true) for every cached object. Throws once stopped.
   */
  addEventHandler(handler: ResourceEventHandler, resyncPeriodOrOptions?: number | HandlerOptions): ResourceEventHandlerRegistration {
    if (this.stopped) {
      throw new Error('handler was not added to shared informer because it has stopped already');
    }
    const opts: HandlerOptions = typeof resyncPeriodOrOptions === 'number' ? { resyncPeriod: resyncPeriodOrOptions } : (resyncPeriodOrOptions ?? {});
    const name = opts.name ?? `handler-${++this.handlerSeq}`;
    let resyncPeriod = opts.resyncPeriod ?? this.defaultEventHandlerResyncPeriod;
    if (resyncPeriod > 0) {
      if (resyncPeriod < MINIMUM_RESYNC_PERIOD_MS) {
        this.emit('warning', 'warning', `${name}: resync period ${resyncPeriod} ms is too small; using the minimum ${MINIMUM_RESYNC_PERIOD_MS} ms`);
        resyncPeriod = MINIMUM_RESYNC_PERIOD_MS;
      }
      if (resyncPeriod < this.resyncCheckPeriod) {
        if (this.started) {
          this.emit(
            'warning',
            'warning',
            `${name}: resync period ${resyncPeriod} ms is below the informer's resync check period and the informer has started; using ${this.resyncCheckPeriod} ms`,
          );
          resyncPeriod = this.resyncCheckPeriod;
        } else {
          this.resyncCheckPeriod = resyncPeriod;
          this.processor.resyncCheckPeriodChanged(resyncPeriod);
        }
      }
    }
    const effective = determineResyncPeriod(resyncPeriod, this.resyncCheckPeriod);
    if (resyncPeriod > 0 && effective === 0) {
      this.emit('warning', 'warning', `${name}: resync period ${resyncPeriod} ms ignored because this informer does not resync`);
    }
    const listener = new ProcessorListener({
      name,
      handler,
      requestedResyncPeriod: resyncPeriod,
      resyncPeriod: effective,
      now: this.clock.now(),
      clock: this.clock,
      upstreamHasSynced: () => this.hasSynced(),
      onHandlerError: (err, l, n) => this.onHandlerError(err, l, n),
    });
    const registration = new Registration(this, listener);
    this.processor.addListener(listener);
    if (!this.started) return registration;
    // Joining a running informer: replay the cache as initial-list adds, before any later delta.
    listener.addInitial(this.indexer.list(), this.clock.now());
    return registration;
  }

  /** Removes a handler added to this informer; resolves when its current call has returned. */
  removeEventHandler(registration: ResourceEventHandlerRegistration): Promise<void> {
    if (!(registration instanceof Registration)) return Promise.reject(new Error('not a registration of this informer'));
    return this.processor.removeListener(registration.listener);
  }

  /** Resolves true once synced, false if the signal aborts first. */
  waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    return waitForCacheSync(signal, [() => this.hasSynced()], this.clock);
  }

  /**
   * Runs until the signal (or the options' signal) aborts: the reflector fills the FIFO, the pop
   * loop drains it into the indexer and the listeners. Resolves once everything has stopped. A
   * second call only warns.
   */
  async run(runSignal: AbortSignal): Promise<void> {
    if (this.started) {
      this.emit('warning', 'warning', 'the informer has started already; running it more than once is not allowed');
      return;
    }
    this.started = true;
    const o = this.options;
    const signal = o.signal ? AbortSignal.any([runSignal, o.signal]) : runSignal;
    const fifo = new DeltaFIFO({
      keyFunction: deletionHandlingMetaNamespaceKeyFunc,
      knownObjects: this.indexer,
      emitDeltaTypeReplaced: true,
      ...(this.transform ? { transformer: this.transform } : {}),
      clock: this.clock,
    });
    this.fifo = fifo;
    this.reflector = new Reflector(this.lw, fifo, {
      name: this.name,
      resyncPeriod: this.resyncCheckPeriod,
      shouldResync: () => this.processor.shouldResync(),
      clock: this.clock,
      ...(o.random ? { random: o.random } : {}),
      ...(o.useWatchList !== undefined ? { useWatchList: o.useWatchList } : {}),
      ...(o.watchListPageSize !== undefined ? { watchListPageSize: o.watchListPageSize } : {}),
      ...(o.minWatchTimeout !== undefined ? { minWatchTimeout: o.minWatchTimeout } : {}),
      ...(o.watchStallGrace !== undefined ? { watchStallGrace: o.watchStallGrace } : {}),
      ...(o.maxInternalErrorRetryDuration !== undefined ? { maxInternalErrorRetryDuration: o.maxInternalErrorRetryDuration } : {}),
      ...(o.expectedGVK ? { expectedGVK: o.expectedGVK } : {}),
      ...(o.backoff ? { backoff: o.backoff } : {}),
      watchErrorHandler: (err: unknown, ctx: WatchErrorContext) => this.watchErrorHandler?.(err, ctx),
      onEvent: (e) => {
        this.hub.emit(e);
        // An empty list syncs the cache with nothing for processLoop to pop: said here.
        if (e.kind === 'listed' || e.kind === 'streamed') this.announceSynced(fifo);
      },
      stats: this.recorder,
    });
    this.processor.run();
    this.emit('started', 'info', `informer ${this.name} started`);
    const onAbort = (): void => fifo.close();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) fifo.close();
    try {
      await Promise.all([this.reflector.run(signal), this.processLoop(fifo, signal)]);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.stopped = true; // no new handlers
      await this.processor.stop();
      this.emit('stopped', 'info', `informer ${this.name} stopped`);
    }
  }

  private async processLoop(fifo: DeltaFIFO, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await fifo.pop(this.handleDeltasBound);
      } catch (err) {
        if (err === ErrFIFOClosed) return;
        this.recorder.recordError(err, 'process', this.clock.now());
        this.emit('warning', 'error', `processing deltas failed: ${errorMessage(err)}`, { error: err });
      }
      this.announceSynced(fifo);
    }
  }

  /** Emits 'synced' once, when the DeltaFIFO has handed over what the first list held. */
  private announceSynced(fifo: DeltaFIFO): void {
    if (this.syncedAnnounced || !fifo.hasSynced()) return;
    this.syncedAnnounced = true;
    this.emit('synced', 'info', `cache synced with ${this.indexer.size()} objects`, { count: this.indexer.size() });
  }

  /** Applies one key's deltas to the indexer, then notifies (controller.go processDeltas). */
  private handleDeltas(deltas: Deltas, isInInitialList: boolean): void {
    const now = this.clock.now();
    const started = performance.now();
    for (const d of deltas) {
      this.applyDelta(d, now, isInInitialList);
      if (this.deltaObservers.length !== 0) this.observeDelta(d, now, isInInitialList);
      const rv = d.object instanceof DeletedFinalStateUnknown ? undefined : d.object.metadata?.resourceVersion;
      if (rv) this.recorder.storeResourceVersion = rv;
    }
    observeLatency(this.recorder.processingLatency, (performance.now() - started) / 1000);
  }

  private applyDelta(d: Delta, now: number, isInInitialList: boolean): void {
    const obj = d.object;
    if (d.type === 'Deleted') {
      this.indexer.delete(obj);
      this.processor.distribute(new Notification('delete', obj, undefined, false, d.receivedAt, now, d.type, d.eventType, false), false);
      return;
    }
    if (obj instanceof DeletedFinalStateUnknown) return; // only Deleted deltas carry tombstones
    const old = this.indexer.get(obj);
    if (old !== undefined) {
      this.indexer.update(obj);
      // An unchanged resourceVersion means a resync (or an unchanged relist item).
      const isSync = old.metadata?.resourceVersion === obj.metadata?.resourceVersion;
      this.processor.distribute(new Notification('update', obj, old, false, d.receivedAt, now, d.type, d.eventType, isSync), isSync);
    } else {
      this.indexer.add(obj);
      this.processor.distribute(new Notification('add', obj, undefined, isInInitialList, d.receivedAt, now, d.type, d.eventType, false), false);
    }
  }

  private observeDelta(d: Delta, now: number, initial: boolean): void {
    const tombstone = d.object instanceof DeletedFinalStateUnknown;
    const object = d.object instanceof DeletedFinalStateUnknown ? d.object.obj : d.object;
    const observed: ObservedDelta = {
      type: d.type,
      key: d.object instanceof DeletedFinalStateUnknown ? d.object.key : deletionHandlingMetaNamespaceKeyFunc(d.object),
      resourceVersion: object?.metadata?.resourceVersion ?? '',
      receivedAt: d.receivedAt,
      appliedAt: now,
      object,
      tombstone,
      initial,
    };
    for (const o of this.deltaObservers) {
      try {
        o(observed);
      } catch (err) {
        // A broken observer must not break the informer.
        this.emit('warning', 'warning', `delta observer failed: ${errorMessage(err)}`, { error: err });
      }
    }
  }

  private onHandlerError(err: unknown, listener: ProcessorListener, n: Notification): void {
    this.recorder.recordError(err, 'handler', this.clock.now());
    const what = describeObject(n.obj);
    this.emit('handler-error', 'error', `handler ${listener.name} failed on ${n.kind} of ${what}: ${describeError(err)}; pausing it for 1 s`, { error: err });
  }

  /** A plain, serialisable snapshot of the counters. */
  stats(): InformerStats {
    const r = this.recorder;
    const listeners = this.processor.getListeners().map((l) => ({
      name: l.name,
      backlog: l.backlog(),
      delivered: l.delivered,
      handlerErrors: l.handlerErrors,
      resyncPeriod: l.resyncPeriod,
      synced: l.hasSynced(),
    }));
    let backlog = 0;
    for (const l of listeners) backlog += l.backlog;
    return {
      name: this.name,
      description: this.lw.description,
      started: this.started,
      stopped: this.stopped,
      synced: this.hasSynced(),
      objects: this.indexer.size(),
      queued: this.fifo?.length ?? 0,
      group: this.lw.resource?.group ?? '',
      version: this.lw.resource?.version ?? '',
      resource: this.lw.resource?.resource ?? '',
      storeResourceVersion: newerResourceVersion(r.storeResourceVersion, r.lastSyncResourceVersion),
      processingLatency: { ...r.processingLatency, counts: [...r.processingLatency.counts] },
      events: { ...r.events },
      lists: r.lists,
      listRequests: r.listRequests,
      relists: r.relists,
      watches: r.watches,
      watchRestarts: r.watchRestarts,
      watchStalls: r.watchStalls,
      bookmarks: r.bookmarks,
      resyncs: r.resyncs,
      errors: r.errors,
      lastError: r.lastError ? { ...r.lastError } : undefined,
      lastSyncResourceVersion: r.lastSyncResourceVersion,
      lastListAt: r.lastListAt,
      listeners,
      backlog,
    };
  }

  private emit(kind: InformerEventKind, level: InformerEventLevel, message: string, extra?: Partial<InformerEvent>): void {
    if (this.hub.size === 0) return;
    this.hub.emit({ kind, level, at: this.clock.now(), message, source: this.name, ...extra });
  }
}

function describeObject(obj: KubeObject | DeletedFinalStateUnknown): string {
  if (obj instanceof DeletedFinalStateUnknown) return obj.key;
  const m = obj.metadata;
  return m?.namespace ? `${m.namespace}/${m.name ?? ''}` : (m?.name ?? '?');
}

export type { ResourceEventHandler };
