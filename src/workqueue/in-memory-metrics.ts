/**
 * A MetricsProvider that keeps client-go's workqueue metrics in memory, for the UI (plain
 * snapshots) and for a /metrics-style dump (Prometheus text). Same metric names, meanings and
 * histogram buckets as client-go's component-base workqueue provider.
 *
 * Deliberate difference: workqueue_unfinished_work_seconds and
 * workqueue_longest_running_processor_seconds are recomputed from each queue's in-flight set
 * whenever a snapshot or dump is taken (client-go sets them every 500 ms), so they are exact at
 * read time.
 */
import {
  DURATION_BUCKETS_SECONDS,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type MetricsProvider,
  type SettableGaugeMetric,
} from './metrics.js';
import { escapeHelp, escapeLabelValue, formatFloat } from './prometheus-text.js';

export interface HistogramSnapshot {
  /** Cumulative counts per finite upper bound (seconds); the +Inf bucket is `count`. */
  buckets: { le: number; count: number }[];
  sum: number;
  count: number;
  /** Estimated by linear interpolation within a bucket, as histogram_quantile does; null when empty. */
  p50: number | null;
  p99: number | null;
}

export interface QueueMetricsSnapshot {
  name: string;
  depth: number;
  adds: number;
  retries: number;
  queueDuration: HistogramSnapshot;
  workDuration: HistogramSnapshot;
  unfinishedWorkSeconds: number;
  longestRunningProcessorSeconds: number;
}

/** Per queue name. */
export type WorkqueueMetricsSnapshot = Record<string, QueueMetricsSnapshot>;

class Histogram implements HistogramMetric {
  /** Non-cumulative counts per finite bucket; observations above the last bound only count. */
  readonly counts = new Array<number>(DURATION_BUCKETS_SECONDS.length).fill(0);
  sum = 0;
  count = 0;

