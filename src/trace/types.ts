/**
 * The trace's vocabulary, shared by its files and by every reader outside: the trace as plain,
 * serialisable data (TraceSnapshot and what it holds: what every output renders), the target a
 * trace is run on (TraceTarget) and how it is set up (TracerOptions), and the informer caches a
 * reader may look into (TraceCaches).
 */
import type { Clock } from '../clock.js';
import type { Indexer, InformerStats } from '../informer/index.js';
import type { Kube, ListerWatcher, ResourceInfo } from '../kube/index.js';
import type { Readiness } from '../readiness/index.js';
import type { InMemoryMetricsProvider, QueueMetricsSnapshot } from '../workqueue/index.js';
import type { InformerPool } from './informer-pool.js';

/** What a trace is run on: one object, by its resolved kind, namespace and name. */
export interface TraceTarget {
  info: ResourceInfo;
  namespace: string | undefined;
  name: string;
}

/** Where each of a trace's informers lists and watches: one ListerWatcher per kind, in the trace's namespace. */
export type ListerWatcherFactory = (
  info: ResourceInfo,
  options: { namespace: string | undefined; fieldSelector?: string; metadataOnly?: boolean },
) => ListerWatcher;

/** How a trace of `target` is made: what TraceSession is given, but for its own options. */
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

export interface ObjectRef {
  kind: string;
  namespace?: string | undefined;
  name: string;
  uid: string;
}

export type TriggerKind = 'annotate' | 'restart' | 'scale' | 'burst' | 'watch' | 'apply';

export interface TraceTrigger {
  kind: TriggerKind;
  /** What we wrote, in words: `annotated deployments.apps/web: a=b`. Empty for watch. */
  wrote: string;
  /** Our clock (ms) just before the (first) write was sent; for watch, when the change was seen. */
  at: number;
  /** resourceVersion the server gave our (last) write. */
  resourceVersion?: string | undefined;
  /** The target's metadata.generation after our write. */
  generation?: number | undefined;
  /** Number of writes (burst). */
  writes: number;
  /** What an apply did: created the object, changed it, or stored nothing new. */
  applied?: 'created' | 'configured' | 'unchanged' | undefined;
}

export interface TraceEventRef {
  /** The Event's uid: one Event is listed once, however often it recurs. */
  uid?: string | undefined;
  reason: string;
  note: string;
  /** Server time of the Event (eventTime, or its series' last observed time). */
  time: string | undefined;
  reportingController: string | undefined;
  /** How often it occurred, when more than once: the Event's series count (or its deprecated count). */
  count?: number | undefined;
}

/**
 * Every kind of hop, declared once; the tracker makes them, the views name and draw them, and
 * `-o json|ndjson` write them as these strings. In the order one object version can show them: hops
 * of one object received in the same instant are listed in this order.
 */
export const HOP_KINDS = [
  'created',
  'terminating',
  'finalizer-added',
  /** Our write, as our informer received it. */
  'target-modified',
  /** The target's generation moved (a watched change). */
  'spec-changed',
  'scaled',
  'controller-observed',
  /** A condition of a kind the tool does not know moved (`condition:TYPE` in its facts). */
  'condition',
  /** A word of such a kind's status moved (`status.phase`, `status.state`, ...). */
  'status',
  'scheduled',
  'initialized',
  'containers-ready',
  'ready',
  'not-ready',
  /** A Pod finished (phase Succeeded or Failed). */
  'succeeded',
  /** A Job's Complete or Failed condition. */
  'complete',
  'job-failed',
  'scaled-down',
  'finalizer-removed',
  'deleted',
  /** The target paused (a canary step's timer, a user). */
  'suspended',
  /** The target's rollout finished, or failed (also a Pod's phase Failed). */
  'converged',
  'failed',
] as const;
export type HopKind = (typeof HOP_KINDS)[number];

