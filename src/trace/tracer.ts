/**
 * The trace controller's loop: shared informers for the target, its descendants and the
 * namespace's Events (ChainInformers, EventsReader); handlers only enqueue keys into our
 * rate-limited workqueue; one worker reads the cache, hands the ChainTracker the current state of
 * the chain (ChainView) and decides when the trace ends. The write that starts a trace is made by
 * writeTrigger (triggers.ts); the tree the views draw is ChainTree's.
 *
 * Contract:
 * - A key's reconcile waits the coalesce window from its first add: a burst of events makes one.
 * - The outcome is set once; once the target has converged it stays converged, whether the trace
 *   then follows terminating objects, times out or is interrupted.
 * - It ends converged or failed only once every child informer has caught up with the server
 *   (chain-currency.ts): a watch gone silent unnoticed delays the end until it is replaced and its
 *   hops are in, rather than cutting the chain short.
 */
import { isDeepStrictEqual } from 'node:util';
import { realClock, type Clock } from '../clock.js';
import { isDeletedFinalStateUnknown, type ResourceEventHandlerRegistration, type SharedIndexInformer } from '../informer/index.js';
import { ResourceListerWatcher, type Kube, type KubeObject, type ResourceInfo } from '../kube/index.js';
import type { Readiness } from '../readiness/index.js';
import { InMemoryMetricsProvider, RateLimitingQueue, defaultControllerRateLimiter } from '../workqueue/index.js';
import { ChainCurrency } from './chain-currency.js';
import { ChainInformers, isKnownKind, type ChildInformer, type ListerWatcherFactory } from './chain-informers.js';
import { ChainTracker, refOf, type Deletion, type ReconcileView, type TrackedObject } from './chain-tracker.js';
import { ChainView } from './chain-view.js';
import { discoverChildren, type DiscoveredChildren } from './child-discovery.js';
import { EventsReader, type EventRegarding } from './events-reader.js';
import type { InformerPool } from './informer-pool.js';
import { receivedAt } from './received-at.js';
import { ChainTree } from './tree.js';
import { writeTrigger, type TriggerRequest } from './triggers.js';
import type {
  BurstStats,
  DiscoveredChildKinds,
  Hop,
  ObjectRef,
  TraceCaches,
  TraceEvent,
  TraceOutcome,
  TraceSnapshot,
  TraceTarget,
  TraceTrigger,
} from './types.js';

