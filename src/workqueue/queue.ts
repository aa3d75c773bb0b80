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
 * - `dirty` and `processing` are two state bits of a numbered slot per item; one Map gives an
 *   item's slot, and the default FIFO holds slots (a caller's storage is given items). A slot
 *   whose item is neither dirty nor processing (idle) is kept until a later sweep, so an item
 *   that comes back soon costs no Map insert and delete (client-go's Go maps likewise keep their
 *   buckets). A sweep runs once max(SWEEP_MIN, peak of dirty-or-processing items since the
 *   previous sweep) items have become idle, and frees the idle slots whose item has not become
 *   idle since the previous sweep, so at most about twice that many idle items stay referenced.
 *   Freed slots are reused; the per-slot arrays keep the length of the most slots ever in use.
 */
import { realClock, type Clock, type Timer } from '../clock.js';
import { newQueueMetrics, noopMetricsProvider, UNFINISHED_WORK_UPDATE_PERIOD_MS, type MetricsProvider, type QueueMetrics } from './metrics.js';
import { int32Ring, RingQueueStorage, type QueueStorage } from './queue-storage.js';

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

/**
 * A queue that hands every QueueInterface call to the queue inside it, as client-go's delaying and
 * rate-limiting queues embed theirs: a subclass adds its own calls and overrides what it changes.
 */
export abstract class WrappedQueue<T, Q extends QueueInterface<T> = QueueInterface<T>> implements QueueInterface<T> {
  protected abstract readonly queue: Q;

  add(item: T): void {
    this.queue.add(item);
  }

  len(): number {
    return this.queue.len();
  }

  get(): Promise<GetResult<T>> {
    return this.queue.get();
  }

  done(item: T): void {
    this.queue.done(item);
  }

  shutDown(): void {
    this.queue.shutDown();
  }

  shutDownWithDrain(): Promise<void> {
    return this.queue.shutDownWithDrain();
  }

  shuttingDown(): boolean {
    return this.queue.shuttingDown();
  }
}

export interface QueueConfig<T> {
  /** Metrics are reported only for named queues. */
  name?: string;
  metricsProvider?: MetricsProvider;
  clock?: Clock;
  /** The FIFO (client-go's `Queue` field); a ring buffer by default. */
  storage?: QueueStorage<T>;
}

const DIRTY = 1;
const PROCESSING = 2;
/** Fewest idle transitions between two sweeps. */
const SWEEP_MIN = 1024;
const NO_SLOT = -1;
const INITIAL_SLOTS = 16;

/** A copy of a per-slot array at twice its length. */
function grown(a: Int32Array): Int32Array<ArrayBuffer> {
  const next = new Int32Array(a.length * 2);
  next.set(a);
  return next;
}

/** A caller's QueueStorage<T> seen as a FIFO of slots. */
class ItemStorage<T> implements QueueStorage<number> {
  constructor(
    private readonly inner: QueueStorage<T>,
    private readonly itemOf: (slot: number) => T,
    private readonly slotOf: (item: T) => number,
  ) {}
  touch(slot: number): void {
    this.inner.touch(this.itemOf(slot));
  }
  push(slot: number): void {
    this.inner.push(this.itemOf(slot));
  }
  len(): number {
    return this.inner.len();
  }
  pop(): number {
    return this.slotOf(this.inner.pop());
  }
}

