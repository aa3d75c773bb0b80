/**
 * The link `controller-observed` for a custom resource whose operator the caller found: has the
 * operator seen its current generation? Not observed: no status at all, or an observedGeneration
 * behind. The evidence is the operator's Lease and queue.
 */
import type { KubeObject } from '../kube/index.js';
import { generationOf } from '../readiness/index.js';
import { formatDuration } from '../util/duration.js';
import { type Context, lastSpecChange, type LinkResult, warningsAbout } from './context.js';
import { refOf, since } from './evidence.js';
import { judgeLease, leaseState } from './leader-lease.js';
import { operatorQueueEvidence } from './queue-evidence.js';
import type { ControllerBehind, Evidence } from './types.js';

/** How the diagnosis names the operator: its field manager, else by its Lease. */
export function operatorName(b: ControllerBehind): string {
  return b.manager ?? (b.lease ? `the holder of Lease ${b.lease.namespace}/${b.lease.name}` : 'its controller');
}

export function checkOperatorObserved(ctx: Context, kind: string, obj: KubeObject, converged: boolean): LinkResult {
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
      detail: `${lagging ? `${what} for ${formatDuration(forMs)}, and ` : ''}${manager}'s leader Lease is ${leaseState(lease)}: no replica of it is reconciling ${kind}s`,
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
