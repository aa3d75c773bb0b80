/**
 * Mirrors k8s.io/utils/buffer/ring_growing.go (RingGrowing, and Ring with a NormalSize): an
 * unbounded FIFO ring that starts at a fixed size and doubles when full, so reads and writes are
 * O(1) with no Array.shift. Given a `normalSize` (Ring), a ring that has grown past it goes back to
 * it once it is empty again (read to the end, or cleared): a burst does not keep its storage.
 *
 * Deliberate differences: generic over T; `peek`, `forEach` and `clear` added for the DeltaFIFO
 * queue and for backlog stats.
 */
export class RingGrowing<T> {
  private data: (T | undefined)[];
  private beg = 0;
  private readable = 0;
  private readonly normalSize: number | undefined;

  constructor(initialSize = 1024, normalSize?: number) {
    this.data = new Array<T | undefined>(Math.max(1, initialSize));
    this.normalSize = normalSize === undefined ? undefined : Math.max(1, normalSize);
  }

  get length(): number {
    return this.readable;
  }

  /** The slots the ring holds now, used or not. */
  get capacity(): number {
    return this.data.length;
  }

  /** Removes and returns the oldest element; undefined when empty (check `length` if T may be undefined). */
  readOne(): T | undefined {
    if (this.readable === 0) return undefined;
    const v = this.data[this.beg];
    this.data[this.beg] = undefined; // let the GC take it
    this.beg = this.beg === this.data.length - 1 ? 0 : this.beg + 1;
    this.readable--;
    if (this.readable === 0) this.emptied();
    return v;
  }

  peek(): T | undefined {
    return this.readable === 0 ? undefined : this.data[this.beg];
  }

  writeOne(v: T): void {
    const n = this.data.length;
    if (this.readable === n) {
      // Full: double, copying the wrapped contents to the start of the new array.
      const next = new Array<T | undefined>(n * 2);
      for (let i = 0; i < n; i++) next[i] = this.data[(this.beg + i) % n];
      this.data = next;
      this.beg = 0;
    }
    this.data[(this.beg + this.readable) % this.data.length] = v;
    this.readable++;
  }

  forEach(fn: (v: T) => void): void {
    const n = this.data.length;
    for (let i = 0; i < this.readable; i++) fn(this.data[(this.beg + i) % n] as T);
  }

  clear(): void {
    this.data.fill(undefined);
    this.readable = 0;
    this.emptied();
  }

  /** Empty again: from the start, and back to the normal size when it has grown past it. */
  private emptied(): void {
    this.beg = 0;
    if (this.normalSize !== undefined && this.data.length > this.normalSize) this.data = new Array<T | undefined>(this.normalSize);
  }
}
