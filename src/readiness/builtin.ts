/**
 * The built-in workload kinds, judged as `kubectl rollout status` judges them, once the controller
 * has observed the generation. Keyed by group and kind, as kstatus keys its table: a custom
 * resource named `Job` or `Deployment` in another group is not one of these.
 */
import { type GroupKind, groupKindKey, type KubeObject } from '../kube/types.js';
import { conditionOf, generationOf, managedFieldsTime } from './status-fields.js';
import { groupOf, type JudgeOptions, type ReadinessStatus, type Verdict } from './types.js';

type Judge = (obj: KubeObject) => Omit<Verdict, 'rule' | 'layer'>;

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

function statusTime(obj: KubeObject): Pick<Verdict, 'serverTime' | 'serverTimeSource'> {
  return { serverTime: managedFieldsTime(obj, { subresource: 'status' }), serverTimeSource: 'managedFields (status)' };
}

/** The controller has not observed the object's generation yet; undefined when it has. */
function notObserved(obj: KubeObject): Omit<Verdict, 'rule' | 'layer'> | undefined {
  const gen = num(obj.metadata.generation);
  const observed = generationOf((obj.status as { observedGeneration?: unknown } | undefined)?.observedGeneration) ?? 0;
  return observed < gen ? { status: 'InProgress', detail: `observedGeneration ${observed} < generation ${gen}` } : undefined;
}

function spec(obj: KubeObject): Record<string, unknown> {
  return (obj.spec ?? {}) as Record<string, unknown>;
}

function status(obj: KubeObject): Record<string, unknown> {
  return (obj.status ?? {}) as Record<string, unknown>;
}

