/**
 * The trace controller's loop: shared informers for the target, its descendants and the
 * namespace's Events (ChainInformers, ChainEvents); the handlers (ChainHandlers) only note when
 * things were received and enqueue keys into our rate-limited workqueue; one worker reads the
 * cache, hands the ChainTracker the current state of the chain (ChainView) and asks the
 * EndDecision whether the trace ends. The write that starts a trace is made by writeTrigger
 * (triggers.ts), someone else's change is noticed by WatchTrigger; the tree the views draw is
 * ChainTree's.
 *
 * Contract:
 * - A key's reconcile waits the coalesce window from its first add: a burst of events makes one.
 * - Nothing of the chain is a hop before the trigger: the baseline is taken at start() and again
 *   at fire(), and the tracker compares the whole chain with it once the trigger is set.
 * - When and how the trace ends is the EndDecision's to say (end-decision.ts).
 */
import { realClock, type Clock } from '../clock.js';
import type { SharedIndexInformer } from '../informer/index.js';
import { ResourceListerWatcher, type Kube, type KubeObject } from '../kube/index.js';
import type { Readiness } from '../readiness/index.js';
import { InMemoryMetricsProvider, RateLimitingQueue, defaultControllerRateLimiter } from '../workqueue/index.js';
import { ChainCurrency } from './chain-currency.js';
import { ChainEvents } from './chain-events.js';
import { ChainHandlers } from './chain-handlers.js';
import { ChainInformers, type ChildInformer } from './chain-informers.js';
import { ChainTracker, type ReconcileView } from './chain-tracker.js';
import { ChainView } from './chain-view.js';
import { discoverChildren, discoveredKinds, type DiscoveredKind } from './child-discovery.js';
import { EndDecision } from './end-decision.js';
import { EventsReader } from './events-reader.js';
import type { InformerPool } from './informer-pool.js';
import { builtinKind } from './kinds.js';
import { ChainTree } from './tree.js';
import { writeTrigger, type TriggerRequest } from './triggers.js';
import type {
  BurstStats,
  DiscoveredChildKinds,
  Hop,
  ListerWatcherFactory,
  ObjectRef,
  TraceCaches,
  TraceEvent,
  TracerOptions,
  TraceSnapshot,
  TraceTarget,
  TraceTrigger,
} from './types.js';
import { WatchTrigger } from './watch-trigger.js';

/**
 * How long a queued key waits before the reconcile reads the cache, from when it was first queued,
 * so that a burst of events makes one reconcile. Part of every hop's emission lag, so short: the
 * tracker's work is in proportion to what changed, and at 1,000 replicas 25 ms kept the lag's p99
 * under 50 ms for about a fifth more CPU than 50 ms (BENCHMARKS.md, section 8).
 */
export const DEFAULT_COALESCE_MS = 25;

const TARGET_KEY = 'target';
const EVENTS_KEY = 'events';

export class Tracer {
  private readonly clock: Clock;
  private readonly kube: Kube;
  private readonly target: TraceTarget;
  private readonly tracker: ChainTracker;
  private readonly metrics: InMemoryMetricsProvider;
  private readonly queue: RateLimitingQueue<string>;
  private readonly coalesceMs: number;
  private readonly discover: boolean;
  private readonly listerWatcher: ListerWatcherFactory;
  private readonly chainInformers: ChainInformers;
  private readonly chain: ChainView;
  private readonly treeOf: ChainTree;
  private readonly pool: InformerPool | undefined;
  private readonly handlers: ChainHandlers;
  /** The engine that judges the target and its children: the one the command built, for its diagnoses too. */
  readonly readiness: Readiness;
  private events: ChainEvents | undefined;
  private discovered: DiscoveredChildKinds | undefined;
  private discoveredKinds: DiscoveredKind[] | undefined;
  private readonly decision: EndDecision;
  private readonly watch = new WatchTrigger();
  /** Resolves once the trace ended. */
  readonly ended: Promise<void>;