export class Queue<T> implements QueueInterface<T> {
  /** The FIFO (client-go's `queue`): slots of items that are dirty and not processing. */
  private readonly fifo: QueueStorage<number>;
  /**
   * The slot of every dirty or processing item (client-go's `dirty` and `processing` sets are
   * bits of its slot state), and of idle items until they are swept.
   */
  private readonly slots = new Map<T, number>();
  // Per-slot state, indexed by slot. The numbers are kept in Int32Arrays, grown together by
  // doubling: keeping state allocates no objects, and their elements, outside the
  // garbage-collected heap, are neither scanned nor copied by the young-generation collector
  // (BENCHMARKS.md, "Work queue, 100,000 keys").
  private readonly slotItem: (T | undefined)[] = [];
  /** DIRTY | PROCESSING; 0 when idle. */
  private slotState = new Int32Array(INITIAL_SLOTS);
  /** Copies in the FIFO: more than one only after done() on an item that was not processing. */
  private slotQueued = new Int32Array(INITIAL_SLOTS);
  /** The sweep epoch in which the slot's item last became idle. */
  private slotIdleEpoch = new Int32Array(INITIAL_SLOTS);
  private readonly freeSlots: number[] = [];
  /** The slot last handed out, so done() right after get() needs no Map lookup. */
  private lastTaken = NO_SLOT;
  private processingCount = 0;
  /** Slots whose item is dirty or processing. */
  private liveCount = 0;
  /** Highest liveCount since the last sweep. */
  private liveHighWater = 0;
  private idleSinceSweep = 0;
  private epoch = 0;
  /** Getters waiting for an item; non-empty only while `fifo` is empty. */
  private readonly waiters: ((result: GetResult<T>) => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  private isShuttingDown = false;
  private drain = false;
  private readonly metrics: QueueMetrics<T> | undefined;
  private stopUnfinishedWork: (() => void) | undefined;

  constructor(config: QueueConfig<T> = {}) {
    const clock = config.clock ?? realClock;
    const provider = config.metricsProvider ?? noopMetricsProvider;
    this.fifo = config.storage
      ? new ItemStorage<T>(
          config.storage,
          (slot) => this.slotItem[slot] as T,
          (item) => this.slotOfStored(item),
        )
      : new RingQueueStorage<number>(undefined, int32Ring);
    this.metrics = newQueueMetrics<T>(config.name, provider, clock);
    if (this.metrics && config.name) this.stopUnfinishedWork = this.startUnfinishedWork(config.name, provider, clock);
  }

  add(item: T): void {
    if (this.isShuttingDown) return;
    let slot = this.slots.get(item);
    let state = 0;
    if (slot === undefined) {
      slot = this.newSlot(item);
    } else {
      state = this.slotState[slot]!;
      if ((state & DIRTY) !== 0) {
        // Added again before it was handed out: a priority storage may want to know.
        if ((state & PROCESSING) === 0) this.fifo.touch(slot);
        return;
      }
    }
    this.metrics?.add(item);
    if (state === 0) this.becameLive();
    this.slotState[slot] = state | DIRTY;
    // Being processed: it is pushed again by done().
    if ((state & PROCESSING) !== 0) return;
    this.slotQueued[slot]!++;
    this.fifo.push(slot);
    if (this.waiters.length > 0) this.handOff();
  }

  len(): number {
    return this.fifo.len();
  }

  get(): Promise<GetResult<T>> {
    if (this.fifo.len() > 0) return Promise.resolve(this.take());
    if (this.isShuttingDown) return Promise.resolve({ item: undefined, shutdown: true });
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(item: T): void {
    this.metrics?.done(item);
    let slot: number | undefined = this.lastTaken;
    if (slot === NO_SLOT || this.slotItem[slot] !== item) {
      slot = this.slots.get(item);
      if (slot === undefined) {
        if (this.processingCount === 0) this.releaseDrainWaiters();
        return;
      }
    }
    let state = this.slotState[slot]!;
    const wasProcessing = (state & PROCESSING) !== 0;
    if (wasProcessing) {
      state &= ~PROCESSING;
      this.slotState[slot] = state;
      this.processingCount--;
    }
    if ((state & DIRTY) !== 0) {
      // Re-added while processing; requeued even after shutdown so workers finish it.
      this.slotQueued[slot]!++;
      this.fifo.push(slot);
      if (this.waiters.length > 0) this.handOff();
      return;
    }
    if (wasProcessing) this.becameIdle(slot);
    if (this.processingCount === 0) this.releaseDrainWaiters();
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
    if (this.processingCount === 0 || !this.drain) return Promise.resolve();
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
    // Waiters exist only while the FIFO is empty, so every one of them is told to stop.
    const waiters = this.waiters.splice(0);
    for (const w of waiters) w({ item: undefined, shutdown: true });
  }

  private take(): GetResult<T> {
    const slot = this.fifo.pop();
    this.slotQueued[slot]!--;
    const item = this.slotItem[slot] as T;
    this.metrics?.get(item);
    const state = this.slotState[slot]!;
    if (state === 0) this.becameLive();
    if ((state & PROCESSING) === 0) this.processingCount++;
    this.slotState[slot] = PROCESSING;
    this.lastTaken = slot;
    return { item, shutdown: false };
  }

  private newSlot(item: T): number {
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.slotItem.length;
      this.slotItem.push(item);
      if (slot === this.slotState.length) {
        this.slotState = grown(this.slotState);
        this.slotQueued = grown(this.slotQueued);
        this.slotIdleEpoch = grown(this.slotIdleEpoch);
      }
    } else {
      this.slotItem[slot] = item;
    }
    this.slots.set(item, slot);
    return slot;
  }

  /** The slot of an item popped from a caller's storage. */
  private slotOfStored(item: T): number {
    const slot = this.slots.get(item);
    if (slot !== undefined) return slot;
    // Only a storage that returns what it was not given gets here.
    const fresh = this.newSlot(item);
    this.slotQueued[fresh] = 1;
    return fresh;
  }

  private becameLive(): void {
    if (++this.liveCount > this.liveHighWater) this.liveHighWater = this.liveCount;
  }

  private becameIdle(slot: number): void {
    this.liveCount--;
    this.slotIdleEpoch[slot] = this.epoch;
    if (++this.idleSinceSweep >= SWEEP_MIN && this.idleSinceSweep >= this.liveHighWater) this.sweep();
  }

  /** Frees the slots of idle items that have not become idle again since the previous sweep. */
  private sweep(): void {
    const epoch = this.epoch;
    const { slots, slotItem, slotState, slotQueued, slotIdleEpoch, freeSlots } = this;
    slots.forEach((slot, item) => {
      if (slotState[slot] === 0 && slotQueued[slot] === 0 && slotIdleEpoch[slot] !== epoch) {
        slots.delete(item);
        slotItem[slot] = undefined;
        freeSlots.push(slot);
      }
    });
    this.epoch = (epoch + 1) & 0x3fffffff;
    this.idleSinceSweep = 0;
    this.liveHighWater = this.liveCount;
    this.lastTaken = NO_SLOT;
  }

  /** Keeps the invariant "waiters only while the FIFO is empty" after a push. */
  private handOff(): void {
    while (this.waiters.length > 0 && this.fifo.len() > 0) {
      const waiter = this.waiters.shift()!;
      waiter(this.take());
    }
  }

  private releaseDrainWaiters(): void {
    if (this.drainWaiters.length === 0) return;
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
