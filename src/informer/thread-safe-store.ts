/**
 * Mirrors client-go tools/cache/thread_safe_store.go and the types of index.go: a keyed map of
 * objects with secondary indices kept up to date on every write.
 *
 * Deliberate differences:
 * - JavaScript runs one thing at a time, so there is no lock; the name is kept for readers who
 *   know client-go.
 * - Index functions return string[] and throw instead of returning an error. An index function
 *   that throws during a write is fatal in client-go (a panic); here the write throws an Error
 *   naming the key and index, and the object stays stored (as in Go, where the map is written
 *   before the indices).
 * - `Indexers` is a plain record for ergonomic literals; `Indices` uses Maps and Sets.
 * - `size()` is added for stats.
 */
import type { KubeObject } from '../kube/types.js';

/** Computes the values an object is indexed under. Throws when it cannot. */
export type IndexFunc = (obj: KubeObject) => string[];

/** Index name → index function. */
export type Indexers = Record<string, IndexFunc>;

/** Indexed value → keys of the objects with that value. */
export type Index = Map<string, Set<string>>;

/** Index name → Index. */
export type Indices = Map<string, Index>;

/** The index side of a store, the same on the ThreadSafeStore and on the Indexer over it (client-go's Indexer). */
export interface IndexQueries {
  /** Objects sharing any of obj's values of the named index. */
  index(indexName: string, obj: KubeObject): KubeObject[];
  /** Keys of the objects with that value, sorted. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Values of the named index that have objects; [] for an unknown index. */
  listIndexFuncValues(indexName: string): string[];
  byIndex(indexName: string, indexedValue: string): KubeObject[];
  getIndexers(): Indexers;
  /** Adds indexers and indexes what is already stored. Throws on a name already present. */
  addIndexers(newIndexers: Indexers): void;
}

export interface ThreadSafeStore extends IndexQueries {
  add(key: string, obj: KubeObject): void;
  update(key: string, obj: KubeObject): void;
  delete(key: string): void;
  get(key: string): KubeObject | undefined;
  list(): KubeObject[];
  listKeys(): string[];
  size(): number;
  /** Replaces everything and rebuilds every index. */
  replace(items: Map<string, KubeObject>, resourceVersion: string): void;
  resync(): void;
}

function noSuchIndex(indexName: string): Error {
  return new Error(`Index with name ${indexName} does not exist`);
}

const EMPTY: readonly string[] = Object.freeze([]);

/** The indexers and the indices they maintain (client-go storeIndex). */
class StoreIndex {
  readonly indexers = new Map<string, IndexFunc>();
  indices: Indices = new Map();

  constructor(indexers: Indexers) {
    for (const [name, fn] of Object.entries(indexers)) this.indexers.set(name, fn);
  }

  reset(): void {
    this.indices = new Map();
  }

  getKeysFromIndex(indexName: string, obj: KubeObject): Iterable<string> {
    const fn = this.indexers.get(indexName);
    if (!fn) throw noSuchIndex(indexName);
    const values = fn(obj);
    const index = this.indices.get(indexName);
    if (!index) return EMPTY;
    if (values.length === 1) return index.get(values[0] as string) ?? EMPTY;
    // Several values may share keys: dedupe.
    const keys = new Set<string>();
    for (const v of values) {
      const set = index.get(v);
      if (set) for (const k of set) keys.add(k);
    }
    return keys;
  }

  getKeysByIndex(indexName: string, indexedValue: string): Set<string> | undefined {
    if (!this.indexers.has(indexName)) throw noSuchIndex(indexName);
    return this.indices.get(indexName)?.get(indexedValue);
  }

  getIndexValues(indexName: string): string[] {
    const index = this.indices.get(indexName);
    return index ? [...index.keys()] : [];
  }

  addIndexers(newIndexers: Indexers): void {
    const conflicts = Object.keys(newIndexers).filter((n) => this.indexers.has(n));
    if (conflicts.length > 0) throw new Error(`indexer conflict: ${conflicts.sort().join(', ')}`);
    for (const [name, fn] of Object.entries(newIndexers)) this.indexers.set(name, fn);
  }