  /** Per queued key, when it was first added since its last reconcile began. */
  private readonly pendingSince = new Map<string, number>();
  private working = false;
  private readonly listeners = new Set<(e: TraceEvent) => void>();

  private trigger: TraceTrigger | undefined;
  private targetUid: string | undefined;

  private reconciles = 0;
  /** The counters when the writes began: a burst's watch events and reconciles are counted from there. */
  private countersAtWrite = { reconciles: 0, targetWatchEvents: 0 };
  private burst: BurstStats | undefined;

  private runSignal: AbortSignal | undefined;
  /** Child kinds whose objects could not be judged yet: their readiness is prepared when their first object arrives. */
  private unprepared: ChildInformer[] = [];

  constructor(options: TracerOptions) {
    this.clock = options.clock ?? realClock;
    this.metrics = options.metricsProvider ?? new InMemoryMetricsProvider();
    this.kube = options.kube;
    this.target = options.target;
    this.readiness = options.readiness;
    this.tracker = new ChainTracker(options.target.info.kind, options.readiness);
    this.coalesceMs = options.coalesceMs ?? DEFAULT_COALESCE_MS;
    this.discover = (options.extraChildren ?? []).length === 0 && options.discoverChildren !== false;
    this.listerWatcher = options.listerWatcher ?? ((info, selectors) => new ResourceListerWatcher(this.kube.client, info, selectors));
    this.queue = new RateLimitingQueue<string>(defaultControllerRateLimiter(this.clock), {
      name: 'informer-trace',
      metricsProvider: this.metrics,
      clock: this.clock,
    });
    this.pool = options.pool;
    this.chainInformers = new ChainInformers(this.target.namespace, this.listerWatcher, this.clock, this.target, options.extraChildren ?? [], options.pool);
    this.handlers = new ChainHandlers({
      clock: this.clock,
      informers: this.chainInformers,
      chain: () => this.chain,
      target: this.target,
      shared: this.pool !== undefined,
      watch: this.watch,
      enqueue: () => this.add(TARGET_KEY),
    });
    this.chain = new ChainView(this.chainInformers, (kind, obj, owner) => this.handlers.track(kind, obj, owner), this.target.info);
    this.treeOf = new ChainTree(this.chainInformers, options.readiness);
    this.decision = new EndDecision({
      clock: this.clock,
      tracker: this.tracker,
      targetLabel: `${this.target.info.kind}/${this.target.name}`,
      settleMs: options.settleMs ?? 3000,
      stopWhenConverged: options.stopWhenConverged ?? false,
      trigger: () => this.trigger,
      targetUid: () => this.targetUid,
      terminating: () => this.chain.terminating(),
      currency: () => this.currency(),
      reconcilePending: () => this.pendingSince.has(TARGET_KEY),
      emit: (e) => this.emit(e),
    });
    this.ended = this.decision.ended;
    this.handlers.handleTarget();
    this.handlers.handleChildren();
  }

