/**
 * The trace controller: shared informers for the target, its descendants (by kind, down the owner
 * chain) and the namespace's Events; handlers only enqueue keys into our rate-limited workqueue;
 * one worker reads the cache and hands the ChainTracker the current state of the chain.
 *
 * The chain below the target is kept as the cache changes (see view()): a reconcile during a
 * rollout of thousands of Pods reads the objects its handlers were told of since the last one,
 * not every object of the chain.
 */
import { realClock, type Clock } from '../clock.js';
import { UsageError } from '../errors.js';
import {
  OwnerUIDIndex,
  SharedIndexInformer,
  chainTransforms,
  deletionHandlingMetaNamespaceKeyFunc,
  isDeletedFinalStateUnknown,
  ownerUIDIndexFunc,
  type Indexer,
  type InformerStats,
} from '../informer/index.js';
import { ObjectWriter, ResourceListerWatcher, groupResource, type Kube, type KubeObject, type ListerWatcher, type ResourceInfo } from '../kube/index.js';
import { InMemoryMetricsProvider, RateLimitingQueue, defaultControllerRateLimiter, type QueueMetricsSnapshot } from '../workqueue/index.js';
import { ChainTracker, refOf, type Deletion, type ReconcileView, type TrackedObject } from './chain-tracker.js';
import { childKinds } from './facts.js';
import type { HopFigures } from './hop-figures.js';
import { receivedAt, slimManagedFields, stampReceivedAt } from './received-at.js';
import type { BurstStats, Hop, ObjectRef, TraceEvent, TraceEventRef, TraceOutcome, TraceTrigger, TriggerKind } from './types.js';

export interface TraceTarget {
  info: ResourceInfo;
  namespace: string | undefined;
  name: string;
}

export interface TracerOptions {
  kube: Kube;
  target: TraceTarget;
  /** Extra child kinds for kinds the tool does not know (CRDs): resolved resources. */
  extraChildren?: ResourceInfo[];
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
  listerWatcher?: (info: ResourceInfo, options: { namespace: string | undefined; fieldSelector?: string }) => ListerWatcher;
}

/** The tracer's informer caches, for a reader that needs more than the hops (a diagnosis). */
export interface TraceCaches {
  target: { info: ResourceInfo; store: Indexer };
  /** Descendant kinds down the owner chain; each store holds the namespace's objects of that kind. */
  children: { info: ResourceInfo; store: Indexer }[];
  /** The namespace's events.k8s.io Events, when the server serves them. */
  events: { info: ResourceInfo; store: Indexer } | undefined;
}

export type TriggerRequest =
  | { kind: 'annotate'; key: string; value: string }
  | { kind: 'restart' }
  | { kind: 'scale'; replicas: number }
  | { kind: 'burst'; count: number }
  /** Server-side apply of a manifest of the target (which may not exist yet); `source` names where it came from. */
  | { kind: 'apply'; manifest: KubeObject; source: string }
  | { kind: 'watch' };

/** The field manager of our server-side applies, as kubectl's is "kubectl". */
export const APPLY_FIELD_MANAGER = 'kubectl-informer-trace';

interface ChildInformer {
  info: ResourceInfo;
  informer: SharedIndexInformer;
  /** Given as an extra child kind rather than known. */
  extra: boolean;
}

export interface TreeNode {
  ref: ObjectRef;
  status: string;
  ready: boolean;
  node?: string | undefined;
  restarts?: number | undefined;
  phase?: string | undefined;
  creationTimestamp?: string | undefined;
  deleting: boolean;
  children: TreeNode[];
}

export interface TraceSnapshot {
  target: { kind: string; namespace?: string | undefined; name: string };
  trigger: TraceTrigger | undefined;
  hops: Hop[];
  /** The figures over `hops`, as the tracer keeps them; absent, they are computed from `hops`. */
  figures?: HopFigures | undefined;
  tree: TreeNode | undefined;
  informers: InformerStats[];
  queue: QueueMetricsSnapshot | undefined;
  reconciles: number;
  targetWatchEvents: number;
  outcome: TraceOutcome | undefined;
  endMessage: string | undefined;
  burst: BurstStats | undefined;
}

/**
 * How long a queued key waits before the reconcile reads the cache, from when it was first queued,
 * so that a burst of events makes one reconcile. Part of every hop's emission lag, so short: the
 * tracker's work is in proportion to what changed, and at 1,000 replicas 25 ms kept the lag's p99
 * under 50 ms for about a fifth more CPU than 50 ms (BENCHMARKS.md, section 8).
 */
export const DEFAULT_COALESCE_MS = 25;