  updateSingleIndex(name: string, oldObj: KubeObject | undefined, newObj: KubeObject | undefined, key: string): void {
    const fn = this.indexers.get(name);
    if (!fn) throw new Error(`indexer ${JSON.stringify(name)} does not exist`);
    const oldValues = oldObj === undefined ? EMPTY : compute(fn, oldObj, key, name);
    const newValues = newObj === undefined ? EMPTY : compute(fn, newObj, key, name);
    let index = this.indices.get(name);
    if (!index) {
      index = new Map();
      this.indices.set(name, index);
    }
    // The common case: one value, unchanged.
    if (oldValues.length === 1 && newValues.length === 1 && oldValues[0] === newValues[0]) return;
    for (const v of oldValues) deleteKeyFromIndex(key, v, index);
    for (const v of newValues) addKeyToIndex(key, v, index);
  }

  updateIndices(oldObj: KubeObject | undefined, newObj: KubeObject | undefined, key: string): void {
    for (const name of this.indexers.keys()) this.updateSingleIndex(name, oldObj, newObj, key);
  }
}

function compute(fn: IndexFunc, obj: KubeObject, key: string, name: string): readonly string[] {
  try {
    return fn(obj);
  } catch (err) {
    throw new Error(
      `unable to calculate an index entry for key ${JSON.stringify(key)} on index ${JSON.stringify(name)}: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}

function addKeyToIndex(key: string, value: string, index: Index): void {
  let set = index.get(value);
  if (!set) {
    set = new Set();
    index.set(value, set);
  }
  set.add(key);
}

function deleteKeyFromIndex(key: string, value: string, index: Index): void {
  const set = index.get(value);
  if (!set) return;
  set.delete(key);
  // Empty sets are dropped so that high-churn values do not leak (kubernetes#84959).
  if (set.size === 0) index.delete(value);
}

class ThreadSafeMap implements ThreadSafeStore {
  private items = new Map<string, KubeObject>();
  private readonly idx: StoreIndex;

  constructor(indexers: Indexers) {
    this.idx = new StoreIndex(indexers);
  }

  add(key: string, obj: KubeObject): void {
    this.update(key, obj);
  }

  update(key: string, obj: KubeObject): void {
    const old = this.items.get(key);
    this.items.set(key, obj);
    this.idx.updateIndices(old, obj, key);
  }

  delete(key: string): void {
    const old = this.items.get(key);
    if (old === undefined) return;
    this.idx.updateIndices(old, undefined, key);
    this.items.delete(key);
  }

  get(key: string): KubeObject | undefined {
    return this.items.get(key);
  }

  list(): KubeObject[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  size(): number {
    return this.items.size;
  }

  replace(items: Map<string, KubeObject>): void {
    this.items = items;
    this.idx.reset();
    for (const [key, item] of items) this.idx.updateIndices(undefined, item, key);
  }

  index(indexName: string, obj: KubeObject): KubeObject[] {
    const out: KubeObject[] = [];
    for (const key of this.idx.getKeysFromIndex(indexName, obj)) {
      const item = this.items.get(key);
      if (item !== undefined) out.push(item);
    }
    return out;
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    const set = this.idx.getKeysByIndex(indexName, indexedValue);
    return set ? [...set].sort() : [];
  }

  listIndexFuncValues(indexName: string): string[] {
    return this.idx.getIndexValues(indexName);
  }

  byIndex(indexName: string, indexedValue: string): KubeObject[] {
    const set = this.idx.getKeysByIndex(indexName, indexedValue);
    if (!set) return [];
    const out: KubeObject[] = [];
    for (const key of set) {
      const item = this.items.get(key);
      if (item !== undefined) out.push(item);
    }
    return out;
  }

  getIndexers(): Indexers {
    return Object.fromEntries(this.idx.indexers);
  }

  addIndexers(newIndexers: Indexers): void {
    this.idx.addIndexers(newIndexers);
    const names = Object.keys(newIndexers);
    for (const [key, item] of this.items) {
      for (const name of names) this.idx.updateSingleIndex(name, undefined, item, key);
    }
  }

  resync(): void {
    // Nothing to do.
  }
}

export function newThreadSafeStore(indexers: Indexers = {}): ThreadSafeStore {
  return new ThreadSafeMap(indexers);
}