export interface TracerOptions {
  kube: Kube;
  target: TraceTarget;
  /** Extra child kinds for kinds the tool does not know (CRDs): resolved resources. Given, nothing is discovered. */
  extraChildren?: ResourceInfo[];
  /** The command's readiness engine (src/readiness): judges the target, its children and the tree. */
  readiness: Readiness;
  /** For a kind the tool does not know, find its child kinds through discovery (discoverChildren()); default true. */
  discoverChildren?: boolean;
  /** Events for one key within this window collapse into one reconcile. */
  coalesceMs?: number;
  /** After a metadata-only change, how long to watch for a rollout before saying none follows. */
  settleMs?: number;
  /**
   * End as soon as the status converged, instead of following old Pods still terminating to their
   * deletion (a check measures convergence; the rest is not the controllers' latency).
   */
  stopWhenConverged?: boolean;
  clock?: Clock;
  /**
   * Where our workqueue's metrics go: a provider that outlives the trace keeps counting across
   * traces (a long-running probe exports them); a fresh one per trace by default.
   */
  metricsProvider?: InMemoryMetricsProvider;
  /** Where each informer lists and watches; the API server unless a test gives its own. */
  listerWatcher?: ListerWatcherFactory;
  /** Informers shared with the other traces of a set (informer-pool.ts); this trace's own otherwise. */
  pool?: InformerPool;
}

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
  private readonly settleMs: number;
  private readonly stopWhenConverged: boolean;
  private readonly discover: boolean;
  private readonly listerWatcher: ListerWatcherFactory;
  private readonly chainInformers: ChainInformers;
  private readonly chain: ChainView;
  private readonly treeOf: ChainTree;
  private readonly pool: InformerPool | undefined;
  /** The handlers this trace added: taken away by detach(), from informers that may outlive it. */
  private readonly registrations: ResourceEventHandlerRegistration[] = [];
  /** The engine that judges the target and its children: the one the command built, for its diagnoses too. */
  readonly readiness: Readiness;
  private events: EventsReader | undefined;
  private discovered: DiscoveredChildKinds | undefined;
  readonly ended: Promise<void>;
  private endResolve: (() => void) | undefined;

  /** Per queued key, when it was first added since its last reconcile began. */
  private readonly pendingSince = new Map<string, number>();
  private working = false;
  private readonly deletions = new Map<string, Deletion>();
  /** The target's resourceVersions → when our informer received each. */
  private readonly targetVersions = new Map<string, number>();
  /** uid → when our informer first received the object (the ADDED event). */
  private readonly firstSeen = new Map<string, number>();
  private readonly listeners = new Set<(e: TraceEvent) => void>();

  private trigger: TraceTrigger | undefined;
  private targetUid: string | undefined;
  /** Watching for someone else's change: the target's resourceVersion when watching began, and the first change after it. */
  private watching = false;
  private watchBaselineRv: string | undefined;
  /** Watching with `ignoreStatus`: the target at the baseline, to tell a status-only version from a change. */
  private watchBaseline: KubeObject | undefined;
  private firstChange: { at: number; rv: string | undefined } | undefined;

  private reconciles = 0;
  private targetWatchEvents = 0;
  /** The counters when the writes began: a burst's watch events and reconciles are counted from there. */
  private countersAtWrite = { reconciles: 0, targetWatchEvents: 0 };
  private burst: BurstStats | undefined;

  private outcome: TraceOutcome | undefined;
  private endMessage: string | undefined;
  private settleTimer: { stop(): boolean } | undefined;
  private waitingForDeletes = false;
  /** Whether the chain's informers caught up with the server, asked before the trace ends converged or failed. */
  private currency: ChainCurrency | undefined;
  private saidEventsCut = false;
  private runSignal: AbortSignal | undefined;

  constructor(options: TracerOptions) {
    this.clock = options.clock ?? realClock;
    this.metrics = options.metricsProvider ?? new InMemoryMetricsProvider();
    this.kube = options.kube;
    this.target = options.target;
    this.readiness = options.readiness;
    this.tracker = new ChainTracker(options.target.info.kind, options.readiness);
    this.coalesceMs = options.coalesceMs ?? DEFAULT_COALESCE_MS;
    this.settleMs = options.settleMs ?? 3000;
    this.stopWhenConverged = options.stopWhenConverged ?? false;
    this.discover = (options.extraChildren ?? []).length === 0 && options.discoverChildren !== false;
    this.listerWatcher = options.listerWatcher ?? ((info, selectors) => new ResourceListerWatcher(this.kube.client, info, selectors));
    this.queue = new RateLimitingQueue<string>(defaultControllerRateLimiter(this.clock), {
      name: 'informer-trace',
      metricsProvider: this.metrics,
      clock: this.clock,
    });
    this.ended = new Promise((resolve) => (this.endResolve = resolve));
    this.pool = options.pool;
    this.chainInformers = new ChainInformers(this.target.namespace, this.listerWatcher, this.clock, this.target, options.extraChildren ?? [], options.pool);
    this.chain = new ChainView(this.chainInformers, (kind, obj, owner) => this.tracked(kind, obj, owner));
    this.treeOf = new ChainTree(this.chainInformers, options.readiness);
    this.handleTarget();
    this.handleChildren();
  }

  subscribe(fn: (e: TraceEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(e: TraceEvent): void {
    for (const fn of this.listeners) fn(e);
  }

  informers(): SharedIndexInformer[] {
    return [this.chainInformers.target, ...this.chainInformers.children.map((c) => c.informer), ...(this.events ? [this.events.informer] : [])];
  }

  /** Whether `obj` is the target: the target's informer holds only it, unless it is shared (a pool's). */
  private isTarget(obj: KubeObject | { key: string; obj?: KubeObject | null }): boolean {
    if (!this.pool) return true;
    const o = isDeletedFinalStateUnknown(obj) ? obj.obj : (obj as KubeObject);
    return o?.metadata?.name === this.target.name;
  }

  private handleTarget(): void {
    const reg = this.chainInformers.target.addEventHandler(
      {
        onAdd: (obj, _initial, n) => {
          if (!this.isTarget(obj)) return;
          this.firstReceived(obj, n.receivedAt);
          this.versionReceived(obj, n.receivedAt);
          // Watching for a target that did not exist: its creation is the change being traced.
          if (this.watching && !this.firstChange && this.isWatchedChange(obj)) this.firstChange = { at: n.receivedAt, rv: obj.metadata.resourceVersion };
          this.add(TARGET_KEY);
        },
        onUpdate: (_old, obj, n) => {
          if (!this.isTarget(obj)) return;
          if (!n.isSync) {
            this.targetWatchEvents++;
            const rv = obj.metadata.resourceVersion;
            this.versionReceived(obj, n.receivedAt);
            // Watching: the first version after the baseline is the change being traced.
            if (this.watching && !this.firstChange && this.isWatchedChange(obj)) this.firstChange = { at: n.receivedAt, rv };
          }
          this.add(TARGET_KEY);
        },
        onDelete: (obj, n) => {
          if (this.isTarget(obj)) this.onDelete(obj, n.receivedAt);
        },
      },
      { name: 'trace' },
    );
    this.registrations.push(reg);
  }

  private handleChildren(children: ChildInformer[] = this.chainInformers.children): void {
    // A shared informer tells every trace of every object of its kind: each keeps to its own chain.
    const concerns = (obj: KubeObject | { key: string; obj?: KubeObject | null }): boolean => !this.pool || this.chain.concerns(obj);
    for (const child of children) {
      const reg = child.informer.addEventHandler(
        {
          onAdd: (obj, _initial, n) => {
            if (!concerns(obj)) return;
            this.firstReceived(obj, n.receivedAt);
            this.chain.touch(child, obj);
            this.add(TARGET_KEY);
          },
          onUpdate: (_o, obj, n) => {
            if (!concerns(obj)) return;
            this.chain.touch(child, obj);
            if (!n.isSync) this.add(TARGET_KEY);
          },
          onDelete: (obj, n) => {
            if (!concerns(obj)) return;
            this.chain.touch(child, obj);
            this.onDelete(obj, n.receivedAt);
          },
        },
        { name: 'trace' },
      );
      this.registrations.push(reg);
    }
  }

  /** Takes this trace's handlers away from its informers (shared ones outlive it). */
  detach(): void {
    for (const reg of this.registrations.splice(0)) void reg.remove();
    this.events?.detach();
  }

  private firstReceived(obj: KubeObject, at: number): void {
    const uid = obj.metadata.uid;
    if (uid && !this.firstSeen.has(uid)) this.firstSeen.set(uid, at);
  }

  private versionReceived(obj: KubeObject, at: number): void {
    const rv = obj.metadata.resourceVersion;
    if (rv && !this.targetVersions.has(rv)) this.targetVersions.set(rv, at);
  }

  private onDelete(obj: KubeObject | { key: string; obj?: KubeObject | null }, at: number): void {
    const tombstone = isDeletedFinalStateUnknown(obj);
    const o = tombstone ? obj.obj : (obj as KubeObject);
    const uid = o?.metadata?.uid;
    if (uid) this.deletions.set(uid, { at, tombstone, finalState: o ?? undefined });
    this.add(TARGET_KEY);
  }

  /** Events for the hops: events.k8s.io/v1 in the namespace, when the server serves them. */
  async addEventsInformer(): Promise<void> {
    const info = await this.kube.discovery.resolve('events.events.k8s.io').catch(() => undefined);
    if (!info) return;
    this.events = new EventsReader(
      info,
      this.chainInformers.newInformer(info),
      () => this.add(EVENTS_KEY),
      undefined,
      () => this.clock.now(),
      this.pool ? (regarding) => this.aboutChain(regarding) : undefined,
    );
  }

  /**
   * Whether an Event may be about this trace's chain (a shared Events informer holds the whole
   * namespace's): about the target or a member, or about an object in a child informer's cache that
   * the chain owns; kept too when its object is not in the cache yet.
   */
  private aboutChain(r: EventRegarding): boolean {
    if (!r.uid) return true;
    if (r.uid === this.targetUid || this.deletions.has(r.uid) || this.chain.has(r.uid)) return true;
    if (r.kind === this.target.info.kind && r.name === this.target.name) return true;
    const child = this.chainInformers.children.find((c) => c.info.kind === r.kind);
    if (!child) return false;
    const obj = child.informer.getIndexer().getByKey(r.namespace ? `${r.namespace}/${r.name}` : (r.name ?? '')) as KubeObject | undefined;
    return !obj || obj.metadata.uid !== r.uid || this.chain.concerns(obj);
  }

  /**
   * For a target of a kind the tool does not know and no child kinds given: every kind its
   * namespace serves, found through discovery (see child-discovery.ts). Before start().
   */
  async discoverChildren(signal?: AbortSignal): Promise<DiscoveredChildren | undefined> {
    if (!this.discover || isKnownKind(this.target.info.kind)) return undefined;
    const find = (): Promise<DiscoveredChildren> => discoverChildren(this.kube.discovery, this.target.info, this.target.namespace, this.listerWatcher, signal);
    const found = this.pool ? await this.pool.discover(this.target.info, this.target.namespace, find) : await find();
    this.handleChildren(this.chainInformers.addDiscovered(found.kinds));
    const name = (i: ResourceInfo): string => (i.group ? `${i.resource}.${i.group}` : i.resource);
    this.discovered = {
      full: found.kinds.filter((k) => !k.metadataOnly).map((k) => name(k.info)),
      metadataOnly: found.kinds.filter((k) => k.metadataOnly).map((k) => name(k.info)),
      refused: found.refused,
    };
    return found;
  }

  caches(): TraceCaches {
    return {
      target: { info: this.target.info, store: this.chainInformers.target.getIndexer() },
      children: this.chainInformers.children.map((c) => ({ info: c.info, store: c.informer.getIndexer() })),
      events: this.events ? { info: this.events.info, store: this.events.informer.getIndexer() } : undefined,
    };
  }

  /** How many Event versions our events informer has handed us so far. */
  eventsSeen(): number {
    return this.events?.seenCount() ?? 0;
  }

  /** Nothing waits in the events informer or our workqueue and no reconcile runs: all news has been read. */
  idle(): boolean {
    const events = this.events?.informer;
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
    // The chain's kinds are known now: what judging them needs is loaded before any is judged.
    await this.readiness.prepare([this.target.info, ...this.chainInformers.children.map((c) => c.info)]);
    await sync(this.informers());
    const view = this.view(true);
    this.targetUid = view.target?.ref.uid;
    this.tracker.baseline(view);
    void this.work(signal);
    signal.addEventListener('abort', () => this.queue.shutDown(), { once: true });
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
    const target = targetObj ? this.tracked(this.target.info.kind, targetObj) : undefined;
    const uid = targetObj?.metadata.uid ?? this.targetUid;
    const root: ObjectRef | undefined = uid
      ? (target?.ref ?? { kind: this.target.info.kind, name: this.target.name, namespace: this.target.namespace, uid })
      : undefined;
    const descendants = full || this.chain.needsFull(uid) ? this.chain.full(root) : root ? this.chain.update(root) : [];
    const triggerSeenAt = this.trigger?.resourceVersion ? this.targetVersions.get(this.trigger.resourceVersion) : undefined;
    return { target, descendants, deletions: this.deletions, triggerSeenAt };
  }

  private tracked(kind: string, obj: KubeObject, owner?: ObjectRef): TrackedObject {
    return {
      ref: refOf(kind, obj),
      owner,
      obj,
      observedAt: receivedAt(obj) ?? this.clock.now(),
      firstObservedAt: obj.metadata.uid ? this.firstSeen.get(obj.metadata.uid) : undefined,
    };
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
        if (item === EVENTS_KEY) this.reconcileEvents();
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
    if (!this.trigger && this.watching) this.noticeChange(view);
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
      this.burst.watchEvents = this.targetWatchEvents - this.countersAtWrite.targetWatchEvents;
      this.burst.reconciles = this.reconciles - this.countersAtWrite.reconciles;
    }
    this.checkEnd(view);
  }

  /** Watching: the first change to the target after the baseline (or its deletion) is the trigger. */
  private noticeChange(view: ReconcileView): void {
    if (view.target && this.isWatchedChange(view.target.obj)) {
      const first = this.firstChange ?? { at: view.target.observedAt, rv: view.target.obj.metadata.resourceVersion };
      this.setTrigger({
        kind: 'watch',
        wrote: '',
        at: first.at,
        resourceVersion: first.rv ?? view.target.obj.metadata.resourceVersion,
        generation: view.target.obj.metadata.generation,
        writes: 0,
      });
    } else if (!view.target && this.targetUid) {
      const d = this.deletions.get(this.targetUid);
      if (d) this.setTrigger({ kind: 'watch', wrote: '', at: d.at, writes: 0 });
    }
  }

  /** Watching: whether this version of the target is the change (see the watch trigger's `ignoreStatus`). */
  private isWatchedChange(obj: KubeObject): boolean {
    if (obj.metadata.resourceVersion === this.watchBaselineRv) return false;
    const base = this.watchBaseline;
    if (!base) return true;
    const same = (a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean => isDeepStrictEqual(a ?? {}, b ?? {});
    return (
      obj.metadata.uid !== base.metadata.uid ||
      obj.metadata.generation !== base.metadata.generation ||
      obj.metadata.deletionTimestamp !== base.metadata.deletionTimestamp ||
      !same(obj.metadata.labels, base.metadata.labels) ||
      !same(obj.metadata.annotations, base.metadata.annotations)
    );
  }

  private reconcileEvents(): void {
    // Before the trigger there is nothing to explain; Events that came meanwhile are read once it is set.
    if (!this.events || !this.trigger) return;
    for (const { regardingUid, event } of this.events.readNew(this.trigger.at)) {
      const hopId = this.tracker.addEvent(regardingUid, event);
      if (hopId) this.emit({ type: 'event', hopId, event });
    }
    // Said once, when the bounds first cut: a flood of Events would otherwise be a flood of notes.
    // What they cut in all is in the snapshot (eventsNotRead) and the summary.
    const cut = this.events.takeCutNote();
    if (cut && !this.saidEventsCut) {
      this.saidEventsCut = true;
      this.emit({ type: 'note', at: this.clock.now(), level: 'info', message: `${cut}; later ones are counted, not said (the total is in the summary)` });
    }
  }

  private checkEnd(view: ReconcileView): void {
    if (this.outcome || !this.trigger) return;
    if (this.tracker.isTargetDeleted() || (!view.target && this.targetUid && this.deletions.has(this.targetUid))) {
      this.end('deleted', `${this.targetLabel()} was deleted`);
      return;
    }
    const converged = this.tracker.converged();
    if (converged) {
      // Status converges while old Pods may still be terminating: follow them to their deletion.
      const terminating = this.chain.terminating();
      if (terminating > 0 && converged.kind !== 'failed' && !this.stopWhenConverged) {
        if (!this.waitingForDeletes)
          this.emit({
            type: 'note',
            at: this.clock.now(),
            level: 'info',
            message: `${this.targetLabel()} converged; following ${terminating} terminating object(s) to their deletion`,
          });
        this.waitingForDeletes = true;
        return;
      }
      if (!this.chainCaughtUp()) return;
      this.end(
        converged.kind === 'failed' ? 'failed' : 'converged',
        this.convergedMessage(converged, terminating > 0 ? ` (${terminating} object(s) still terminating)` : ''),
      );
      return;
    }
    // No new pod template or replica count: once the controller has seen the change (or there was
    // no new generation to see), watch a settle window for anything to follow, then say none did.
    const seen = this.trigger.kind !== 'watch' ? view.triggerSeenAt !== undefined : true;
    const observed = !this.tracker.specChanged() || this.tracker.hops().some((h) => h.kind === 'controller-observed');
    const terminating = Boolean(view.target?.obj.metadata.deletionTimestamp);
    if (!this.tracker.expectsRollout() && seen && observed && !terminating && !this.settleTimer) {
      const gen = view.target?.obj.metadata.generation;
      const specChanged = this.tracker.specChanged();
      this.settleTimer = this.clock.setTimer(this.settleMs, () => {
        if (this.outcome) return;
        // A change of spec came within the window (a --watch trace that began on a status write,
        // then saw the spec change): a rollout follows after all, and the reconciles judge it.
        if (this.tracker.expectsRollout()) {
          this.settleTimer = undefined;
          return;
        }
        const changedChildren = this.tracker.hops().filter((h) => h.object.uid !== this.targetUid).length;
        this.end(
          'no-rollout',
          `metadata-only change: ${specChanged ? `generation ${gen} observed by the controller, spec unchanged` : `generation unchanged (${gen ?? '-'})`}; ${changedChildren === 0 ? 'no ReplicaSet or Pod changed' : `${changedChildren} child hop(s)`} within ${this.settleMs / 1000}s: no rollout follows`,
        );
      });
    }
  }

  /**
   * Whether every child informer has caught up with the server (chain-currency.ts) and the hops it
   * brought have been reconciled: asked before the trace ends converged or failed, so that a watch
   * that went silent unnoticed cannot cut the chain short.
   */
  private chainCaughtUp(): boolean {
    this.currency ??= new ChainCurrency(() => this.chainInformers.children, {
      clock: this.clock,
      signal: this.runSignal ?? new AbortController().signal,
      recheck: () => this.add(TARGET_KEY),
      note: (level, message) => this.emit({ type: 'note', at: this.clock.now(), level, message }),
      ...(this.pool ? { list: (informer, since) => this.pool!.serverState(informer, since, () => this.clock.now()) } : {}),
    });
    return this.currency.check() && !this.pendingSince.has(TARGET_KEY);
  }

  /** For an end before the chain caught up: which informers had not, and what that means. */
  private notCaughtUp(): string {
    const behind = this.currency?.behind() ?? [];
    return behind.length ? `; ${behind.join(', ')} had not caught up with the server: hops not yet received are missing` : '';
  }

  private convergedMessage(hop: Hop, extra = ''): string {
    return `${this.targetLabel()} ${hop.kind === 'failed' ? 'failed' : 'converged'}: ${hop.detail ?? ''}${extra}`;
  }

  private targetLabel(): string {
    return `${this.target.info.kind}/${this.target.name}`;
  }

  private end(outcome: TraceOutcome, message: string): void {
    if (this.outcome) return;
    this.outcome = outcome;
    this.endMessage = message;
    this.settleTimer?.stop();
    this.currency?.close();
    const at = this.clock.now();
    this.emit({ type: 'end', outcome, at, elapsedMs: this.trigger ? at - this.trigger.at : 0, message });
    this.endResolve?.();
  }

  /**
   * Ends the trace from outside (timeout, interrupt). A target that has converged, with the trace
   * following its terminating objects to their deletion, ends converged either way.
   */
  stop(outcome: 'timeout' | 'interrupted', message: string): void {
    const converged = this.tracker.converged();
    if (converged && converged.kind !== 'failed') {
      const left = this.chain.terminating();
      this.end('converged', this.convergedMessage(converged, `${left > 0 ? ` (${left} object(s) still terminating)` : ''}${this.notCaughtUp()}`));
      return;
    }
    this.end(outcome, message);
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
      this.tracker.baseline({ target: undefined, descendants: [], deletions: this.deletions, triggerSeenAt: undefined });
      this.watching = true;
      this.firstChange = { at: request.createdAt, rv: current?.metadata.resourceVersion };
      if (current) this.add(TARGET_KEY);
      return undefined;
    }
    this.tracker.baseline(this.view(true));
    if (request.kind === 'watch') {
      // A target that does not exist yet: its creation is the change.
      this.watching = true;
      this.watchBaselineRv = current?.metadata.resourceVersion;
      if (request.ignoreStatus) this.watchBaseline = current;
      return undefined;
    }
    this.countersAtWrite = { reconciles: this.reconciles, targetWatchEvents: this.targetWatchEvents };
    const { trigger, unchanged } = await writeTrigger(this.kube, this.target, current, request, this.clock, signal);
    if (request.kind === 'burst') this.burst = { writes: request.count, watchEvents: 0, reconciles: 0 };
    this.setTrigger(trigger);
    // The server stored nothing new: no watch event, no hop will follow.
    if (unchanged) this.end('no-rollout', `the manifest matches ${this.targetLabel()}: the apply changed nothing`);
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
      tree: targetObj ? this.treeOf.build(this.target.info.kind, targetObj) : undefined,
      informers: this.informers().map((i) => i.stats()),
      queue: this.metrics.snapshot()['informer-trace'],
      reconciles: this.reconciles,
      targetWatchEvents: this.targetWatchEvents,
      outcome: this.outcome,
      endMessage: this.endMessage,
      burst: this.burst ? { ...this.burst } : undefined,
      ...(this.discovered ? { discoveredChildren: this.discovered } : {}),
      ...(this.events?.cutTotal() ? { eventsNotRead: this.events.cutTotal() } : {}),
    };
  }
}
