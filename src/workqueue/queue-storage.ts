/**
 * The FIFO under a work queue. Mirrors the `Queue[T]` interface and `DefaultQueue` in client-go
 * util/workqueue/queue.go.
 *
 * Deliberate differences:
 * - Named QueueStorage (client-go's `Queue`) so it is not confused with the work queue itself.
 * - The default is a growable ring buffer: pop is O(1) without shift(), and popped slots are
 *   cleared so items can be collected (client-go re-slices and nils the head slot). When it
 *   empties it keeps its capacity if the items since it last emptied filled more than a quarter
 *   of it, and shrinks back otherwise, so a burst is not re-grown on every fill but does not pin
 *   memory once traffic is smaller.
 * - The ring's buffer is made by a function given to the constructor: a plain array by default; the
 *   work queue's own FIFO of slot numbers uses an Int32Array, whose elements live outside the
 *   garbage-collected heap, so a ring of 100,000 slots is neither scanned nor copied by the
 *   young-generation collector as it grows.
 */
export interface QueueStorage<T> {
  /**
   * Called when an item that is already waiting is added again (never while it is being
   * processed). A priority storage may reorder on it; the default ignores it.
   */
  touch(item: T): void;
  /** Appends an item. The work queue guarantees it is not already stored. */
  push(item: T): void;
  len(): number;
  /** Removes and returns the oldest item. Only called when len() > 0. */
  pop(): T;
}

const MIN_CAPACITY = 16;
/** Above this capacity an empty ring may shrink back (see the file comment). */
const SHRINK_ABOVE = 1024;

/** What the ring stores its items in: indexable, of a fixed length. */
export interface RingBuffer<T> {
  [index: number]: T | undefined;
  readonly length: number;
}

/** A ring of slot numbers (non-negative 32-bit integers) in an Int32Array. */
export const int32Ring = (capacity: number): RingBuffer<number> => new Int32Array(capacity);

const arrayRing = <T>(capacity: number): RingBuffer<T> => new Array<T | undefined>(capacity);

export class RingQueueStorage<T> implements QueueStorage<T> {
  private buf: RingBuffer<T>;
  private head = 0;
  private size = 0;
  /** Largest size since the ring was last empty. */
  private peak = 0;
  private readonly holdsReferences: boolean;

  constructor(
    initialCapacity = MIN_CAPACITY,
    private readonly newBuffer: (capacity: number) => RingBuffer<T> = arrayRing,
  ) {
    let cap = MIN_CAPACITY;
    while (cap < initialCapacity) cap *= 2;
    this.buf = newBuffer(cap);
    this.holdsReferences = !ArrayBuffer.isView(this.buf);
  }

  touch(_item: T): void {
    // FIFO order does not change on a repeated add.
  }

  push(item: T): void {
    if (this.size === this.buf.length) this.grow();
    this.buf[(this.head + this.size) & (this.buf.length - 1)] = item;
    if (++this.size > this.peak) this.peak = this.size;
  }

  len(): number {
    return this.size;
  }

  pop(): T {
    if (this.size === 0) throw new Error('RingQueueStorage.pop on an empty queue');
    const item = this.buf[this.head] as T;
    // A popped slot of an array is cleared so its item can be collected; a typed array holds none.
    if (this.holdsReferences) this.buf[this.head] = undefined;
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.size--;
    if (this.size === 0) {
      this.head = 0;
      if (this.buf.length > SHRINK_ABOVE && this.peak * 4 <= this.buf.length) {
        this.buf = this.newBuffer(MIN_CAPACITY);
      }
      this.peak = 0;
    }
    return item;
  }

  private grow(): void {
    const old = this.buf;
    const next = this.newBuffer(old.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = old[(this.head + i) & (old.length - 1)];
    this.buf = next;
    this.head = 0;
  }
}
