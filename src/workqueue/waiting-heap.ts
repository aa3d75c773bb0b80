/**
 * Items waiting for their ready time: a binary min-heap keyed by readyAt with one entry per item.
 * Mirrors waitForPriorityQueue plus the `knownEntries` map of client-go
 * util/workqueue/delaying_queue.go.
 *
 * Deliberate difference: ties on readyAt leave in insertion order (Go's container/heap makes no
 * promise), so tests and traces are deterministic.
 */
interface WaitEntry<T> {
  item: T;
  readyAt: number;
  seq: number;
  index: number;
}

export class WaitingHeap<T> {
  private readonly heap: WaitEntry<T>[] = [];
  private readonly byItem = new Map<T, WaitEntry<T>>();
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  /** Adds item, or moves its existing entry earlier; a later time never replaces an earlier one. */
  insert(item: T, readyAt: number): void {
    const existing = this.byItem.get(item);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.up(existing.index);
      }
      return;
    }
    const entry: WaitEntry<T> = { item, readyAt, seq: this.seq++, index: this.heap.length };
    this.heap.push(entry);
    this.byItem.set(item, entry);
    this.up(entry.index);
  }

  /** Ready time of the earliest entry. */
  peekReadyAt(): number | undefined {
    return this.heap[0]?.readyAt;
  }

  /** Removes and returns the earliest entry's item. Only called when size > 0. */
  pop(): T {
    const top = this.heap[0]!;
    const last = this.heap.pop()!;
    if (last !== top) {
      last.index = 0;
      this.heap[0] = last;
      this.down(0);
    }
    this.byItem.delete(top.item);
    return top.item;
  }

  /** Ready time of item's entry, if it is waiting. */
  readyAtOf(item: T): number | undefined {
    return this.byItem.get(item)?.readyAt;
  }

  clear(): void {
    this.heap.length = 0;
    this.byItem.clear();
  }

  private less(a: WaitEntry<T>, b: WaitEntry<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i]!;
    const b = this.heap[j]!;
    this.heap[i] = b;
    this.heap[j] = a;
    a.index = j;
    b.index = i;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.heap[i]!, this.heap[parent]!)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && this.less(this.heap[r]!, this.heap[l]!) ? r : l;
      if (!this.less(this.heap[child]!, this.heap[i]!)) break;
      this.swap(i, child);
      i = child;
    }
  }
}
