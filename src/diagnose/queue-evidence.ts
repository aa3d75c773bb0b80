/** A controller's work queue as evidence: kube-controller-manager's from its metrics, an operator's over the trace. Pure. */
import { controllerQueueFor } from '../metrics/index.js';
import { groupKindOf } from '../readiness/index.js';
import { formatDuration } from '../util/duration.js';
import type { Context, Obj } from './context.js';
import { queueActivity, queueSource } from './text.js';
import type { Evidence } from './types.js';

/** The work queue of the controller of `o`'s group and kind, from its metrics, as evidence (depth and retries). */
export function queueEvidence(ctx: Context, o: Obj): Evidence | undefined {
  const q = ctx.input.queues;
  const name = controllerQueueFor(groupKindOf(o.obj, { kind: o.kind }));
  if (!q?.seen || !name) return undefined;
  const row = q.value.find((r) => r.name === name && r.controller === null);
  if (!row) return undefined;
  const parts = [`depth ${row.depth ?? '-'}`, `retries/s ${row.retriesPerSecond === null ? '-' : row.retriesPerSecond.toFixed(2)}`];
  if (row.longestRunningProcessorSeconds) parts.push(`longest running ${formatDuration(row.longestRunningProcessorSeconds * 1000)}`);
  return { object: { kind: 'WorkQueue', name }, source: 'queue', reason: row.retriesPerSecond ? 'Retrying' : 'Queue', message: parts.join(', ') };
}

/** An operator's work queue over the trace, as evidence: depth, adds, retries and reconcile results. */
export function operatorQueueEvidence(ctx: Context): Evidence | undefined {
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
