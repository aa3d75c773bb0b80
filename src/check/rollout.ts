/**
 * Rollout checks: make the trigger write (restart or scale), trace the reconcile chain with the
 * Tracer until the workload converges, and hold the time to converge and the slowest hop to their
 * limits.
 *
 * - The deadline is --max-converge when given (it has failed by then; waiting longer cannot make it
 *   pass), else --timeout.
 * - The slowest hop is the largest time between a hop and the hop it follows, over the hops up to
 *   convergence: old Pods' graceful termination after convergence is not the controllers' latency.
 *   A rollout that never converged also counts the time since its last hop: a stall is a slow hop.
 * - A rollout that does not converge says where it is stuck: the Pods that are not ready, with the
 *   latest Warning event about each (FailedScheduling: 0/2 nodes are available: …).
 */
import { runUntilSynced } from '../commands/informer-session.js';
import { CheckFailedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { groupResource, type Kube } from '../kube/index.js';
import { Tracer, type TraceSnapshot, type TreeNode } from '../trace/tracer.js';
import type { Hop } from '../trace/types.js';
import { formatDuration } from '../util/duration.js';
import type { RunContext } from './context.js';
import type { CheckResult, RolloutCheckSpec } from './types.js';

function hopLabel(h: Hop): string {
  return `${h.object.kind}/${h.object.name} ${h.kind}`;
}

/** The results of a finished trace: pure, from the snapshot and the time it ended. */
export function evaluateRollout(spec: RolloutCheckSpec, snap: TraceSnapshot, endedAt: number, stuck?: string): CheckResult[] {
  const results: CheckResult[] = [];
  const outcome = snap.outcome ?? 'interrupted';
  const trigger = snap.trigger;
  const end = snap.hops.find((h) => h.kind === 'converged' || h.kind === 'failed');
  const limit = spec.maxConvergeMs ?? spec.timeoutMs;
  const limitWords = spec.maxConvergeMs !== undefined ? `the ${formatDuration(limit)} limit` : `the ${formatDuration(limit)} timeout`;
  const where = stuck ? `; ${stuck}` : '';
  if (outcome === 'interrupted') {
    results.push({ name: 'time to converge', passed: false, status: 'error', measured: null, limit, unit: 'ms', message: 'interrupted before the rollout ended', exitCode: ExitCode.Interrupted });
    return results;
  }
  switch (outcome) {
    case 'converged': {
      const elapsed = end && trigger ? end.observedAt - trigger.at : null;
      const passed = elapsed !== null && elapsed <= limit;
      const how = snap.endMessage ? ` (${snap.endMessage})` : '';
      results.push({
        name: 'time to converge',
        passed,
        status: passed ? 'passed' : 'failed',
        measured: elapsed,
        limit,
        unit: 'ms',
        message: elapsed === null ? `converged, but the time is unknown${how}` : passed ? `converged in ${formatDuration(elapsed)}${how}` : `converged in ${formatDuration(elapsed)}, over ${limitWords}${how}`,
      });
      break;
    }
    case 'no-rollout':
      results.push({ name: 'time to converge', passed: true, status: 'passed', measured: null, limit, unit: 'ms', message: `no rollout followed the write: ${snap.endMessage ?? ''}`.trim() });
      break;
    case 'timeout':
      results.push({ name: 'time to converge', passed: false, status: 'failed', measured: null, limit, unit: 'ms', message: `not converged within ${limitWords} (${snap.hops.length} hops seen)${where}` });
      break;
    case 'failed':
      results.push({ name: 'time to converge', passed: false, status: 'failed', measured: null, limit, unit: 'ms', message: `the rollout failed: ${snap.endMessage ?? 'the controller reported failure'}${where}` });
      break;
    case 'deleted':
      results.push({ name: 'time to converge', passed: false, status: 'failed', measured: null, limit, unit: 'ms', message: `the workload was deleted during the rollout: ${snap.endMessage ?? ''}`.trim() });
      break;
  }
  if (spec.maxHopMs !== undefined) results.push(slowestHop(spec.maxHopMs, snap, end, outcome === 'converged' || outcome === 'no-rollout', endedAt));
  return results;
}

function slowestHop(limit: number, snap: TraceSnapshot, end: Hop | undefined, finished: boolean, endedAt: number): CheckResult {
  const hops = end && end.kind === 'converged' ? snap.hops.filter((h) => h.observedAt <= end.observedAt) : snap.hops;
  const byId = new Map(snap.hops.map((h) => [h.id, h]));
  let measured: number | null = null;
  let message = 'no hop was seen';
  for (const h of hops) {
    if (measured === null || h.sincePreviousMs > measured) {
      measured = h.sincePreviousMs;
      const prev = h.previousId ? byId.get(h.previousId) : undefined;
      message = `${hopLabel(h)}, ${formatDuration(h.sincePreviousMs)} after ${prev ? hopLabel(prev) : 'the trigger'}`;
    }
  }
  if (!finished && snap.trigger) {
    const last = snap.hops.reduce<Hop | undefined>((a, h) => (!a || h.observedAt > a.observedAt ? h : a), undefined);
    const stall = endedAt - (last?.observedAt ?? snap.trigger.at);
    if (measured === null || stall > measured) {
      measured = stall;
      message = `no progress for ${formatDuration(stall)} after ${last ? hopLabel(last) : 'the trigger'}`;
    }
  }
  const passed = measured !== null && measured <= limit;
  return {
    name: 'slowest hop',
    passed,
    status: passed ? 'passed' : 'failed',
    measured,
    limit,
    unit: 'ms',
    message: passed ? `slowest: ${message}` : measured === null ? message : `over the ${formatDuration(limit)} limit: ${message}`,
  };
}

interface EventItem {
  type?: string;
  reason?: string;
  note?: string;
  eventTime?: string;
  series?: { lastObservedTime?: string };
  deprecatedLastTimestamp?: string;
  regarding?: { uid?: string };
  metadata?: { creationTimestamp?: string };
}

/** Pods of the current tree that are not ready, with the newest Warning event about each. */
export function describeStuck(tree: TreeNode | undefined, events: readonly EventItem[]): string | undefined {
  if (!tree) return undefined;
  const pods: TreeNode[] = [];
  const walk = (n: TreeNode): void => {
    if (n.ref.kind === 'Pod' && !n.ready && !n.deleting) pods.push(n);
    n.children.forEach(walk);
  };
  walk(tree);
  const time = (e: EventItem): string => e.series?.lastObservedTime ?? e.eventTime ?? e.deprecatedLastTimestamp ?? e.metadata?.creationTimestamp ?? '';
  const latest = (uid: string): EventItem | undefined =>
    events.filter((e) => e.regarding?.uid === uid && e.type === 'Warning').sort((a, b) => time(b).localeCompare(time(a)))[0];
  const status = tree.status ? `${tree.ref.kind}/${tree.ref.name} ${tree.status}` : `${tree.ref.kind}/${tree.ref.name}`;
  if (pods.length === 0) return status;
  const shown = pods.slice(0, 3).map((p) => {
    const e = latest(p.ref.uid);
    return `Pod/${p.ref.name} ${p.phase ?? p.status}${e ? ` (${e.reason}: ${(e.note ?? '').trim()})` : ''}`;
  });
  return `${status}; ${pods.length} Pod${pods.length === 1 ? '' : 's'} not ready: ${shown.join('; ')}${pods.length > 3 ? `; …` : ''}`;
}

async function warningEvents(kube: Kube, namespace: string | undefined, signal: AbortSignal): Promise<EventItem[]> {
  if (!namespace) return [];
  try {
    const list = await kube.client.json<{ items?: EventItem[] }>(`/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events?limit=500`, {
      signal,
      describe: { verb: 'list', resource: 'events.events.k8s.io', namespace },
    });
    return list.items ?? [];
  } catch {
    // Events only explain a failure; not being allowed to read them must not hide it.
    return [];
  }
}

function splitTarget(target: string): { type: string; name: string } {
  const i = target.indexOf('/');
  return { type: target.slice(0, i), name: target.slice(i + 1) };
}

export async function runRolloutCheck(kube: Kube, spec: RolloutCheckSpec, ctx: RunContext): Promise<CheckResult[]> {
  const { type, name } = splitTarget(spec.target);
  const info = await kube.discovery.resolve(type);
  const namespace = info.namespaced ? (spec.namespace ?? kube.connection.namespace) : undefined;
  const tracer = new Tracer({ kube, target: { info, namespace, name }, coalesceMs: 50, settleMs: 3_000 });
  await tracer.addEventsInformer();
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  ctx.signal.addEventListener('abort', stop, { once: true });
  try {
    await tracer.start(controller.signal, (informers) => runUntilSynced(kube, informers, { signal: controller.signal, timeoutMs: ctx.syncTimeoutMs }));
    if (!tracer.targetObject()) {
      throw new CheckFailedError(`${groupResource(info)} "${name}" not found${namespace ? ` in namespace ${namespace}` : ''}`);
    }
    for (const inf of tracer.informers()) inf.onEvent((e) => {
      if (e.level === 'warning' || e.level === 'error') ctx.log(`${e.level}: ${e.message}`);
    });
    // Converged is what the check measures: old Pods still terminating need not be waited for.
    tracer.subscribe((e) => {
      if (e.type === 'hop' && e.hop.kind === 'converged') setImmediate(() => tracer.stop('timeout', 'converged'));
    });
    const request = spec.trigger.kind === 'restart' ? { kind: 'restart' as const } : { kind: 'scale' as const, replicas: spec.trigger.replicas };
    const fired = await tracer.fire(request, controller.signal);
    if (!fired) throw new UsageError('the rollout trigger made no write');
    ctx.log(`wrote: ${fired.wrote}`);
    const timer = setTimeout(() => tracer.stop('timeout', `no convergence within ${formatDuration(spec.timeoutMs)}`), spec.timeoutMs);
    const onAbort = (): void => tracer.stop('interrupted', 'interrupted');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await tracer.ended;
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
    }
    const endedAt = Date.now();
    // Let late Events attach to their hops before the verdict.
    await new Promise((r) => setTimeout(r, 200));
    const snap = tracer.snapshot();
    const finished = snap.outcome === 'converged' || snap.outcome === 'no-rollout';
    const stuck = finished ? undefined : describeStuck(snap.tree, await warningEvents(kube, namespace, controller.signal));
    return evaluateRollout(spec, snap, endedAt, stuck);
  } finally {
    ctx.signal.removeEventListener('abort', stop);
    controller.abort();
  }
}
