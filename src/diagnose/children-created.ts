/**
 * The link `children-created`: did the workloads in the chain create the children they want (the
 * new ReplicaSet, the Pods)? A FailedCreate Event or ReplicaFailure condition since the workload
 * last changed says why not; Pods missing past the grace with neither is broken on its own.
 */
import type { KubeObject } from '../kube/index.js';
import { formatDuration } from '../util/duration.js';
import { type Context, isAfter, lastSpecChange, type LinkResult, live, ok, type Obj, phaseOf, plural } from './context.js';
import { conditionEvidence, conditionOf, eventEvidence, eventLastTime, eventReason, eventType, refOf, since } from './evidence.js';
import { FAILED_CREATE_REASONS, KUBE_CONTROLLER_MANAGER, knowledgeOf, podOwners } from './kinds.js';
import { judgeLease } from './leader-lease.js';
import type { Evidence } from './types.js';

/** What one Pod-owning workload lacks: broken with why, in progress, or missing Pods nothing explains. */
type OwnerResult = { broken: LinkResult } | { progressing: string } | { unexplained: { ref: Obj; forMs: number; missing: number } } | undefined;

export function checkChildren(ctx: Context, kind: string, obj: KubeObject, converged: boolean): LinkResult {
  let progressing: string | undefined;
  let unexplained: { ref: Obj; forMs: number; missing: number } | undefined;
  const owners = podOwners(ctx, kind, obj);
  const notCreated = knowledgeOf(kind, obj)?.childNotCreated?.(ctx, obj, owners);
  if (notCreated) return notCreated;
  for (const owner of owners) {
    const r = ownerPods(ctx, owner);
    if (r === undefined) continue;
    if ('broken' in r) return r.broken;
    if ('progressing' in r) progressing ??= r.progressing;
    else unexplained ??= r.unexplained;
  }
  if (unexplained) return podsMissing(ctx, unexplained);
  if (progressing) return { status: 'progressing', detail: progressing, evidence: [], next: [] };
  return ok(converged ? 'all Pods created' : `${plural(ctx.pods.filter(live).length, 'Pod')} exist`);
}

/** The Pods one workload is missing, and what explains it. */
function ownerPods(ctx: Context, owner: Obj): OwnerResult {
  const creation = knowledgeOf(owner.kind, owner.obj)?.pods;
  const pods = ctx.podsOf(owner.obj);
  const active = pods.filter((p) => live(p) && phaseOf(p) !== 'Succeeded' && phaseOf(p) !== 'Failed');
  const newestPod =
    pods
      .map((p) => p.metadata.creationTimestamp ?? '')
      .sort()
      .pop() ?? '';
  const failedCreates = ctx.eventsAbout(owner.kind, owner.obj, (e) => eventType(e) === 'Warning' && FAILED_CREATE_REASONS.has(eventReason(e)));
  const failure = conditionOf(owner.obj, 'ReplicaFailure');
  const missing =
    creation?.missing({
      obj: owner.obj,
      active: active.length,
      pods: pods.length,
      failedCreateSinceNewestPod: failedCreates.some((e) => isAfter(eventLastTime(e), newestPod)),
    }) ?? 0;
  if (missing === 0) return undefined;
  // Only failures since the workload last changed or last made a Pod explain Pods missing now.
  const from = [newestPod, lastSpecChange(owner.obj) ?? ''].sort().pop() ?? '';
  const relevantEvents = failedCreates.filter((e) => isAfter(eventLastTime(e), from));
  if (relevantEvents.length > 0 || failure?.status === 'True') {
    const evidence: Evidence[] = [];
    if (failure?.status === 'True') evidence.push(conditionEvidence(refOf(owner.kind, owner.obj), failure, ctx.now));
    for (const e of relevantEvents.slice(0, 2)) evidence.push(eventEvidence(refOf(owner.kind, owner.obj), e, ctx.now));
    const message = relevantEvents[0] ? eventEvidence(refOf(owner.kind, owner.obj), relevantEvents[0], ctx.now).message : (failure?.message ?? '');
    const next = [ctx.kubectl('describe', owner.kind, owner.obj.metadata.name ?? '')];
    if (/quota/i.test(message)) next.push(`kubectl describe resourcequota${ctx.nsFlag()}`);
    if (/forbidden/i.test(message) && !/quota/i.test(message))
      next.push(`kubectl auth can-i create pods${ctx.nsFlag()} --as=system:serviceaccount:kube-system:${creation!.serviceAccount}`);
    return {
      broken: {
        status: 'broken',
        detail: `${owner.kind}/${owner.obj.metadata.name} could not create ${missing === 1 ? 'a Pod' : `${missing} Pods`}: ${message}`,
        evidence,
        next,
      },
    };
  }
  const changed = lastSpecChange(owner.obj);
  const forMs = Math.min(since(changed, ctx.now) ?? 0, since(newestPod || undefined, ctx.now) ?? Infinity);
  if (forMs <= ctx.grace) return { progressing: `${owner.kind}/${owner.obj.metadata.name}: ${plural(missing, 'Pod')} still to be created` };
  return { unexplained: { ref: owner, forMs, missing } };
}

/** Pods missing past the grace that no Event or condition explains; unknown when the Events could not be read. */
function podsMissing(ctx: Context, { ref, forMs, missing }: { ref: Obj; forMs: number; missing: number }): LinkResult {
  const lease = judgeLease(ctx, KUBE_CONTROLLER_MANAGER);
  const evidence: Evidence[] = [
    {
      object: refOf(ref.kind, ref.obj),
      source: 'field',
      type: 'status',
      reason: 'PodsMissing',
      message: `${plural(missing, 'Pod')} missing and no FailedCreate Event or ReplicaFailure condition explains it`,
      forMs,
    },
  ];
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
