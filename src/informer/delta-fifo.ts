/**
 * Mirrors client-go tools/cache/delta_fifo.go: a producer/consumer queue of per-key Deltas that
 * the Reflector fills and the informer drains.
 *
 * Deliberate differences:
 * - Pop is async: it returns a Promise that waits while the queue is empty and rejects with
 *   ErrFIFOClosed once the queue is closed and empty. `process` may return a Promise; Pop waits for
 *   it. Concurrent Pops are served one after another (Go holds the lock across process).
 * - HasSynced turns true after the last initial item's `process` returns, so "synced" means the
 *   cache holds the whole initial list (client-go's DeltaFIFO flips it when the item is dequeued,
 *   its RealFIFO after processing).
 * - Every Delta carries `receivedAt` (ms, from the injected clock, when the delta was queued, or
 *   the reflector's receive time when it passed one) and, when it came straight from a watch
 *   event, the raw `eventType`.
 * - ErrRequeue (removed in v0.33) is not offered.
 * - Informers use this DeltaFIFO; client-go 1.36 informers use RealFIFO (InOrderInformers) and
 *   replace the store atomically on a relist (AtomicFIFO). The per-key merging here is what the
 *   tracer wants to show; docs/design/clientgo-semantics.md says what handlers see differently.
 * - The queue is a growing ring (no Array.shift); items are a Map.
 */
import type { Clock } from '../clock.js';
import { realClock } from '../clock.js';
import type { KubeObject, WatchEventType } from '../kube/types.js';
import { RingGrowing } from './ring-buffer.js';
import {
  DeletedFinalStateUnknown,
  KeyError,
  metaNamespaceKeyFunc,
  type DeltaInfo,
  type KeyFunc,
  type KeyListerGetter,
  type ReflectorStore,
  type TransformFunc,
} from './store.js';

export type DeltaType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';

export interface Delta {
  type: DeltaType;
  /** The object; a DeletedFinalStateUnknown for deletions found at a relist. */
  object: KubeObject | DeletedFinalStateUnknown;
  /** Clock time (ms) the delta was queued, or when the reflector received its watch event. */
  receivedAt: number;
  /** The raw watch event type, when the delta came straight from one. */
  eventType?: WatchEventType;
}

/** Deltas of one key, oldest first. Never empty inside the FIFO. */
export type Deltas = Delta[];

export function newestDelta(deltas: Deltas): Delta | undefined {
  return deltas[deltas.length - 1];
}

export class FIFOClosedError extends Error {
  constructor() {
    super('DeltaFIFO: manipulating with closed queue');
    this.name = 'FIFOClosedError';
  }
}

/** The error Pop rejects with once the queue is closed and drained (compare with ===). */
export const ErrFIFOClosed: FIFOClosedError = new FIFOClosedError();

/** Called by Pop with one key's Deltas; `isInInitialList` means the FIFO has not synced yet. */
export type PopProcessFunc = (deltas: Deltas, isInInitialList: boolean) => void | Promise<void>;

export interface DeltaFIFOOptions {
  /** Defaults to metaNamespaceKeyFunc (tombstones are always keyed by their recorded key). */
  keyFunction?: KeyFunc;
  /** The informer's indexer: used to detect deletions at Replace and to Resync. */
  knownObjects?: KeyListerGetter;
  /** Emit Replaced (instead of Sync) for Replace items. Informers set it. */
  emitDeltaTypeReplaced?: boolean;
  /** Runs once per object as it is queued; never on tombstones or Sync. */
  transformer?: TransformFunc;
  clock?: Clock;
}

export class DeltaFIFO implements ReflectorStore {
  private readonly items = new Map<string, Deltas>();
  private readonly queue = new RingGrowing<string>(1024);
  private populated = false;
  private initialPopulationCount = 0;
  private closed = false;
  private readonly keyFunc: KeyFunc;
  private readonly knownObjects: KeyListerGetter | undefined;
  private readonly emitDeltaTypeReplaced: boolean;
  readonly transformer: TransformFunc | undefined;
  private readonly clock: Clock;
  /** Resolvers of Pops waiting for an item (cond.Wait). */
  private waiters: (() => void)[] = [];
  /** Serialises Pops: the tail of the chain of Pops in progress. */
  private popChain: Promise<unknown> = Promise.resolve();

