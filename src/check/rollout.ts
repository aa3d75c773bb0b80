/**
 * Rollout checks: make the trigger write (restart, scale, or a server-side apply of a manifest),
 * trace the reconcile chain with the Tracer until the workload converges, and hold the time to
 * converge and the slowest hop to their limits. An apply that creates the workload is traced from
 * its creation: `kubectl apply && kubectl rollout status` with limits.
 *
 * - The deadline is --max-converge when given (it has failed by then; waiting longer cannot make it
 *   pass), else --timeout.
 * - The slowest hop is the largest time between a hop and the hop it follows, over the hops up to
 *   convergence: old Pods' graceful termination after convergence is not the controllers' latency.
 *   A rollout that never converged also counts the time since its last hop: a stall is a slow hop.
 * - A rollout that does not converge says where it is stuck: the diagnosis of its chain (the first
 *   broken link, its evidence, the next command), else the Pods that are not ready, with the latest
 *   Warning event about each (FailedScheduling: 0/2 nodes are available: …). A custom resource's
 *   adds the controller behind it (its Lease, and its queue over the check: from --metrics, else
 *   from its replicas found through its Lease; scraped before the write and again at the end).
 */
import {
  chainFromCaches,
  controllerBehindLine,
  DEFAULT_GRACE_MS,
  diagnoseChainWithController,
  diagnosisBrief,
  findOperatorMetrics,
} from '../diagnose/index.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { Kube, ResourceInfo } from '../kube/index.js';
import { answered, MultiScraper, scrapeSources, type TimedScrape } from '../metrics/index.js';
import {
  DEFAULT_COALESCE_MS,
  type Hop,
  isCustomResource,
  resolveManifest,
  TraceSession,
  type TraceSnapshot,
  type TreeNode,
  type TriggerRequest,
} from '../trace/index.js';
import { formatDuration } from '../util/duration.js';
import { parseTarget } from '../util/target.js';
import type { RunContext } from './context.js';
import { checked, unchecked, unmeasured, type CheckResult, type RolloutCheckSpec } from './types.js';

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
    results.push(unchecked('time to converge', limit, 'ms', 'interrupted before the rollout ended', ExitCode.Interrupted));
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
        message:
          elapsed === null
            ? `converged, but the time is unknown${how}`
            : passed
              ? `converged in ${formatDuration(elapsed)}${how}`
              : `converged in ${formatDuration(elapsed)}, over ${limitWords}${how}`,
      });
      break;
    }
    case 'no-rollout':
      results.push({
        name: 'time to converge',
        passed: true,
        status: 'passed',
        measured: null,
        limit,
        unit: 'ms',
        message: `no rollout followed the write: ${snap.endMessage ?? ''}`.trim(),
      });
      break;
    case 'timeout':
      results.push(unmeasured('time to converge', limit, 'ms', `not converged within ${limitWords} (${snap.hops.length} hops seen)${where}`));
      break;
    case 'failed':
      results.push(unmeasured('time to converge', limit, 'ms', `the rollout failed: ${snap.endMessage ?? 'the controller reported failure'}${where}`));
      break;
    case 'deleted':
      results.push(unmeasured('time to converge', limit, 'ms', `the workload was deleted during the rollout: ${snap.endMessage ?? ''}`.trim()));
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
  return checked(
    'slowest hop',
    measured,
    limit,
    'ms',
    passed,
    passed ? `slowest: ${message}` : measured === null ? message : `over the ${formatDuration(limit)} limit: ${message}`,
  );
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

/** The workload and the write: named by the spec, or by the manifest an apply check applies. */
async function rolloutTarget(
  kube: Kube,
  spec: RolloutCheckSpec,
): Promise<{ info: ResourceInfo; namespace: string | undefined; name: string; trigger: TriggerRequest }> {
  const t = spec.trigger;
  if (t.kind === 'apply') {
    const source = t.file === '-' ? 'stdin' : t.file;
    const { info, namespace, name, manifest } = await resolveManifest(kube, t.manifest, source, spec.namespace ?? kube.connection.namespace);
    return { info, namespace, name, trigger: { kind: 'apply', manifest, source } };
  }
  const { type, name } = parseTarget(spec.target);
  const info = await kube.discovery.resolve(type);
  const namespace = info.namespaced ? (spec.namespace ?? kube.connection.namespace) : undefined;
  return { info, namespace, name, trigger: t.kind === 'restart' ? { kind: 'restart' } : { kind: 'scale', replicas: t.replicas } };
}

