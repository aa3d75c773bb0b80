/**
 * What can be true of an object, read from its cache state: the "facts" whose first appearance after
 * the trigger is a hop. One function per kind; anything else gets the generic facts.
 *
 * A fact has a value (a boolean fact is `true`; a counted fact such as replicas carries its number)
 * and, when the server records it, the server's time for it.
 */
import type { KubeObject } from '../kube/index.js';

export interface Fact {
  value: string | number | boolean;
  serverTime?: string | undefined;
  serverTimeSource?: string | undefined;
  detail?: string | undefined;
}

export type Facts = Map<string, Fact>;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
}

function conditions(obj: KubeObject): Condition[] {
  const status = obj.status as { conditions?: Condition[] } | undefined;
  return Array.isArray(status?.conditions) ? status.conditions : [];
}

function condition(obj: KubeObject, type: string): Condition | undefined {
  return conditions(obj).find((c) => c.type === type);
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** The newest managedFields time for a field set, e.g. the controller's last status write. */
export function managedFieldsTime(obj: KubeObject, match: { subresource?: string; manager?: string } = {}): string | undefined {
  let best: string | undefined;
  for (const m of obj.metadata.managedFields ?? []) {
    if (match.subresource !== undefined && (m.subresource ?? '') !== match.subresource) continue;
    if (match.manager !== undefined && m.manager !== match.manager) continue;
    if (m.time && (!best || m.time > best)) best = m.time;
  }
  return best;
}

function common(obj: KubeObject, facts: Facts): void {
  facts.set('created', { value: true, serverTime: obj.metadata.creationTimestamp, serverTimeSource: 'creationTimestamp' });
  if (obj.metadata.deletionTimestamp) {
    // deletionTimestamp is when the grace period ends; the request was that much earlier.
    const grace = obj.metadata.deletionGracePeriodSeconds ?? 0;
    const requested = new Date(Date.parse(obj.metadata.deletionTimestamp) - grace * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    facts.set('terminating', { value: true, serverTime: requested, serverTimeSource: grace ? `deletionTimestamp − ${grace}s grace` : 'deletionTimestamp', detail: grace ? `grace period ${grace}s` : undefined });
  }
  for (const f of obj.metadata.finalizers ?? []) facts.set(`finalizer:${f}`, { value: true, detail: f });
  if (typeof obj.metadata.generation === 'number') {
    facts.set('generation', { value: obj.metadata.generation, serverTime: managedFieldsTime(obj, { subresource: '' }), serverTimeSource: 'managedFields' });
  }
}

function conditionFact(obj: KubeObject, facts: Facts, type: string, name: string, detail?: string): void {
  const c = condition(obj, type);
  if (c?.status === 'True') facts.set(name, { value: true, serverTime: c.lastTransitionTime, serverTimeSource: `${type} lastTransitionTime`, detail });
}

function podFacts(obj: KubeObject, facts: Facts): void {
  const spec = obj.spec as { nodeName?: string } | undefined;
  const status = obj.status as { phase?: string } | undefined;
  conditionFact(obj, facts, 'PodScheduled', 'scheduled', spec?.nodeName ? `node ${spec.nodeName}` : undefined);
  conditionFact(obj, facts, 'Initialized', 'initialized');
  conditionFact(obj, facts, 'ContainersReady', 'containers-ready');
  conditionFact(obj, facts, 'Ready', 'ready');
  if (status?.phase === 'Succeeded' || status?.phase === 'Failed') {
    facts.set(status.phase === 'Succeeded' ? 'succeeded' : 'failed', { value: true, serverTime: managedFieldsTime(obj, { subresource: 'status' }), serverTimeSource: 'managedFields' });
  }
}

function replicaSetFacts(obj: KubeObject, facts: Facts): void {
  const spec = obj.spec as { replicas?: number } | undefined;
  facts.set('replicas', { value: num(spec?.replicas), serverTime: managedFieldsTime(obj, { subresource: '' }), serverTimeSource: 'managedFields' });
}

/** Facts of any object of `kind`. */
export function factsOf(kind: string, obj: KubeObject): Facts {
  const facts: Facts = new Map();
  common(obj, facts);
  const status = obj.status as { observedGeneration?: number } | undefined;
  if (typeof status?.observedGeneration === 'number') {
    facts.set('observed-generation', { value: status.observedGeneration, serverTime: managedFieldsTime(obj, { subresource: 'status' }), serverTimeSource: 'managedFields' });
  }
  switch (kind) {
    case 'Pod':
      podFacts(obj, facts);
      break;
    case 'ReplicaSet':
    case 'StatefulSet':
    case 'ReplicationController':
      replicaSetFacts(obj, facts);
      break;
    case 'Job':
      conditionFact(obj, facts, 'Complete', 'complete');
      conditionFact(obj, facts, 'Failed', 'job-failed');
      break;
    default:
      break;
  }
  return facts;
}

export interface Convergence {
  done: boolean;
  /** Why not yet, or what was reached. */
  detail: string;
  serverTime?: string | undefined;
  serverTimeSource?: string | undefined;
  failed?: boolean;
}

/**
 * Whether a workload's status says its controller finished the rollout of its current generation:
 * the same tests `kubectl rollout status` makes.
 */
export function convergence(kind: string, obj: KubeObject): Convergence {
  const gen = num(obj.metadata.generation);
  const s = (obj.status ?? {}) as Record<string, unknown>;
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const observed = num(s.observedGeneration);
  const statusTime = managedFieldsTime(obj, { subresource: 'status' });
  const notObserved: Convergence = { done: false, detail: `observedGeneration ${observed} < generation ${gen}` };
  switch (kind) {
    case 'Deployment': {
      if (observed < gen) return notObserved;
      const desired = spec.replicas === undefined ? 1 : num(spec.replicas);
      const progressing = condition(obj, 'Progressing');
      if (progressing?.reason === 'ProgressDeadlineExceeded') return { done: true, failed: true, detail: 'progress deadline exceeded', serverTime: progressing.lastUpdateTime, serverTimeSource: 'Progressing lastUpdateTime' };
      const updated = num(s.updatedReplicas);
      const ready = num(s.readyReplicas);
      const available = num(s.availableReplicas);
      const total = num(s.replicas);
      const done = updated === desired && ready === desired && available === desired && total === desired && progressing?.reason === 'NewReplicaSetAvailable';
      return {
        done,
        detail: `${updated} updated, ${ready} ready, ${available} available of ${desired}${total > desired ? `, ${total - desired} old` : ''}${progressing ? `; Progressing ${progressing.reason ?? ''}` : ''}`,
        serverTime: statusTime,
        serverTimeSource: 'managedFields (status)',
      };
    }
    case 'StatefulSet': {
      if (observed < gen) return notObserved;
      const desired = spec.replicas === undefined ? 1 : num(spec.replicas);
      const ready = num(s.readyReplicas);
      const updated = num(s.updatedReplicas);
      const available = num(s.availableReplicas);
      const revisionsMatch = s.currentRevision === s.updateRevision;
      const done = ready === desired && updated === desired && available === desired && revisionsMatch;
      return { done, detail: `${updated} updated, ${ready} ready, ${available} available of ${desired}${revisionsMatch ? '' : '; revision rolling'}`, serverTime: statusTime, serverTimeSource: 'managedFields' };
    }
    case 'DaemonSet': {
      if (observed < gen) return notObserved;
      const desired = num(s.desiredNumberScheduled);
      const updated = num(s.updatedNumberScheduled);
      const available = num(s.numberAvailable);
      const ready = num(s.numberReady);
      return { done: updated === desired && available === desired && ready === desired, detail: `${updated} updated, ${ready} ready, ${available} available of ${desired}`, serverTime: statusTime, serverTimeSource: 'managedFields' };
    }
    case 'ReplicaSet':
    case 'ReplicationController': {
      if (observed < gen) return notObserved;
      const desired = spec.replicas === undefined ? 1 : num(spec.replicas);
      const ready = num(s.readyReplicas);
      const available = num(s.availableReplicas);
      return { done: ready === desired && available === desired && num(s.replicas) === desired, detail: `${ready} ready, ${available} available of ${desired}`, serverTime: statusTime, serverTimeSource: 'managedFields' };
    }
    case 'Job': {
      const complete = condition(obj, 'Complete');
      const failed = condition(obj, 'Failed');
      if (complete?.status === 'True') return { done: true, detail: 'Complete', serverTime: complete.lastTransitionTime, serverTimeSource: 'Complete lastTransitionTime' };
      if (failed?.status === 'True') return { done: true, failed: true, detail: `Failed: ${failed.reason ?? ''}`, serverTime: failed.lastTransitionTime, serverTimeSource: 'Failed lastTransitionTime' };
      return { done: false, detail: `${num(s.active)} active, ${num(s.succeeded)} succeeded, ${num(s.failed)} failed` };
    }
    default: {
      const ready = condition(obj, 'Ready');
      if (ready) return { done: ready.status === 'True' && observed >= gen, detail: `Ready ${ready.status}`, serverTime: ready.lastTransitionTime, serverTimeSource: 'Ready lastTransitionTime' };
      return { done: observed >= gen, detail: `observedGeneration ${observed} / generation ${gen}`, serverTime: statusTime, serverTimeSource: 'managedFields' };
    }
  }
}

/** Kinds whose objects a workload kind creates and owns, as the owner chain reaches them. */
export const childKinds: Record<string, { group: string; kind: string; resource: string }[]> = {
  Deployment: [{ group: 'apps', kind: 'ReplicaSet', resource: 'replicasets' }],
  ReplicaSet: [{ group: '', kind: 'Pod', resource: 'pods' }],
  ReplicationController: [{ group: '', kind: 'Pod', resource: 'pods' }],
  StatefulSet: [{ group: '', kind: 'Pod', resource: 'pods' }],
  DaemonSet: [{ group: '', kind: 'Pod', resource: 'pods' }],
  Job: [{ group: '', kind: 'Pod', resource: 'pods' }],
  CronJob: [{ group: 'batch', kind: 'Job', resource: 'jobs' }],
};

/** Event reasons that explain a hop kind. */
export const hopEventReasons: Record<string, string[]> = {
  created: ['SuccessfulCreate', 'ScalingReplicaSet', 'SuccessfulCreatePod'],
  scaled: ['ScalingReplicaSet'],
  'scaled-down': ['ScalingReplicaSet'],
  scheduled: ['Scheduled'],
  deleted: ['SuccessfulDelete', 'Killing'],
  terminating: ['SuccessfulDelete', 'Killing'],
  converged: ['DeploymentRollout', 'SuccessfulUpdate'],
  complete: ['Completed'],
};