  constructor(options: DeltaFIFOOptions = {}) {
    this.keyFunc = options.keyFunction ?? metaNamespaceKeyFunc;
    this.knownObjects = options.knownObjects;
    this.emitDeltaTypeReplaced = options.emitDeltaTypeReplaced ?? false;
    this.transformer = options.transformer;
    this.clock = options.clock ?? realClock;
  }

  /** The key of an object, of a tombstone (its key), or of Deltas (their newest object). */
  keyOf(obj: KubeObject | DeletedFinalStateUnknown | Deltas): string {
    let o: unknown = obj;
    if (Array.isArray(o)) {
      const newest = newestDelta(o as Deltas);
      if (!newest) throw new KeyError(obj, new Error("0 length Deltas object; can't get key"));
      o = newest.object;
    }
    if (o instanceof DeletedFinalStateUnknown) return o.key;
    try {
      return this.keyFunc(o);
    } catch (err) {
      throw err instanceof KeyError ? err : new KeyError(o, err);
    }
  }

  /** True once the first Replace's items (or an earlier Add/Update/Delete) have all been processed. */
  hasSynced(): boolean {
    return this.populated && this.initialPopulationCount === 0;
  }

  add(obj: KubeObject, info?: DeltaInfo): void {
    this.populated = true;
    this.queueAction('Added', 'Added', obj, info);
  }

  update(obj: KubeObject, info?: DeltaInfo): void {
    this.populated = true;
    this.queueAction('Updated', 'Updated', obj, info);
  }

  /**
   * Queues a Deleted delta, unless the key is known neither to the queue nor to knownObjects (it
   * was presumably deleted at a relist already; a second report would be a duplicate).
   */
  delete(obj: KubeObject | DeletedFinalStateUnknown, info?: DeltaInfo): void {
    const id = this.keyOf(obj);
    this.populated = true;
    if (!this.items.has(id)) {
      if (!this.knownObjects || this.knownObjects.getByKey(id) === undefined) return;
    }
    this.queueAction('Deleted', 'Deleted', obj, info);
  }

  replace(list: KubeObject[], _resourceVersion: string): void {
    const keys = new Set<string>();
    const action: DeltaType = this.emitDeltaTypeReplaced ? 'Replaced' : 'Sync';
    const now = this.clock.now();
    for (const item of list) {
      const key = this.keyOf(item);
      keys.add(key);
      this.queueActionKeyed(key, action, 'Replaced', item, now, undefined);
    }

    let queuedDeletions = 0;
    // Deletions detected against what is queued. Queueing here only appends to existing entries,
    // so iterating the live map is safe.
    for (const [k, oldItem] of this.items) {
      if (keys.has(k)) continue;
      let deletedObj: KubeObject | undefined;
      const newest = newestDelta(oldItem);
      if (newest) {
        const o = newest.object;
        deletedObj = o instanceof DeletedFinalStateUnknown ? o.obj : o;
      }
      queuedDeletions++;
      this.queueActionKeyed(k, 'Deleted', 'Deleted', new DeletedFinalStateUnknown(k, deletedObj), now, undefined);
    }

    if (this.knownObjects) {
      // Deletions of known objects with nothing queued.
      for (const k of this.knownObjects.listKeys()) {
        if (keys.has(k)) continue;
        if ((this.items.get(k)?.length ?? 0) > 0) continue;
        const deletedObj = this.knownObjects.getByKey(k);
        queuedDeletions++;
        this.queueActionKeyed(k, 'Deleted', 'Deleted', new DeletedFinalStateUnknown(k, deletedObj), now, undefined);
      }
    }

    if (!this.populated) {
      this.populated = true;
      this.initialPopulationCount = keys.size + queuedDeletions;
    }
  }

  /** Queues Sync(known object) for every known key with nothing queued. */
  resync(): void {
    if (!this.knownObjects) return;
    const now = this.clock.now();
    for (const key of this.knownObjects.listKeys()) {
      const obj = this.knownObjects.getByKey(key);
      if (obj === undefined) continue;
      const id = this.keyOf(obj);
      // Something queued already carries a newer state than the cache; a Sync would go back in time.
      if ((this.items.get(id)?.length ?? 0) > 0) continue;
      this.queueActionKeyed(id, 'Sync', 'Sync', obj, now, undefined);
    }
  }

