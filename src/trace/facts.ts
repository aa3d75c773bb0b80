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

/**
 * A generation as a controller wrote it: a number, or a numeric string (some operators declare
 * `observedGeneration` a string in their CRD, e.g. "4"); undefined otherwise.
 */
export function generationOf(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  return undefined;
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

/** The manager (and subresource) of an object's newest managedFields write: who wrote this version. */
export function writerOf(obj: KubeObject): string | undefined {
  let best: { manager?: string; subresource?: string; time?: string } | undefined;
  for (const m of obj.metadata.managedFields ?? []) if (m.time && m.manager && (!best?.time || m.time >= best.time)) best = m;
  if (!best?.manager) return undefined;
  return best.subresource ? `${best.manager} (${best.subresource})` : best.manager;
}

function common(obj: KubeObject, facts: Facts): void {
  facts.set('created', { value: true, serverTime: obj.metadata.creationTimestamp, serverTimeSource: 'creationTimestamp' });
  if (obj.metadata.deletionTimestamp) {
    // deletionTimestamp is when the grace period ends; the request was that much earlier.
    const grace = obj.metadata.deletionGracePeriodSeconds ?? 0;
    const requested = new Date(Date.parse(obj.metadata.deletionTimestamp) - grace * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    facts.set('terminating', {
      value: true,
      serverTime: requested,
      serverTimeSource: grace ? `deletionTimestamp − ${grace}s grace` : 'deletionTimestamp',
      detail: grace ? `grace period ${grace}s` : undefined,
    });
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
    facts.set(status.phase === 'Succeeded' ? 'succeeded' : 'failed', {
      value: true,
      serverTime: managedFieldsTime(obj, { subresource: 'status' }),
      serverTimeSource: 'managedFields',
    });
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
  const observed = generationOf((obj.status as { observedGeneration?: unknown } | undefined)?.observedGeneration);
  if (observed !== undefined) {
    facts.set('observed-generation', { value: observed, serverTime: managedFieldsTime(obj, { subresource: 'status' }), serverTimeSource: 'managedFields' });
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
      if (!isKnownWorkload(kind)) statusFacts(obj, facts);
      break;
  }
  return facts;
}

/** Kinds with facts of their own above, or that a built-in controller owns (their status is said otherwise). */
function isKnownWorkload(kind: string): boolean {
  return kind in childKinds || kind === 'Pod' || kind === 'ReplicaSet';
}

/**
 * The status of a kind the tool does not know, as facts whose changes are hops: each condition
 * (`condition:TYPE`, its status as value, reason and message as detail) and `status.phase` or
 * `status.state`.
 */
function statusFacts(obj: KubeObject, facts: Facts): void {
  for (const c of conditions(obj)) {
    if (typeof c.type !== 'string') continue;
    const said = [c.reason, (c as { message?: string }).message].filter((x) => typeof x === 'string' && x !== '').join(': ');
    facts.set(`condition:${c.type}`, {
      value: String(c.status),
      serverTime: c.lastTransitionTime,
      serverTimeSource: `${c.type} lastTransitionTime`,
      detail: said || undefined,
    });
  }
  const s = (obj.status ?? {}) as { phase?: unknown; state?: unknown };
  for (const field of ['phase', 'state'] as const) {
    const v = s[field];
    if (typeof v === 'string' && v !== '')
      facts.set(`status.${field}`, { value: v, serverTime: managedFieldsTime(obj, { subresource: 'status' }), serverTimeSource: 'managedFields (status)' });
  }
}

export interface Convergence {
  done: boolean;
  /** Why not yet, or what was reached. */
  detail: string;
  serverTime?: string | undefined;
  serverTimeSource?: string | undefined;
  failed?: boolean;
  /** The rule of readinessOf that decided (docs/readiness.md), for kinds without one of their own. */
  rule?: string | undefined;
}

/**
 * Whether the status only says its controller caught up (readinessOf's `observedGeneration` and
 * `conditions` rules), leaving the verdict to the children it owns.
 */
export function childrenDecide(c: Convergence): boolean {
  return !c.failed && (c.rule === 'observedGeneration' || c.rule === 'conditions');
}

/**
 * Whether a workload's status says its controller finished the rollout of its current generation:
 * the same tests `kubectl rollout status` makes.
 */
export function convergence(kind: string, obj: KubeObject): Convergence {
  const gen = num(obj.metadata.generation);
  const s = (obj.status ?? {}) as Record<string, unknown>;
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const observed = generationOf(s.observedGeneration) ?? 0;
  const statusTime = managedFieldsTime(obj, { subresource: 'status' });
  const notObserved: Convergence = { done: false, detail: `observedGeneration ${observed} < generation ${gen}` };
  switch (kind) {
    case 'Deployment': {
      if (observed < gen) return notObserved;
      const desired = spec.replicas === undefined ? 1 : num(spec.replicas);
      const progressing = condition(obj, 'Progressing');
      if (progressing?.reason === 'ProgressDeadlineExceeded')
        return {
          done: true,
          failed: true,
          detail: 'progress deadline exceeded',
          serverTime: progressing.lastUpdateTime,
          serverTimeSource: 'Progressing lastUpdateTime',
        };
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
      return {
        done,
        detail: `${updated} updated, ${ready} ready, ${available} available of ${desired}${revisionsMatch ? '' : '; revision rolling'}`,
        serverTime: statusTime,
        serverTimeSource: 'managedFields',
      };
    }
    case 'DaemonSet': {
      if (observed < gen) return notObserved;
      const desired = num(s.desiredNumberScheduled);
      const updated = num(s.updatedNumberScheduled);
      const available = num(s.numberAvailable);
      const ready = num(s.numberReady);
      return {
        done: updated === desired && available === desired && ready === desired,
        detail: `${updated} updated, ${ready} ready, ${available} available of ${desired}`,
        serverTime: statusTime,
        serverTimeSource: 'managedFields',
      };
    }
    case 'ReplicaSet':
    case 'ReplicationController': {
      if (observed < gen) return notObserved;
      const desired = spec.replicas === undefined ? 1 : num(spec.replicas);
      const ready = num(s.readyReplicas);
      const available = num(s.availableReplicas);
      return {
        done: ready === desired && available === desired && num(s.replicas) === desired,
        detail: `${ready} ready, ${available} available of ${desired}`,
        serverTime: statusTime,
        serverTimeSource: 'managedFields',
      };
    }
    case 'Job': {
      const complete = condition(obj, 'Complete');
      const failed = condition(obj, 'Failed');
      if (complete?.status === 'True')
        return { done: true, detail: 'Complete', serverTime: complete.lastTransitionTime, serverTimeSource: 'Complete lastTransitionTime' };
      if (failed?.status === 'True')
        return {
          done: true,
          failed: true,
          detail: `Failed: ${failed.reason ?? ''}`,
          serverTime: failed.lastTransitionTime,
          serverTimeSource: 'Failed lastTransitionTime',
        };
      return { done: false, detail: `${num(s.active)} active, ${num(s.succeeded)} succeeded, ${num(s.failed)} failed` };
    }
    case 'Pod': {
      const phase = typeof s.phase === 'string' ? s.phase : 'Pending';
      if (phase === 'Succeeded') return { done: true, detail: 'phase Succeeded', serverTime: statusTime, serverTimeSource: 'managedFields (status)' };
      if (phase === 'Failed')
        return {
          done: true,
          failed: true,
          detail: `phase Failed${typeof s.reason === 'string' && s.reason ? `: ${s.reason}` : ''}`,
          serverTime: statusTime,
          serverTimeSource: 'managedFields (status)',
        };
      const ready = condition(obj, 'Ready');
      return {
        done: ready?.status === 'True',
        detail: `phase ${phase}, Ready=${ready?.status ?? 'unset'}`,
        serverTime: ready?.lastTransitionTime,
        serverTimeSource: 'Ready lastTransitionTime',
      };
    }
    case 'PersistentVolumeClaim': {
      const phase = typeof s.phase === 'string' ? s.phase : 'Pending';
      return {
        done: phase === 'Bound' || phase === 'Lost',
        failed: phase === 'Lost',
        detail: `phase ${phase}`,
        serverTime: statusTime,
        serverTimeSource: 'managedFields (status)',
      };
    }
    case 'Service': {
      if (spec.type !== 'LoadBalancer') return { done: true, detail: `type ${typeof spec.type === 'string' ? spec.type : 'ClusterIP'}: nothing to provision` };
      const ingress = (s.loadBalancer as { ingress?: { ip?: string; hostname?: string }[] } | undefined)?.ingress ?? [];
      return ingress.length > 0
        ? {
            done: true,
            detail: `load balancer ${ingress.map((i) => i.ip ?? i.hostname ?? '').join(', ')}`,
            serverTime: statusTime,
            serverTimeSource: 'managedFields (status)',
          }
        : { done: false, detail: 'type LoadBalancer: no ingress assigned yet' };
    }
    case 'CustomResourceDefinition': {
      const names = condition(obj, 'NamesAccepted');
      if (names?.status === 'False')
        return {
          done: true,
          failed: true,
          detail: `NamesAccepted=False ${names.reason ?? ''}`,
          serverTime: names.lastTransitionTime,
          serverTimeSource: 'NamesAccepted lastTransitionTime',
        };
      const established = condition(obj, 'Established');
      return {
        done: established?.status === 'True',
        detail: `Established=${established?.status ?? 'unset'}`,
        serverTime: established?.lastTransitionTime,
        serverTimeSource: 'Established lastTransitionTime',
      };
    }
    default:
      return readinessOf(obj);
  }
}

/** Kinds whose readiness says nothing: they are what they are once they exist. */
const NO_READINESS = new Set([
  'ConfigMap',
  'Secret',
  'ServiceAccount',
  'Role',
  'RoleBinding',
  'ClusterRole',
  'ClusterRoleBinding',
  'EndpointSlice',
  'Endpoints',
  'ControllerRevision',
  'Lease',
  'NetworkPolicy',
  'PodDisruptionBudget',
  'LimitRange',
  'ResourceQuota',
  'PodTemplate',
]);

/** Whether an object has a readiness to judge: not a kind without one, not an empty status (metadata-only, or nothing writes one), not a Service that provisions nothing. */
export function hasReadiness(kind: string, obj: KubeObject): boolean {
  if (NO_READINESS.has(kind)) return false;
  if (kind === 'Service') return (obj.spec as { type?: string } | undefined)?.type === 'LoadBalancer';
  const s = obj.status as Record<string, unknown> | undefined;
  return kind === 'Pod' || (s !== undefined && Object.keys(s).length > 0);
}

/**
 * Whether a child in a custom resource's chain is ready, for the rules that let the children decide
 * (docs/readiness.md): terminating objects are on their way out and do not count; kinds without
 * readiness (ConfigMaps, Secrets, ...) and objects whose status is empty (metadata-only, or no
 * controller writes one) are ready; the rest by their own rule. Undefined: ready; else why not.
 */
export function childNotReady(kind: string, obj: KubeObject): string | undefined {
  if (obj.metadata.deletionTimestamp || !hasReadiness(kind, obj)) return undefined;
  const c = convergence(kind, obj);
  if ((c.done && !c.failed) || c.rule === 'unknown') return undefined;
  return `${kind}/${obj.metadata.name ?? ''} ${c.failed ? 'failed' : 'not ready'}: ${c.detail}`;
}

interface AnyCondition extends Condition {
  message?: string;
  observedGeneration?: unknown;
}

/**
 * Condition types that say the object is what it should be when True: these words, alone or ending
 * a longer type (`HeadPodReady`, `RayClusterProvisioned`, `PodsAvailable`).
 */
const POSITIVE_WORDS = ['Ready', 'Available', 'Healthy', 'Synced', 'Succeeded', 'Established', 'Complete', 'Completed', 'Provisioned', 'Bound', 'Running'];
const POSITIVE_TYPE = new RegExp(`(^|[a-z0-9])(${POSITIVE_WORDS.join('|')})$`);
/** Condition types that are abnormal when True (kstatus' "abnormal-true" polarity): never a sign of readiness. */
const NEGATIVE_TYPE = /(Stalled|Reconciling|Progressing|Degraded|Failed|Failure|Error|Suspended|Suspending|Paused|Terminating|Pending|Not[A-Z]\w*|Un[a-z]\w*)$/;
const CURRENT_PHASES = new Set([
  'ready',
  'healthy',
  'running',
  'succeeded',
  'complete',
  'completed',
  'active',
  'bound',
  'available',
  'established',
  'synced',
  'current',
]);
const FAILED_PHASES = new Set(['failed', 'error', 'degraded']);

/** Whether a condition type says "good" when True: Ready first, then the other words of POSITIVE_WORDS. */
export function isPositiveCondition(type: string): boolean {
  return POSITIVE_TYPE.test(type) && !NEGATIVE_TYPE.test(type);
}

function said(c: AnyCondition): string {
  return `${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`;
}

/**
 * The readiness of a kind without a rule of its own (a custom resource), as docs/readiness.md
 * writes the rules down; the first that applies decides, and the detail names it:
 * terminating; not observed (no status yet, observedGeneration behind — a number or a numeric
 * string — or a condition of an older generation); Stalled=True failed; Reconciling=True in
 * progress; the Ready condition, then the other positive conditions (Available, Healthy, Synced,
 * ...): one False is in progress, all True is current; status.phase or status.state; and last an
 * observedGeneration caught up with no condition saying otherwise.
 */
export function readinessOf(obj: KubeObject): Convergence {
  const gen = num(obj.metadata.generation);
  const s = (obj.status ?? {}) as Record<string, unknown>;
  const statusTime = managedFieldsTime(obj, { subresource: 'status' });
  const byStatus = { serverTime: statusTime, serverTimeSource: 'managedFields (status)' };
  const decided = (done: boolean, rule: string, detail: string, extra: Partial<Convergence> = {}): Convergence => ({
    done,
    detail: `${detail} (rule: ${rule})`,
    rule,
    ...byStatus,
    ...extra,
  });
  const fromCondition = (c: AnyCondition): Partial<Convergence> => ({ serverTime: c.lastTransitionTime, serverTimeSource: `${c.type} lastTransitionTime` });
  if (obj.metadata.deletionTimestamp) return decided(false, 'terminating', 'being deleted');
  if (Object.keys(s).length === 0) return decided(false, 'not observed', 'no controller has written its status yet');
  const observed = generationOf(s.observedGeneration);
  if (observed !== undefined && observed < gen) return decided(false, 'not observed', `observedGeneration ${observed} < generation ${gen}`);
  const conds = conditions(obj) as AnyCondition[];
  const stale = conds.find((c) => generationOf(c.observedGeneration) !== undefined && generationOf(c.observedGeneration)! < gen);
  if (stale) return decided(false, 'not observed', `condition ${stale.type} is of generation ${String(stale.observedGeneration)} < ${gen}`);
  const stalled = conds.find((c) => c.type === 'Stalled' && c.status === 'True');
  if (stalled) return decided(true, 'Stalled condition', said(stalled), { failed: true, ...fromCondition(stalled) });
  const reconciling = conds.find((c) => c.type === 'Reconciling' && c.status === 'True');
  if (reconciling) return decided(false, 'Reconciling condition', said(reconciling), fromCondition(reconciling));
  const positive = conds.filter((c) => isPositiveCondition(c.type));
  const ready = positive.find((c) => c.type === 'Ready');
  if (ready) return decided(ready.status === 'True', 'Ready condition', said(ready), fromCondition(ready));
  const notYet = positive.find((c) => c.status !== 'True');
  if (notYet) return decided(false, `${notYet.type} condition`, said(notYet), fromCondition(notYet));
  const phaseField = typeof s.phase === 'string' && s.phase ? 'phase' : typeof s.state === 'string' && s.state ? 'state' : undefined;
  if (phaseField) {
    const v = String(s[phaseField]);
    const lower = v.toLowerCase();
    if (FAILED_PHASES.has(lower)) return decided(true, `status.${phaseField}`, `${phaseField} ${v}`, { failed: true });
    if (!CURRENT_PHASES.has(lower)) return decided(false, `status.${phaseField}`, `${phaseField} ${v}`);
    if (positive.length === 0) return decided(true, `status.${phaseField}`, `${phaseField} ${v}`);
  }
  if (positive.length > 0) {
    const last = positive.reduce((a, b) => ((b.lastTransitionTime ?? '') > (a.lastTransitionTime ?? '') ? b : a));
    return decided(true, 'conditions', positive.map(said).join(', '), fromCondition(last));
  }
  if (observed !== undefined) return decided(true, 'observedGeneration', `observedGeneration ${observed} / generation ${gen}, no condition says otherwise`);
  return decided(false, 'unknown', 'readiness unknown: its status has no observedGeneration, no condition and no phase the rules read');
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