  observe(value: number): void {
    this.sum += value;
    this.count++;
    for (let i = 0; i < DURATION_BUCKETS_SECONDS.length; i++) {
      if (value <= DURATION_BUCKETS_SECONDS[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }

  cumulative(): number[] {
    const out: number[] = [];
    let acc = 0;
    for (const c of this.counts) {
      acc += c;
      out.push(acc);
    }
    return out;
  }

  snapshot(): HistogramSnapshot {
    const cum = this.cumulative();
    return {
      buckets: DURATION_BUCKETS_SECONDS.map((le, i) => ({ le, count: cum[i]! })),
      sum: this.sum,
      count: this.count,
      p50: quantile(0.5, cum, this.count),
      p99: quantile(0.99, cum, this.count),
    };
  }
}

/** histogram_quantile over cumulative finite buckets plus an implicit +Inf bucket of `total`. */
export function quantile(q: number, cumulative: readonly number[], total: number): number | null {
  if (total === 0) return null;
  const rank = q * total;
  for (let i = 0; i < cumulative.length; i++) {
    const cum = cumulative[i]!;
    if (cum >= rank && cum > 0) {
      const lower = i === 0 ? 0 : DURATION_BUCKETS_SECONDS[i - 1]!;
      const upper = DURATION_BUCKETS_SECONDS[i]!;
      const before = i === 0 ? 0 : cumulative[i - 1]!;
      return lower + (upper - lower) * ((rank - before) / (cum - before));
    }
  }
  // In the +Inf bucket: the highest finite bound is the best answer, as in Prometheus.
  return DURATION_BUCKETS_SECONDS[DURATION_BUCKETS_SECONDS.length - 1]!;
}

class QueueSeries {
  depth = 0;
  adds = 0;
  retries = 0;
  unfinished = 0;
  longest = 0;
  readonly latency = new Histogram();
  readonly work = new Histogram();
  readonly refreshers = new Set<() => void>();

  refresh(): void {
    for (const r of this.refreshers) r();
  }
}

const HELP = {
  depth: 'Current depth of workqueue',
  adds: 'Total number of adds handled by workqueue',
  latency: 'How long in seconds an item stays in workqueue before being requested.',
  work: 'How long in seconds processing an item from workqueue takes.',
  unfinished:
    "How many seconds of work has done that is in progress and hasn't been observed by work_duration. " +
    'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
  longest: 'How many seconds has the longest running processor for workqueue been running.',
  retries: 'Total number of retries handled by workqueue',
} as const;

export class InMemoryMetricsProvider implements MetricsProvider {
  private readonly series = new Map<string, QueueSeries>();

  newDepthMetric(name: string): GaugeMetric {
    const s = this.get(name);
    return { inc: () => void s.depth++, dec: () => void s.depth-- };
  }

  newAddsMetric(name: string): CounterMetric {
    const s = this.get(name);
    return { inc: () => void s.adds++ };
  }

  newLatencyMetric(name: string): HistogramMetric {
    return this.get(name).latency;
  }

  newWorkDurationMetric(name: string): HistogramMetric {
    return this.get(name).work;
  }

  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric {
    const s = this.get(name);
    return { set: (v) => void (s.unfinished = v) };
  }

  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric {
    const s = this.get(name);
    return { set: (v) => void (s.longest = v) };
  }

  newRetriesMetric(name: string): CounterMetric {
    const s = this.get(name);
    return { inc: () => void s.retries++ };
  }

  registerUnfinishedWorkRefresher(name: string, refresh: () => void): () => void {
    const s = this.get(name);
    s.refreshers.add(refresh);
    return () => {
      // One last reading, so the gauges keep the value they had when the queue stopped.
      refresh();
      s.refreshers.delete(refresh);
    };
  }

  /** Names of the queues seen so far, sorted. */
  names(): string[] {
    return [...this.series.keys()].sort();
  }

  snapshot(): WorkqueueMetricsSnapshot {
    const out: WorkqueueMetricsSnapshot = {};
    for (const name of this.names()) {
      const s = this.series.get(name)!;
      s.refresh();
      out[name] = {
        name,
        depth: s.depth,
        adds: s.adds,
        retries: s.retries,
        queueDuration: s.latency.snapshot(),
        workDuration: s.work.snapshot(),
        unfinishedWorkSeconds: s.unfinished,
        longestRunningProcessorSeconds: s.longest,
      };
    }
    return out;
  }

  /** All series in the Prometheus text exposition format, metric families in client-go's order. */
  renderPrometheus(): string {
    const names = this.names();
    for (const name of names) this.series.get(name)!.refresh();
    const lines: string[] = [];
    const family = (metric: string, type: string, help: string, body: (name: string, s: QueueSeries) => void): void => {
      if (names.length === 0) return;
      lines.push(`# HELP ${metric} ${escapeHelp(help)}`, `# TYPE ${metric} ${type}`);
      for (const name of names) body(name, this.series.get(name)!);
    };
    const label = (name: string): string => `name="${escapeLabelValue(name)}"`;
    const simple = (metric: string, type: string, help: string, value: (s: QueueSeries) => number): void =>
      family(metric, type, help, (name, s) => lines.push(`${metric}{${label(name)}} ${formatFloat(value(s))}`));
    const histogram = (metric: string, help: string, pick: (s: QueueSeries) => Histogram): void =>
      family(metric, 'histogram', help, (name, s) => {
        const h = pick(s);
        const cum = h.cumulative();
        DURATION_BUCKETS_SECONDS.forEach((le, i) => {
          lines.push(`${metric}_bucket{${label(name)},le="${formatFloat(le)}"} ${formatFloat(cum[i]!)}`);
        });
        lines.push(`${metric}_bucket{${label(name)},le="+Inf"} ${formatFloat(h.count)}`);
        lines.push(`${metric}_sum{${label(name)}} ${formatFloat(h.sum)}`);
        lines.push(`${metric}_count{${label(name)}} ${formatFloat(h.count)}`);
      });

    simple('workqueue_depth', 'gauge', HELP.depth, (s) => s.depth);
    simple('workqueue_adds_total', 'counter', HELP.adds, (s) => s.adds);
    histogram('workqueue_queue_duration_seconds', HELP.latency, (s) => s.latency);
    histogram('workqueue_work_duration_seconds', HELP.work, (s) => s.work);
    simple('workqueue_unfinished_work_seconds', 'gauge', HELP.unfinished, (s) => s.unfinished);
    simple('workqueue_longest_running_processor_seconds', 'gauge', HELP.longest, (s) => s.longest);
    simple('workqueue_retries_total', 'counter', HELP.retries, (s) => s.retries);
    return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  }

  private get(name: string): QueueSeries {
    let s = this.series.get(name);
    if (!s) {
      s = new QueueSeries();
      this.series.set(name, s);
    }
    return s;
  }
}
