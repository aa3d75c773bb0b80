/**
 * Rate limiters: small strategies behind one interface that compose with MaxOf. Mirrors client-go
 * util/workqueue/default_rate_limiters.go.
 *
 * Deliberate differences:
 * - Durations are milliseconds (numbers), not Go Durations; "overflow" of the exponential backoff
 *   is a non-finite or over-cap product, which returns the cap as Go does.
 * - BucketRateLimiter takes the Clock its token bucket reads.
 */
import { realClock, type Clock } from '../clock.js';
import { TokenBucket } from './token-bucket.js';

/** client-go's TypedRateLimiter. */
export interface RateLimiter<T> {
  /** How long to wait before the item is processed again; records a failure for it. */
  when(item: T): number;
  /** Stops tracking the item: clears its failure count (not any delay already handed out). */
  forget(item: T): void;
  /** How many failures the item has had. */
  numRequeues(item: T): number;
}

/** baseDelay·2^failures per item, capped at maxDelay. */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly baseDelayMs: number,
    private readonly maxDelayMs: number,
  ) {}

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const backoff = this.baseDelayMs * 2 ** exp;
    if (!Number.isFinite(backoff) || backoff > this.maxDelayMs) return this.maxDelayMs;
    return backoff;
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }
}

/** fastDelay for the first maxFastAttempts failures of an item, slowDelay after. */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly fastDelayMs: number,
    private readonly slowDelayMs: number,
    private readonly maxFastAttempts: number,
  ) {}

  when(item: T): number {
    const n = (this.failures.get(item) ?? 0) + 1;
    this.failures.set(item, n);
    return n <= this.maxFastAttempts ? this.fastDelayMs : this.slowDelayMs;
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }
}

/** One token bucket shared by all items: overall qps with a burst. Tracks no per-item state. */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private readonly bucket: TokenBucket;

  constructor(qps: number, burst: number, clock: Clock = realClock) {
    this.bucket = new TokenBucket(qps, burst, clock);
  }

  when(_item: T): number {
    return this.bucket.reserve();
  }

  numRequeues(_item: T): number {
    return 0;
  }

  forget(_item: T): void {}
}

/** The largest delay of its children. Every child's when() is called, so each records the failure. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    let ret = 0;
    for (const limiter of this.limiters) {
      const curr = limiter.when(item);
      if (curr > ret) ret = curr;
    }
    return ret;
  }

  numRequeues(item: T): number {
    let ret = 0;
    for (const limiter of this.limiters) {
      const curr = limiter.numRequeues(item);
      if (curr > ret) ret = curr;
    }
    return ret;
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }
}

/** Caps another limiter's delay at maxDelay. */
export class WithMaxWaitRateLimiter<T> implements RateLimiter<T> {
  constructor(
    private readonly limiter: RateLimiter<T>,
    private readonly maxDelayMs: number,
  ) {}

  when(item: T): number {
    const delay = this.limiter.when(item);
    return Math.min(delay, this.maxDelayMs);
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }

  forget(item: T): void {
    this.limiter.forget(item);
  }
}

/**
 * client-go's DefaultControllerRateLimiter: per-item exponential backoff from 5 ms to 1000 s,
 * and overall 10 qps with a burst of 100.
 */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(new ItemExponentialFailureRateLimiter<T>(5, 1000 * 1000), new BucketRateLimiter<T>(10, 100, clock));
}
