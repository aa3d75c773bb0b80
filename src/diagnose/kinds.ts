/**
 * What the diagnosis knows of each kind, in one table keyed by group and kind as the readiness
 * engine keys its rules (`apps/Deployment`, core `/Pod`; kstatus's `legacyTypes` is the model): a
 * custom resource named `Job` is not a Job. Adding a kind is one entry, with named functions for
 * what it does differently. A kind without an entry is diagnosed by what its status says: its
 * observedGeneration when it writes one, its readiness rule, the objects it owns.
 */
import { groupKindKey, type KubeObject } from '../kube/index.js';
import { conditionOf, groupKindOf } from '../readiness/index.js';
import { type Context, isPod, live, type LinkResult, num, type Obj } from './context.js';
import { conditionEvidence, eventEvidence, eventReason, eventType, refOf } from './evidence.js';

/** The component whose leader Lease the built-in workload controllers run under. */
export const KUBE_CONTROLLER_MANAGER = 'kube-controller-manager';

/** Event reasons of a controller that could not create a child. */
export const FAILED_CREATE_REASONS = new Set(['FailedCreate', 'ReplicaSetCreateError', 'FailedPlacement']);

/** A boolean spec field that holds the controller back while true, as the spec link reports it. */
export interface SpecHold {
  /** The field under spec: `paused`, `suspend`. */
  field: string;
  reason: string;
  /** What it means, as the link's detail. */
  detail: string;
  /** The command that lifts it, for an object of that name (`nsFlag` is ` -n demo` or empty). */
  lift: (name: string, nsFlag: string) => string;
}

/** What the children-created link counts of the Pods a workload creates itself. */
export interface PodCreation {
  /** The service account its controller creates Pods as, for `kubectl auth can-i create pods --as=…`. */
  serviceAccount: string;
  /** How many Pods it is missing now: 0 when none, or when its Events are what tells. */
  missing: (o: { obj: KubeObject; active: number; pods: number; failedCreateSinceNewestPod: boolean }) => number;
}

/** A workload whose failed Pods are attempts it makes again (a Job, up to its backoffLimit). */
export interface Retries {
  /** It finished or gave up: a failed Pod of it is no attempt still to be retried. */
  over: (obj: KubeObject) => boolean;
  /** Said after a failed attempt: `; the Job retries (1 failed, backoffLimit 2)`. */
  note: (obj: KubeObject) => string;
}

export interface KindKnowledge {
  /** The component that reconciles it, by the name of its leader Lease. */
  controller?: typeof KUBE_CONTROLLER_MANAGER;
  /** status.observedGeneration is its controller's acknowledgement of a spec change. */
  observesGeneration: boolean;
  hold?: SpecHold;
  /** Its Pods are its children's: a Deployment's ReplicaSets', a CronJob's Jobs'. */
  podsThroughChildren?: boolean;
  /** A child it could not create, as its own condition and Events say: a Deployment's new ReplicaSet. */
  childNotCreated?: (ctx: Context, obj: KubeObject, children: Obj[]) => LinkResult | undefined;
  pods?: PodCreation;
  retries?: Retries;
}

// ---- what the entries do differently ----------------------------------------------------------

const paused: SpecHold = {
  field: 'paused',
  reason: 'Paused',
  detail: 'the Deployment is paused: its controller does not roll out template changes until it is resumed',
  lift: (name, nsFlag) => `kubectl rollout resume deployment/${name}${nsFlag}`,
};

function suspended(kind: string): SpecHold {
  return {
    field: 'suspend',
    reason: 'Suspended',
    detail: `the ${kind} is suspended: no Pods are created until spec.suspend is false`,
    lift: (name, nsFlag) => `kubectl patch ${kind.toLowerCase()} ${name}${nsFlag} --type merge -p '{"spec":{"suspend":false}}'`,
  };
}

/** The deployment controller failing to create the new ReplicaSet says so in a condition and an Event. */
function newReplicaSetNotCreated(ctx: Context, obj: KubeObject, children: Obj[]): LinkResult | undefined {
  const kind = 'Deployment';
  const failure = conditionOf(obj, 'ReplicaFailure');
  const rsEvents = ctx.eventsAbout(kind, obj, (e) => eventType(e) === 'Warning' && FAILED_CREATE_REASONS.has(eventReason(e)));
  const revision = obj.metadata.annotations?.['deployment.kubernetes.io/revision'];
  const newRs = children.find(
    (o) => o.kind === 'ReplicaSet' && revision !== undefined && o.obj.metadata.annotations?.['deployment.kubernetes.io/revision'] === revision,
  );
  if (newRs || failure?.status !== 'True') return undefined;
  return {
    status: 'broken',
    detail: `the new ReplicaSet was not created: ${failure.message ?? failure.reason ?? ''}`,
    evidence: [conditionEvidence(refOf(kind, obj), failure, ctx.now), ...rsEvents.slice(0, 1).map((e) => eventEvidence(refOf(kind, obj), e, ctx.now))],
    next: [ctx.kubectl('describe', kind, obj.metadata.name ?? '')],
  };
}