export interface Hop {
  /** Unique within a trace: `<fact>/<uid>`. */
  id: string;
  kind: HopKind;
  object: ObjectRef;
  /** Owner (controller) of the object, when it has one. */
  owner?: ObjectRef | undefined;
  /** Free text: `0→3 replicas`, `node kwok-node-0`, `finalizer example.com/hold`. */
  detail?: string | undefined;
  /** Our clock (ms) when our informer received the object version that shows the hop. */
  observedAt: number;
  /** Our clock (ms) when our reconciler, reading the cache, found it. */
  reconciledAt: number;
  /** The server's own time for it: creationTimestamp, condition lastTransitionTime, deletionTimestamp,
   *  or the managedFields time of the write. Second precision. */
  serverTime?: string | undefined;
  /** Where serverTime comes from. */
  serverTimeSource?: string | undefined;
  sinceTriggerMs: number;
  /** The hop this one follows from (same object, else its owner, else the target, else the trigger). */
  previousId?: string | undefined;
  sincePreviousMs: number;
  /** Our informer received this hop before the hop that caused it (a child created before its
   *  owner's change was seen): the hop keeps its place in time and says so. */
  seenBeforeCause?: boolean | undefined;
  /** Events that explain the hop (ScalingReplicaSet, SuccessfulCreate, Scheduled, ...). */
  events: TraceEventRef[];
  /** What changed from the object version seen before to the one that made the hop (a few fields). */
  changes?: FieldChange[] | undefined;
  /**
   * Who wrote the object version that made the hop: the managedFields manager of its newest write,
   * with the subresource when not the main resource (`widget-operator (status)`).
   */
  writer?: string | undefined;
}

/** One changed field: `from` absent when it was added, `to` absent when it was removed. */
export interface FieldChange {
  /** `spec.replicas`, `status.conditions[Ready].status`, `metadata.annotations["a"]`. */
  path: string;
  from?: string | undefined;
  to?: string | undefined;
}

export type TraceOutcome = 'converged' | 'no-rollout' | 'deleted' | 'timeout' | 'interrupted' | 'failed';

export interface BurstStats {
  writes: number;
  /** Watch events for the target our informer received after the first write. */
  watchEvents: number;
  /** Reconciles our worker ran for the target in the same window. */
  reconciles: number;
  /** The controller's own workqueue adds in the window, when its metrics were reachable. */
  controllerQueueAdds?: number | undefined;
  controllerQueue?: string | undefined;
}

export type TraceEvent =
  | { type: 'trigger'; trigger: TraceTrigger }
  | { type: 'hop'; hop: Hop }
  | { type: 'event'; hopId: string; event: TraceEventRef }
  | { type: 'note'; at: number; level: 'info' | 'warning'; message: string }
  | { type: 'end'; outcome: TraceOutcome; at: number; elapsedMs: number; message: string };

/** One object of the chain as the tree draws it: the target and what it owns, down the owner chain. */
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

/** The figures every screen reads over all the hops: kept by the chain tracker, or computed by hopFiguresOf (hop-figures.ts). */
export interface HopFigures {
  /** The first converged or failed hop. */
  end: Hop | undefined;
  /** The longest `Kind/name` among the hops. */
  longestObject: number;
  /** Every hop's id, in order. */
  ids: readonly string[];
}

/** The trace so far, or at its end: what every output renders. */
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
  /** The child kinds found through discovery for a kind the tool does not know (group/resource names). */
  discoveredChildren?: DiscoveredChildKinds | undefined;
  /** What the Events bounds cut since the start, in one line (EventsReader.cutTotal), when they cut any. */
  eventsNotRead?: string | undefined;
}

/** The child kinds discovery found for a target of a kind the tool does not know. */
export interface DiscoveredChildKinds {
  /** Watched whole. */
  full: string[];
  /** Watched as PartialObjectMetadata. */
  metadataOnly: string[];
  /** Left out, with why (forbidden, not listable). */
  refused: string[];
}

/** The tracer's informer caches, for a reader that needs more than the hops (a diagnosis). */
export interface TraceCaches {
  target: { info: ResourceInfo; store: Indexer };
  /** Descendant kinds down the owner chain; each store holds the namespace's objects of that kind. */
  children: { info: ResourceInfo; store: Indexer }[];
  /** The namespace's events.k8s.io Events, when the server serves them. */
  events: { info: ResourceInfo; store: Indexer } | undefined;
}