export async function runRolloutCheck(kube: Kube, spec: RolloutCheckSpec, ctx: RunContext): Promise<CheckResult[]> {
  const { info, namespace, name, trigger } = await rolloutTarget(kube, spec);
  const session = new TraceSession({
    kube,
    target: { info, namespace, name },
    coalesceMs: DEFAULT_COALESCE_MS,
    settleMs: 3_000,
    // Converged is what the check measures: old Pods still terminating need not be waited for.
    stopWhenConverged: true,
    trigger,
    timeoutMs: spec.timeoutMs,
    syncTimeoutMs: ctx.syncTimeoutMs,
    readiness: ctx.readiness,
    signal: ctx.signal,
    onInformerEvent: (e, phase) => {
      if (phase === 'trace' && (e.level === 'warning' || e.level === 'error')) ctx.log(`${e.level}: ${e.message}`);
    },
  });
  // The operator behind a custom resource: its metrics (--metrics, else found from its Lease) scraped
  // before the write, and again if it does not converge.
  const custom = isCustomResource(info);
  const given = ctx.operatorMetrics && ctx.operatorMetrics.sources.length > 0 ? ctx.operatorMetrics : undefined;
  let operator = custom && given ? new MultiScraper(scrapeSources(given.sources, given.access, kube)) : undefined;
  let found: { foundBy?: ReadonlyMap<string, readonly string[]>; noMetrics?: string } = {};
  try {
    await session.start();
    if (custom && !given && ctx.operatorMetrics && session.targetExists()) {
      const r = await findOperatorMetrics(
        kube,
        chainFromCaches(session.caches(), { info, namespace, name }).object,
        ctx.operatorMetrics.access,
        session.signal,
      );
      if (r.found) operator = new MultiScraper(r.found.sources);
      found = r.found ? { foundBy: r.found.foundBy } : { noMetrics: r.why };
    }
    const before: Map<string, TimedScrape> | undefined = operator ? answered(await operator.scrapeAll(session.signal)) : undefined;
    const fired = await session.fire();
    if (!fired) throw new UsageError('the rollout trigger made no write');
    ctx.log(`wrote: ${fired.wrote}`);
    const snap = await session.finish();
    if (ctx.artifacts) {
      try {
        ctx.log(`wrote the waterfall SVG to ${ctx.artifacts.waterfall(snap)}`);
      } catch (err) {
        // A file CI may want is missing; the check's verdict still stands.
        ctx.log(`error: could not write the waterfall SVG: ${(err as Error).message}`);
      }
    }
    const finished = snap.outcome === 'converged' || snap.outcome === 'no-rollout';
    const events = (session.caches().events?.store.list() ?? []) as EventItem[];
    // Where it is stuck: the diagnosis of the chain (a step unchanged for half the deadline counts as
    // stuck); the not-ready Pods with their latest Warning when no diagnosis could be made.
    const graceMs = Math.min(DEFAULT_GRACE_MS, (spec.maxConvergeMs ?? spec.timeoutMs) / 2);
    const scrapes = !finished && operator && before ? { before, after: answered(await operator.scrapeAll(session.signal)) } : undefined;
    const stuck = finished
      ? undefined
      : await diagnoseChainWithController(
          kube,
          session.caches(),
          { info, namespace, name },
          { graceMs, signal: session.signal, readiness: ctx.readiness, scrapes, ...found },
        ).then(
          ({ diagnosis, controller }) => `${diagnosisBrief(diagnosis)}${controller ? `; ${controllerBehindLine(controller, Date.now())}` : ''}`,
          () => describeStuck(snap.tree, events),
        );
    return evaluateRollout(spec, snap, session.endedAt ?? Date.now(), stuck);
  } finally {
    session.close();
  }
}
