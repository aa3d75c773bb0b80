/**
 * A work queue that can add an item later. Mirrors client-go util/workqueue/delaying_queue.go.
 *
 * Deliberate differences:
 * - No waiting goroutine or 1000-entry channel: addAfter inserts into the heap directly and one
 *   Clock timer is kept armed for the earliest ready time. It is re-armed when an earlier entry
 *   arrives, and never waits longer than MAX_WAIT_MS (client-go's 10 s heartbeat) so a clock that
 *   jumps cannot strand an item. Nothing runs while the heap is empty.
 * - The heap entry is kept even when the item is already queued, as upstream does: the later Add
 *   collapses.
 * - A delay that is not a positive number (0, negative, NaN) adds now.
 */
import { realClock, type Clock, type Timer } from '../clock.js';
import { newRetryMetrics, type MetricsProvider, type RetryMetrics } from './metrics.js';
import { Queue, WrappedQueue, type QueueInterface } from './queue.js';
import { WaitingHeap } from './waiting-heap.js';

/** client-go's DelayingInterface. */
export interface DelayingInterface<T> extends QueueInterface<T> {
  /**
   * Adds item once `delayMs` has passed. Ignored while shutting down; counts a retry otherwise.
   * If item is already waiting, the earlier of the two ready times is kept.
   */
  addAfter(item: T, delayMs: number): void;
}

export interface DelayingQueueConfig<T> {
  name?: string;
  metricsProvider?: MetricsProvider;
  clock?: Clock;
  /** The queue to add ready items to; a new Queue with the same name, provider and clock by default. */
  queue?: QueueInterface<T>;
}

/** Longest the delaying queue sleeps before re-checking the heap (client-go's maxWait). */
export const MAX_WAIT_MS = 10_000;

export class DelayingQueue<T> extends WrappedQueue<T> implements DelayingInterface<T> {
  private readonly clock: Clock;
  protected readonly queue: QueueInterface<T>;
  private readonly retries: RetryMetrics;
  private readonly waiting = new WaitingHeap<T>();
  private timer: Timer | undefined;
  /** The ready time the armed timer serves. */
  private timerFor = Infinity;
  private stopped = false;

  constructor(config: DelayingQueueConfig<T> = {}) {
    super();
    this.clock = config.clock ?? realClock;
    this.queue =
      config.queue ??
      new Queue<T>({
        clock: this.clock,
        ...(config.name !== undefined ? { name: config.name } : {}),
        ...(config.metricsProvider ? { metricsProvider: config.metricsProvider } : {}),
      });
    this.retries = newRetryMetrics(config.name, config.metricsProvider);
  }

  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    this.retries.retry();
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    this.waiting.insert(item, this.clock.now() + delayMs);
    this.arm();
  }

  override shutDown(): void {
    this.stopWaiting();
    super.shutDown();
  }

  override shutDownWithDrain(): Promise<void> {
    this.stopWaiting();
    return super.shutDownWithDrain();
  }

  /** Items waiting for their ready time (for views and tests). */
  waitingLen(): number {
    return this.waiting.size;
  }

  private stopWaiting(): void {
    this.stopped = true;
    this.timer?.stop();
    this.timer = undefined;
    this.timerFor = Infinity;
    this.waiting.clear();
  }

  /** Makes sure a timer is set for the earliest entry. */
  private arm(): void {
    const next = this.waiting.peekReadyAt();
    if (next === undefined || this.stopped) return;
    if (this.timer && this.timerFor <= next) return;
    this.timer?.stop();
    const delay = Math.min(Math.max(0, next - this.clock.now()), MAX_WAIT_MS);
    this.timerFor = next;
    this.timer = this.clock.setTimer(delay, () => this.fire());
  }

  private fire(): void {
    this.timer = undefined;
    this.timerFor = Infinity;
    if (this.stopped || this.queue.shuttingDown()) return;
    const now = this.clock.now();
    for (let next = this.waiting.peekReadyAt(); next !== undefined && next <= now; next = this.waiting.peekReadyAt()) {
      this.queue.add(this.waiting.pop());
    }
    this.arm();
  }
}