/** Every kind childKinds names, as an owner or a child: what these own is known. */
const knownKinds = new Set(Object.entries(childKinds).flatMap(([owner, kids]) => [owner, ...kids.map((k) => k.kind)]));

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
  /** Per queued key, when it was first added since its last reconcile began. */
  private readonly pendingSince = new Map<string, number>();
  /** Each cached object's tree node, without children (see tree()). */
  private readonly treeNodes = new WeakMap<KubeObject, TreeNode>();
  /** Per parent uid, each child's place (by uid) in the last tree (see inOrder()). */
  private readonly treeOrder = new Map<string, Map<string, number>>();
  private readonly settleMs: number;
  private targetInformer!: SharedIndexInformer;
  private children: ChildInformer[] = [];
  /** Per kind, the child informers that can hold objects it owns: see ownable(). */
  private readonly ownableByKind = new Map<string, ChildInformer[]>();
  private eventsInformer: SharedIndexInformer | undefined;
  private eventsInfo: ResourceInfo | undefined;
  private readonly listerWatcher: NonNullable<TracerOptions['listerWatcher']>;
  private readonly stopWhenConverged: boolean;
  /** Events (and later versions of them) our events informer has received. */
  private eventsReceived = 0;
  private working = false;
  private readonly deletions = new Map<string, Deletion>();
  /**
   * The chain below the target as the last view left it: each member's uid → what the view handed
   * the tracker for it (with its owner in the chain), and each member's children in the chain.
   */
  private readonly members = new Map<string, TrackedObject>();
  private readonly memberChildren = new Map<string, Set<string>>();
  /** The uid of the target the members hang from. */
  private membersRoot: string | undefined;
  /** Objects of the child informers their handlers delivered since the last view: uid → where to read it. */
  private touched = new Map<string, { child: ChildInformer; key: string }>();
  /** The next view walks the whole chain: set at the start and at the trigger. */
  private fullView = true;
  private readonly targetVersions = new Map<string, number>();
  /** uid → when our informer first received the object (the ADDED event). */
  private readonly firstSeen = new Map<string, number>();
  private readonly listeners = new Set<(e: TraceEvent) => void>();
  private readonly seenEvents = new Set<string>();
  /** Event objects already read: the cache keeps an object until a new version replaces it. */
  private readonly readEvents = new WeakSet<KubeObject>();
  /**
   * The Events the informer delivered since reconcileEvents last read them, each one's newest
   * version, in the order they first came (by uid; bounded by the Events in the cache).
   */
  private unreadEvents = new Map<unknown, KubeObject>();
  private trigger: TraceTrigger | undefined;
  private reconciles = 0;
  private reconcilesAtTrigger = 0;
  private targetWatchEvents = 0;
  private targetWatchEventsAtTrigger = 0;
  private outcome: TraceOutcome | undefined;
  private endMessage: string | undefined;
  private endResolve: (() => void) | undefined;
  readonly ended: Promise<void>;
  private settleTimer: { stop(): boolean } | undefined;
  private burst: BurstStats | undefined;
  private targetUid: string | undefined;

  constructor(options: TracerOptions) {
    this.clock = options.clock ?? realClock;
    this.metrics = options.metricsProvider ?? new InMemoryMetricsProvider();
    this.kube = options.kube;
    this.target = options.target;
    this.tracker = new ChainTracker(options.target.info.kind);
    this.coalesceMs = options.coalesceMs ?? DEFAULT_COALESCE_MS;
    this.settleMs = options.settleMs ?? 3000;
    this.stopWhenConverged = options.stopWhenConverged ?? false;
    this.listerWatcher = options.listerWatcher ?? ((info, selectors) => new ResourceListerWatcher(this.kube.client, info, selectors));
    this.queue = new RateLimitingQueue<string>(defaultControllerRateLimiter(this.clock), { name: 'informer-trace', metricsProvider: this.metrics, clock: this.clock });
    this.ended = new Promise((resolve) => (this.endResolve = resolve));
    this.buildInformers(options.extraChildren ?? []);
  }

  subscribe(fn: (e: TraceEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(e: TraceEvent): void {
    for (const fn of this.listeners) fn(e);
  }

  informers(): SharedIndexInformer[] {
    return [this.targetInformer, ...this.children.map((c) => c.informer), ...(this.eventsInformer ? [this.eventsInformer] : [])];
  }

  private newInformer(info: ResourceInfo, selectors: { fieldSelector?: string } = {}): SharedIndexInformer {
    const lw = this.listerWatcher(info, { namespace: this.target.namespace, ...selectors });
    return new SharedIndexInformer(lw, {
      clock: this.clock,
      indexers: { [OwnerUIDIndex]: ownerUIDIndexFunc },
      transform: chainTransforms(slimManagedFields, stampReceivedAt(this.clock)),
    });
  }

  private buildInformers(extra: ResourceInfo[]): void {
    const { info, name } = this.target;
    this.targetInformer = this.newInformer(info, { fieldSelector: `metadata.name=${name}` });
    this.targetInformer.addEventHandler(
      {
        onAdd: (obj, _initial, n) => {
          this.firstReceived(obj, n.receivedAt);
          this.versionReceived(obj, n.receivedAt);
          // Watching for a target that did not exist: its creation is the change being traced.
          if (this.watching && !this.firstChange && obj.metadata.resourceVersion !== this.watchBaselineRv) this.firstChange = { at: n.receivedAt, rv: obj.metadata.resourceVersion };
          this.enqueue();
        },
        onUpdate: (_old, obj, n) => {
          if (!n.isSync) {
            this.targetWatchEvents++;
            const rv = obj.metadata.resourceVersion;
            this.versionReceived(obj, n.receivedAt);
            // Watching: the first version after the baseline is the change being traced.
            if (this.watching && !this.firstChange && rv !== this.watchBaselineRv) this.firstChange = { at: n.receivedAt, rv };
          }
          this.enqueue();
        },
        onDelete: (obj, n) => this.onDelete(obj, n.receivedAt),
      },
      { name: 'trace' },
    );
    // Descendant kinds down the owner chain, each watched once across the namespace.
    const kinds: { group: string; kind: string; resource: string }[] = [];
    const walk = (kind: string): void => {
      for (const c of childKinds[kind] ?? []) {
        if (kinds.some((k) => k.kind === c.kind && k.group === c.group)) continue;
        kinds.push(c);
        walk(c.kind);
      }
    };
    walk(info.kind);
    for (const e of extra) if (!kinds.some((k) => k.kind === e.kind && k.group === e.group)) kinds.push({ group: e.group, kind: e.kind, resource: e.resource }), walk(e.kind);
    for (const k of kinds) {
      const childInfo: ResourceInfo = extra.find((e) => e.kind === k.kind && e.group === k.group) ?? {
        group: k.group,
        version: 'v1',
        resource: k.resource,
        kind: k.kind,
        namespaced: true,
        shortNames: [],
        singularName: k.kind.toLowerCase(),
        verbs: ['list', 'watch'],
      };
      const informer = this.newInformer(childInfo);
      const child: ChildInformer = { info: childInfo, informer, extra: extra.includes(childInfo) };
      informer.addEventHandler(
        {
          onAdd: (obj, _initial, n) => {
            this.firstReceived(obj, n.receivedAt);
            this.touch(child, obj);
            this.enqueue();
          },
          onUpdate: (_o, obj, n) => {
            this.touch(child, obj);
            if (!n.isSync) this.enqueue();
          },
          onDelete: (obj, n) => {
            this.touch(child, obj);
            this.onDelete(obj, n.receivedAt);
          },
        },
        { name: 'trace' },
      );
      this.children.push(child);
    }
  }

  /**
   * The child informers that can hold objects a `kind` owns. For a kind the tool knows, its known
   * child kinds and the kinds given as extra (what those are owned by is not known); for any other
   * kind (a CRD), every child informer. A Pod owns nothing, so the 2,000 Pods of a large rollout
   * cost no owner-index lookups each time the tree or a reconcile walks the chain.
   */
  private ownable(kind: string): ChildInformer[] {
    let found = this.ownableByKind.get(kind);
    if (!found) {
      const known = childKinds[kind] ?? (knownKinds.has(kind) ? [] : undefined);
      found = known ? this.children.filter((c) => c.extra || known.some((k) => k.kind === c.info.kind && k.group === c.info.group)) : this.children;
      this.ownableByKind.set(kind, found);
    }
    return found;
  }

  /** Notes a child object the next view reads again from the cache (a tombstone without its object: the whole chain). */
  private touch(child: ChildInformer, obj: KubeObject | { key: string; obj?: KubeObject | null }): void {
    const o = isDeletedFinalStateUnknown(obj) ? obj.obj : (obj as KubeObject);
    const uid = o?.metadata?.uid;
    if (uid) this.touched.set(uid, { child, key: deletionHandlingMetaNamespaceKeyFunc(obj) });
    else this.fullView = true;
  }

  private firstReceived(obj: KubeObject, at: number): void {
    const uid = obj.metadata.uid;
    if (uid && !this.firstSeen.has(uid)) this.firstSeen.set(uid, at);
  }

  private versionReceived(obj: KubeObject, at: number): void {
    const rv = obj.metadata.resourceVersion;
    if (rv && !this.targetVersions.has(rv)) this.targetVersions.set(rv, at);
  }

  /** Events for the hops: events.k8s.io/v1 in the namespace, when the server serves them. */
  async addEventsInformer(): Promise<void> {
    const info = await this.kube.discovery.resolve('events.events.k8s.io').catch(() => undefined);
    if (!info) return;
    this.eventsInfo = info;
    this.eventsInformer = this.newInformer(info);
    const received = (obj: KubeObject): void => {
      this.eventsReceived++;
      this.unreadEvents.set(obj.metadata.uid || obj, obj);
      this.add(EVENTS_KEY);
    };
    this.eventsInformer.addEventHandler(
      {
        onAdd: (obj) => received(obj as KubeObject),
        onUpdate: (_old, obj) => received(obj as KubeObject),
        onDelete: (obj) => {
          const o = isDeletedFinalStateUnknown(obj) ? obj.obj : (obj as KubeObject);
          if (o) this.unreadEvents.delete(o.metadata.uid || o);
        },
      },
      { name: 'trace-events' },
    );
  }

  caches(): TraceCaches {
    return {
      target: { info: this.target.info, store: this.targetInformer.getIndexer() },
      children: this.children.map((c) => ({ info: c.info, store: c.informer.getIndexer() })),
      events: this.eventsInformer && this.eventsInfo ? { info: this.eventsInfo, store: this.eventsInformer.getIndexer() } : undefined,
    };
  }

  /** How many Event versions our events informer has handed us so far. */
  eventsSeen(): number {
    return this.eventsReceived;
  }

  /** Nothing waits in the events informer or our workqueue and no reconcile runs: all news has been read. */
  idle(): boolean {
    const events = this.eventsInformer?.stats();
    return !this.working && this.queue.len() === 0 && (!events || (events.queued === 0 && events.backlog === 0));
  }

  private onDelete(obj: KubeObject | { key: string; obj?: KubeObject | null }, at: number): void {
    const tombstone = isDeletedFinalStateUnknown(obj);
    const o = tombstone ? (obj as { obj?: KubeObject | null }).obj : (obj as KubeObject);
    const uid = o?.metadata?.uid;
    if (uid) this.deletions.set(uid, { at, tombstone, finalState: o ?? undefined });
    this.enqueue();
  }

  private enqueue(): void {
    this.add(TARGET_KEY);
  }

  /** Queues a key, noting when it first became due: the coalesce window runs from then. */
  private add(key: string): void {
    if (!this.pendingSince.has(key)) this.pendingSince.set(key, this.clock.now());
    this.queue.add(key);
  }

  /** Runs the informers until they synced and takes the baseline. */
  async start(signal: AbortSignal, sync: (informers: SharedIndexInformer[]) => Promise<void>): Promise<void> {
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
    return this.targetInformer.getIndexer().getByKey(key) as KubeObject | undefined;
  }

  /**
   * The target and its descendants as the cache holds them. A full view walks the owner index down
   * from the target and hands over every descendant; otherwise only the objects the handlers were
   * told of since the last view are read again, and the members of the chain kept between views
   * tell whether each still belongs to it (an owner in the chain that can own its kind): an object
   * that joins brings its children in the cache with it, one that leaves takes its own. Both give
   * the same chain; the incremental one hands over only what may have changed, which is all the
   * tracker compares. Full: for a baseline, at the start, at the trigger, and when the target is
   * another object.
   */
  private view(full = false): ReconcileView {
    const targetObj = this.targetObject();
    const target = targetObj ? this.tracked(this.target.info.kind, targetObj) : undefined;
    const uid = targetObj?.metadata.uid ?? this.targetUid;
    const root: ObjectRef | undefined = uid ? (target?.ref ?? { kind: this.target.info.kind, name: this.target.name, namespace: this.target.namespace, uid }) : undefined;
    let descendants: TrackedObject[];
    if (full || this.fullView || uid !== this.membersRoot) {
      descendants = this.walkChain(root);
      this.fullView = false;
    } else {
      descendants = root ? this.updateChain(root) : [];
    }
    const trigger = this.trigger;
    const triggerSeenAt = trigger?.resourceVersion ? this.targetVersions.get(trigger.resourceVersion) : undefined;
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

  /** Every descendant of the root, breadth first; the members rebuilt from them. */
  private walkChain(root: ObjectRef | undefined): TrackedObject[] {
    this.members.clear();
    this.memberChildren.clear();
    this.touched.clear();
    this.membersRoot = root?.uid;
    const descendants: TrackedObject[] = [];
    if (root) this.joinDescendants(root, (t) => descendants.push(t));
    return descendants;
  }

  /** The members the handlers told of since the last view, read again: what joined, changed or left. */
  private updateChain(root: ObjectRef): TrackedObject[] {
    const touched = this.touched;
    this.touched = new Map();
    const handed = new Set<string>();
    for (const [uid, { child, key }] of touched) {
      const cached = child.informer.getIndexer().getByKey(key) as KubeObject | undefined;
      const obj = cached?.metadata.uid === uid ? cached : undefined;
      const owner = obj ? this.ownerInChain(child, obj, root) : undefined;
      const was = this.members.get(uid);
      if (!obj || !owner) {
        if (was) this.leave(uid);
        continue;
      }
      const t = this.tracked(child.info.kind, obj, owner);
      this.join(t);
      handed.add(uid);
      if (!was) this.joinDescendants(t.ref, (d) => handed.add(d.ref.uid));
    }
    const out: TrackedObject[] = [];
    for (const uid of handed) {
      const t = this.members.get(uid);
      if (t) out.push(t);
    }
    return out;
  }

  /** The first of an object's owners that is in the chain and can own its kind. */
  private ownerInChain(child: ChildInformer, obj: KubeObject, root: ObjectRef): ObjectRef | undefined {
    for (const ref of obj.metadata.ownerReferences ?? []) {
      const parent = ref.uid === root.uid ? root : this.members.get(ref.uid)?.ref;
      if (parent && this.ownable(parent.kind).includes(child)) return parent;
    }
    return undefined;
  }

  /** Makes `t` the member for its uid, under its owner (moved from another owner, if it had one). */
  private join(t: TrackedObject): void {
    const was = this.members.get(t.ref.uid);
    if (was?.owner && was.owner.uid !== t.owner?.uid) this.memberChildren.get(was.owner.uid)?.delete(t.ref.uid);
    this.members.set(t.ref.uid, t);
    if (!t.owner) return;
    let kids = this.memberChildren.get(t.owner.uid);
    if (!kids) this.memberChildren.set(t.owner.uid, (kids = new Set()));
    kids.add(t.ref.uid);
  }

  /**
   * The descendants of `top` in the cache that are not members yet join, breadth first, through the
   * informers each kind can own; `joined` is told of each. An object with two owners in the chain is
   * in it once, under the first found.
   */
  private joinDescendants(top: ObjectRef, joined: (t: TrackedObject) => void): void {
    let frontier: ObjectRef[] = [top];
    while (frontier.length > 0) {
      const next: ObjectRef[] = [];
      for (const parent of frontier) {
        for (const c of this.ownable(parent.kind)) {
          for (const obj of c.informer.getIndexer().byIndex(OwnerUIDIndex, parent.uid) as KubeObject[]) {
            if (this.members.has(obj.metadata.uid ?? '')) continue;
            const t = this.tracked(c.info.kind, obj, parent);
            this.join(t);
            joined(t);
            next.push(t.ref);
          }
        }
      }
      frontier = next;
    }
  }

  /** A member that left the chain takes its descendants with it. */
  private leave(uid: string): void {
    const t = this.members.get(uid);
    if (!t) return;
    this.members.delete(uid);
    if (t.owner) this.memberChildren.get(t.owner.uid)?.delete(uid);
    const kids = this.memberChildren.get(uid);
    this.memberChildren.delete(uid);
    for (const kid of kids ?? []) this.leave(kid);
  }

  /** Members of the chain being deleted (a deletionTimestamp set): the last view's. */
  private terminatingMembers(): number {
    let n = 0;
    for (const t of this.members.values()) if (t.obj.metadata.deletionTimestamp) n++;
    return n;
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
    if (!this.trigger && this.watching && view.target && view.target.obj.metadata.resourceVersion !== this.watchBaselineRv) {
      const first = this.firstChange ?? { at: view.target.observedAt, rv: view.target.obj.metadata.resourceVersion };
      this.setTrigger({ kind: 'watch', wrote: '', at: first.at, resourceVersion: first.rv, generation: view.target.obj.metadata.generation, writes: 0 });
    }
    if (!this.trigger && this.watching && !view.target && this.targetUid) {
      const d = this.deletions.get(this.targetUid);
      if (d) this.setTrigger({ kind: 'watch', wrote: '', at: d.at, writes: 0 });
    }
    // The trigger was set just now: the tracker compares the whole chain with the baseline once.
    if (!triggered && this.trigger) view = this.view(true);
    const hops = this.tracker.reconcile(view, this.clock.now());
    for (const hop of hops) this.emit({ type: 'hop', hop });
    for (const hop of this.tracker.takeLateCauseMarks()) {
      this.emit({ type: 'note', at: this.clock.now(), level: 'info', message: `${hop.object.kind}/${hop.object.name} ${hop.kind} (+${hop.sinceTriggerMs}ms) was seen before its cause` });
    }
    if (this.burst) {
      this.burst.watchEvents = this.targetWatchEvents - this.targetWatchEventsAtTrigger;
      this.burst.reconciles = this.reconciles - this.reconcilesAtTrigger;
    }
    this.checkEnd(view);
  }

  private reconcileEvents(): void {
    // Before the trigger there is nothing to explain; Events that came meanwhile are read once it is set.
    if (!this.eventsInformer || !this.trigger) return;
    // Thousands of Events stay in the cache during a large rollout: only the versions received
    // since the last read are read, each Event's newest, as a reading of the cache would give them.
    const unread = this.unreadEvents;
    this.unreadEvents = new Map();
    for (const obj of unread.values()) {
      // A resync delivers the object read before again: passed over without building its key.
      if (this.readEvents.has(obj)) continue;
      this.readEvents.add(obj);
      const uid = obj.metadata.uid ?? '';
      const ev = obj as KubeObject & {
        reason?: string;
        note?: string;
        eventTime?: string;
        series?: { count?: number; lastObservedTime?: string };
        regarding?: { uid?: string };
        reportingController?: string;
        deprecatedLastTimestamp?: string;
        deprecatedCount?: number;
      };
      const time = ev.series?.lastObservedTime ?? ev.eventTime ?? ev.deprecatedLastTimestamp ?? obj.metadata.creationTimestamp;
      const key = `${uid}/${obj.metadata.resourceVersion}`;
      if (this.seenEvents.has(key)) continue;
      this.seenEvents.add(key);
      if (!time || Date.parse(time) < Math.floor(this.trigger.at / 1000) * 1000 - 1000) continue;
      // A recurring Event is one object whose series count (deprecatedCount for one recorded through
      // the core API) goes up: it is shown once, with the count.
      const count = ev.series?.count ?? ev.deprecatedCount;
      const ref: TraceEventRef = { uid: uid || undefined, reason: ev.reason ?? '', note: ev.note ?? '', time, reportingController: ev.reportingController, ...(count !== undefined && count > 1 ? { count } : {}) };
      const hopId = this.tracker.addEvent(ev.regarding?.uid ?? '', ref);
      if (hopId) this.emit({ type: 'event', hopId, event: ref });
    }
  }

  private checkEnd(view: ReconcileView): void {
    if (this.outcome || !this.trigger) return;
    if (this.tracker.isTargetDeleted() || (!view.target && this.targetUid && this.deletions.has(this.targetUid))) {
      return this.end('deleted', `${this.targetLabel()} was deleted`);
    }
    const converged = this.tracker.converged();
    if (converged) {
      // Status converges while old Pods may still be terminating: follow them to their deletion.
      const terminating = this.terminatingMembers();
      if (terminating > 0 && converged.kind !== 'failed' && !this.stopWhenConverged) {
        if (!this.waitingForDeletes) this.emit({ type: 'note', at: this.clock.now(), level: 'info', message: `${this.targetLabel()} converged; following ${terminating} terminating object(s) to their deletion` });
        this.waitingForDeletes = true;
        return;
      }
      return this.end(converged.kind === 'failed' ? 'failed' : 'converged', this.convergedMessage(converged, terminating > 0 ? ` (${terminating} object(s) still terminating)` : ''));
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
        const changedChildren = this.tracker.hops().filter((h) => h.object.uid !== this.targetUid).length;
        this.end(
          'no-rollout',
          `metadata-only change: ${specChanged ? `generation ${gen} observed by the controller, spec unchanged` : `generation unchanged (${gen ?? '-'})`}; ${changedChildren === 0 ? 'no ReplicaSet or Pod changed' : `${changedChildren} child hop(s)`} within ${this.settleMs / 1000}s: no rollout follows`,
        );
      });
    }
  }

  private waitingForDeletes = false;

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
    const at = this.clock.now();
    this.emit({ type: 'end', outcome, at, elapsedMs: this.trigger ? at - this.trigger.at : 0, message });
    this.endResolve?.();
  }

  /** Ends the trace from outside (timeout, interrupt). */
  stop(outcome: 'timeout' | 'interrupted', message: string): void {
    const converged = this.tracker.converged();
    if (outcome === 'timeout' && converged) {
      const left = this.terminatingMembers();
      return this.end('converged', this.convergedMessage(converged, ` (${left} object(s) still terminating)`));
    }
    this.end(outcome, message);
  }

  private setTrigger(trigger: TraceTrigger): void {
    this.trigger = trigger;
    this.fullView = true;
    this.reconcilesAtTrigger = this.reconciles;
    this.targetWatchEventsAtTrigger = this.targetWatchEvents;
    this.tracker.setTrigger(trigger);
    this.emit({ type: 'trigger', trigger });
    this.enqueue();
    if (this.eventsInformer) this.add(EVENTS_KEY);
  }

  private watching = false;
  private watchBaselineRv: string | undefined;
  private firstChange: { at: number; rv: string | undefined } | undefined;

  /** Makes the requested write(s), or starts watching for someone else's change. */
  async fire(request: TriggerRequest, signal: AbortSignal): Promise<TraceTrigger | undefined> {
    const { info, namespace, name } = this.target;
    const current = this.targetObject();
    // What exists now is the baseline: the chain's hops are what changes from here.
    this.targetUid = current?.metadata.uid ?? this.targetUid;
    this.tracker.baseline(this.view(true));
    if (request.kind === 'watch') {
      // A target that does not exist yet: its creation is the change.
      this.watching = true;
      this.watchBaselineRv = current?.metadata.resourceVersion;
      return undefined;
    }
    const writer = new ObjectWriter(this.kube.client);
    const what = `${groupResource(info)}/${name}${namespace && info.namespaced ? ` in ${namespace}` : ''}`;
    if (request.kind === 'apply') return this.apply(writer, what, request, current, signal);
    if (!current) throw new UsageError(`${this.targetLabel()} is not in the cache`);
    let patch: unknown;
    let wrote: string;
    switch (request.kind) {
      case 'annotate':
        patch = { metadata: { annotations: { [request.key]: request.value } } };
        wrote = `annotated ${what}: ${request.key}=${request.value}`;
        break;
      case 'restart': {
        if (!(current.spec as { template?: unknown } | undefined)?.template) throw new UsageError(`--restart needs a workload with a pod template; ${info.kind} has none`);
        const stamp = new Date(this.clock.now()).toISOString();
        patch = { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': stamp } } } } };
        wrote = `restarted ${what}: spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]=${stamp}`;
        break;
      }
      case 'scale': {
        if (typeof (current.spec as { replicas?: unknown } | undefined)?.replicas !== 'number') throw new UsageError(`--scale needs a workload with spec.replicas; ${info.kind} has none`);
        const from = (current.spec as { replicas: number }).replicas;
        patch = { spec: { replicas: request.replicas } };
        wrote = `scaled ${what}: spec.replicas ${from}→${request.replicas}`;
        break;
      }
      case 'burst':
        patch = undefined;
        wrote = `annotated ${what} ${request.count} times: informer-trace/burst=1..${request.count}`;
        break;
    }
    const at = this.clock.now();
    let last: KubeObject;
    if (request.kind === 'burst') {
      this.reconcilesAtTrigger = this.reconciles;
      this.targetWatchEventsAtTrigger = this.targetWatchEvents;
      // All at once, as a busy writer would: the server applies them one after another, so the
      // informer sees N MODIFIED events in quick succession.
      const written = await Promise.all(
        Array.from({ length: request.count }, (_, i) => writer.mergePatch(info, namespace, name, { metadata: { annotations: { 'informer-trace/burst': String(i + 1) } } }, signal)),
      );
      last = written.reduce((a, b) => ((b.metadata.generation ?? 0) > (a.metadata.generation ?? 0) ? b : a));
      this.burst = { writes: request.count, watchEvents: 0, reconciles: 0 };
    } else {
      last = await writer.mergePatch(info, namespace, name, patch, signal);
    }
    const trigger: TraceTrigger = { kind: request.kind as TriggerKind, wrote, at, resourceVersion: last.metadata.resourceVersion, generation: last.metadata.generation, writes: request.kind === 'burst' ? request.count : 1 };
    if (request.kind === 'burst') {
      this.trigger = trigger;
      this.fullView = true;
      this.tracker.setTrigger(trigger);
      this.emit({ type: 'trigger', trigger });
      this.enqueue();
    } else {
      this.setTrigger(trigger);
    }
    return trigger;
  }

  private async apply(writer: ObjectWriter, what: string, request: { manifest: KubeObject; source: string }, current: KubeObject | undefined, signal: AbortSignal): Promise<TraceTrigger> {
    const { info, namespace, name } = this.target;
    const at = this.clock.now();
    const written = await writer.apply(info, namespace, name, request.manifest, APPLY_FIELD_MANAGER, signal);
    const result = !current ? 'created' : written.metadata.resourceVersion === current.metadata.resourceVersion ? 'unchanged' : 'configured';
    const trigger: TraceTrigger = {
      kind: 'apply',
      wrote: `applied ${what} from ${request.source} (server-side, field manager ${APPLY_FIELD_MANAGER}): ${result}`,
      at,
      resourceVersion: written.metadata.resourceVersion,
      generation: written.metadata.generation,
      writes: 1,
    };
    this.setTrigger(trigger);
    // The server stored nothing new: no watch event, no hop will follow.
    if (result === 'unchanged') this.end('no-rollout', `the manifest matches ${this.targetLabel()}: the apply changed nothing`);
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
    return [...this.members.keys()];
  }

  /** The hops so far, in the trace's order: the list itself, cheap to read often (snapshot() builds much more). */
  hops(): readonly Hop[] {
    return this.tracker.hops();
  }

  snapshot(): TraceSnapshot {
    return {
      target: { kind: this.target.info.kind, namespace: this.target.namespace, name: this.target.name },
      trigger: this.trigger,
      hops: this.tracker.hops(),
      figures: this.tracker.figures(),
      tree: this.tree(),
      informers: this.informers().map((i) => i.stats()),
      queue: this.metrics.snapshot()['informer-trace'],
      reconciles: this.reconciles,
      targetWatchEvents: this.targetWatchEvents,
      outcome: this.outcome,
      endMessage: this.endMessage,
      burst: this.burst ? { ...this.burst } : undefined,
    };
  }

  /**
   * The target and what it owns, as the TUI and the text output draw it: built for every frame
   * (ten a second), so it walks the owner index directly rather than through view(), and keeps each
   * object's node: the cache replaces an object on every change and never alters one, so a node
   * without children stands for its object until the object is replaced. At the height of a
   * 1,000-replica rollout most of the 2,000 Pods are unchanged between two frames.
   */
  private tree(): TreeNode | undefined {
    const targetObj = this.targetObject();
    return targetObj ? this.treeNode(this.target.info.kind, targetObj, 0) : undefined;
  }

  private treeNode(kind: string, obj: KubeObject, depth: number): TreeNode {
    const children: TreeNode[] = [];
    // Owner references that go round in a circle end here rather than never.
    if (depth < MAX_TREE_DEPTH) {
      for (const c of this.ownable(kind)) {
        for (const child of c.informer.getIndexer().byIndex(OwnerUIDIndex, obj.metadata.uid ?? '') as KubeObject[]) children.push(this.treeNode(c.info.kind, child, depth + 1));
      }
    }
    let node = this.treeNodes.get(obj);
    if (!node) {
      node = describeStatus(refOf(kind, obj), obj);
      this.treeNodes.set(obj, node);
    }
    if (children.length === 0) return node;
    // Never the kept node itself: a snapshot already handed out may hold it.
    return { ...node, children: this.inOrder(node.ref.uid, children) };
  }

  /**
   * `children` newest first (newestFirst). What orders two objects never changes, so the order of
   * the last tree is kept per parent: the children still there keep their places and only those
   * new since are sorted and merged in, instead of sorting thousands of Pods every frame.
   */
  private inOrder(parentUid: string, children: TreeNode[]): TreeNode[] {
    const last = this.treeOrder.get(parentUid);
    let sorted: TreeNode[];
    if (!last) {
      sorted = children.sort(newestFirst);
    } else {
      // Each child still there goes to its last place; the places of children gone stay empty.
      const places: (TreeNode | undefined)[] = new Array<TreeNode | undefined>(last.size);
      const fresh: TreeNode[] = [];
      let kept = 0;
      for (const n of children) {
        const at = last.get(n.ref.uid);
        if (at === undefined) fresh.push(n);
        else (places[at] = n), kept++;
      }
      // The same children as the last tree (most frames): their order, and the places kept as they are.
      if (fresh.length === 0 && kept === last.size) return places as TreeNode[];
      const still: TreeNode[] = [];
      for (const n of places) if (n) still.push(n);
      sorted = fresh.length === 0 ? still : merge(still, fresh.sort(newestFirst), newestFirst);
    }
    const places = new Map<string, number>();
    sorted.forEach((n, i) => places.set(n.ref.uid, i));
    this.treeOrder.set(parentUid, places);
    return sorted;
  }
}

