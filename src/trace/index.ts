/**
 * src/trace: the reconcile chain of one object, hop by hop, from a change to its end.
 *
 * A trace starts from a trigger: our own write (annotate, restart, scale, a burst of writes, a
 * server-side apply) or, watching, the next change someone else makes. From there each step of the
 * chain is a Hop: the target's own (its controller observed it, a condition moved), then those of
 * what it owns down the owner references (a ReplicaSet scaled, a Pod created, scheduled, ready),
 * each timed by when our informer received it, with the server's own time and the Events that
 * explain it. The trace ends once, with one outcome: converged, failed, no rollout, deleted, timed
 * out or interrupted.
 *
 * Running one:
 * - TraceSession is the one way to run a trace of one object: start() syncs the informers (what
 *   exists then is the baseline), fire() makes the trigger and starts the timeout, finish() waits
 *   for the end and for late Events, close() stops it. Without a trigger it only syncs the caches,
 *   for a reader that judges the chain as it stands (a diagnosis).
 * - SetSession runs a change of many objects (a manifest folder applied, or the objects a selector
 *   finds): each traced object is a TraceSession, and the traces share their informers.
 * - clusterInformerPool() makes the informers many traces share (a TraceSession's `pool`): a
 *   set's traces at once, or the probe's rounds one after another.
 *
 * What it gives:
 * - subscribe(): every TraceEvent as it happens (the trigger, each hop, an Event attached to a
 *   hop, notes, the end), in order.
 * - snapshot(): the trace so far as plain, serialisable data (TraceSnapshot), what every output
 *   renders; caches(): the informers' stores (TraceCaches), for a reader that needs more.
 *
 * Contract:
 * - Read-only but for the trigger: the one write a trace makes is the one asked for (triggers.ts).
 * - Cache first: handlers only enqueue keys; the worker reads the informers' caches, never an
 *   event's payload, and a burst of events within the coalesce window makes one reconcile.
 * - Ends once: the outcome is set once, and a target that converged stays converged however the
 *   trace then ends. It ends converged or failed only once every child informer has caught up with
 *   the server, so a watch gone silent cannot cut the chain short.
 * - Testable: time comes from an injected Clock and the cluster through a ListerWatcher factory.
 */
export { DEFAULT_COALESCE_MS } from './tracer.js';
export { clusterInformerPool } from './chain-informers.js';
export type { InformerPool } from './informer-pool.js';
export { LATE_EVENTS_MAX_MS, LATE_EVENTS_QUIET_MS, TraceSession } from './session.js';
export type { Stall, TraceSessionOptions } from './session.js';
export { memberLabel, memberStatus, selection, SetSession, watchingText } from './set-session.js';
export type { MemberState, SetEvent, SetInput, SetMember, SetSelection, SetSessionOptions } from './set-session.js';
export { APPLY_FIELD_MANAGER } from './triggers.js';
export type { TriggerRequest } from './triggers.js';

export { manifestNamespace, parseManifest, resolveManifest } from './manifest.js';
export { childCandidates, isCustomResource } from './child-discovery.js';
export { hopFiguresOf } from './hop-figures.js';

export { HOP_KINDS } from './types.js';
export type {
  BurstStats,
  DiscoveredChildKinds,
  FieldChange,
  Hop,
  HopFigures,
  HopKind,
  ObjectRef,
  TraceCaches,
  TraceEvent,
  TraceEventRef,
  TraceOutcome,
  TraceSnapshot,
  TraceTarget,
  TraceTrigger,
  TreeNode,
  TriggerKind,
} from './types.js';
