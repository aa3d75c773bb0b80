/**
 * Controller checks (`check --controller NAME`): the same join as `top` (a component's leader Lease,
 * the replica that leads, that replica's work queues, found without flags), held to limits over a
 * window: "kube-controller-manager has a leader and no queue retries faster than 1/s".
 *
 * - Leader: the time within the window during which the component's Lease had no valid holder, as
 *   `top` judges it, sampled every second; the limit is 0 (a leader throughout). A component with no
 *   leader Lease fails this limit, naming what was found.
 * - Retry rate and depth: over the leading replica's queues (all of them for `*`), the retry rate
 *   between the window's first and last scrape, and the highest depth in either.
 * - A component that is not found fails every limit with the names there are; a leader whose
 *   metrics cannot be read is an error (exit 3) with the reason.
 */
import { ExitCode } from '../exit-codes.js';
import type { Kube } from '../kube/index.js';
import { formatDuration } from '../util/duration.js';
import { closest } from '../util/suggest.js';
import { startTopSession } from '../live/index.js';
import type { TopComponent, TopView } from '../view/top-view.js';
import type { RunContext } from './context.js';
import { formatValue, queueLimitName } from './limits.js';
import { checked, unchecked, unmeasured, type CheckResult, type ControllerCheckSpec } from './types.js';

export type { ControllerCheckSpec };

const SAMPLE_MS = 1_000;

export function findComponent(view: TopView, name: string): TopComponent | undefined {
  return view.components.find((c) => c.name === name || c.key === name || c.lease?.name === name);
}

/** What the window showed: the views at its start and end, and the time seen without a leader. */
export interface ControllerWindow {
  first: TopView;
  last: TopView;
  leaderlessMs: number;
  windowMs: number;
}

/** The results for what the window showed: pure. */
export function evaluateController(spec: ControllerCheckSpec, w: ControllerWindow): CheckResult[] {
  const c = findComponent(w.last, spec.controller);
  const limits = [
    { name: 'time without a leader', limit: 0, unit: 'ms' as const },
    ...spec.maxDepth.map((l) => ({ name: queueLimitName('depth', l), limit: l.limit, unit: 'count' as const })),
    ...spec.maxRetryRate.map((l) => ({ name: queueLimitName('retry rate', l), limit: l.limit, unit: 'per-second' as const })),
  ];
  if (!c) {
    const names = [...new Set(w.last.components.map((x) => x.name))];
    const near = closest(spec.controller, names, 3);
    const message = `no controller named "${spec.controller}"${near.length ? ` (did you mean ${near.map((n) => `"${n}"`).join(', ')}?)` : ''}; found: ${names.join(', ') || 'none'}`;
    return limits.map((l) => ({ ...l, passed: false, status: 'failed' as const, measured: null, message }));
  }
  const results: CheckResult[] = [];
  if (!c.lease) {
    results.push({
      ...limits[0]!,
      passed: false,
      status: 'failed',
      measured: null,
      message: `${c.name} has no leader Lease (runs without leader election, or none was matched to it)`,
    });
  } else {
    const passed = w.leaderlessMs === 0 && c.state !== 'no leader';
    const what = `${passed ? 'held' : 'not held'} throughout ${formatDuration(w.windowMs)}: ${formatDuration(w.leaderlessMs)} without a valid holder; now ${c.lease.holder ?? 'no holder'} (${c.lease.state}), ${c.lease.transitions} transitions`;
    results.push({ ...limits[0]!, passed, status: passed ? 'passed' : 'failed', measured: w.leaderlessMs, message: what });
  }
  const leader = c.replicas.find((r) => r.source === c.leader) ?? (c.replicas.length === 1 ? c.replicas[0] : undefined);
  const unreadable =
    c.replicas.length === 0
      ? `no metrics source was found for ${c.name}`
      : leader && leader.state !== 'ok'
        ? `${leader.source}: ${leader.error ?? leader.state}`
        : c.queues.length === 0
          ? (c.note ?? `${c.name} exports no work queues`)
          : undefined;
  const firstQueues = new Map((findComponent(w.first, spec.controller)?.queues ?? []).map((q) => [`${q.controller ?? ''}/${q.name}`, q]));
  for (const l of spec.maxDepth) {
    const name = queueLimitName('depth', l);
    if (unreadable) {
      results.push(unchecked(name, l.limit, 'count', unreadable, ExitCode.Cluster));
      continue;
    }
    let best: { depth: number; queue: string } | undefined;
    for (const q of c.queues) {
      if (l.queue !== '*' && l.queue !== q.name) continue;
      for (const d of [q.depth, firstQueues.get(`${q.controller ?? ''}/${q.name}`)?.depth ?? null])
        if (d !== null && (!best || d > best.depth)) best = { depth: d, queue: q.name };
    }
    if (!best) {
      results.push(
        unmeasured(name, l.limit, 'count', `no queue "${l.queue}" with workqueue_depth in ${c.name} (queues: ${c.queues.map((q) => q.name).join(', ')})`),
      );
      continue;
    }
    const passed = best.depth <= l.limit;
    results.push(
      checked(
        name,
        best.depth,
        l.limit,
        'count',
        passed,
        `highest depth ${best.depth} (queue ${best.queue}) of ${c.name}${passed ? '' : `, over the limit of ${l.limit}`}`,
      ),
    );
  }
  for (const l of spec.maxRetryRate) {
    const name = queueLimitName('retry rate', l);
    if (unreadable) {
      results.push(unchecked(name, l.limit, 'per-second', unreadable, ExitCode.Cluster));
      continue;
    }
    let best: { rate: number; queue: string } | undefined;
    for (const q of c.queues) {
      if (l.queue !== '*' && l.queue !== q.name) continue;
      if (q.retriesPerSecond !== null && (!best || q.retriesPerSecond > best.rate)) best = { rate: q.retriesPerSecond, queue: q.name };
    }
    if (!best) {
      results.push(unmeasured(name, l.limit, 'per-second', `no queue "${l.queue}" with a retry rate in ${c.name} (a rate needs two scrapes)`));
      continue;
    }
    const passed = best.rate <= l.limit + 1e-9;
    results.push(
      checked(
        name,
        best.rate,
        l.limit,
        'per-second',
        passed,
        `fastest: queue ${best.queue} of ${c.name}, ${formatValue(best.rate, 'per-second')} over ${formatDuration(w.windowMs)}${passed ? '' : `, over the limit of ${formatValue(l.limit, 'per-second')}`}`,
      ),
    );
  }
  return results;
}

