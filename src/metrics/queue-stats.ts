/**
 * Per-queue and per-controller statistics from two successive scrapes of one source, the numbers
 * `kubectl informer-trace` shows next to a reconcile chain:
 *
 * - client-go work queues (`workqueue_*{name}`, as kube-controller-manager, kube-scheduler and the
 *   API server export them) and controller-runtime's (`workqueue_*{controller,name}`): depth,
 *   adds/s, retries/s, queue-time and work-time p50/p99 over the interval, unfinished work and the
 *   longest running processor;
 * - controller-runtime controllers: reconciles/s by result, errors/s, reconcile time p50/p99,
 *   active and maximum workers;
 * - leader_election_master_status{name}.
 *
 * Rules: a series that is absent is null, never 0. Rates are `sum by (name, controller)` of each
 * series' reset-aware increase over the window between the two scrape times. Quantiles come from
 * the bucket deltas between the scrapes, interpolated inside the bucket as histogram_quantile
 * does; on the first scrape (no previous one) they cover the process's whole life and say so.
 * The snapshot is plain data: numbers, strings, null. NaN and ±Inf become null.
 */
import type { MetricFamily } from './parse.js';
import { bucketDelta, collectHistograms, histogramQuantile, mergeHistogramsBy, type Bucket, type HistogramSeries } from './histogram.js';
import { increaseBy, labelKey, SampleIndex, sumBy, type Group } from './series.js';

/**
 * The name prefixes of every family computeQueueStats reads: a scrape for queue statistics alone
 * reads these and passes over the rest (sourceOptions' `families`).
 */
export const QUEUE_STATS_FAMILIES: readonly string[] = ['workqueue_', 'controller_runtime_', 'leader_election_master_status'];

/** One scrape of one source: when it started and what it returned. */
export interface TimedScrape {
  atMs: number;
  families: readonly MetricFamily[];
}

export interface Quantiles {
  /** Seconds; null when the histogram is absent or saw no observations in its window. */
  p50: number | null;
  p99: number | null;
  /** Observations behind the quantiles; null when the histogram is absent. */
  observations: number | null;
  /** 'interval': between the two scrapes. 'since-start': the whole life of the process (first scrape). */
  basis: 'interval' | 'since-start' | null;
}

export interface QueueRow {
  /** The queue's `name` label. */
  name: string;
  /** controller-runtime's `controller` label; null for client-go queues. */
  controller: string | null;
  depth: number | null;
  addsPerSecond: number | null;
  retriesPerSecond: number | null;
  addsTotal: number | null;
  retriesTotal: number | null;
  /** Time items waited in the queue before a worker took them. */
  queueTime: Quantiles;
  /** Time workers spent on an item. */
  workTime: Quantiles;
  unfinishedWorkSeconds: number | null;
  longestRunningProcessorSeconds: number | null;
}

export interface QueueTotals {
  queues: number;
  depth: number | null;
  addsPerSecond: number | null;
  retriesPerSecond: number | null;
  unfinishedWorkSeconds: number | null;
}

export interface ControllerRow {
  controller: string;
  /** All results together. */
  reconcilesPerSecond: number | null;
  /** By `result` label: success, error, requeue, requeue_after. */
  resultsPerSecond: Record<string, number | null>;
  reconcilesTotal: number | null;
  /** controller_runtime_reconcile_errors_total. */
  errorsPerSecond: number | null;
  errorsTotal: number | null;
  reconcileTime: Quantiles;
  activeWorkers: number | null;
  maxConcurrentReconciles: number | null;
}

export interface LeaderElectionRow {
  /** The lease's `name` label (kube-controller-manager, kube-scheduler, ...). */
  name: string;
  /** True when this process holds the lease (value 1), false for 0, null for anything else. */
  isLeader: boolean | null;
  value: number | null;
}

export interface QueueStatsSnapshot {
  atMs: number;
  previousAtMs: number | null;
  /** Seconds between the two scrapes; null on the first. */
  windowSeconds: number | null;
  queues: QueueRow[];
  totals: QueueTotals;
  controllers: ControllerRow[];
  leaderElection: LeaderElectionRow[];
}

const QUEUE_BY = ['name', 'controller'] as const;
const CONTROLLER_BY = ['controller'] as const;