  subscribe(fn: (e: TraceEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(e: TraceEvent): void {
    for (const fn of this.listeners) fn(e);
  }

  informers(): SharedIndexInformer[] {
    return [this.chainInformers.target, ...this.chainInformers.children.map((c) => c.informer), ...(this.events ? [this.events.reader.informer] : [])];
  }

  /**
   * Takes this trace's handlers away from its informers (shared ones outlive it) and stops its work
   * queue, which a metrics provider shared across traces (the probe's) would otherwise keep, when
   * the start failed before the run's signal could stop it.
   */
  detach(): void {
    this.handlers.detach();
    this.events?.reader.detach();
    this.queue.shutDown();
  }

  /** Events for the hops: events.k8s.io/v1 in the namespace, when the server serves them. */
  async addEventsInformer(): Promise<void> {
    const info = await this.kube.discovery.resolve('events.events.k8s.io').catch(() => undefined);
    if (!info) return;
    const reader = new EventsReader(
      info,
      this.chainInformers.newInformer(info),
      () => this.add(EVENTS_KEY),
      undefined,
      () => this.clock.now(),
      this.pool ? (regarding) => this.handlers.concernsEvent(regarding, this.targetUid) : undefined,
    );
    this.events = new ChainEvents(reader, { clock: this.clock, tracker: this.tracker, emit: (e) => this.emit(e) });
  }

  /**
   * For a target of a kind the tool does not know and no child kinds given: every kind its
   * namespace serves, found through discovery (see child-discovery.ts), its informers added.
   * Before start(), which leaves out the kinds whose first LIST was refused.
   */
  async discoverChildren(): Promise<void> {
    if (!this.discover || builtinKind(this.target.info)) return;
    const find = (): Promise<DiscoveredKind[]> => discoverChildren(this.kube.discovery, this.target.info);
    const kinds = this.pool ? await this.pool.discover(this.target.info, this.target.namespace, find) : await find();
    this.handlers.handleChildren(this.chainInformers.addDiscovered(kinds));
    this.discoveredKinds = kinds;
  }

  caches(): TraceCaches {
    return {
      target: { info: this.target.info, store: this.chainInformers.target.getIndexer() },
      children: this.chainInformers.children.map((c) => ({ info: c.info, store: c.informer.getIndexer() })),
      events: this.events ? { info: this.events.reader.info, store: this.events.reader.informer.getIndexer() } : undefined,
    };
  }

  /** How many Event versions our events informer has handed us so far. */
  eventsSeen(): number {
    return this.events?.reader.seenCount() ?? 0;
  }

  /** Nothing waits in the events informer or our workqueue and no reconcile runs: all news has been read. */
  idle(): boolean {
    const events = this.events?.reader.informer;
    return !this.working && this.queue.len() === 0 && (!events || (events.queuedKeys() === 0 && events.backlog() === 0));
  }

  /** Queues a key, noting when it first became due: the coalesce window runs from then. */
  private add(key: string): void {
    if (!this.pendingSince.has(key)) this.pendingSince.set(key, this.clock.now());
    this.queue.add(key);
  }

  /** Runs the informers until they synced and takes the baseline. */
  async start(signal: AbortSignal, sync: (informers: SharedIndexInformer[]) => Promise<void>): Promise<void> {
    this.runSignal = signal;
    const synced = sync(this.informers());
    // While the informers list (nothing is judged before they synced): what judging the target
    // needs (the CEL evaluator, ~40 ms to load), and which child kinds have rules that need it
    // (reading the library's files of their groups). A child kind is prepared once its informer
    // holds an object: of the dozens of kinds a custom resource's children are looked for in, most
    // hold none, and the evaluator costs ~5 MiB.
    this.unprepared = this.chainInformers.children.filter((c) => !this.readiness.canJudge(c.info));
    await Promise.all([this.readiness.prepare([this.target.info]), synced]);
    if (this.discoveredKinds) this.discovered = discoveredKinds(this.discoveredKinds, this.chainInformers.dropLeftOut());
    await this.prepareArrived();
    const view = this.view(true);
    this.targetUid = view.target?.ref.uid;
    this.tracker.baseline(view);
    void this.work(signal);
    signal.addEventListener('abort', () => this.queue.shutDown(), { once: true });
  }

  /**
   * Resolves once the target's own informer has synced (often well before the children's), or
   * has stopped: what a reader of the target alone may start on while the rest list.
   */
  targetSynced(): Promise<void> {
    const informer = this.chainInformers.target;
    if (informer.hasSynced() || informer.isStopped()) return Promise.resolve();
    return new Promise((resolve) => {
      const off = informer.onEvent((e) => {
        if (e.kind !== 'synced' && e.kind !== 'stopped') return;
        off();
        resolve();
      });
    });
  }

  /** The target object in the cache, if it exists. */
  targetObject(): KubeObject | undefined {
    const key = this.target.namespace && this.target.info.namespaced ? `${this.target.namespace}/${this.target.name}` : this.target.name;
    return this.chainInformers.target.getIndexer().getByKey(key) as KubeObject | undefined;
  }

  /**
   * The target and its descendants as the cache holds them (see ChainView): the whole chain for a
   * baseline, at the start, at the trigger and when the target is another object; otherwise only
   * what the handlers were told of since the last view.
   */
  private view(full = false): ReconcileView {
    const targetObj = this.targetObject();
    const target = targetObj ? this.handlers.track(this.target.info.kind, targetObj) : undefined;
    const uid = targetObj?.metadata.uid ?? this.targetUid;
    const root: ObjectRef | undefined = uid
      ? (target?.ref ?? { kind: this.target.info.kind, name: this.target.name, namespace: this.target.namespace, uid })
      : undefined;
    const descendants = full || this.chain.needsFull(uid) ? this.chain.full(root) : root ? this.chain.update(root) : [];
    const triggerSeenAt = this.trigger?.resourceVersion ? this.handlers.versionReceivedAt(this.trigger.resourceVersion) : undefined;
    return { target, descendants, deletions: this.handlers.deletions, triggerSeenAt };
  }

  /** Prepares the readiness of the child kinds whose first objects arrived since the last call (the worker's, and before a final snapshot). */
  async prepareArrived(): Promise<void> {
    const arrived = this.unprepared.filter((c) => c.informer.getIndexer().size() > 0);
    if (arrived.length === 0) return;
    await this.readiness.prepare(arrived.map((c) => c.info));
    this.unprepared = this.unprepared.filter((c) => !this.readiness.canJudge(c.info));
  }

  private async work(signal: AbortSignal): Promise<void> {
    for (;;) {
      const { item, shutdown } = await this.queue.get();
      if (shutdown) return;
      this.working = true;
      // Hold the key until the window since its first add has passed before reading the cache:
      // adds meanwhile only mark it dirty, so a burst of events becomes one reconcile now and at
      // most one more after done(). The window runs from the first add, not from this get(): an
      // event that arrived during the last reconcile has waited that long already.
      const since = this.pendingSince.get(item);
      const wait = since === undefined ? this.coalesceMs : since + this.coalesceMs - this.clock.now();
      if (wait > 0) await this.clock.sleep(wait, signal);
      this.pendingSince.delete(item);
      try {
        if (this.unprepared.length > 0) await this.prepareArrived();
        if (item === EVENTS_KEY) this.events?.read(this.trigger);
        else this.reconcile();
        this.queue.forget(item);
      } catch (err) {
        this.emit({ type: 'note', at: this.clock.now(), level: 'warning', message: `reconcile failed: ${(err as Error).message}; retrying` });
        this.queue.addRateLimited(item);
      } finally {
        this.queue.done(item);
        this.working = false;
      }
      if (signal.aborted) return;
    }
  }

  private reconcile(): void {
    this.reconciles++;
    const triggered = this.trigger !== undefined;
    let view = this.view();
    // A target created after the start (watched for, or applied) is followed from then on.
    this.targetUid ??= view.target?.ref.uid;
    if (!this.trigger) {
      const noticed = this.watch.notice(view, this.targetUid);
      if (noticed) this.setTrigger(noticed);
    }
    // The trigger was set just now: the tracker compares the whole chain with the baseline once.
    if (!triggered && this.trigger) view = this.view(true);
    const hops = this.tracker.reconcile(view, this.clock.now());
    for (const hop of hops) this.emit({ type: 'hop', hop });
    for (const hop of this.tracker.takeLateCauseMarks()) {
      this.emit({
        type: 'note',
        at: this.clock.now(),
        level: 'info',
        message: `${hop.object.kind}/${hop.object.name} ${hop.kind} (+${hop.sinceTriggerMs}ms) was seen before its cause`,
      });
    }
    if (this.burst) {
      this.burst.watchEvents = this.handlers.targetWatchEvents - this.countersAtWrite.targetWatchEvents;
      this.burst.reconciles = this.reconciles - this.countersAtWrite.reconciles;
    }
    this.decision.check(view);
  }

  /**
   * Ends the trace from outside (timeout, interrupt). A target that has converged, with the trace
   * following its terminating objects to their deletion, ends converged either way.
   */
  stop(outcome: 'timeout' | 'interrupted', message: string): void {
    this.decision.stop(outcome, message);
  }

  /** Whether the chain's informers caught up with the server: made when the end decision first asks. */
  private currency(): ChainCurrency {
    return new ChainCurrency(() => this.chainInformers.children, {
      clock: this.clock,
      signal: this.runSignal ?? new AbortController().signal,
      recheck: () => this.add(TARGET_KEY),
      note: (level, message) => this.emit({ type: 'note', at: this.clock.now(), level, message }),
      ...(this.pool ? { list: (informer, since) => this.pool!.serverState(informer, since, () => this.clock.now()) } : {}),
    });
  }

  private setTrigger(trigger: TraceTrigger): void {
    this.trigger = trigger;
    this.chain.markFull();
    this.tracker.setTrigger(trigger);
    this.emit({ type: 'trigger', trigger });
    this.add(TARGET_KEY);
    if (this.events) this.add(EVENTS_KEY);
  }

  /** Makes the requested write(s), or starts watching for someone else's change. */
  async fire(request: TriggerRequest, signal: AbortSignal): Promise<TraceTrigger | undefined> {
    const current = this.targetObject();
    // What exists now is the baseline: the chain's hops are what changes from here.
    this.targetUid = current?.metadata.uid ?? this.targetUid;
    if (request.kind === 'watch' && request.createdAt !== undefined) {
      // Created since the watch began: nothing of it is the baseline, and its creation is the change.
      this.tracker.baseline({ target: undefined, descendants: [], deletions: this.handlers.deletions, triggerSeenAt: undefined });
      this.watch.watchCreated(request.createdAt, current);
      if (current) this.add(TARGET_KEY);
      return undefined;
    }
    this.tracker.baseline(this.view(true));
    if (request.kind === 'watch') {
      // A target that does not exist yet: its creation is the change.
      this.watch.watch(current, request.ignoreStatus ?? false);
      return undefined;
    }
    this.countersAtWrite = { reconciles: this.reconciles, targetWatchEvents: this.handlers.targetWatchEvents };
    const { trigger, unchanged } = await writeTrigger(this.kube, this.target, current, request, this.clock, signal);
    if (request.kind === 'burst') this.burst = { writes: request.count, watchEvents: 0, reconciles: 0 };
    this.setTrigger(trigger);
    // The server stored nothing new: no watch event, no hop will follow.
    if (unchanged) this.decision.applyUnchanged();
    return trigger;
  }

  setControllerQueueAdds(queue: string, adds: number): void {
    if (this.burst) {
      this.burst.controllerQueue = queue;
      this.burst.controllerQueueAdds = adds;
    }
  }

  /** The uids of the chain below the target as the last reconcile saw it (the tree walks the cache instead). */
  chainMembers(): string[] {
    return this.chain.memberUids();
  }

  /** The hops so far, in the trace's order: the list itself, cheap to read often (snapshot() builds much more). */
  hops(): readonly Hop[] {
    return this.tracker.hops();
  }

  snapshot(): TraceSnapshot {
    const targetObj = this.targetObject();
    return {
      target: { kind: this.target.info.kind, namespace: this.target.namespace, name: this.target.name },
      trigger: this.trigger,
      hops: this.tracker.hops(),
      figures: this.tracker.figures(),
      tree: targetObj ? this.treeOf.build(this.target.info, targetObj) : undefined,
      informers: this.informers().map((i) => i.stats()),
      queue: this.metrics.snapshot()['informer-trace'],
      reconciles: this.reconciles,
      targetWatchEvents: this.handlers.targetWatchEvents,
      outcome: this.decision.outcome,
      endMessage: this.decision.message,
      burst: this.burst ? { ...this.burst } : undefined,
      ...(this.discovered ? { discoveredChildren: this.discovered } : {}),
      ...(this.events?.reader.cutTotal() ? { eventsNotRead: this.events.reader.cutTotal() } : {}),
    };
  }
}
