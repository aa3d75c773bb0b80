/**
 * The informer's cache compared with the API server, exactly, not "eventually": the cache is read at
 * a moment when the DeltaFIFO is empty, so it holds everything up to the informer's last
 * resourceVersion and nothing after, and the API server is asked for the list at exactly that
 * resourceVersion (resourceVersionMatch Exact, as client-go's data consistency detector does). Any
 * difference is then a real one, not an event still in flight.
 */
import type { Clock } from '../clock.js';
import { isExpired } from '../kube/index.js';
import { listAllPages } from './pager.js';
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
