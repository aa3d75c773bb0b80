/**
 * src/diagnose: where a reconcile chain is stuck, as a pure function over snapshots (no I/O).
 *
 * - Input: the target and its descendants from the trace caches, the namespace's Events, the
 *   Nodes, the leader Leases of kube-controller-manager and kube-scheduler, optionally the
 *   controllers' queue statistics. Each source is `Seen<T>`: read, or why it could not be.
 * - Links in the order people diagnose: spec → accepted → controller-observed → children-created
 *   → scheduled → containers-started → status-conditions. The first broken link is the answer,
 *   with evidence (object, condition or Event, reason, message, for how long) and next commands.
 * - A step inside the grace period is progressing, not broken. Never a guess: what could not be
 *   seen is listed, and the verdict is then "unknown" unless a broken link was seen.
 * - One file per link, named for it (spec.ts … status-conditions.ts), composed by diagnose.ts. What
 *   it knows of each kind is one table keyed by group and kind (kinds.ts), as readiness keys its
 *   rules: a custom resource named `Job` is not a Job, and adding a kind is one entry.
 * - chain.ts is the one part that reads: it gathers that input from a trace's informer caches and
 *   one GET each for the Nodes and Leases the caches do not hold, then calls the pure core.
 */
export { diagnose, DEFAULT_GRACE_MS } from './diagnose.js';
export { chainFromCaches, CONTROL_PLANE_LEASES, diagnoseChain, diagnoseChainWithController } from './chain.js';
export { controllerBehindLine, diagnosisBrief, diagnosisText, evidenceLine } from './text.js';
export { diagnoseSetMember, diagnoseSetMembers } from './set.js';
export { findOperatorMetrics, readControllerBehind, statusManager, leaseMatchesManager, controllerQueue } from './operator.js';
export {
  LINKS,
  linkTitles,
  type DiagnoseInput,
  type Diagnosis,
  type Evidence,
  type ControllerBehind,
  type ControllerQueue,
  type LeaseInput,
  type LinkCheck,
  type LinkName,
  type Seen,
  type Unseen,
} from './types.js';