const deployment: Judge = (obj) => {
  if (spec(obj).paused === true) return { status: 'Suspended', detail: 'spec.paused: the rollout is paused' };
  const behind = notObserved(obj);
  if (behind) return behind;
  const s = status(obj);
  const desired = spec(obj).replicas === undefined ? 1 : num(spec(obj).replicas);
  const progressing = conditionOf(obj, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded')
    return { status: 'Failed', detail: 'progress deadline exceeded', serverTime: progressing.lastUpdateTime, serverTimeSource: 'Progressing lastUpdateTime' };
  const updated = num(s.updatedReplicas);
  const ready = num(s.readyReplicas);
  const available = num(s.availableReplicas);
  const total = num(s.replicas);
  const done = updated === desired && ready === desired && available === desired && total === desired && progressing?.reason === 'NewReplicaSetAvailable';
  return {
    status: done ? 'Current' : 'InProgress',
    detail: `${updated} updated, ${ready} ready, ${available} available of ${desired}${total > desired ? `, ${total - desired} old` : ''}${progressing ? `; Progressing ${progressing.reason ?? ''}` : ''}`,
    ...statusTime(obj),
  };
};

const statefulSet: Judge = (obj) => {
  const behind = notObserved(obj);
  if (behind) return behind;
  const s = status(obj);
  const desired = spec(obj).replicas === undefined ? 1 : num(spec(obj).replicas);
  const ready = num(s.readyReplicas);
  const updated = num(s.updatedReplicas);
  const available = num(s.availableReplicas);
  const revisionsMatch = s.currentRevision === s.updateRevision;
  const done = ready === desired && updated === desired && available === desired && revisionsMatch;
  return {
    status: done ? 'Current' : 'InProgress',
    detail: `${updated} updated, ${ready} ready, ${available} available of ${desired}${revisionsMatch ? '' : '; revision rolling'}`,
    ...statusTime(obj),
  };
};

const daemonSet: Judge = (obj) => {
  const behind = notObserved(obj);
  if (behind) return behind;
  const s = status(obj);
  const desired = num(s.desiredNumberScheduled);
  const updated = num(s.updatedNumberScheduled);
  const available = num(s.numberAvailable);
  const ready = num(s.numberReady);
  return {
    status: updated === desired && available === desired && ready === desired ? 'Current' : 'InProgress',
    detail: `${updated} updated, ${ready} ready, ${available} available of ${desired}`,
    ...statusTime(obj),
  };
};

const replicaSet: Judge = (obj) => {
  const behind = notObserved(obj);
  if (behind) return behind;
  const s = status(obj);
  const desired = spec(obj).replicas === undefined ? 1 : num(spec(obj).replicas);
  const ready = num(s.readyReplicas);
  const available = num(s.availableReplicas);
  return {
    status: ready === desired && available === desired && num(s.replicas) === desired ? 'Current' : 'InProgress',
    detail: `${ready} ready, ${available} available of ${desired}`,
    ...statusTime(obj),
  };
};

const job: Judge = (obj) => {
  const s = status(obj);
  const complete = conditionOf(obj, 'Complete');
  const failed = conditionOf(obj, 'Failed');
  if (complete?.status === 'True')
    return { status: 'Current', detail: 'Complete', serverTime: complete.lastTransitionTime, serverTimeSource: 'Complete lastTransitionTime' };
  if (failed?.status === 'True')
    return { status: 'Failed', detail: `Failed: ${failed.reason ?? ''}`, serverTime: failed.lastTransitionTime, serverTimeSource: 'Failed lastTransitionTime' };
  if (spec(obj).suspend === true) return { status: 'Suspended', detail: 'spec.suspend: the Job is suspended' };
  return { status: 'InProgress', detail: `${num(s.active)} active, ${num(s.succeeded)} succeeded, ${num(s.failed)} failed` };
};

const pod: Judge = (obj) => {
  const s = status(obj);
  const phase = typeof s.phase === 'string' ? s.phase : 'Pending';
  if (phase === 'Succeeded') return { status: 'Current', detail: 'phase Succeeded', ...statusTime(obj) };
  if (phase === 'Failed')
    return { status: 'Failed', detail: `phase Failed${typeof s.reason === 'string' && s.reason ? `: ${s.reason}` : ''}`, ...statusTime(obj) };
  const ready = conditionOf(obj, 'Ready');
  return {
    status: ready?.status === 'True' ? 'Current' : 'InProgress',
    detail: `phase ${phase}, Ready=${ready?.status ?? 'unset'}`,
    serverTime: ready?.lastTransitionTime,
    serverTimeSource: 'Ready lastTransitionTime',
  };
};

const pvc: Judge = (obj) => {
  const phase = typeof status(obj).phase === 'string' ? String(status(obj).phase) : 'Pending';
  const verdict: ReadinessStatus = phase === 'Bound' ? 'Current' : phase === 'Lost' ? 'Failed' : 'InProgress';
  return { status: verdict, detail: `phase ${phase}`, ...statusTime(obj) };
};

const service: Judge = (obj) => {
  const type = spec(obj).type;
  if (type !== 'LoadBalancer') return { status: 'Current', detail: `type ${typeof type === 'string' ? type : 'ClusterIP'}: nothing to provision` };
  const ingress = (status(obj).loadBalancer as { ingress?: { ip?: string; hostname?: string }[] } | undefined)?.ingress ?? [];
  return ingress.length > 0
    ? { status: 'Current', detail: `load balancer ${ingress.map((i) => i.ip ?? i.hostname ?? '').join(', ')}`, ...statusTime(obj) }
    : { status: 'InProgress', detail: 'type LoadBalancer: no ingress assigned yet' };
};

const crd: Judge = (obj) => {
  const names = conditionOf(obj, 'NamesAccepted');
  if (names?.status === 'False')
    return {
      status: 'Failed',
      detail: `NamesAccepted=False ${names.reason ?? ''}`,
      serverTime: names.lastTransitionTime,
      serverTimeSource: 'NamesAccepted lastTransitionTime',
    };
  // Served, but its schema is not structural: the API server prunes nothing and refuses updates of it.
  const nonStructural = conditionOf(obj, 'NonStructuralSchema');
  if (nonStructural?.status === 'True')
    return {
      status: 'Failed',
      detail: `NonStructuralSchema=True${nonStructural.message ? `: ${nonStructural.message}` : ''}`,
      serverTime: nonStructural.lastTransitionTime,
      serverTimeSource: 'NonStructuralSchema lastTransitionTime',
    };
  const established = conditionOf(obj, 'Established');
  return {
    status: established?.status === 'True' ? 'Current' : 'InProgress',
    detail: `Established=${established?.status ?? 'unset'}`,
    serverTime: established?.lastTransitionTime,
    serverTimeSource: 'Established lastTransitionTime',
  };
};

/** The built-in kinds with a rule of their own, by `group/Kind` (core: `/Kind`). */
const BUILTIN: Record<string, Judge> = {
  'apps/Deployment': deployment,
  'apps/StatefulSet': statefulSet,
  'apps/DaemonSet': daemonSet,
  'apps/ReplicaSet': replicaSet,
  '/ReplicationController': replicaSet,
  'batch/Job': job,
  '/Pod': pod,
  '/PersistentVolumeClaim': pvc,
  '/Service': service,
  'apiextensions.k8s.io/CustomResourceDefinition': crd,
};

/** The built-in rule for a group and kind, if there is one. */
export function builtinRule(group: string, kind: string): Judge | undefined {
  return BUILTIN[groupKindKey({ group, kind })];
}

/** Built-in kinds whose readiness says nothing: they are what they are once they exist. */
const NO_READINESS = new Set([
  '/ConfigMap',
  '/Secret',
  '/ServiceAccount',
  'rbac.authorization.k8s.io/Role',
  'rbac.authorization.k8s.io/RoleBinding',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'discovery.k8s.io/EndpointSlice',
  '/Endpoints',
  'apps/ControllerRevision',
  'coordination.k8s.io/Lease',
  'networking.k8s.io/NetworkPolicy',
  '/LimitRange',
  '/ResourceQuota',
  '/PodTemplate',
  '/Event',
  'events.k8s.io/Event',
  'storage.k8s.io/StorageClass',
  'scheduling.k8s.io/PriorityClass',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
]);

export function withoutReadiness(group: string, kind: string): boolean {
  return NO_READINESS.has(groupKindKey({ group, kind }));
}

/** The core and apps kinds whose owner chain a built-in controller keeps: the workloads above. */
export function isBuiltinWorkload(group: string, kind: string): boolean {
  return groupKindKey({ group, kind }) in BUILTIN;
}

/** Kinds of the API server's own groups that have rules in the library. */
const LIBRARY_BUILTINS = [
  'batch/CronJob',
  'autoscaling/HorizontalPodAutoscaler',
  'policy/PodDisruptionBudget',
  'networking.k8s.io/Ingress',
  '/Namespace',
  '/Node',
  '/PersistentVolume',
  'apiregistration.k8s.io/APIService',
];

const GROUP_OF_BUILTIN = new Map<string, string>(
  [...Object.keys(BUILTIN), ...NO_READINESS, ...LIBRARY_BUILTINS].map((key) => {
    const slash = key.indexOf('/');
    return [key.slice(slash + 1), key.slice(0, slash)] as const;
  }),
);

/**
 * The group of a built-in kind, for an object that does not say its apiVersion (as client-go's
 * typed objects and some List items do not): undefined for any other kind.
 */
export function builtinGroupOf(kind: string): string | undefined {
  return GROUP_OF_BUILTIN.get(kind);
}

/**
 * The group and kind an object is judged as: its own apiVersion and kind; the caller's when it
 * carries none, or only PartialObjectMetadata's (a metadata-only informer's); for a built-in kind
 * without an apiVersion, its group.
 */
export function groupKindOf(obj: KubeObject, jo: Pick<JudgeOptions, 'kind' | 'apiVersion'> = {}): GroupKind {
  const partial = obj.apiVersion === 'meta.k8s.io/v1';
  const kind = (partial ? jo.kind : (obj.kind ?? jo.kind)) ?? '';
  const apiVersion = partial ? jo.apiVersion : (obj.apiVersion ?? jo.apiVersion);
  return { group: apiVersion === undefined ? (builtinGroupOf(kind) ?? '') : groupOf(apiVersion), kind };
}
