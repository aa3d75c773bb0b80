/**
 * What the trace knows of each built-in workload kind, in one table keyed by group and kind as the
 * readiness engine keys its rules (`apps/Deployment`, core `/Pod`; kstatus's `legacyTypes` is the
 * model): a custom resource named `Job` is not a Job. Adding a kind is one entry, with named
 * functions for what it does differently. An entry says:
 * - the facts its objects have beside every object's (facts.ts): a Pod's conditions and phase, the
 *   replicas of a ReplicaSet, a Job's completion or failure;
 * - the kinds of the objects it creates and owns, as the owner chain reaches them
 *   (chain-informers.ts): a Deployment's ReplicaSets, a ReplicaSet's Pods, none of a Pod;
 * - how its tree line says its status (tree.ts): a Pod's phase, node and restarts, ready replicas
 *   of spec.replicas, a DaemonSet's Pods ready of those scheduled, a Job's verdict.
 * A kind without an entry (a custom resource) has the facts its status gives, may own objects of
 * any kind the chain watches, and its tree line is its verdict with its phase or state.
 */
import { type GroupKind, groupKindKey, type KubeObject } from '../kube/index.js';
import { managedFieldsTime, type Verdict } from '../readiness/index.js';
import { conditionFact, type Facts, objectFacts, statusFacts } from './facts.js';
import type { TreeNode } from './types.js';

/** A kind whose objects a workload creates and owns, with the resource its informer watches. */
export interface ChildKind {
  group: string;
  kind: string;
  resource: string;
}

/** What a tree line says of an object: its status in words and whether it is ready (a Pod's: its phase, node and restarts too). */
export type TreeLine = Pick<TreeNode, 'ready' | 'phase' | 'node' | 'restarts' | 'status'>;

export interface BuiltinKind {
  /** Adds the facts its objects have beside every object's; none when absent. */
  facts?: (obj: KubeObject, facts: Facts) => void;
  /** The kinds of the objects it creates and owns. */
  owns: readonly ChildKind[];
  /** Its tree line, given its verdict; when absent, the line any kind has (its verdict, with its phase or state). */
  line?: (obj: KubeObject, v: Verdict) => TreeLine;
}

// ---- what the entries do differently ----------------------------------------------------------

function podFacts(obj: KubeObject, facts: Facts): void {
  const spec = obj.spec as { nodeName?: string } | undefined;
  const status = obj.status as { phase?: string } | undefined;
  conditionFact(obj, facts, 'PodScheduled', 'scheduled', spec?.nodeName ? `node ${spec.nodeName}` : undefined);
  conditionFact(obj, facts, 'Initialized', 'initialized');
  conditionFact(obj, facts, 'ContainersReady', 'containers-ready');
  conditionFact(obj, facts, 'Ready', 'ready');
  if (status?.phase === 'Succeeded' || status?.phase === 'Failed') {
    facts.set(status.phase === 'Succeeded' ? 'succeeded' : 'failed', {
      value: true,
      serverTime: managedFieldsTime(obj, { subresource: 'status' }),
      serverTimeSource: 'managedFields',
    });
  }
}

/** spec.replicas, timed by the newest write of the spec. */
function replicasFacts(obj: KubeObject, facts: Facts): void {
  const replicas = (obj.spec as { replicas?: unknown } | undefined)?.replicas;
  facts.set('replicas', {
    value: typeof replicas === 'number' ? replicas : 0,
    serverTime: managedFieldsTime(obj, { subresource: '' }),
    serverTimeSource: 'managedFields',
  });
}

function jobFacts(obj: KubeObject, facts: Facts): void {
  conditionFact(obj, facts, 'Complete', 'complete');
  conditionFact(obj, facts, 'Failed', 'job-failed');
}

/** `Running` on node-1 with its containers' restarts; `Terminating` once it is being deleted. */
function podLine(obj: KubeObject, v: Verdict): TreeLine {
  const s = (obj.status ?? {}) as { containerStatuses?: { restartCount?: number }[]; phase?: string };
  const restarts = (s.containerStatuses ?? []).reduce((a, c) => a + (c.restartCount ?? 0), 0);
  const phase = s.phase ?? 'Pending';
  const node = (obj.spec as { nodeName?: string } | undefined)?.nodeName;
  return { ready: v.status === 'Current', phase, node, restarts, status: obj.metadata.deletionTimestamp ? 'Terminating' : phase };
}

/** `2/3 ready`: status.readyReplicas of spec.replicas, ready when all are; without spec.replicas, no count and the verdict's readiness. */
function readyReplicas(obj: KubeObject, v: Verdict): TreeLine {
  const desired = (obj.spec as { replicas?: unknown } | undefined)?.replicas;
  if (typeof desired !== 'number') return { ready: v.status === 'Current', status: '' };
  const ready = (obj.status as { readyReplicas?: unknown } | undefined)?.readyReplicas;
  const readyCount = typeof ready === 'number' ? ready : 0;
  return { ready: readyCount === desired, status: `${readyCount}/${desired} ready` };
}

/** A DaemonSet has no spec.replicas: `2/3 ready` is status.numberReady of desiredNumberScheduled, ready as its verdict says. */
function daemonSetLine(obj: KubeObject, v: Verdict): TreeLine {
  const s = (obj.status ?? {}) as { numberReady?: number; desiredNumberScheduled?: number };
  return { ready: v.status === 'Current', status: `${s.numberReady ?? 0}/${s.desiredNumberScheduled ?? 0} ready` };
}

/** A Job's verdict says it: `1 active, 0 succeeded, 0 failed`, `Complete`, `Failed: BackoffLimitExceeded`. */
function jobLine(_obj: KubeObject, v: Verdict): TreeLine {
  return { ready: v.status === 'Current', status: v.detail };
}

// ---- the table --------------------------------------------------------------------------------

const POD: ChildKind = { group: '', kind: 'Pod', resource: 'pods' };

const KINDS: Record<string, BuiltinKind> = {
  'apps/Deployment': { owns: [{ group: 'apps', kind: 'ReplicaSet', resource: 'replicasets' }], line: readyReplicas },
  'apps/ReplicaSet': { facts: replicasFacts, owns: [POD], line: readyReplicas },
  'apps/StatefulSet': { facts: replicasFacts, owns: [POD], line: readyReplicas },
  'apps/DaemonSet': { owns: [POD], line: daemonSetLine },
  '/ReplicationController': { facts: replicasFacts, owns: [POD], line: readyReplicas },
  'batch/Job': { facts: jobFacts, owns: [POD], line: jobLine },
  'batch/CronJob': { owns: [{ group: 'batch', kind: 'Job', resource: 'jobs' }] },
  '/Pod': { facts: podFacts, owns: [], line: podLine },
};

/** What the trace knows of a group and kind: undefined for a kind it does not know (a custom resource). */
export function builtinKind(gk: GroupKind): BuiltinKind | undefined {
  return KINDS[groupKindKey(gk)];
}

/** The facts of an object of a group and kind: every object's, then its kind's own, or for a kind the tool does not know, its status's. */
export function factsOf(gk: GroupKind, obj: KubeObject): Facts {
  const facts = objectFacts(obj);
  const known = builtinKind(gk);
  if (known) known.facts?.(obj, facts);
  else statusFacts(obj, facts);
  return facts;
}
