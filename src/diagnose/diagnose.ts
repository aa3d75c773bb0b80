/**
 * Where a reconcile chain is stuck, from what the caches hold: the target, its descendants, the
 * namespace's Events, the Nodes, the controllers' leader Leases and (optionally) their queues.
 *
 * The links are checked in the order people diagnose a stuck reconcile. The first broken one is
 * the answer, with its evidence (object, condition or Event, for how long) and the commands a
 * person would run next. A step still inside the grace period is "progressing", not broken. What
 * could not be read (403 on Events or Leases, metrics unreachable) is listed as unseen, and then
 * the verdict is never "healthy": it is "unknown" unless a link was found broken by what was seen.
 */
import type { KubeObject, Lease } from '../kube/index.js';
import { controllerQueueFor } from '../metrics/index.js';
import { describeVerdict, generationOf, managedFieldsTime, type Verdict } from '../readiness/index.js';
import { formatDuration } from '../util/duration.js';
import { queueActivity, queueSource } from './text.js';
import {
  conditionEvidence,
  conditionOf,
  containerStatuses,
  controllerKind,
  controllerUid,
  eventEvidence,
  eventLastTime,
  eventReason,
  eventType,
  eventsAbout,
  refOf,
  since,
  type ContainerStatus,
} from './evidence.js';
import {
  LINKS,
  type ControllerBehind,
  type DiagnoseInput,
  type Diagnosis,
  type Evidence,
  type EvidenceObject,
  type LeaseInput,
  type LinkCheck,
  type LinkName,
  type LinkStatus,
  type Unseen,
} from './types.js';

export const DEFAULT_GRACE_MS = 30_000;

/** Workload kinds kube-controller-manager reconciles. */
const KCM_KINDS = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'ReplicationController']);
/** Waiting reasons that mean the container is still being set up, not that something failed. */
const STARTING_REASONS = new Set(['ContainerCreating', 'PodInitializing', '']);
const FAILED_CREATE_REASONS = new Set(['FailedCreate', 'ReplicaSetCreateError', 'FailedPlacement']);
/** Evidence is listed for at most this many objects with the same problem. */
const MAX_OBJECTS = 3;

interface LinkResult {
  status: LinkStatus;
  detail: string;
  evidence: Evidence[];
  next: string[];
}

const ok = (detail: string): LinkResult => ({ status: 'ok', detail, evidence: [], next: [] });
const na = (detail: string): LinkResult => ({ status: 'not-applicable', detail, evidence: [], next: [] });

interface Obj {
  kind: string;
  obj: KubeObject;
}

class Context {
  readonly now: number;
  readonly grace: number;
  readonly ns: string | undefined;
  readonly pods: KubeObject[];
  readonly unseen: Unseen[] = [];
  private readonly unseenKeys = new Set<string>();

  constructor(readonly input: DiagnoseInput) {
    this.now = input.now;
    this.grace = input.graceMs ?? DEFAULT_GRACE_MS;
    this.ns = input.target.namespace;
    this.pods = input.descendants.filter((d) => d.kind === 'Pod').map((d) => d.obj);
    if (!input.events.seen) this.addUnseen(`Events in ${this.ns ?? 'the cluster'}`, input.events.why);
    if (!input.nodes.seen) this.addUnseen('Nodes', input.nodes.why);
    for (const l of input.leases) if (!l.lease.seen) this.addUnseen(`Lease ${l.namespace}/${l.name}`, l.lease.why);
    if (input.queues && !input.queues.seen) this.addUnseen("the controllers' work queues (metrics)", input.queues.why);
  }

  addUnseen(what: string, why: string): void {
    if (this.unseenKeys.has(what)) return;
    this.unseenKeys.add(what);
    this.unseen.push({ what, why });
  }

  events(): KubeObject[] {
    return this.input.events.seen ? this.input.events.value : [];
  }

  eventsAbout(kind: string, obj: KubeObject, filter?: (e: KubeObject) => boolean): KubeObject[] {
    return eventsAbout(this.events(), kind, obj, filter);
  }

  lease(component: LeaseInput['component']): LeaseInput | undefined {
    return this.input.leases.find((l) => l.component === component);
  }

  nsFlag(): string {
    return this.ns ? ` -n ${this.ns}` : '';
  }

  /** `kubectl describe pod web-1 -n demo` */
  kubectl(verb: string, kind: string, name: string, extra = ''): string {
    return `kubectl ${verb} ${kind.toLowerCase()} ${name}${this.nsFlag()}${extra}`;
  }

  childrenOf(owner: KubeObject, kind?: string): Obj[] {
    const uid = owner.metadata.uid;
    return this.input.descendants.filter((d) => (!kind || d.kind === kind) && uid !== undefined && controllerUid(d.obj) === uid);
  }
}

const live = (o: KubeObject): boolean => !o.metadata.deletionTimestamp;
const phaseOf = (pod: KubeObject): string => (pod.status as { phase?: string } | undefined)?.phase ?? 'Pending';
const num = (v: unknown, dflt = 0): number => (typeof v === 'number' ? v : dflt);

/** When the object's spec last changed (its newest non-status write), else its creation. */
function lastSpecChange(obj: KubeObject): string | undefined {
  return managedFieldsTime(obj, { subresource: '' }) ?? obj.metadata.creationTimestamp;
}

/** a ≥ b − 1 s (server times have second precision); true when b is empty. */
function isAfter(a: string | undefined, b: string): boolean {
  if (!b) return true;
  if (!a) return false;
  return Date.parse(a) >= Date.parse(b) - 1000;
}