/** A workload that keeps spec.replicas Pods running (1 when unset). */
function replicas(serviceAccount: string): PodCreation {
  return { serviceAccount, missing: ({ obj, active }) => Math.max(0, num((obj.spec as { replicas?: unknown } | undefined)?.replicas, 1) - active) };
}

const daemonSetPods: PodCreation = {
  serviceAccount: 'daemon-set-controller',
  missing: ({ obj, active }) => Math.max(0, num((obj.status as { desiredNumberScheduled?: unknown } | undefined)?.desiredNumberScheduled) - active),
};

/**
 * A running Job wants a Pod: it could not make one when creation failed after its newest Pod, or it
 * has never had any. Failed Pods and none active is its retry back-off, not this link.
 */
const jobPods: PodCreation = {
  serviceAccount: 'job-controller',
  missing: ({ obj, pods, failedCreateSinceNewestPod }) => {
    const finished = ['Complete', 'Failed'].some((t) => conditionOf(obj, t)?.status === 'True');
    const suspend = (obj.spec as { suspend?: boolean } | undefined)?.suspend === true;
    return !finished && !suspend && (failedCreateSinceNewestPod || pods === 0) ? 1 : 0;
  },
};

const jobRetries: Retries = {
  over: (job) => conditionOf(job, 'Failed')?.status === 'True' || conditionOf(job, 'Complete')?.status === 'True',
  note: (job) => {
    const failed = num((job.status as { failed?: number } | undefined)?.failed);
    const limit = num((job.spec as { backoffLimit?: number } | undefined)?.backoffLimit, 6);
    return `; the Job retries (${failed} failed, backoffLimit ${limit})`;
  },
};

// ---- the table --------------------------------------------------------------------------------

const KCM = KUBE_CONTROLLER_MANAGER;

const KINDS: Record<string, KindKnowledge> = {
  'apps/Deployment': { controller: KCM, observesGeneration: true, hold: paused, podsThroughChildren: true, childNotCreated: newReplicaSetNotCreated },
  'apps/ReplicaSet': { controller: KCM, observesGeneration: true, pods: replicas('replicaset-controller') },
  'apps/StatefulSet': { controller: KCM, observesGeneration: true, pods: replicas('statefulset-controller') },
  'apps/DaemonSet': { controller: KCM, observesGeneration: true, pods: daemonSetPods },
  '/ReplicationController': { controller: KCM, observesGeneration: true, pods: replicas('replication-controller') },
  'batch/Job': { controller: KCM, observesGeneration: false, hold: suspended('Job'), pods: jobPods, retries: jobRetries },
  'batch/CronJob': { controller: KCM, observesGeneration: false, hold: suspended('CronJob'), podsThroughChildren: true },
  '/Pod': { observesGeneration: false },
};

/** What the diagnosis knows of an object's kind, by its group (as the readiness engine resolves it) and kind. */
export function knowledgeOf(kind: string, obj: KubeObject): KindKnowledge | undefined {
  return KINDS[groupKindKey(groupKindOf(obj, { kind }))];
}

/** A workload kube-controller-manager reconciles. */
export function isWorkload(kind: string, obj: KubeObject): boolean {
  return knowledgeOf(kind, obj)?.controller !== undefined;
}

/** Whether status.observedGeneration is the controller's acknowledgement for this object. */
export function hasObservedGeneration(kind: string, obj: KubeObject): boolean {
  const known = knowledgeOf(kind, obj);
  if (known) return known.observesGeneration;
  // Kinds the tool does not know: only when their controller writes one.
  return typeof (obj.status as { observedGeneration?: unknown } | undefined)?.observedGeneration === 'number';
}

/** The workloads in the chain that create Pods themselves: the target, or its children (a Deployment's ReplicaSets, a CronJob's Jobs). */
export function podOwners(ctx: Context, kind: string, obj: KubeObject): Obj[] {
  if (knowledgeOf(kind, obj)?.podsThroughChildren) return ctx.input.descendants.filter((d) => !isPod(d) && live(d.obj));
  return [{ kind, obj }];
}
