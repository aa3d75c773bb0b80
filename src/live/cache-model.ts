import type { DeltaType, SharedIndexInformer } from '../informer/index.js';
import { MarkerTracker, type DeltaPaneEntry } from '../view/cache-view.js';

export interface CacheModelOptions {
  /** Custom index names (--index), in order. */
  indexNames: readonly string[];
  /** How many delta pane entries to keep. */
  keep?: number;
}

/**
 * The live view's state: subscribed to an informer before it runs, it records the last deltas and
 * marks, and for each key the newest delta (what changed last, and when). The objects, index
 * values and counters are read from the informer itself when a frame is built, so the view shows
 * exactly the cache. Cheap per delta (a ring entry and a map write); listeners are told that
 * something changed and redraw at their own pace.
 */
export class CacheModel {
  private readonly entries: DeltaPaneEntry[] = [];
  private readonly keep: number;
  private seq = 0;
  private readonly lastChange = new Map<string, { seq: number; type: DeltaType; at: number }>();
  private readonly listeners = new Set<() => void>();
  private readonly markers = new MarkerTracker();
  private readonly unsubscribe: (() => void)[];
  /** The cache's keys, sorted; recomputed only after a key came or went. */
  private sorted: string[] | undefined;

  constructor(
    readonly informer: SharedIndexInformer,
    readonly options: CacheModelOptions,
  ) {
    this.keep = options.keep ?? 1000;
    this.unsubscribe = [
      informer.onDelta((d) => {
        const seq = ++this.seq;
        if (d.type === 'Deleted') {
          this.lastChange.delete(d.key);
          this.sorted = undefined;
        } else {
          if (!this.lastChange.has(d.key)) this.sorted = undefined;
          this.lastChange.set(d.key, { seq, type: d.type, at: d.receivedAt });
        }
        this.push({
          seq,
          kind: 'delta',
          type: d.type,
          key: d.key,
          resourceVersion: d.resourceVersion,
          at: d.receivedAt,
          tombstone: d.tombstone,
          initial: d.initial,
        });
      }),
      informer.onEvent((e) => {
        if (e.kind === 'synced')
          return this.push({ seq: ++this.seq, kind: 'synced', at: e.at, resourceVersion: informer.lastSyncResourceVersion(), message: e.message });
        const m = this.markers.marker(e);
        if (m) this.push({ seq: ++this.seq, kind: m.kind, at: e.at, resourceVersion: m.resourceVersion ?? '', message: m.message });
      }),
    ];
  }

  private push(entry: DeltaPaneEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.keep * 2) this.entries.splice(0, this.entries.length - this.keep);
    for (const l of this.listeners) l();
  }

  onUpdate(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The delta pane's entries, oldest first (at most `keep`). */
  deltas(): readonly DeltaPaneEntry[] {
    return this.entries.length > this.keep ? this.entries.slice(this.entries.length - this.keep) : this.entries;
  }

  /** Every cached key, sorted (byte order: the API server's order). Do not modify. */
  sortedKeys(): readonly string[] {
    this.sorted ??= this.informer.getIndexer().listKeys().sort();
    return this.sorted;
  }

  /** The newest delta applied to `key`, if it is cached. */
  lastChangeOf(key: string): { seq: number; type: DeltaType; at: number } | undefined {
    return this.lastChange.get(key);
  }

  /** The sequence number of the newest delta, to highlight its object. */
  newestSeq(): number {
    return this.seq;
  }

  stop(): void {
    for (const u of this.unsubscribe) u();
    this.listeners.clear();
  }
}
