/**
 * Work queue metrics: the provider interface a queue reports through, and the per-queue
 * bookkeeping behind it. Mirrors client-go util/workqueue/metrics.go.
 *
 * Deliberate differences:
 * - No global provider (client-go's SetProvider): each queue is given its provider in its config,
 *   with a no-op default.
 * - Times come from the injected Clock in milliseconds; metric values are in seconds as in Go.
 * - unfinished_work_seconds and longest_running_processor_seconds: a provider that implements
 *   `registerUnfinishedWorkRefresher` has them computed from the in-flight set when it is read
 *   (the in-memory provider does). Any other provider gets client-go's 500 ms ticker.
 */
import type { Clock } from '../clock.js';

/** A gauge that goes up and down by one (workqueue_depth). */
export interface GaugeMetric {
  inc(): void;
  dec(): void;
}

/** A gauge that is set to a value (unfinished work, longest running processor). */
export interface SettableGaugeMetric {
  set(value: number): void;
}

/** A monotonically increasing counter (adds, retries). */
export interface CounterMetric {
  inc(): void;
}

/** A distribution of observed values, in seconds (queue and work duration). */
export interface HistogramMetric {
  observe(value: number): void;
}

/**
 * Creates the metrics of one named queue. Called once per metric per queue, with the queue's
 * name; queues that share a name should share the series (as Prometheus labels would).
 */
export interface MetricsProvider {
  newDepthMetric(name: string): GaugeMetric;
  newAddsMetric(name: string): CounterMetric;
  newLatencyMetric(name: string): HistogramMetric;
  newWorkDurationMetric(name: string): HistogramMetric;
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  newRetriesMetric(name: string): CounterMetric;
  /**
   * Optional. A queue registers `refresh` here instead of running a 500 ms ticker; the provider
   * calls it whenever it reads the two in-flight gauges. Returns a function that unregisters.
   */
  registerUnfinishedWorkRefresher?(name: string, refresh: () => void): () => void;
}

const noopGauge: GaugeMetric & SettableGaugeMetric = { inc() {}, dec() {}, set() {} };
const noopCounter: CounterMetric = { inc() {} };
const noopHistogram: HistogramMetric = { observe() {} };

/** The default provider: reports nothing, and queues skip their metric bookkeeping. */
export const noopMetricsProvider: MetricsProvider = {
  newDepthMetric: () => noopGauge,
  newAddsMetric: () => noopCounter,
  newLatencyMetric: () => noopHistogram,
  newWorkDurationMetric: () => noopHistogram,
  newUnfinishedWorkSecondsMetric: () => noopGauge,
  newLongestRunningProcessorSecondsMetric: () => noopGauge,
  newRetriesMetric: () => noopCounter,
};

/**
 * Histogram upper bounds in seconds: client-go's ExponentialBuckets(10e-9, 10, 10), i.e.
 * 1e-8·10^i for i in 0..9. Computed by repeated multiplication as Go does, so the `le` labels
 * come out bit-for-bit the same (1e-06, 9.999999999999999e-06, 9.999999999999999e-05, 0.001, …).
 */
export const DURATION_BUCKETS_SECONDS: readonly number[] = (() => {
  const out: number[] = [];
  let b = 10e-9;
  for (let i = 0; i < 10; i++) {
    out.push(b);
    b *= 10;
  }
  return out;
})();

/** How often client-go refreshes the in-flight gauges when the provider cannot pull them. */
export const UNFINISHED_WORK_UPDATE_PERIOD_MS = 500;

/** What a Queue reports; absent when the queue has no name or the provider is the no-op one. */
export interface QueueMetrics<T> {
  add(item: T): void;
  get(item: T): void;
  done(item: T): void;
  updateUnfinishedWork(): void;
}

class DefaultQueueMetrics<T> implements QueueMetrics<T> {
  private readonly addTimes = new Map<T, number>();
  private readonly processingStartTimes = new Map<T, number>();
  private readonly depth: GaugeMetric;
  private readonly adds: CounterMetric;
  private readonly latency: HistogramMetric;
  private readonly workDuration: HistogramMetric;
  private readonly unfinishedWorkSeconds: SettableGaugeMetric;
  private readonly longestRunningProcessor: SettableGaugeMetric;

  constructor(
    name: string,
    provider: MetricsProvider,
    private readonly clock: Clock,
  ) {
    this.depth = provider.newDepthMetric(name);
    this.adds = provider.newAddsMetric(name);
    this.latency = provider.newLatencyMetric(name);
    this.workDuration = provider.newWorkDurationMetric(name);
    this.unfinishedWorkSeconds = provider.newUnfinishedWorkSecondsMetric(name);
    this.longestRunningProcessor = provider.newLongestRunningProcessorSecondsMetric(name);
  }

  add(item: T): void {
    this.adds.inc();
    this.depth.inc();
    if (!this.addTimes.has(item)) this.addTimes.set(item, this.clock.now());
  }

  get(item: T): void {
    this.depth.dec();
    const now = this.clock.now();
    this.processingStartTimes.set(item, now);
    const start = this.addTimes.get(item);
    if (start !== undefined) {
      this.latency.observe((now - start) / 1000);
      this.addTimes.delete(item);
    }
  }

  done(item: T): void {
    const start = this.processingStartTimes.get(item);
    if (start !== undefined) {
      this.workDuration.observe((this.clock.now() - start) / 1000);
      this.processingStartTimes.delete(item);
    }
  }

  updateUnfinishedWork(): void {
    const now = this.clock.now();
    let total = 0;
    let oldest = 0;
    for (const start of this.processingStartTimes.values()) {
      const age = (now - start) / 1000;
      total += age;
      if (age > oldest) oldest = age;
    }
    this.unfinishedWorkSeconds.set(total);
    this.longestRunningProcessor.set(oldest);
  }
}

/** client-go's queueMetricsFactory.newQueueMetrics: nothing for unnamed queues. */
export function newQueueMetrics<T>(name: string | undefined, provider: MetricsProvider | undefined, clock: Clock): QueueMetrics<T> | undefined {
  if (!name || !provider || provider === noopMetricsProvider) return undefined;
  return new DefaultQueueMetrics<T>(name, provider, clock);
}

/** Counts AddAfter calls (workqueue_retries_total). */
export interface RetryMetrics {
  retry(): void;
}

const noopRetryMetrics: RetryMetrics = { retry() {} };

export function newRetryMetrics(name: string | undefined, provider: MetricsProvider | undefined): RetryMetrics {
  if (!name || !provider || provider === noopMetricsProvider) return noopRetryMetrics;
  const retries = provider.newRetriesMetric(name);
  return { retry: () => retries.inc() };
}
