/**
 * Work queues in the manner of client-go's util/workqueue (docs/design/clientgo-semantics.md §5:
 * what is kept and where we differ). The contract (client-go doc.go):
 *
 * - Fair: items are handed out in the order they were added, and waiting getters are served in
 *   the order they asked.
 * - Stingy: an item added many times before it is processed is processed once; an item is never
 *   processed by two workers at the same time (an add while it is processing brings it back after
 *   done()).
 * - Many producers and consumers: any number of callers may add, and any number of workers may
 *   get/done, interleaved freely; workers can add an item again while processing it.
 * - Shutdown: shutDown() ignores new adds and releases every waiting worker once the queue is
 *   empty (work already queued is still handed out); shutDownWithDrain() also waits until the
 *   items being processed are done.
 *
 * Layers: Queue → DelayingQueue (addAfter, one timer on the injected Clock) → RateLimitingQueue
 * (addRateLimited / forget / numRequeues over a RateLimiter). Metrics are reported only for
 * named queues, through a MetricsProvider (no-op by default; InMemoryMetricsProvider for
 * snapshots and Prometheus text).
 */
export { Queue, type GetResult, type QueueConfig, type QueueInterface } from './queue.js';
export { RingQueueStorage, type QueueStorage } from './queue-storage.js';
export {
  DelayingQueue,
  MAX_WAIT_MS,
  type DelayingInterface,
  type DelayingQueueConfig,
} from './delaying-queue.js';
export {
  RateLimitingQueue,
  type RateLimitingInterface,
  type RateLimitingQueueConfig,
} from './rate-limiting-queue.js';
export {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  type RateLimiter,
} from './default-rate-limiters.js';
export { TokenBucket } from './token-bucket.js';
export {
  DURATION_BUCKETS_SECONDS,
  noopMetricsProvider,
  UNFINISHED_WORK_UPDATE_PERIOD_MS,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type MetricsProvider,
  type SettableGaugeMetric,
} from './metrics.js';
export {
  InMemoryMetricsProvider,
  type HistogramSnapshot,
  type QueueMetricsSnapshot,
  type WorkqueueMetricsSnapshot,
} from './in-memory-metrics.js';