function isReady(pod: KubeObject): boolean {
  return conditionOf(pod, 'Ready')?.status === 'True';
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

// ---- the Lease of the controller that acts on a link ---------------------------------------------

interface LeaseJudgement {
  healthy: boolean | undefined;
  evidence: Evidence | undefined;
  next: string;
}

/** Is the component's leader Lease held and renewed? undefined when it could not be read or was not given. */
function judgeLease(ctx: Context, component: LeaseInput['component']): LeaseJudgement {
  const input = ctx.lease(component);
  const next = input ? `kubectl get lease ${input.name} -n ${input.namespace} -o yaml` : `kubectl get lease ${component} -n kube-system -o yaml`;
  if (!input?.lease.seen) return { healthy: undefined, evidence: undefined, next };
  const object: EvidenceObject = { kind: 'Lease', namespace: input.namespace, name: input.name };
  const judged = (healthy: boolean, reason: string, message: string, since?: { at: string | undefined; forMs: number | undefined }): LeaseJudgement => ({
    healthy,
    next,
    evidence: { object, source: 'lease', reason, message, ...(since ? { since: since.at, forMs: since.forMs } : {}) },
  });
  const lease: Lease | undefined = input.lease.value;
  if (!lease) return judged(false, 'NotFound', `no leader Lease: ${component} is not running with leader election, or never started`);
  const spec = lease.spec ?? {};
  const holder = spec.holderIdentity ?? '';
  const duration = num(spec.leaseDurationSeconds);
  const renew = spec.renewTime ?? undefined;
  const renewedAgo = since(renew, ctx.now);
  if (!holder) {
    return judged(false, 'Released', `no holder: ${component} released its leader Lease and no instance took it`, { at: renew, forMs: renewedAgo });
  }
  if (renewedAgo === undefined) return judged(false, 'NeverRenewed', `held by ${holder} with no renewTime`);
  const expiresAt = Date.parse(renew!) + duration * 1000;
  if (expiresAt < ctx.now) {
    return judged(
      false,
      'Expired',
      `held by ${holder}, last renewed ${formatDuration(renewedAgo)} ago with leaseDurationSeconds ${duration}: expired ${formatDuration(ctx.now - expiresAt)} ago; ${component} is not running or cannot reach the API server`,
      { at: new Date(expiresAt).toISOString(), forMs: ctx.now - expiresAt },
    );
  }
  return judged(true, 'Renewed', `held by ${holder}, renewed ${formatDuration(renewedAgo)} ago (leaseDurationSeconds ${duration})`, {
    at: renew,
    forMs: renewedAgo,
  });
}

/** The controller's work queue, from its metrics, as evidence (depth and retries). */
function queueEvidence(ctx: Context, kind: string): Evidence | undefined {
  const q = ctx.input.queues;
  const name = controllerQueueFor(kind);
  if (!q?.seen || !name) return undefined;
  const row = q.value.find((r) => r.name === name && r.controller === null);
  if (!row) return undefined;
  const parts = [`depth ${row.depth ?? '-'}`, `retries/s ${row.retriesPerSecond === null ? '-' : row.retriesPerSecond.toFixed(2)}`];
  if (row.longestRunningProcessorSeconds) parts.push(`longest running ${formatDuration(row.longestRunningProcessorSeconds * 1000)}`);
  return { object: { kind: 'WorkQueue', name }, source: 'queue', reason: row.retriesPerSecond ? 'Retrying' : 'Queue', message: parts.join(', ') };
}

/** How the diagnosis names the operator: its field manager, else by its Lease. */
export function operatorName(b: ControllerBehind): string {
  return b.manager ?? (b.lease ? `the holder of Lease ${b.lease.namespace}/${b.lease.name}` : 'its controller');
}

/** The newest Warning Events about an object (at most two), as evidence. */
function warningsAbout(ctx: Context, kind: string, obj: KubeObject): Evidence[] {
  return ctx
    .eventsAbout(kind, obj, (e) => eventType(e) === 'Warning')
    .sort((a, b) => (eventLastTime(b) ?? '').localeCompare(eventLastTime(a) ?? ''))
    .slice(0, 2)
    .map((e) => eventEvidence(refOf(kind, obj), e, ctx.now));
}

/** An operator's work queue over the trace, as evidence: depth, adds, retries and reconcile results. */
function operatorQueueEvidence(ctx: Context): Evidence | undefined {
  const q = ctx.input.operator?.queue;
  if (!q) return undefined;
  const window = q.windowMs === null ? ' during the trace' : ` in the last ${formatDuration(q.windowMs)} (during the trace)`;
  return {
    object: { kind: 'WorkQueue', name: q.queue },
    source: 'queue',
    reason: q.retries || q.reconciles.error ? 'Retrying' : 'Queue',
    message: `${queueActivity(q)}${window}, from ${queueSource(q)}`,
  };
}

/**
 * Has the operator behind a custom resource seen its current generation? Not observed: no status
 * at all, or an observedGeneration behind. The evidence is the operator's Lease and queue.
 */
function checkOperatorObserved(ctx: Context, kind: string, obj: KubeObject, converged: boolean): LinkResult {
  const op = ctx.input.operator;
  const manager = op?.lease ? operatorName(op) : undefined;
  const lease = manager ? judgeLease(ctx, manager) : undefined;
  const status = (obj.status ?? {}) as Record<string, unknown>;
  const gen = obj.metadata.generation ?? 0;
  const observed = generationOf(status.observedGeneration);
  const none = Object.keys(status).length === 0;
  const lagging = none || (observed !== undefined && observed < gen);
  const evidence: Evidence[] = [];
  const next: string[] = [];
  const q = operatorQueueEvidence(ctx);
  const changed = none ? obj.metadata.creationTimestamp : lastSpecChange(obj);
  const forMs = since(changed, ctx.now) ?? 0;
  const what = none ? 'no controller has written its status' : `observedGeneration ${observed} < generation ${gen}`;
  if (lagging) {
    evidence.push({
      object: refOf(kind, obj),
      source: 'field',
      type: 'status.observedGeneration',
      reason: 'GenerationNotObserved',
      message: what,
      since: changed,
      forMs,
    });
    evidence.push(...warningsAbout(ctx, kind, obj));
  }
  if (lease?.healthy === false && !converged) {
    evidence.push(lease.evidence!);
    if (q) evidence.push(q);
    return {
      status: 'broken',
      detail: `${lagging ? `${what} for ${formatDuration(forMs)}, and ` : ''}${manager}'s leader Lease is ${lease.evidence!.reason === 'Expired' ? 'expired' : lease.evidence!.reason === 'NotFound' ? 'missing' : 'not held'}: no replica of it is reconciling ${kind}s`,
      evidence,
      next: [lease.next, ctx.kubectl('describe', kind, obj.metadata.name ?? '')],
    };
  }
  if (!lagging) {
    return {
      status: 'ok',
      detail: `observedGeneration ${observed ?? '-'} = generation${lease?.healthy ? `; ${manager}: ${lease.evidence!.message}` : ''}`,
      evidence: lease?.evidence ? [lease.evidence] : [],
      next: [],
    };
  }
  if (forMs <= ctx.grace) return { status: 'progressing', detail: `waiting for its controller: ${what} (${formatDuration(forMs)})`, evidence, next };
  if (lease?.evidence) evidence.push(lease.evidence);
  if (q) evidence.push(q);
  next.push(ctx.kubectl('describe', kind, obj.metadata.name ?? ''));
  if (lease) next.push(lease.next);
  const behind = lease?.healthy
    ? `${manager} holds its Lease but has not observed it${q ? '' : ' (give its metrics with --metrics to see its queue)'}`
    : op?.manager
      ? `no Lease of ${op.manager} was found${op.unseen.length ? ` (${op.unseen.join('; ')})` : ''}: is its controller running?`
      : 'no controller has acted on it: is its operator installed and running, and watching this namespace? (if none ever writes its status, say when it is ready with --ready EXPR or --health-rules FILE)';
  return { status: 'broken', detail: `${what} for ${formatDuration(forMs)}: ${behind}`, evidence, next };
}

/**
 * The first child of a custom resource that is not ready, diagnosed as a chain of its own when it is
 * a workload kind (a Deployment's ReplicaSets and Pods, a Job's Pods), so a custom resource stuck
 * on what it owns gets the diagnosis of that.
 */
function childDiagnosis(ctx: Context, obj: KubeObject): LinkResult | undefined {
  const uid = obj.metadata.uid;
  const direct = ctx.input.descendants.filter((d) => controllerUid(d.obj) === uid && live(d.obj));
  const notReady = (d: Obj): string | undefined => ctx.input.readiness.childNotReady(d.obj, { kind: d.kind });
  const stuck = direct.find((d) => notReady(d) !== undefined);
  if (!stuck) return undefined;
  const why = notReady(stuck)!;
  if (!KCM_KINDS.has(stuck.kind)) return { status: 'progressing', detail: why, evidence: [], next: [] };
  const below: DiagnoseInput['descendants'] = [];
  let frontier = [stuck.obj.metadata.uid];
  while (frontier.length > 0) {
    const found = ctx.input.descendants.filter((d) => frontier.includes(controllerUid(d.obj)));
    below.push(...found);
    frontier = found.map((d) => d.obj.metadata.uid);
  }
  const d = diagnose({
    ...ctx.input,
    operator: undefined,
    target: { kind: stuck.kind, namespace: stuck.obj.metadata.namespace, name: stuck.obj.metadata.name ?? '' },
    object: stuck.obj,
    descendants: below,
  });
  if (d.verdict !== 'broken') return { status: 'progressing', detail: why, evidence: [], next: [] };
  return { status: 'broken', detail: `its ${d.summary}`, evidence: d.evidence, next: d.next };
}

// ---- the links --------------------------------------------------------------------------------

function checkSpec(ctx: Context, kind: string, obj: KubeObject, converged: boolean): LinkResult {
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const name = obj.metadata.name ?? '';
  if (kind === 'Deployment' && spec.paused === true && !converged) {
    return {
      status: 'broken',
      detail: 'the Deployment is paused: its controller does not roll out template changes until it is resumed',
      evidence: [
        {
          object: refOf(kind, obj),
          source: 'field',
          type: 'spec.paused',
          reason: 'Paused',
          message: 'spec.paused is true',
          since: lastSpecChange(obj),
          forMs: since(lastSpecChange(obj), ctx.now),
        },
      ],
      next: [`kubectl rollout resume deployment/${name}${ctx.nsFlag()}`],
    };
  }
  if ((kind === 'Job' || kind === 'CronJob') && spec.suspend === true && !converged) {
    return {
      status: 'broken',
      detail: `the ${kind} is suspended: no Pods are created until spec.suspend is false`,
      evidence: [
        {
          object: refOf(kind, obj),
          source: 'field',
          type: 'spec.suspend',
          reason: 'Suspended',
          message: 'spec.suspend is true',
          since: lastSpecChange(obj),
          forMs: since(lastSpecChange(obj), ctx.now),
        },
      ],
      next: [`kubectl patch ${kind.toLowerCase()} ${name}${ctx.nsFlag()} --type merge -p '{"spec":{"suspend":false}}'`],
    };
  }
  if (typeof spec.replicas === 'number' && spec.replicas === 0) return ok('spec.replicas is 0: nothing to run');
  return ok(`generation ${obj.metadata.generation ?? '-'}`);
}

/** Whether status.observedGeneration is the controller's acknowledgement for this object. */
function hasObservedGeneration(kind: string, obj: KubeObject): boolean {
  if (kind === 'Job' || kind === 'CronJob' || kind === 'Pod') return false;
  // Kinds the tool does not know: only when their controller writes one.
  return KCM_KINDS.has(kind) || typeof (obj.status as { observedGeneration?: unknown } | undefined)?.observedGeneration === 'number';
}

function checkObserved(ctx: Context, kind: string, obj: KubeObject, converged: boolean): LinkResult {
  const isKcm = KCM_KINDS.has(kind);
  const lease = isKcm ? judgeLease(ctx, 'kube-controller-manager') : undefined;
  const evidence: Evidence[] = [];
  const next: string[] = [];
  // The target and every workload in the chain below it (a Deployment's ReplicaSets).
  const workloads: Obj[] = [{ kind, obj }, ...ctx.input.descendants.filter((d) => d.kind !== 'Pod' && live(d.obj))];
  const lagging = workloads
    .filter((w) => hasObservedGeneration(w.kind, w.obj) && typeof w.obj.metadata.generation === 'number')
    .map((w) => {
      const observed = (w.obj.status as { observedGeneration?: number } | undefined)?.observedGeneration ?? 0;
      const changed = lastSpecChange(w.obj);
      return { ...w, observed, changed, forMs: since(changed, ctx.now) };
    })
    .filter((w) => w.observed < (w.obj.metadata.generation ?? 0));
  for (const w of lagging.slice(0, MAX_OBJECTS)) {
    evidence.push({
      object: refOf(w.kind, w.obj),
      source: 'field',
      type: 'status.observedGeneration',
      reason: 'GenerationNotObserved',
      message: `observedGeneration ${w.observed} < generation ${w.obj.metadata.generation}`,
      since: w.changed,
      forMs: w.forMs,
    });
  }
  if (lease?.healthy === false) {
    evidence.push(lease.evidence!);
    next.push(lease.next, ctx.kubectl('describe', kind, obj.metadata.name ?? ''));
    const what =
      lagging.length > 0
        ? `generation ${lagging[0]!.obj.metadata.generation} of ${lagging[0]!.kind}/${lagging[0]!.obj.metadata.name} is not observed and `
        : converged
          ? 'the rollout converged earlier, but '
          : '';
    return {
      status: 'broken',
      detail: `${what}kube-controller-manager's leader Lease is ${lease.evidence!.reason === 'Expired' ? 'expired' : lease.evidence!.reason === 'NotFound' ? 'missing' : 'not held'}: no controller is reconciling ${kind}s`,
      evidence,
      next,
    };
  }
  if (lagging.length === 0) {
    if (isKcm && lease?.healthy === undefined && !converged) {
      return {
        status: 'unknown',
        detail: 'generation observed, but whether kube-controller-manager is running could not be seen (its Lease)',
        evidence,
        next: [lease!.next],
      };
    }
    const observedDetail = hasObservedGeneration(kind, obj)
      ? `observedGeneration ${(obj.status as { observedGeneration?: number } | undefined)?.observedGeneration ?? '-'} = generation`
      : 'no observedGeneration on this kind';
    return {
      status: 'ok',
      detail: `${observedDetail}${lease?.healthy ? `; ${lease.evidence!.message}` : ''}`,
      evidence: lease?.evidence ? [lease.evidence] : [],
      next: [],
    };
  }
  const longest = Math.max(...lagging.map((w) => w.forMs ?? 0));
  if (longest <= ctx.grace) {
    return {
      status: 'progressing',
      detail: `waiting for the controller to observe generation ${lagging[0]!.obj.metadata.generation} (${formatDuration(longest)})`,
      evidence,
      next,
    };
  }
  const q = queueEvidence(ctx, lagging[0]!.kind);
  if (q) evidence.push(q);
  if (lease?.healthy) evidence.push(lease.evidence!);
  next.push(ctx.kubectl('describe', lagging[0]!.kind, lagging[0]!.obj.metadata.name ?? ''));
  if (isKcm) next.push(lease!.next);
  const why = lease?.healthy
    ? `its controller holds its Lease but has not observed it`
    : lease?.healthy === undefined && isKcm
      ? `kube-controller-manager's Lease could not be read`
      : 'no controller has observed it';
  return {
    status: 'broken',
    detail: `generation ${lagging[0]!.obj.metadata.generation} of ${lagging[0]!.kind}/${lagging[0]!.obj.metadata.name} not observed for ${formatDuration(longest)}: ${why}`,
    evidence,
    next,
  };
}

/** How many running Pods a workload wants now; undefined for Jobs, which are judged by their Events. */
function podsWanted(kind: string, obj: KubeObject): number | undefined {
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const status = (obj.status ?? {}) as Record<string, unknown>;
  switch (kind) {
    case 'ReplicaSet':
    case 'ReplicationController':
    case 'StatefulSet':
      return num(spec.replicas, 1);
    case 'DaemonSet':
      return num(status.desiredNumberScheduled);
    default:
      return undefined;
  }
}

function checkChildren(ctx: Context, kind: string, obj: KubeObject, converged: boolean): LinkResult {
  const evidence: Evidence[] = [];
  const next: string[] = [];
  let progressing: string | undefined;
  let unexplained: { ref: Obj; forMs: number; missing: number } | undefined;
  // Pod-owning workloads in the chain: the target itself, or a Deployment's ReplicaSets, a CronJob's Jobs.
  const owners: Obj[] = [];
  if (kind === 'Deployment' || kind === 'CronJob') owners.push(...ctx.input.descendants.filter((d) => d.kind !== 'Pod' && live(d.obj)));
  else owners.push({ kind, obj });
  if (kind === 'Deployment') {
    // The deployment controller failing to create the new ReplicaSet says so in a condition and an Event.
    const failure = conditionOf(obj, 'ReplicaFailure');
    const rsEvents = ctx.eventsAbout(kind, obj, (e) => eventType(e) === 'Warning' && FAILED_CREATE_REASONS.has(eventReason(e)));
    const revision = obj.metadata.annotations?.['deployment.kubernetes.io/revision'];
    const newRs = owners.find(
      (o) => o.kind === 'ReplicaSet' && revision !== undefined && o.obj.metadata.annotations?.['deployment.kubernetes.io/revision'] === revision,
    );
    if (!newRs && failure?.status === 'True') {
      evidence.push(conditionEvidence(refOf(kind, obj), failure, ctx.now));
      for (const e of rsEvents.slice(0, 1)) evidence.push(eventEvidence(refOf(kind, obj), e, ctx.now));
      return {
        status: 'broken',
        detail: `the new ReplicaSet was not created: ${failure.message ?? failure.reason ?? ''}`,
        evidence,
        next: [ctx.kubectl('describe', kind, obj.metadata.name ?? '')],
      };
    }
  }
  for (const owner of owners) {
    const wanted = podsWanted(owner.kind, owner.obj);
    const pods = ctx.childrenOf(owner.obj, 'Pod').map((p) => p.obj);
    const active = pods.filter((p) => live(p) && phaseOf(p) !== 'Succeeded' && phaseOf(p) !== 'Failed');
    const newestPod =
      pods
        .map((p) => p.metadata.creationTimestamp ?? '')
        .sort()
        .pop() ?? '';
    const failedCreates = ctx.eventsAbout(owner.kind, owner.obj, (e) => eventType(e) === 'Warning' && FAILED_CREATE_REASONS.has(eventReason(e)));
    const failure = conditionOf(owner.obj, 'ReplicaFailure');
    let missing = 0;
    if (wanted !== undefined) missing = Math.max(0, wanted - active.length);
    else if (owner.kind === 'Job') {
      const finished = ['Complete', 'Failed'].some((t) => conditionOf(owner.obj, t)?.status === 'True');
      const suspended = (owner.obj.spec as { suspend?: boolean } | undefined)?.suspend === true;
      // A running Job wants a Pod: it could not make one when creation failed after its newest Pod,
      // or it has never had any. Failed Pods and none active is its retry back-off, not this link.
      const failedSinceLastPod = failedCreates.some((e) => isAfter(eventLastTime(e), newestPod));
      if (!finished && !suspended && (failedSinceLastPod || pods.length === 0)) missing = 1;
    }
    if (missing === 0) continue;
    // Only failures since the workload last changed or last made a Pod explain Pods missing now.
    const from = [newestPod, lastSpecChange(owner.obj) ?? ''].sort().pop() ?? '';
    const relevantEvents = failedCreates.filter((e) => isAfter(eventLastTime(e), from));
    if (relevantEvents.length > 0 || failure?.status === 'True') {
      if (failure?.status === 'True') evidence.push(conditionEvidence(refOf(owner.kind, owner.obj), failure, ctx.now));
      for (const e of relevantEvents.slice(0, 2)) evidence.push(eventEvidence(refOf(owner.kind, owner.obj), e, ctx.now));
      const message = relevantEvents[0] ? eventEvidence(refOf(owner.kind, owner.obj), relevantEvents[0], ctx.now).message : (failure?.message ?? '');
      next.push(ctx.kubectl('describe', owner.kind, owner.obj.metadata.name ?? ''));
      if (/quota/i.test(message)) next.push(`kubectl describe resourcequota${ctx.nsFlag()}`);
      if (/forbidden/i.test(message) && !/quota/i.test(message))
        next.push(
          `kubectl auth can-i create pods${ctx.nsFlag()} --as=system:serviceaccount:kube-system:${owner.kind === 'Job' ? 'job-controller' : owner.kind === 'StatefulSet' ? 'statefulset-controller' : owner.kind === 'DaemonSet' ? 'daemon-set-controller' : 'replicaset-controller'}`,
        );
      return {
        status: 'broken',
        detail: `${owner.kind}/${owner.obj.metadata.name} could not create ${missing === 1 ? 'a Pod' : `${missing} Pods`}: ${message}`,
        evidence,
        next,
      };
    }
    const changed = lastSpecChange(owner.obj);
    const forMs = Math.min(since(changed, ctx.now) ?? 0, since(newestPod || undefined, ctx.now) ?? Infinity);
    if (forMs <= ctx.grace) progressing ??= `${owner.kind}/${owner.obj.metadata.name}: ${plural(missing, 'Pod')} still to be created`;
    else unexplained ??= { ref: owner, forMs, missing };
  }
  if (unexplained) {
    const { ref, forMs, missing } = unexplained;
    const lease = judgeLease(ctx, 'kube-controller-manager');
    evidence.push({
      object: refOf(ref.kind, ref.obj),
      source: 'field',
      type: 'status',
      reason: 'PodsMissing',
      message: `${plural(missing, 'Pod')} missing and no FailedCreate Event or ReplicaFailure condition explains it`,
      forMs,
    });
    if (lease.evidence) evidence.push(lease.evidence);
    if (!ctx.input.events.seen) {
      return {
        status: 'unknown',
        detail: `${ref.kind}/${ref.obj.metadata.name} is missing ${plural(missing, 'Pod')}; its Events could not be read`,
        evidence,
        next: [ctx.kubectl('describe', ref.kind, ref.obj.metadata.name ?? '')],
      };
    }
    return {
      status: 'broken',
      detail: `${ref.kind}/${ref.obj.metadata.name} is missing ${plural(missing, 'Pod')} for ${formatDuration(forMs)}`,
      evidence,
      next: [ctx.kubectl('describe', ref.kind, ref.obj.metadata.name ?? ''), lease.next],
    };
  }
  if (progressing) return { status: 'progressing', detail: progressing, evidence: [], next: [] };
  return ok(converged ? 'all Pods created' : `${plural(ctx.pods.filter(live).length, 'Pod')} exist`);
}

function checkScheduled(ctx: Context): LinkResult {
  const unscheduled = ctx.pods.filter((p) => live(p) && !(p.spec as { nodeName?: string } | undefined)?.nodeName && phaseOf(p) === 'Pending');
  if (unscheduled.length === 0) return ok(ctx.pods.length ? 'every Pod is bound to a node' : 'no Pods');
  const evidence: Evidence[] = [];
  const next: string[] = [];
  const decided = unscheduled.filter((p) => {
    const c = conditionOf(p, 'PodScheduled');
    return c?.status === 'False' && c.reason !== undefined && c.reason !== '';
  });
  if (decided.length > 0) {
    for (const p of decided.slice(0, MAX_OBJECTS)) {
      evidence.push(conditionEvidence(refOf('Pod', p), conditionOf(p, 'PodScheduled')!, ctx.now));
      for (const e of ctx.eventsAbout('Pod', p, (e) => eventReason(e) === 'FailedScheduling').slice(0, 1))
        evidence.push(eventEvidence(refOf('Pod', p), e, ctx.now));
    }
    const first = conditionOf(decided[0]!, 'PodScheduled')!;
    next.push(ctx.kubectl('describe', 'Pod', decided[0]!.metadata.name ?? ''));
    if (/Insufficient|node\(s\)|nodes are available/.test(first.message ?? '')) next.push('kubectl describe nodes');
    return { status: 'broken', detail: `${plural(decided.length, 'Pod')} cannot be scheduled: ${first.reason}: ${first.message ?? ''}`.trim(), evidence, next };
  }
  const waited = unscheduled.map((p) => ({ p, forMs: since(p.metadata.creationTimestamp, ctx.now) ?? 0 })).sort((a, b) => b.forMs - a.forMs);
  const oldest = waited[0]!;
  if (oldest.forMs <= ctx.grace)
    return {
      status: 'progressing',
      detail: `${plural(unscheduled.length, 'Pod')} waiting for the scheduler (${formatDuration(oldest.forMs)})`,
      evidence: [],
      next: [],
    };
  const lease = judgeLease(ctx, 'kube-scheduler');
  evidence.push({
    object: refOf('Pod', oldest.p),
    source: 'field',
    type: 'spec.nodeName',
    reason: 'NotScheduled',
    message: 'not bound to a node and no PodScheduled condition',
    since: oldest.p.metadata.creationTimestamp,
    forMs: oldest.forMs,
  });
  if (lease.evidence) evidence.push(lease.evidence);
  next.push(lease.next, ctx.kubectl('describe', 'Pod', oldest.p.metadata.name ?? ''));
  if (lease.healthy === undefined)
    return {
      status: 'unknown',
      detail: `${plural(unscheduled.length, 'Pod')} not scheduled for ${formatDuration(oldest.forMs)}; whether kube-scheduler runs could not be seen`,
      evidence,
      next,
    };
  const why = lease.healthy
    ? 'kube-scheduler holds its Lease but has not considered them (another schedulerName?)'
    : "kube-scheduler's leader Lease is not renewed: no scheduler is running";
  const schedulerName = (oldest.p.spec as { schedulerName?: string } | undefined)?.schedulerName;
  if (lease.healthy && schedulerName && schedulerName !== 'default-scheduler')
    evidence.push({
      object: refOf('Pod', oldest.p),
      source: 'field',
      type: 'spec.schedulerName',
      reason: 'SchedulerName',
      message: `spec.schedulerName is ${schedulerName}`,
    });
  return { status: 'broken', detail: `${plural(unscheduled.length, 'Pod')} not scheduled for ${formatDuration(oldest.forMs)}: ${why}`, evidence, next };
}

interface PodProblem {
  pod: KubeObject;
  reason: string;
  /** Definitive (an error state) rather than slow. */
  definite: boolean;
  forMs: number;
  evidence: Evidence[];
  next: string[];
}

const BAD_WAITING =
  /ErrImagePull|ImagePullBackOff|CrashLoopBackOff|CreateContainerConfigError|CreateContainerError|InvalidImageName|RunContainerError|ErrImageNeverPull|PreStartHookError|PostStartHookError/;

function containerProblem(ctx: Context, pod: KubeObject, statuses: ContainerStatus[], init: boolean): PodProblem | undefined {
  const ref = refOf('Pod', pod);
  const name = pod.metadata.name ?? '';
  for (const c of statuses) {
    const w = c.state?.waiting;
    if (w && !STARTING_REASONS.has(w.reason ?? '')) {
      const definite = BAD_WAITING.test(w.reason ?? '');
      const last = c.lastState?.terminated;
      const evidence: Evidence[] = [
        {
          object: ref,
          source: 'container',
          type: `${init ? 'initContainer' : 'container'} ${c.name}`,
          status: 'waiting',
          reason: w.reason ?? '',
          message: [
            w.message ?? '',
            last ? `last exit ${last.exitCode ?? '?'} (${last.reason ?? ''}) at ${last.finishedAt ?? '?'}` : '',
            c.restartCount ? `${plural(c.restartCount, 'restart')}` : '',
          ]
            .filter(Boolean)
            .join('; '),
          since: conditionOf(pod, 'ContainersReady')?.lastTransitionTime,
          forMs: since(conditionOf(pod, 'ContainersReady')?.lastTransitionTime, ctx.now),
        },
      ];
      const next = [ctx.kubectl('describe', 'Pod', name)];
      if (/CrashLoopBackOff|RunContainerError/.test(w.reason ?? '')) next.push(`kubectl logs ${name}${ctx.nsFlag()} -c ${c.name} --previous`);
      return { pod, reason: w.reason ?? 'Waiting', definite, forMs: evidence[0]!.forMs ?? 0, evidence, next };
    }
    const t = c.state?.terminated;
    if (t && (t.exitCode ?? 0) !== 0) {
      return {
        pod,
        reason: `exit code ${t.exitCode}`,
        definite: true,
        forMs: since(t.finishedAt, ctx.now) ?? 0,
        evidence: [
          {
            object: ref,
            source: 'container',
            type: `${init ? 'initContainer' : 'container'} ${c.name}`,
            status: 'terminated',
            reason: t.reason ?? 'Error',
            message: `exited with code ${t.exitCode}${t.message ? `: ${t.message}` : ''}`,
            since: t.finishedAt,
            forMs: since(t.finishedAt, ctx.now),
          },
        ],
        next: [ctx.kubectl('describe', 'Pod', name), `kubectl logs ${name}${ctx.nsFlag()} -c ${c.name}`],
      };
    }
  }
  return undefined;
}

function podProblem(ctx: Context, pod: KubeObject, nodes: Map<string, KubeObject> | undefined): PodProblem | 'unseen-node' | undefined {
  const ref = refOf('Pod', pod);
  const name = pod.metadata.name ?? '';
  const nodeName = (pod.spec as { nodeName?: string }).nodeName!;
  const ready = conditionOf(pod, 'Ready');
  const readyFor = since(ready?.lastTransitionTime, ctx.now) ?? since(pod.metadata.creationTimestamp, ctx.now) ?? 0;
  const podWarnings = (): Evidence[] =>
    ctx
      .eventsAbout('Pod', pod, (e) => eventType(e) === 'Warning')
      .slice(0, 2)
      .map((e) => eventEvidence(ref, e, ctx.now));
  // The node first: a NotReady node explains every Pod on it.
  if (nodes) {
    const node = nodes.get(nodeName);
    if (!node) {
      return {
        pod,
        reason: `node ${nodeName} does not exist`,
        definite: true,
        forMs: readyFor,
        evidence: [{ object: ref, source: 'field', type: 'spec.nodeName', reason: 'NodeNotFound', message: `bound to node ${nodeName}, which does not exist` }],
        next: ['kubectl get nodes'],
      };
    }
    const nr = conditionOf(node, 'Ready');
    if (nr?.status !== 'True') {
      const evidence = [
        nr
          ? conditionEvidence(refOf('Node', node), nr, ctx.now)
          : {
              object: refOf('Node', node),
              source: 'condition' as const,
              type: 'Ready',
              reason: 'NoReadyCondition',
              message: 'the node has no Ready condition',
            },
      ];
      if (ready && ready.status !== 'True') evidence.push(conditionEvidence(ref, ready, ctx.now));
      evidence.push(
        ...ctx
          .eventsAbout('Pod', pod, (e) => eventReason(e) === 'NodeNotReady')
          .slice(0, 1)
          .map((e) => eventEvidence(ref, e, ctx.now)),
      );
      return {
        pod,
        reason: `node ${nodeName} is not Ready`,
        definite: true,
        forMs: evidence[0]!.forMs ?? readyFor,
        evidence,
        next: [`kubectl describe node ${nodeName}`, ctx.kubectl('describe', 'Pod', name)],
      };
    }
  }
  const { init, main } = containerStatuses(pod);
  const problem = containerProblem(ctx, pod, init, true) ?? containerProblem(ctx, pod, main, false);
  if (problem) {
    problem.evidence.push(...podWarnings());
    return problem;
  }
  if (!nodes) return 'unseen-node';
  if (phaseOf(pod) === 'Failed') {
    const s = pod.status as { reason?: string; message?: string };
    return {
      pod,
      reason: `Pod failed${s.reason ? `: ${s.reason}` : ''}`,
      definite: true,
      forMs: readyFor,
      evidence: [
        { object: ref, source: 'field', type: 'status.phase', status: 'Failed', reason: s.reason ?? 'Failed', message: s.message ?? '' },
        ...podWarnings(),
      ],
      next: [ctx.kubectl('describe', 'Pod', name)],
    };
  }
  const running = main.filter((c) => c.state?.running);
  const evidence: Evidence[] = [];
  const cr = conditionOf(pod, 'ContainersReady');
  let reason: string;
  if (main.length > 0 && running.length === main.length && main.every((c) => c.ready)) {
    // Every container is ready but the Pod is not: marked so from outside (node lifecycle, a readiness gate).
    reason = `Pod not Ready though its containers are${ready?.reason ? ` (${ready.reason})` : ''}`;
    if (ready) evidence.push(conditionEvidence(ref, ready, ctx.now));
  } else if (running.length > 0) {
    reason = `${plural(main.filter((c) => !c.ready).length, 'container')} running but not ready`;
    for (const c of main.filter((c) => !c.ready).slice(0, 2))
      evidence.push({
        object: ref,
        source: 'container',
        type: `container ${c.name}`,
        status: c.state?.running ? 'running' : 'waiting',
        reason: 'NotReady',
        message: `started ${c.state?.running?.startedAt ?? '?'}, ready false`,
        since: cr?.lastTransitionTime,
        forMs: since(cr?.lastTransitionTime, ctx.now),
      });
    if (cr) evidence.push(conditionEvidence(ref, cr, ctx.now));
  } else {
    reason = 'containers not started';
    const waiting = main.find((c) => c.state?.waiting);
    evidence.push({
      object: ref,
      source: 'container',
      type: waiting ? `container ${waiting.name}` : 'containers',
      status: 'waiting',
      reason: waiting?.state?.waiting?.reason ?? 'NoStatus',
      message: waiting?.state?.waiting?.message ?? 'the node has not reported container statuses',
      since: ready?.lastTransitionTime,
      forMs: readyFor,
    });
  }
  evidence.push(...podWarnings());
  const containerName = main.find((c) => !c.ready)?.name;
  return {
    pod,
    reason,
    definite: false,
    forMs: readyFor,
    evidence,
    next: [ctx.kubectl('describe', 'Pod', name), ...(running.length > 0 && containerName ? [`kubectl logs ${name}${ctx.nsFlag()} -c ${containerName}`] : [])],
  };
}

function checkContainers(ctx: Context, targetKind: string, target: KubeObject): LinkResult {
  const jobFailed = (pod: KubeObject): boolean => {
    // A failed Pod of a Job is one attempt: the Job retries up to its backoffLimit, and its Failed
    // condition (status-conditions) is where a Job that gave up is reported.
    if (controllerKind(pod) !== 'Job') return false;
    const job = controllerUid(pod) === target.metadata.uid ? target : ctx.input.descendants.find((d) => d.obj.metadata.uid === controllerUid(pod))?.obj;
    return job !== undefined && conditionOf(job, 'Failed')?.status === 'True';
  };
  const candidates = ctx.pods.filter((p) => {
    if (!live(p) || !(p.spec as { nodeName?: string } | undefined)?.nodeName) return false;
    const phase = phaseOf(p);
    if (phase === 'Succeeded') return false;
    if (phase === 'Failed') return controllerKind(p) === 'Job' ? !jobFailed(p) && !jobDone(ctx, p, target) : true;
    return !isReady(p);
  });
  const scheduled = ctx.pods.filter((p) => live(p) && (p.spec as { nodeName?: string } | undefined)?.nodeName);
  if (candidates.length === 0) return ok(scheduled.length ? `${plural(scheduled.length, 'scheduled Pod')} ready or finished` : 'no scheduled Pods');
  let nodes: Map<string, KubeObject> | undefined;
  if (ctx.input.nodes.seen) nodes = new Map(ctx.input.nodes.value.map((n) => [n.metadata.name ?? '', n]));
  const problems: PodProblem[] = [];
  let unseenNode = 0;
  for (const p of candidates) {
    const r = podProblem(ctx, p, nodes);
    if (r === 'unseen-node') unseenNode++;
    else if (r) problems.push(r);
  }
  const broken = problems.filter((p) => p.definite || p.forMs > ctx.grace).sort((a, b) => Number(b.definite) - Number(a.definite) || b.forMs - a.forMs);
  if (broken.length > 0) {
    const first = broken[0]!;
    const same = broken.filter((b) => b.reason === first.reason);
    const evidence = same.slice(0, MAX_OBJECTS).flatMap((b) => b.evidence);
    // One node's evidence once, however many Pods it explains.
    const seen = new Set<string>();
    const deduped = evidence.filter((e) => {
      const key = `${e.object.kind}/${e.object.name}/${e.source}/${e.type ?? ''}/${e.reason}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const jobNote = targetKind === 'Job' && phaseOf(first.pod) === 'Failed' ? jobRetries(target) : '';
    return {
      status: 'broken',
      detail: `${same.length === 1 ? `Pod/${first.pod.metadata.name}` : `${same.length} Pods`}: ${first.reason}${first.definite ? '' : ` for ${formatDuration(first.forMs)}`}${jobNote}`,
      evidence: deduped,
      next: [...new Set(first.next)],
    };
  }
  if (unseenNode > 0)
    return { status: 'unknown', detail: `${plural(unseenNode, 'Pod')} not ready and their nodes could not be seen`, evidence: [], next: ['kubectl get nodes'] };
  return { status: 'progressing', detail: `${plural(problems.length, 'Pod')} starting (${problems[0] ? problems[0].reason : ''})`, evidence: [], next: [] };
}

function jobDone(ctx: Context, pod: KubeObject, target: KubeObject): boolean {
  const job = controllerUid(pod) === target.metadata.uid ? target : ctx.input.descendants.find((d) => d.obj.metadata.uid === controllerUid(pod))?.obj;
  return job !== undefined && conditionOf(job, 'Complete')?.status === 'True';
}

function jobRetries(job: KubeObject): string {
  const failed = num((job.status as { failed?: number } | undefined)?.failed);
  const limit = num((job.spec as { backoffLimit?: number } | undefined)?.backoffLimit, 6);
  return `; the Job retries (${failed} failed, backoffLimit ${limit})`;
}

/** Conditions on the target that say it failed or gave up. */
function terminalConditions(ctx: Context, kind: string, obj: KubeObject): Evidence[] {
  const ref = refOf(kind, obj);
  const out: Evidence[] = [];
  const progressing = conditionOf(obj, 'Progressing');
  if (progressing?.status === 'False' || progressing?.reason === 'ProgressDeadlineExceeded') out.push(conditionEvidence(ref, progressing, ctx.now));
  const rf = conditionOf(obj, 'ReplicaFailure');
  if (rf?.status === 'True') out.push(conditionEvidence(ref, rf, ctx.now));
  for (const t of ['Failed', 'FailureTarget', 'Stalled']) {
    const c = conditionOf(obj, t);
    if (c?.status === 'True') out.push(conditionEvidence(ref, c, ctx.now));
  }
  return out;
}

function checkConditions(ctx: Context, kind: string, obj: KubeObject): LinkResult {
  const terminal = terminalConditions(ctx, kind, obj);
  const name = obj.metadata.name ?? '';
  if (terminal.length > 0) {
    const evidence = [...terminal, ...(KCM_KINDS.has(kind) ? [] : warningsAbout(ctx, kind, obj))];
    const next = [ctx.kubectl('describe', kind, name)];
    if (kind === 'Job') {
      // What the attempts died of: the failed Pods' containers.
      const failed = ctx.pods
        .filter((p) => phaseOf(p) === 'Failed')
        .sort((a, b) => (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''));
      for (const p of failed.slice(0, MAX_OBJECTS)) {
        const { main } = containerStatuses(p);
        const problem = containerProblem(ctx, p, main, false);
        if (problem) evidence.push(...problem.evidence);
        else
          evidence.push({
            object: refOf('Pod', p),
            source: 'field',
            type: 'status.phase',
            status: 'Failed',
            reason: (p.status as { reason?: string }).reason ?? 'Failed',
            message: (p.status as { message?: string }).message ?? '',
          });
      }
      if (failed[0]) next.push(`kubectl logs ${failed[0].metadata.name}${ctx.nsFlag()}`);
    }
    const first = terminal[0]!;
    return { status: 'broken', detail: `${first.type} ${first.status}: ${first.reason}${first.message ? `: ${first.message}` : ''}`, evidence, next };
  }
  const v = ctx.input.readiness.judge(obj, { kind, target: true });
  const detail = describeVerdict(v);
  if (!KCM_KINDS.has(kind) && v.status === 'Suspended') return { status: 'progressing', detail: `suspended: ${detail}`, evidence: [], next: [] };
  // A kind the tool does not know: what its readiness rule says. Not ready for longer than the
  // grace (since its status last changed, or since it was created) is where it is stuck.
  if (!KCM_KINDS.has(kind) && !settledOrOwned(v)) {
    const r = conditionOf(obj, 'Ready');
    const forMs = since(v.serverTime ?? obj.metadata.creationTimestamp, ctx.now) ?? 0;
    const evidence = r && r.status !== 'True' ? [conditionEvidence(refOf(kind, obj), r, ctx.now)] : [];
    const q = operatorQueueEvidence(ctx);
    if (q && (q.reason === 'Retrying' || forMs > ctx.grace)) evidence.push(q);
    evidence.push(...warningsAbout(ctx, kind, obj));
    if (v.status === 'Failed') return { status: 'broken', detail: `failed: ${detail}`, evidence, next: [ctx.kubectl('describe', kind, name)] };
    if (forMs > ctx.grace)
      return { status: 'broken', detail: `not ready for ${formatDuration(forMs)}: ${detail}`, evidence, next: [ctx.kubectl('describe', kind, name)] };
    return { status: 'progressing', detail, evidence: [], next: [] };
  }
  if (!KCM_KINDS.has(kind) && v.childrenDecide) {
    // Its status has no verdict of its own: what it owns decides (docs/readiness.md).
    const child = childDiagnosis(ctx, obj);
    if (child) return child;
  }
  return ok(detail);
}

/** Ready, or a status that leaves the verdict to what the object owns. */
function settledOrOwned(v: Verdict): boolean {
  return v.status === 'Current' || (v.status === 'Unknown' && v.childrenDecide === true);
}

// ---- the walk ---------------------------------------------------------------------------------

/** A kind an operator reconciles: the caller passed what it found of the operator (custom resources only). */
function isOperated(kind: string, input: DiagnoseInput): boolean {
  return input.operator !== undefined && !KCM_KINDS.has(kind) && kind !== 'Pod';
}

export function diagnose(input: DiagnoseInput): Diagnosis {
  const ctx = new Context(input);
  const { kind, name } = input.target;
  const label = `${kind}/${name}`;
  const base = { target: { ...input.target }, at: new Date(input.now).toISOString() };
  const obj = input.object;
  if (!obj) {
    const links: LinkCheck[] = LINKS.map((l) => ({
      link: l,
      status: l === 'accepted' ? 'broken' : l === 'spec' ? 'unknown' : 'not-applicable',
      detail: l === 'accepted' ? `${label} does not exist` : '',
    }));
    return {
      ...base,
      verdict: 'broken',
      link: 'accepted',
      summary: `${label} does not exist${input.target.namespace ? ` in namespace ${input.target.namespace}` : ''}: it was not created, or was refused or deleted`,
      evidence: [{ object: { ...input.target }, source: 'field', reason: 'NotFound', message: `no ${kind} named ${name} in the cache` }],
      next: [`kubectl get ${kind.toLowerCase()} ${name}${ctx.nsFlag()}`, `kubectl get events${ctx.nsFlag()} --field-selector involvedObject.name=${name}`],
      unseen: ctx.unseen,
      links,
    };
  }
  const conv = input.readiness.judge(obj, { kind, target: true });
  const converged = settledOrOwned(conv);
  const results: [LinkName, LinkResult][] = [];
  results.push(['spec', checkSpec(ctx, kind, obj, converged)]);
  results.push([
    'accepted',
    ok(
      `${obj.metadata.deletionTimestamp ? 'being deleted; ' : ''}resourceVersion ${obj.metadata.resourceVersion ?? '-'}, generation ${obj.metadata.generation ?? '-'}`,
    ),
  ]);
  results.push([
    'controller-observed',
    KCM_KINDS.has(kind)
      ? checkObserved(ctx, kind, obj, converged)
      : isOperated(kind, input)
        ? checkOperatorObserved(ctx, kind, obj, converged)
        : hasObservedGeneration(kind, obj)
          ? checkObserved(ctx, kind, obj, converged)
          : na('no observedGeneration and no known controller'),
  ]);
  const podKinds = KCM_KINDS.has(kind) || ctx.pods.length > 0;
  results.push(['children-created', podKinds ? checkChildren(ctx, kind, obj, converged) : na('no Pods in the owner chain')]);
  results.push(['scheduled', podKinds ? checkScheduled(ctx) : na('no Pods in the owner chain')]);
  results.push(['containers-started', podKinds ? checkContainers(ctx, kind, obj) : na('no Pods in the owner chain')]);
  results.push(['status-conditions', checkConditions(ctx, kind, obj)]);

  const links: LinkCheck[] = results.map(([link, r]) => ({ link, status: r.status, detail: r.detail }));
  const brokenAt = results.find(([, r]) => r.status === 'broken');
  if (brokenAt) {
    const [link, r] = brokenAt;
    const evidence = [...r.evidence];
    // What the target's own conditions say follows the cause (a deadline exceeded because of it).
    if (link !== 'status-conditions') {
      for (const e of terminalConditions(ctx, kind, obj))
        if (!evidence.some((x) => x.object.name === e.object.name && x.type === e.type && x.reason === e.reason)) evidence.push(e);
    }
    return { ...base, verdict: 'broken', link, summary: `${label}: ${r.detail}`, evidence, next: [...new Set(r.next)], unseen: ctx.unseen, links };
  }
  const unknownAt = results.find(([, r]) => r.status === 'unknown');
  if (unknownAt || ctx.unseen.length > 0) {
    const [link, r] = unknownAt ?? [null, undefined];
    const what = ctx.unseen.map((u) => u.what).join(', ');
    return {
      ...base,
      verdict: 'unknown',
      link,
      summary: `${label}: could not tell${r ? ` — ${r.detail}` : ''}${what ? `; not seen: ${what}` : ''}`,
      evidence: r?.evidence ?? [],
      next: r?.next ?? [],
      unseen: ctx.unseen,
      links,
    };
  }
  const progressing = results.find(([, r]) => r.status === 'progressing');
  const summary = converged
    ? `${label}: healthy — converged: ${describeVerdict(conv)}`
    : progressing
      ? `${label}: healthy so far — in progress: ${progressing[1].detail}`
      : `${label}: healthy — ${describeVerdict(conv)}`;
  return { ...base, verdict: 'healthy', link: null, summary, evidence: [], next: [], unseen: [], links };
}