export async function runControllerCheck(kube: Kube, spec: ControllerCheckSpec, ctx: RunContext): Promise<CheckResult[]> {
  const { clock, signal } = ctx;
  const session = await startTopSession(kube, {
    signal,
    syncTimeoutMs: ctx.syncTimeoutMs,
    intervalMs: spec.windowMs,
    userSpecs: spec.metrics,
    access: spec.access,
  });
  try {
    if (session.leaseError) ctx.log(`leases: ${session.leaseError}`);
    for (const e of session.discoveryErrors) ctx.log(`discovery: ${e}`);
    const start = clock.now();
    await session.poller.pollOnce(signal);
    const first = session.model.view();
    ctx.log(`found ${first.components.length} components; watching ${spec.controller} for ${formatDuration(spec.windowMs)}`);
    let leaderlessMs = 0;
    let last = clock.now();
    while (!signal.aborted && clock.now() < start + spec.windowMs) {
      await clock.sleep(Math.min(SAMPLE_MS, start + spec.windowMs - clock.now()), signal);
      const now = clock.now();
      if (findComponent(session.model.view(), spec.controller)?.state === 'no leader') leaderlessMs += now - last;
      last = now;
    }
    if (!signal.aborted) await session.poller.pollOnce(signal);
    return evaluateController(spec, { first, last: session.model.view(), leaderlessMs, windowMs: spec.windowMs });
  } finally {
    session.close();
  }
}

/** A controller check as flags make it: named after the controller unless named; the window defaults as for the others. */
export function controllerSpec(fields: {
  name?: string | undefined;
  controller: string;
  metrics: readonly string[];
  access: ControllerCheckSpec['access'];
  maxDepth: ControllerCheckSpec['maxDepth'];
  maxRetryRate: ControllerCheckSpec['maxRetryRate'];
  windowMs: number;
  origin: ControllerCheckSpec['origin'];
}): ControllerCheckSpec {
  return {
    kind: 'controller',
    name: fields.name ?? `controller ${fields.controller}`,
    controller: fields.controller,
    metrics: [...fields.metrics],
    access: fields.access,
    maxDepth: fields.maxDepth,
    maxRetryRate: fields.maxRetryRate,
    windowMs: fields.windowMs,
    origin: fields.origin,
  };
}
