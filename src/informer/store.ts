/**
 * Mirrors client-go tools/cache/store.go: key functions, DeletedFinalStateUnknown, the Store
 * interfaces and the plain (indexed) cache behind them.
 *
 * Deliberate differences:
 * - Methods throw instead of returning an error value; lookups return `undefined` for "not found"
 *   instead of (item, exists, err).
 * - An ExplicitKey is any string passed where an object is expected.
 * - `ReflectorStore` names the write side the Reflector uses (Go uses the whole Store); its methods
 *   take an optional `DeltaInfo` so a DeltaFIFO can record which watch event a change came from and
 *   when it arrived.
 * - `size()` is added for stats.
 */
import type { KubeObject, WatchEventType } from '../kube/types.js';
import { newThreadSafeStore, type IndexQueries, type Indexers, type ThreadSafeStore } from './thread-safe-store.js';

/**
 * Where an object was when it was deleted is unknown: the informer missed the DELETED event and
 * found out at a relist. `obj` is the last state we knew of, possibly stale, possibly undefined.
 */
export class DeletedFinalStateUnknown {
  constructor(
    readonly key: string,
    readonly obj: KubeObject | undefined,
  ) {}
}

export function isDeletedFinalStateUnknown(v: unknown): v is DeletedFinalStateUnknown {
  return v instanceof DeletedFinalStateUnknown;
}

/** An object's key in a store. Throws KeyError when none can be computed. */
export type KeyFunc = (obj: unknown) => string;

/** Runs on every object on its way into a store or queue (never on tombstones). May mutate. */
export type TransformFunc = (obj: KubeObject) => KubeObject;

