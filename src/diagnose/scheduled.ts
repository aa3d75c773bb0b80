/**
 * The link `scheduled`: did the scheduler bind every Pod to a node? The PodScheduled condition and
 * FailedScheduling Events say why not; Pods never considered point at kube-scheduler's Lease.
 */
import { formatDuration } from '../util/duration.js';
import { type Context, type LinkResult, live, MAX_OBJECTS, ok, phaseOf, plural } from './context.js';
import { conditionEvidence, conditionOf, eventEvidence, eventReason, refOf, since } from './evidence.js';
import { judgeLease } from './leader-lease.js';
import type { Evidence } from './types.js';
import type { KubeObject } from '../kube/index.js';

export function checkScheduled(ctx: Context): LinkResult {
  const unscheduled = ctx.pods.filter((p) => live(p) && !(p.spec as { nodeName?: string } | undefined)?.nodeName && phaseOf(p) === 'Pending');
  if (unscheduled.length === 0) return ok(ctx.pods.length ? 'every Pod is bound to a node' : 'no Pods');
  const decided = unscheduled.filter((p) => {
    const c = conditionOf(p, 'PodScheduled');
    return c?.status === 'False' && c.reason !== undefined && c.reason !== '';
  });
  if (decided.length > 0) return unschedulable(ctx, decided);
  const waited = unscheduled.map((p) => ({ p, forMs: since(p.metadata.creationTimestamp, ctx.now) ?? 0 })).sort((a, b) => b.forMs - a.forMs);
  const oldest = waited[0]!;
  if (oldest.forMs <= ctx.grace)
    return {
      status: 'progressing',
      detail: `${plural(unscheduled.length, 'Pod')} waiting for the scheduler (${formatDuration(oldest.forMs)})`,
      evidence: [],
      next: [],
    };
  return neverConsidered(ctx, unscheduled.length, oldest);
}

/** Pods the scheduler tried and could not place: its condition and Event on each. */
function unschedulable(ctx: Context, decided: KubeObject[]): LinkResult {
  const evidence: Evidence[] = [];
  const next: string[] = [];
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

/** Pods past the grace with no PodScheduled condition: the scheduler never considered them. */
function neverConsidered(ctx: Context, count: number, oldest: { p: KubeObject; forMs: number }): LinkResult {
  const evidence: Evidence[] = [];
  const next: string[] = [];
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
      detail: `${plural(count, 'Pod')} not scheduled for ${formatDuration(oldest.forMs)}; whether kube-scheduler runs could not be seen`,
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
  return { status: 'broken', detail: `${plural(count, 'Pod')} not scheduled for ${formatDuration(oldest.forMs)}: ${why}`, evidence, next };
}