const M = {
  depth: 'workqueue_depth',
  adds: 'workqueue_adds_total',
  retries: 'workqueue_retries_total',
  queueDuration: 'workqueue_queue_duration_seconds',
  workDuration: 'workqueue_work_duration_seconds',
  unfinished: 'workqueue_unfinished_work_seconds',
  longest: 'workqueue_longest_running_processor_seconds',
  reconcileTotal: 'controller_runtime_reconcile_total',
  reconcileErrors: 'controller_runtime_reconcile_errors_total',
  reconcileTime: 'controller_runtime_reconcile_time_seconds',
  activeWorkers: 'controller_runtime_active_workers',
  maxConcurrent: 'controller_runtime_max_concurrent_reconciles',
  leader: 'leader_election_master_status',
} as const;

/** Statistics at `curr`, with rates and interval quantiles over the time since `prev`. */
export function computeQueueStats(curr: TimedScrape, prev?: TimedScrape): QueueStatsSnapshot {
  const now = new SampleIndex(curr.families);
  const before = prev ? new SampleIndex(prev.families) : undefined;
  const windowSeconds = prev && curr.atMs > prev.atMs ? (curr.atMs - prev.atMs) / 1000 : null;
  // A window of zero or less (a clock step back) gives no rates; quantiles then use the whole life.
  const base = windowSeconds === null ? undefined : before;
  const ctx: Ctx = { now, before: base, windowSeconds };

  const queues = queueRows(ctx);
  return {
    atMs: curr.atMs,
    previousAtMs: prev ? prev.atMs : null,
    windowSeconds,
    queues,
    totals: {
      queues: queues.length,
      depth: sumPresent(queues.map((q) => q.depth)),
      addsPerSecond: sumPresent(queues.map((q) => q.addsPerSecond)),
      retriesPerSecond: sumPresent(queues.map((q) => q.retriesPerSecond)),
      unfinishedWorkSeconds: sumPresent(queues.map((q) => q.unfinishedWorkSeconds)),
    },
    controllers: controllerRows(ctx),
    leaderElection: leaderRows(now),
  };
}

interface Ctx {
  now: SampleIndex;
  before: SampleIndex | undefined;
  windowSeconds: number | null;
}

function queueRows(ctx: Ctx): QueueRow[] {
  const depth = gaugeBy(ctx.now, M.depth, QUEUE_BY);
  const unfinished = gaugeBy(ctx.now, M.unfinished, QUEUE_BY);
  const longest = gaugeBy(ctx.now, M.longest, QUEUE_BY);
  const adds = rateBy(ctx, M.adds, QUEUE_BY);
  const retries = rateBy(ctx, M.retries, QUEUE_BY);
  const addsTotal = gaugeBy(ctx.now, M.adds, QUEUE_BY);
  const retriesTotal = gaugeBy(ctx.now, M.retries, QUEUE_BY);
  const queueTime = quantilesBy(ctx, M.queueDuration, QUEUE_BY);
  const workTime = quantilesBy(ctx, M.workDuration, QUEUE_BY);

  const identities = new Map<string, Record<string, string>>();
  for (const m of [depth, unfinished, longest, addsTotal, retriesTotal, queueTime]) {
    for (const [key, g] of m) identities.set(key, g.labels);
  }
  for (const [key, labels] of workTime) identities.set(key, labels.labels);

  const rows: QueueRow[] = [];
  for (const [key, labels] of identities) {
    if (labels.name === undefined) continue; // a workqueue series without a queue name
    rows.push({
      name: labels.name,
      controller: labels.controller ?? null,
      depth: value(depth.get(key)),
      addsPerSecond: value(adds.get(key)),
      retriesPerSecond: value(retries.get(key)),
      addsTotal: value(addsTotal.get(key)),
      retriesTotal: value(retriesTotal.get(key)),
      queueTime: queueTime.get(key)?.value ?? ABSENT,
      workTime: workTime.get(key)?.value ?? ABSENT,
      unfinishedWorkSeconds: value(unfinished.get(key)),
      longestRunningProcessorSeconds: value(longest.get(key)),
    });
  }
  return rows.sort((a, b) => (a.controller ?? '').localeCompare(b.controller ?? '') || a.name.localeCompare(b.name));
}

