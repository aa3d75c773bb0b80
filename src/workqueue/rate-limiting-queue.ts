/**
 * A delaying queue whose delays come from a rate limiter. Mirrors client-go
 * util/workqueue/rate_limiting_queue.go.
 *
 * Deliberate difference: none in behaviour. addRateLimited asks the limiter even while shutting
 * down (as upstream does), so the failure is still counted.
 */
import type { Clock } from '../clock.js';
import { DelayingQueue, type DelayingInterface } from './delaying-queue.js';
import type { MetricsProvider } from './metrics.js';
import { WrappedQueue } from './queue.js';
import type { RateLimiter } from './default-rate-limiters.js';

/** client-go's RateLimitingInterface. */
export interface RateLimitingInterface<T> extends DelayingInterface<T> {
  /** addAfter(item, rateLimiter.when(item)). */
  addRateLimited(item: T): void;
  /** Clears the item's failure count in the limiter; call it when the item succeeded. */
  forget(item: T): void;
  /** How many times the item has been rate-limited since it was last forgotten. */
  numRequeues(item: T): number;
}

export interface RateLimitingQueueConfig<T> {
  name?: string;
  metricsProvider?: MetricsProvider;
  clock?: Clock;
  /** The delaying queue to wrap; a new DelayingQueue with the same name, provider and clock by default. */
  delayingQueue?: DelayingInterface<T>;
}

export class RateLimitingQueue<T> extends WrappedQueue<T, DelayingInterface<T>> implements RateLimitingInterface<T> {
  protected readonly queue: DelayingInterface<T>;

  constructor(
    private readonly rateLimiter: RateLimiter<T>,
    config: RateLimitingQueueConfig<T> = {},
  ) {
    super();
    this.queue =
      config.delayingQueue ??
      new DelayingQueue<T>({
        ...(config.name !== undefined ? { name: config.name } : {}),
        ...(config.metricsProvider ? { metricsProvider: config.metricsProvider } : {}),
        ...(config.clock ? { clock: config.clock } : {}),
      });
  }

  addRateLimited(item: T): void {
    this.queue.addAfter(item, this.rateLimiter.when(item));
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  addAfter(item: T, delayMs: number): void {
    this.queue.addAfter(item, delayMs);
  }
}