  private queueAction(action: DeltaType, internal: DeltaType, obj: KubeObject | DeletedFinalStateUnknown, info?: DeltaInfo): void {
    const id = this.keyOf(obj);
    this.queueActionKeyed(id, action, internal, obj, info?.receivedAt ?? this.clock.now(), info?.eventType);
  }

  private queueActionKeyed(
    id: string,
    action: DeltaType,
    internal: DeltaType,
    obj: KubeObject | DeletedFinalStateUnknown,
    receivedAt: number,
    eventType: WatchEventType | undefined,
  ): void {
    // Every object passes here once: transform it here. Tombstones and Syncs carry objects that
    // were transformed already (Replace items are transformed even when emitted as Sync).
    if (this.transformer && internal !== 'Sync' && !(obj instanceof DeletedFinalStateUnknown)) {
      obj = this.transformer(obj);
    }
    const delta: Delta = eventType === undefined ? { type: action, object: obj, receivedAt } : { type: action, object: obj, receivedAt, eventType };
    const deltas = this.items.get(id);
    if (deltas === undefined) {
      this.items.set(id, [delta]);
      this.queue.writeOne(id); // a new key goes to the tail; an existing one keeps its place
    } else {
      deltas.push(delta);
      dedupDeltas(deltas);
    }
    this.wake();
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }

  /**
   * Waits for an item, removes the oldest key and calls process(deltas, isInInitialList).
   * Resolves with the deltas after process returns (or rejects with its error). Rejects with
   * ErrFIFOClosed once closed and empty; items queued before Close are still handed out.
   */
  pop(process: PopProcessFunc): Promise<Deltas> {
    const run = this.popChain.then(() => this.popOne(process));
    this.popChain = run.catch(() => undefined);
    return run;
  }

  private async popOne(process: PopProcessFunc): Promise<Deltas> {
    for (;;) {
      while (this.queue.length === 0) {
        if (this.closed) throw ErrFIFOClosed;
        await new Promise<void>((resolve) => this.waiters.push(resolve));
      }
      const isInInitialList = !this.hasSynced();
      const id = this.queue.readOne() as string;
      const deltas = this.items.get(id);
      if (deltas === undefined) continue; // cannot happen: a queued key is always in items
      this.items.delete(id);
      try {
        const r = process(deltas, isInInitialList);
        if (r !== undefined) await r;
      } finally {
        if (this.initialPopulationCount > 0) this.initialPopulationCount--;
      }
      return deltas;
    }
  }

  /** Closes the queue: waiting Pops reject with ErrFIFOClosed once what is left has been popped. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** Keys in queue order. */
  listKeys(): string[] {
    const out: string[] = [];
    this.queue.forEach((k) => {
      out.push(k);
    });
    return out;
  }

  /** The newest object of every queued key, in queue order (tombstones included). */
  list(): (KubeObject | DeletedFinalStateUnknown)[] {
    const out: (KubeObject | DeletedFinalStateUnknown)[] = [];
    this.queue.forEach((k) => {
      const d = this.items.get(k);
      const newest = d ? newestDelta(d) : undefined;
      if (newest) out.push(newest.object);
    });
    return out;
  }

  /** A copy of the Deltas queued for the object's key, or undefined. */
  get(obj: KubeObject | DeletedFinalStateUnknown): Deltas | undefined {
    return this.getByKey(this.keyOf(obj));
  }

  /** A copy of the Deltas queued for the key, or undefined. */
  getByKey(key: string): Deltas | undefined {
    const d = this.items.get(key);
    return d ? d.slice() : undefined;
  }

  /** Number of keys queued. */
  get length(): number {
    return this.queue.length;
  }
}

/**
 * Collapses the last two deltas when both are deletions: keep the older one unless it is a
 * tombstone (then the newer one carries more information). Nothing else is merged. In place.
 */
export function dedupDeltas(deltas: Deltas): Deltas {
  const n = deltas.length;
  if (n < 2) return deltas;
  const a = deltas[n - 1] as Delta;
  const b = deltas[n - 2] as Delta;
  if (a.type === 'Deleted' && b.type === 'Deleted') {
    deltas[n - 2] = b.object instanceof DeletedFinalStateUnknown ? a : b;
    deltas.length = n - 1;
  }
  return deltas;
}
