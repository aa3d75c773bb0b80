/**
 * The link `controller-observed` for kube-controller-manager's workloads and kinds that write an
 * observedGeneration: has the controller seen the current generation of the target and of every
 * workload below it? Its leader Lease and work queue are the evidence of why not.
 */
import type { KubeObject } from '../kube/index.js';
import { formatDuration } from '../util/duration.js';
import { type Context, isPod, lastSpecChange, type LinkResult, live, MAX_OBJECTS, type Obj } from './context.js';
import { refOf, since } from './evidence.js';
import { hasObservedGeneration, knowledgeOf } from './kinds.js';
import { judgeLease, type LeaseJudgement, leaseState } from './leader-lease.js';
import { queueEvidence } from './queue-evidence.js';
import type { Evidence } from './types.js';

interface Lagging extends Obj {
  observed: number;
  changed: string | undefined;
  forMs: number | undefined;
}

/** The target and every workload in the chain below it (a Deployment's ReplicaSets) whose generation is not observed. */
function laggingWorkloads(ctx: Context, kind: string, obj: KubeObject): Lagging[] {
  const workloads: Obj[] = [{ kind, obj }, ...ctx.input.descendants.filter((d) => !isPod(d) && live(d.obj))];
  return workloads
    .filter((w) => hasObservedGeneration(w.kind, w.obj) && typeof w.obj.metadata.generation === 'number')
    .map((w) => {
      const observed = (w.obj.status as { observedGeneration?: number } | undefined)?.observedGeneration ?? 0;
      const changed = lastSpecChange(w.obj);
      return { ...w, observed, changed, forMs: since(changed, ctx.now) };
    })
    .filter((w) => w.observed < (w.obj.metadata.generation ?? 0));
}

export function checkObserved(ctx: Context, kind: string, obj: KubeObject, converged: boolean): LinkResult {
  const controller = knowledgeOf(kind, obj)?.controller;
  const lease = controller ? judgeLease(ctx, controller) : undefined;
  const evidence: Evidence[] = [];
  const next: string[] = [];
  const lagging = laggingWorkloads(ctx, kind, obj);
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
    return { status: 'broken', detail: `${what}${controller}'s leader Lease is ${leaseState(lease)}: no controller is reconciling ${kind}s`, evidence, next };
  }
  if (lagging.length === 0) return allObserved(kind, obj, controller, lease, converged, evidence);
  const longest = Math.max(...lagging.map((w) => w.forMs ?? 0));
  if (longest <= ctx.grace) {
    return {
      status: 'progressing',
      detail: `waiting for the controller to observe generation ${lagging[0]!.obj.metadata.generation} (${formatDuration(longest)})`,
      evidence,
      next,
    };
  }
  const q = queueEvidence(ctx, lagging[0]!);
  if (q) evidence.push(q);
  if (lease?.healthy) evidence.push(lease.evidence!);
  next.push(ctx.kubectl('describe', lagging[0]!.kind, lagging[0]!.obj.metadata.name ?? ''));
  if (controller) next.push(lease!.next);
  const why = lease?.healthy
    ? `its controller holds its Lease but has not observed it`
    : lease?.healthy === undefined && controller
      ? `${controller}'s Lease could not be read`
      : 'no controller has observed it';
  return {
    status: 'broken',
    detail: `generation ${lagging[0]!.obj.metadata.generation} of ${lagging[0]!.kind}/${lagging[0]!.obj.metadata.name} not observed for ${formatDuration(longest)}: ${why}`,
    evidence,
    next,
  };
}

/** Every generation observed: ok, unless whether the controller runs could not be seen and the target has not converged. */
function allObserved(
  kind: string,
  obj: KubeObject,
  controller: string | undefined,
  lease: LeaseJudgement | undefined,
  converged: boolean,
  evidence: Evidence[],
): LinkResult {
  if (controller && lease?.healthy === undefined && !converged) {
    return {
      status: 'unknown',
      detail: `generation observed, but whether ${controller} is running could not be seen (its Lease)`,
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
