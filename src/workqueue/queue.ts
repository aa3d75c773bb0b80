/**
 * The basic work queue: a FIFO plus the `dirty` and `processing` sets. Mirrors client-go
 * util/workqueue/queue.go (Type / TypedInterface).
 *
 * Deliberate differences:
 * - get() is async and resolves `{ item, shutdown }`; waiting getters are served in arrival order,
 *   and an item is moved to `processing` at the moment it is handed to a waiting getter.
 * - shutDownWithDrain() returns a Promise. It settles when a done() leaves `processing` empty with
 *   nothing re-queued (client-go signals the same condition, but a re-queued dirty item may also
 *   wake it, racily), or when shutDown() is called later.
 * - Items are compared as Map keys (SameValueZero): strings by value, objects by reference.
 * - No Find(): it is not part of upstream client-go's interface.
 */
import { realClock, type Clock, type Timer } from '../clock.js';
import {
  newQueueMetrics,
  noopMetricsProvider,
  UNFINISHED_WORK_UPDATE_PERIOD_MS,
  type MetricsProvider,
  type QueueMetrics,
} from './metrics.js';
import { defaultQueueStorage, type QueueStorage } from './queue-storage.js';

export type GetResult<T> = { item: T; shutdown: false } | { item: undefined; shutdown: true };

/** client-go's workqueue.Interface. */
export interface QueueInterface<T> {
  /** Marks item as needing processing. Ignored while shutting down; repeated adds collapse. */
  add(item: T): void;
  /** Items waiting to be handed out (not those being processed). Informational only. */
  len(): number;
  /**
   * Resolves with the next item, waiting while the queue is empty. Resolves `shutdown: true`
   * only once the queue is shutting down *and* empty. The caller must call done(item).
   */
  get(): Promise<GetResult<T>>;
  /** Ends processing of item; if it was added again meanwhile it is queued again. */
  done(item: T): void;
  /** Ignore new items and release every waiting getter once the queue is empty. */
  shutDown(): void;
  /** As shutDown, and resolve once every item being processed has been marked done. */
  shutDownWithDrain(): Promise<void>;
  shuttingDown(): boolean;
}

export interface QueueConfig<T> {
  /** Metrics are reported only for named queues. */
  name?: string;
  metricsProvider?: MetricsProvider;
  clock?: Clock;
  /** The FIFO (client-go's `Queue` field); a ring buffer by default. */
  storage?: QueueStorage<T>;
}

export class Queue<T> implements QueueInterface<T> {
  private readonly storage: QueueStorage<T>;
  /** Everything that needs processing: waiting in `storage`, or re-added while processing. */
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  /** Getters waiting for an item; non-empty only while `storage` is empty. */
  private readonly waiters: ((result: GetResult<T>) => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  private isShuttingDown = false;
  private drain = false;
  private readonly metrics: QueueMetrics<T> | undefined;
  private stopUnfinishedWork: (() => void) | undefined;

  constructor(config: QueueConfig<T> = {}) {
    const clock = config.clock ?? realClock;
    const provider = config.metricsProvider ?? noopMetricsProvider;
    this.storage = config.storage ?? defaultQueueStorage<T>();
    this.metrics = newQueueMetrics<T>(config.name, provider, clock);
    if (this.metrics && config.name) this.stopUnfinishedWork = this.startUnfinishedWork(config.name, provider, clock);
  }

  add(item: T): void {
    if (this.isShuttingDown) return;
    if (this.dirty.has(item)) {
      // Added again before it was handed out: a priority storage may want to know.
      if (!this.processing.has(item)) this.storage.touch(item);
      return;
    }
    this.metrics?.add(item);
    this.dirty.add(item);
    // Being processed: it is pushed again by done().
    if (this.processing.has(item)) return;
    this.storage.push(item);
    this.handOff();
  }

  len(): number {
    return this.storage.len();
  }

  get(): Promise<GetResult<T>> {
    if (this.storage.len() > 0) return Promise.resolve(this.take());
    if (this.isShuttingDown) return Promise.resolve({ item: undefined, shutdown: true });
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(item: T): void {
    this.metrics?.done(item);
    this.processing.delete(item);
    if (this.dirty.has(item)) {
      // Re-added while processing; requeued even after shutdown so workers finish it.
      this.storage.push(item);
      this.handOff();
    } else if (this.processing.size === 0) {
      this.releaseDrainWaiters();
    }
  }

  shutDown(): void {
    this.drain = false;
    this.shutdown();
    // A ShutDown after ShutDownWithDrain ends the wait for processing.
    this.releaseDrainWaiters();
  }

  shutDownWithDrain(): Promise<void> {
    this.drain = true;
    this.shutdown();
    if (this.processing.size === 0 || !this.drain) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.isShuttingDown;
  }

  private shutdown(): void {
    if (!this.isShuttingDown) {
      this.isShuttingDown = true;
      this.stopUnfinishedWork?.();
      this.stopUnfinishedWork = undefined;
    }
    // Waiters exist only while storage is empty, so every one of them is told to stop.
    const waiters = this.waiters.splice(0);
    for (const w of waiters) w({ item: undefined, shutdown: true });
  }

  private take(): GetResult<T> {
    const item = this.storage.pop();
    this.metrics?.get(item);
    this.processing.add(item);
    this.dirty.delete(item);
    return { item, shutdown: false };
  }

  /** Keeps the invariant "waiters only while storage is empty" after a push. */
  private handOff(): void {
    while (this.waiters.length > 0 && this.storage.len() > 0) {
      const waiter = this.waiters.shift()!;
      waiter(this.take());
    }
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  /** client-go's updateUnfinishedWorkLoop, or a pull registration when the provider offers one. */
  private startUnfinishedWork(name: string, provider: MetricsProvider, clock: Clock): () => void {
    const metrics = this.metrics!;
    if (provider.registerUnfinishedWorkRefresher) {
      return provider.registerUnfinishedWorkRefresher(name, () => metrics.updateUnfinishedWork());
    }
    let timer: Timer | undefined;
    const tick = (): void => {
      if (this.isShuttingDown) return;
      metrics.updateUnfinishedWork();
      timer = clock.setTimer(UNFINISHED_WORK_UPDATE_PERIOD_MS, tick);
    };
    timer = clock.setTimer(UNFINISHED_WORK_UPDATE_PERIOD_MS, tick);
    return () => timer?.stop();
  }
}
