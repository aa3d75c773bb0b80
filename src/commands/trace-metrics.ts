/**
 * `--metrics` on the trace: a MetricsPoller whose snapshots feed the TUI's queues pane; a scrape at
 * the start, against which the queue of the operator behind a custom resource is measured; and, for a
 * --burst, the increase of the target kind's controller queue adds (workqueue_adds_total of
 * kube-controller-manager's "deployment", "statefulset", ... queue) from a scrape just before the
 * writes to one after the trace ended, handed to the Tracer to print beside its own workqueue's
 * numbers. Without --metrics, for a custom resource: its operator's replicas, found from the Lease
 * its status writer leads through (operatorTraceMetrics).
 */
import type { MetricsPlan } from '../cli/metrics-flags.js';
import type { GroupKind, Kube, KubeObject } from '../kube/index.js';
import { findOperatorMetrics } from '../diagnose/index.js';
import {
  controllerQueueFor,
  MetricsPoller,
  MultiScraper,
  queueAddsBetween,
  scrapeSources,
  type MetricsAccess,
  type MetricsSnapshot,
  type MetricsSource,
  type TimedScrape,
} from '../metrics/index.js';
import { escapeTerminal } from '../util/escape.js';

export interface TraceMetrics {
  poller: MetricsPoller;
  /** Scrapes every source now: the baseline of the trace (a burst's controller queue adds, an operator's queue). */
  baseline(signal: AbortSignal): Promise<void>;
  /** Scrapes again: the good scrapes of the baseline and of now, by source; undefined before the baseline. */
  sinceBaseline(signal: AbortSignal): Promise<{ before: Map<string, TimedScrape>; after: Map<string, TimedScrape> } | undefined>;
  /** How each source was found, when discovery found them rather than --metrics. */
  foundBy?: ReadonlyMap<string, readonly string[]>;
  /** Scrapes again and tells the tracer the adds of the target kind's queue since the baseline (or says why not). */
  afterBurst(tracer: { setControllerQueueAdds(queue: string, adds: number): void }, target: GroupKind, signal: AbortSignal): Promise<void>;
}

export function traceMetrics(kube: Kube, plan: MetricsPlan, intervalMs: number, log: (line: string) => void): TraceMetrics {
  return metricsOver(scrapeSources(plan.sources, plan.access, kube), intervalMs, log);
}

/**
 * Without --metrics: the metrics of the operator behind a custom resource that exists, found from
 * its Lease (findOperatorMetrics); else why not, for the controller's "not found" line.
 */
export async function operatorTraceMetrics(
  kube: Kube,
  target: KubeObject | undefined,
  access: MetricsAccess,
  intervalMs: number,
  log: (line: string) => void,
  signal: AbortSignal,
): Promise<{ metrics: TraceMetrics; why?: undefined } | { metrics: undefined; why: string }> {
  const r = await findOperatorMetrics(kube, target, access, signal).catch((err: unknown) => ({
    found: null,
    why: `no --metrics given, and finding its replicas failed: ${(err as Error).message}`,
  }));
  if (!r.found) return { metrics: undefined, why: r.why };
  return { metrics: metricsOver(r.found.sources, intervalMs, log, r.found.foundBy) };
}

function metricsOver(
  sources: MetricsSource[],
  intervalMs: number,
  log: (line: string) => void,
  foundBy?: ReadonlyMap<string, readonly string[]>,
): TraceMetrics {
  const poller = new MetricsPoller(new MultiScraper(sources), { intervalMs });
  let before: Map<string, TimedScrape> | undefined;
  // A source that fails is said once, however many scrapes it fails.
  const said = new Set<string>();
  const good = (snap: MetricsSnapshot): Map<string, TimedScrape> => {
    const out = new Map<string, TimedScrape>();
    for (const s of snap.sources) {
      const scrape = s.ok ? poller.lastScrape(s.source) : undefined;
      if (scrape) out.set(s.source, scrape);
      else if (s.error !== null && !said.has(s.source)) {
        said.add(s.source);
        const found = foundBy?.get(s.source);
        // What a source answered is the cluster's text: escaped, whatever `log` does.
        log(
          escapeTerminal(
            `warning: metrics ${s.source}${found ? ` (found through ${found.join(', ')})` : ''}: ${s.error}${s.hint ? ` (hint: ${s.hint})` : found ? " (hint: give --metrics with its replicas' endpoints)" : ''}`,
          ),
        );
      }
    }
    return out;
  };
  return {
    poller,
    ...(foundBy ? { foundBy } : {}),
    async baseline(signal) {
      before = good(await poller.pollOnce(signal));
    },
    async sinceBaseline(signal) {
      if (!before) return undefined;
      return { before, after: good(await poller.pollOnce(signal)) };
    },
    async afterBurst(tracer, target, signal) {
      const queue = controllerQueueFor(target);
      const kind = target.group ? `${target.kind}.${target.group}` : target.kind;
      if (!queue) return log(`note: kube-controller-manager has no queue for ${kind}; the controller queue's adds are not measured`);
      if (!before || before.size === 0) return log(`note: no metrics source answered before the burst; the "${queue}" queue's adds are not measured`);
      const after = good(await poller.pollOnce(signal));
      const result = queueAddsBetween(before, after, queue);
      if (result.adds === null)
        return log(`note: no metrics source exposes workqueue_adds_total{name="${queue}"} (is it kube-controller-manager, and the leader?)`);
      tracer.setControllerQueueAdds(queue, result.adds);
    },
  };
}