function controllerRows(ctx: Ctx): ControllerRow[] {
  const totals = gaugeBy(ctx.now, M.reconcileTotal, CONTROLLER_BY);
  const rates = rateBy(ctx, M.reconcileTotal, CONTROLLER_BY);
  const byResult = rateBy(ctx, M.reconcileTotal, ['controller', 'result']);
  const errorsTotal = gaugeBy(ctx.now, M.reconcileErrors, CONTROLLER_BY);
  const errors = rateBy(ctx, M.reconcileErrors, CONTROLLER_BY);
  const time = quantilesBy(ctx, M.reconcileTime, CONTROLLER_BY);
  const active = gaugeBy(ctx.now, M.activeWorkers, CONTROLLER_BY);
  const maxWorkers = gaugeBy(ctx.now, M.maxConcurrent, CONTROLLER_BY);

  const identities = new Map<string, string>();
  for (const m of [totals, errorsTotal, active, maxWorkers, time]) {
    for (const [key, g] of m) if (g.labels.controller !== undefined) identities.set(key, g.labels.controller);
  }
  const rows: ControllerRow[] = [];
  for (const [key, controller] of identities) {
    const resultsPerSecond: Record<string, number | null> = {};
    for (const g of byResult.values()) {
      if (g.labels.controller === controller && g.labels.result !== undefined) resultsPerSecond[g.labels.result] = value(g);
    }
    rows.push({
      controller,
      reconcilesPerSecond: value(rates.get(key)),
      resultsPerSecond,
      reconcilesTotal: value(totals.get(key)),
      errorsPerSecond: value(errors.get(key)),
      errorsTotal: value(errorsTotal.get(key)),
      reconcileTime: time.get(key)?.value ?? ABSENT,
      activeWorkers: value(active.get(key)),
      maxConcurrentReconciles: value(maxWorkers.get(key)),
    });
  }
  return rows.sort((a, b) => a.controller.localeCompare(b.controller));
}

function leaderRows(now: SampleIndex): LeaderElectionRow[] {
  const rows: LeaderElectionRow[] = [];
  for (const g of sumBy(now.samples(M.leader), ['name']).values()) {
    const v = finite(g.value);
    rows.push({ name: g.labels.name ?? '', isLeader: v === 1 ? true : v === 0 ? false : null, value: v });
  }
  return rows.sort((a, b) => a.name.localeCompare(b.name));
}

const ABSENT: Quantiles = Object.freeze({ p50: null, p99: null, observations: null, basis: null }) as Quantiles;

function gaugeBy(index: SampleIndex, name: string, by: readonly string[]): Map<string, Group<number>> {
  return sumBy(index.samples(name), by);
}

/** Per-second rate per group; the value is undefined when no rate can be told. */
function rateBy(ctx: Ctx, name: string, by: readonly string[]): Map<string, Group<number | undefined>> {
  const inc = increaseBy(ctx.before?.samples(name), ctx.now.samples(name), by);
  for (const g of inc.values()) {
    g.value = g.value === undefined || ctx.windowSeconds === null ? undefined : g.value / ctx.windowSeconds;
  }
  return inc;
}

function quantilesBy(ctx: Ctx, name: string, by: readonly string[]): Map<string, Group<Quantiles>> {
  const current = collectHistograms(ctx.now, name);
  const previous = ctx.before ? collectHistograms(ctx.before, name) : undefined;
  const deltas: { labels: HistogramSeries['labels']; buckets: Bucket[] }[] = [];
  for (const [key, h] of current) {
    if (h.buckets.length === 0) continue;
    deltas.push({ labels: h.labels, buckets: previous ? bucketDelta(h.buckets, previous.get(key)?.buckets) : h.buckets });
  }
  const out = new Map<string, Group<Quantiles>>();
  for (const [, g] of mergeHistogramsBy(deltas, by)) {
    const observations = g.buckets.length > 0 ? g.buckets[g.buckets.length - 1]!.count : null;
    out.set(labelKey(g.labels), {
      labels: g.labels,
      value: {
        p50: finite(histogramQuantile(0.5, g.buckets)),
        p99: finite(histogramQuantile(0.99, g.buckets)),
        observations: observations === null ? null : finite(observations),
        basis: previous ? 'interval' : 'since-start',
      },
    });
  }
  return out;
}

function value(g: Group<number | undefined> | undefined): number | null {
  return g === undefined || g.value === undefined ? null : finite(g.value);
}

/** NaN and ±Inf become null: the snapshot must survive JSON, which has neither. */
function finite(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

function sumPresent(values: readonly (number | null)[]): number | null {
  let total: number | null = null;
  for (const v of values) if (v !== null) total = (total ?? 0) + v;
  return total;
}