export class KeyError extends Error {
  readonly obj: unknown;
  constructor(obj: unknown, cause: unknown) {
    super(`couldn't create key for object ${describe(obj)}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'KeyError';
    this.obj = obj;
  }
}

function describe(obj: unknown): string {
  try {
    const s = JSON.stringify(obj);
    return s === undefined ? String(obj) : s.length > 120 ? `${s.slice(0, 117)}...` : s;
  } catch {
    return String(obj);
  }
}

/** `namespace/name`, or `name` for cluster-scoped objects; a string (ExplicitKey) is its own key. */
export function metaNamespaceKeyFunc(obj: unknown): string {
  if (typeof obj === 'string') return obj;
  const meta = (obj as { metadata?: unknown } | null | undefined)?.metadata;
  if (typeof meta !== 'object' || meta === null) {
    throw new KeyError(obj, new Error('object has no meta'));
  }
  const { namespace, name } = meta as { namespace?: string; name?: string };
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/** Like metaNamespaceKeyFunc, but a tombstone's key is its recorded key. The informer's indexer uses this. */
export function deletionHandlingMetaNamespaceKeyFunc(obj: unknown): string {
  if (obj instanceof DeletedFinalStateUnknown) return obj.key;
  return metaNamespaceKeyFunc(obj);
}

/** Splits `ns/name` or `name`; anything else is an error. */
export function splitMetaNamespaceKey(key: string): { namespace: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: parts[0] as string };
  if (parts.length === 2) return { namespace: parts[0] as string, name: parts[1] as string };
  throw new Error(`unexpected key format: ${JSON.stringify(key)}`);
}

/** What the Reflector knows of the event behind a store write. */
export interface DeltaInfo {
  /** The raw watch event type, when the write comes from one. */
  eventType?: WatchEventType;
  /** Clock time (ms) the event reached the reflector. Defaults to the store's clock at the write. */
  receivedAt?: number;
}

/**
 * The write side the Reflector drives (client-go's Store as seen from reflector.go). Implemented by
 * the cache Store (for tests and for the streaming-list temporary store) and by DeltaFIFO.
 */
export interface ReflectorStore {
  add(obj: KubeObject, info?: DeltaInfo): void;
  update(obj: KubeObject, info?: DeltaInfo): void;
  delete(obj: KubeObject | DeletedFinalStateUnknown, info?: DeltaInfo): void;
  /** Makes the contents exactly `list`; resourceVersion is the list's RV. */
  replace(list: KubeObject[], resourceVersion: string): void;
  /** Re-delivers what is known (meaningful only for queues). */
  resync(): void;
  /** Optional (client-go ResourceVersionUpdater): told the RV after every watch event and bookmark. */
  updateResourceVersion?(resourceVersion: string): void;
  /** Optional (client-go TransformingStore): the transform applied on the way in. */
  readonly transformer?: TransformFunc | undefined;
}

/** What DeltaFIFO needs of the informer's cache to detect deletions and do resyncs. */
export interface KeyListerGetter {
  listKeys(): string[];
  getByKey(key: string): KubeObject | undefined;
}

/** A generic object storage (client-go Store). */
export interface Store extends ReflectorStore, KeyListerGetter {
  list(): KubeObject[];
  get(obj: KubeObject | DeletedFinalStateUnknown): KubeObject | undefined;
  size(): number;
}

/** A Store with secondary indices (client-go Indexer). */
export interface Indexer extends Store, IndexQueries {}

export interface StoreOptions {
  transformer?: TransformFunc | undefined;
}

/** The cache: a ThreadSafeStore plus a key function (client-go `cache`). */
class Cache implements Indexer {
  readonly transformer: TransformFunc | undefined;

  constructor(
    private readonly keyFunc: KeyFunc,
    private readonly storage: ThreadSafeStore,
    options: StoreOptions = {},
  ) {
    this.transformer = options.transformer;
  }

  private keyOf(obj: unknown): string {
    try {
      return this.keyFunc(obj);
    } catch (err) {
      throw err instanceof KeyError ? err : new KeyError(obj, err);
    }
  }

  add(obj: KubeObject): void {
    const key = this.keyOf(obj);
    this.storage.add(key, this.transformer ? this.transformer(obj) : obj);
  }

  update(obj: KubeObject): void {
    const key = this.keyOf(obj);
    this.storage.update(key, this.transformer ? this.transformer(obj) : obj);
  }

  delete(obj: KubeObject | DeletedFinalStateUnknown): void {
    this.storage.delete(this.keyOf(obj));
  }

  list(): KubeObject[] {
    return this.storage.list();
  }

  listKeys(): string[] {
    return this.storage.listKeys();
  }

  get(obj: KubeObject | DeletedFinalStateUnknown): KubeObject | undefined {
    return this.storage.get(this.keyOf(obj));
  }

  getByKey(key: string): KubeObject | undefined {
    return this.storage.get(key);
  }

  size(): number {
    return this.storage.size();
  }

  replace(list: KubeObject[], resourceVersion: string): void {
    const items = new Map<string, KubeObject>();
    for (const item of list) {
      items.set(this.keyOf(item), this.transformer ? this.transformer(item) : item);
    }
    this.storage.replace(items, resourceVersion);
  }

  resync(): void {
    // Nothing to do: a plain store has no one to re-deliver to.
  }

  index(indexName: string, obj: KubeObject): KubeObject[] {
    return this.storage.index(indexName, obj);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    return this.storage.indexKeys(indexName, indexedValue);
  }

  listIndexFuncValues(indexName: string): string[] {
    return this.storage.listIndexFuncValues(indexName);
  }

  byIndex(indexName: string, indexedValue: string): KubeObject[] {
    return this.storage.byIndex(indexName, indexedValue);
  }

  getIndexers(): Indexers {
    return this.storage.getIndexers();
  }

  addIndexers(newIndexers: Indexers): void {
    this.storage.addIndexers(newIndexers);
  }
}

/** A Store keyed by keyFunc (client-go NewStore). */
export function newStore(keyFunc: KeyFunc = metaNamespaceKeyFunc, options: StoreOptions = {}): Store {
  return new Cache(keyFunc, newThreadSafeStore({}), options);
}

/** An Indexer keyed by keyFunc with the given indexers (client-go NewIndexer). */
export function newIndexer(keyFunc: KeyFunc, indexers: Indexers = {}, options: StoreOptions = {}): Indexer {
  return new Cache(keyFunc, newThreadSafeStore(indexers), options);
}
