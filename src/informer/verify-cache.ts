/**
 * The informer's cache compared with the API server, exactly, not "eventually": the cache is read at
 * a moment when the DeltaFIFO is empty, so it holds everything up to the informer's last
 * resourceVersion and nothing after, and the API server is asked for the list at exactly that
 * resourceVersion (resourceVersionMatch Exact, as client-go's data consistency detector does). Any
 * difference is then a real one, not an event still in flight.
 *
 * And whether the cache has caught up with the server (listNow, caughtUpWith): a consistent List
 * says what the server holds now; the cache has caught up with it once the informer has applied
 * and handed to its handlers every change up to that List's resourceVersion. That is what a cache
 * behind a watch whose connection went silent (half-open, not yet noticed) has not done, while a
 * healthy idle one has. resourceVersions of one resource are compared as numbers (KEP-5504, GA in
 * Kubernetes 1.35); resourceVersions that are not decimal numbers are only compared for equality.
 */
import type { Clock } from '../clock.js';
import { isExpired, type KubeObject } from '../kube/index.js';
import { listAllPages } from './pager.js';
import { compareResourceVersions } from './resource-version.js';
import type { SharedIndexInformer } from './shared-informer.js';
import { metaNamespaceKeyFunc } from './store.js';

export type DifferenceKind = 'missing' | 'extra' | 'stale';

export interface CacheDifference {
  key: string;
  /** missing: on the server, not in the cache; extra: in the cache, not on the server; stale: a different resourceVersion. */
  problem: DifferenceKind;
  cacheResourceVersion?: string;
  serverResourceVersion?: string;
}

export interface VerifyResult {
  /** The resourceVersion both sides were compared at. */
  resourceVersion: string;
  cached: number;
  listed: number;
  differences: CacheDifference[];
}

/** Differences between the cache's keys → resourceVersions and the server's, sorted by key. */
export function compareCache(cache: ReadonlyMap<string, string>, server: ReadonlyMap<string, string>): CacheDifference[] {
  const out: CacheDifference[] = [];
  for (const [key, rv] of server) {
    const cached = cache.get(key);
    if (cached === undefined) out.push({ key, problem: 'missing', serverResourceVersion: rv });
    else if (cached !== rv) out.push({ key, problem: 'stale', cacheResourceVersion: cached, serverResourceVersion: rv });
  }
  for (const [key, rv] of cache) if (!server.has(key)) out.push({ key, problem: 'extra', cacheResourceVersion: rv });
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** What the server held at one moment: a consistent List's resourceVersion and each object's key → resourceVersion. */
export interface ServerState {
  resourceVersion: string;
  objects: Map<string, string>;
}

/**
 * A consistent List (resourceVersion "": the newest state, a quorum read or the watch cache's
 * consistent read) through the informer's own ListerWatcher, so with its selectors.
 */
export async function listNow(informer: SharedIndexInformer, options: { signal: AbortSignal; pageSize?: number }): Promise<ServerState> {
  // Only each object's key and resourceVersion are read: every item is cut down to them as it is
  // decoded (managedFields not even read from protobuf), so what a List of a whole collection
  // decodes is garbage at once rather than held until its last page.
  const list = await listAllPages(
    informer.getListerWatcher(),
    { resourceVersion: '' },
    { pageSize: options.pageSize ?? 500, signal: options.signal, decode: { transform: keyAndVersion, skipManagedFields: true, skipManagedFieldSets: true } },
  );
  const objects = new Map<string, string>();
  for (const item of list.items) objects.set(metaNamespaceKeyFunc(item), item.metadata.resourceVersion ?? '');
  return { resourceVersion: list.resourceVersion, objects };
}

/** What listNow keeps of a listed object: what its key and its resourceVersion are made of. */
function keyAndVersion(obj: KubeObject): KubeObject {
  const { name, namespace, resourceVersion } = obj.metadata;
  return { metadata: { name, namespace, resourceVersion } };
}

/**
 * Whether the informer has caught up with `server`: nothing is queued in its DeltaFIFO or for its
 * handlers, and either its last resourceVersion is at or past the List's (it has applied every change
 * up to it), or its cache holds what the List held, each object at the same or a newer version (no
 * change happened in between). A cache that misses an object, holds an older version, or still holds
 * one the server no longer has, is behind.
 */
export function caughtUpWith(informer: SharedIndexInformer, server: ServerState): boolean {
  if (informer.queuedKeys() !== 0 || informer.backlog() !== 0) return false;
  const atOrPast = compareResourceVersions(informer.lastSyncResourceVersion(), server.resourceVersion);
  if (atOrPast !== undefined && atOrPast >= 0) return true;
  const cached = informer.getIndexer().list();
  if (cached.length !== server.objects.size) return false;
  for (const obj of cached) {
    const rv = obj.metadata.resourceVersion ?? '';
    const listed = server.objects.get(metaNamespaceKeyFunc(obj));
    if (listed === undefined) return false;
    if (rv === listed) continue;
    const c = compareResourceVersions(rv, listed);
    if (c === undefined || c < 0) return false;
  }
  return true;
}

export interface VerifyOptions {
  signal: AbortSignal;
  clock: Clock;
  /** How long to wait for a moment when the informer has nothing queued (ms). */
  quietTimeoutMs?: number;
  pageSize?: number;
}

/**
 * Compares the informer's cache with the API server at the same resourceVersion (see the file
 * header). A list at that resourceVersion can fail with 410 when etcd compacted it in between;
 * then the comparison starts over from a new moment, up to three times.
 */
export async function verifyCache(informer: SharedIndexInformer, options: VerifyOptions): Promise<VerifyResult> {
  const lw = informer.getListerWatcher();
  for (let attempt = 1; ; attempt++) {
    const snapshot = await quietSnapshot(informer, options);
    try {
      const list = await listAllPages(
        lw,
        { resourceVersion: snapshot.resourceVersion, resourceVersionMatch: 'Exact' },
        { pageSize: options.pageSize ?? 500, signal: options.signal },
      );
      const server = new Map<string, string>();
      for (const item of list.items) server.set(metaNamespaceKeyFunc(item), item.metadata.resourceVersion ?? '');
      return { resourceVersion: snapshot.resourceVersion, cached: snapshot.cache.size, listed: server.size, differences: compareCache(snapshot.cache, server) };
    } catch (err) {
      if (!isExpired(err) || attempt >= 3) throw err;
    }
  }
}

/** The cache's keys and resourceVersions at a moment when the DeltaFIFO is empty. */
async function quietSnapshot(informer: SharedIndexInformer, options: VerifyOptions): Promise<{ resourceVersion: string; cache: Map<string, string> }> {
  const deadline = options.clock.now() + (options.quietTimeoutMs ?? 30_000);
  for (;;) {
    options.signal.throwIfAborted();
    if (informer.hasSynced() && informer.queuedKeys() === 0) {
      const cache = new Map<string, string>();
      for (const o of informer.getIndexer().list()) cache.set(metaNamespaceKeyFunc(o), o.metadata.resourceVersion ?? '');
      return { resourceVersion: informer.lastSyncResourceVersion(), cache };
    }
    if (options.clock.now() >= deadline)
      throw new Error(
        `the informer never caught up (still ${informer.queuedKeys()} keys queued after ${options.quietTimeoutMs ?? 30_000} ms); cannot compare its cache`,
      );
    await options.clock.sleep(10, options.signal);
  }
}