/**
 * Newest first, then by name. RFC 3339 times and object names (lower-case letters, digits, '-'
 * and '.') sort the same compared as plain strings, which is several times faster than
 * localeCompare on the thousands of Pods of a large rollout.
 */
function newestFirst(a: TreeNode, b: TreeNode): number {
  const at = a.creationTimestamp ?? '';
  const bt = b.creationTimestamp ?? '';
  if (at !== bt) return at > bt ? -1 : 1;
  return a.ref.name < b.ref.name ? -1 : a.ref.name > b.ref.name ? 1 : 0;
}

/** Two lists sorted by `cmp`, merged into one. */
function merge<T>(a: readonly T[], b: readonly T[], cmp: (x: T, y: T) => number): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(cmp(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** Deeper than any owner chain of built-in kinds (Deployment → ReplicaSet → Pod is 3). */
const MAX_TREE_DEPTH = 16;

/** The children of every leaf: shared, so frozen. */
const NO_CHILDREN: TreeNode[] = Object.freeze([]) as unknown as TreeNode[];

function describeStatus(ref: ObjectRef, obj: KubeObject): TreeNode {
  const s = (obj.status ?? {}) as Record<string, unknown>;
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const base = { ref, children: NO_CHILDREN, creationTimestamp: obj.metadata.creationTimestamp, deleting: Boolean(obj.metadata.deletionTimestamp) };
  if (ref.kind === 'Pod') {
    const conds = (s.conditions as { type: string; status: string }[] | undefined) ?? [];
    const ready = conds.some((c) => c.type === 'Ready' && c.status === 'True');
    const statuses = (s.containerStatuses as { restartCount?: number }[] | undefined) ?? [];
    const restarts = statuses.reduce((a, c) => a + (c.restartCount ?? 0), 0);
    const phase = (s.phase as string | undefined) ?? 'Pending';
    return { ...base, ready, phase, node: spec.nodeName as string | undefined, restarts, status: obj.metadata.deletionTimestamp ? 'Terminating' : phase };
  }
  const desired = typeof spec.replicas === 'number' ? spec.replicas : undefined;
  const ready = typeof s.readyReplicas === 'number' ? s.readyReplicas : 0;
  const status = desired !== undefined ? `${ready}/${desired} ready` : ref.kind === 'DaemonSet' ? `${(s.numberReady as number | undefined) ?? 0}/${(s.desiredNumberScheduled as number | undefined) ?? 0} ready` : '';
  return { ...base, ready: desired === undefined || ready === desired, status };
}
