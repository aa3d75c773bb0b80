/**
 * Mirrors client-go tools/pager/pager.go (ListPager.ListWithAlloc): lists in pages of `pageSize`
 * following continue tokens and joins them into one list.
 *
 * - Continuation requests clear resourceVersion and resourceVersionMatch (the server refuses them
 *   with a continue token); the list's resourceVersion is the first page's.
 * - FullListIfExpired: if a continuation page fails with reason Expired, one unpaginated list at
 *   the originally requested resourceVersion replaces the whole thing.
 *
 * Deliberate differences: no page-buffering goroutine; `pages` is returned for stats; `onRequest`
 * lets the caller count requests.
 */
import { isExpired } from '../kube/api-error.js';
import type { Deferred, Encoding, ListDecodeOptions, ListerWatcher, ListOptions } from '../kube/types.js';
import { abortable } from '../util/abort.js';

export const DEFAULT_PAGE_SIZE = 500;

export interface PagedListResult {
  items: Deferred[];
  resourceVersion: string;
  /** True when more than one page was fetched (client-go's paginatedResult). */
  paginated: boolean;
  /** Requests made. */
  pages: number;
  /** What the API server answered in (the last page's), when the ListerWatcher says. */
  encoding?: Encoding | undefined;
}

export interface PagerOptions {
  /** 0 means unpaginated. */
  pageSize: number;
  fullListIfExpired?: boolean;
  signal?: AbortSignal;
  onRequest?: (options: ListOptions) => void;
  /** Passed to every list call (the informer's transform, applied as items are decoded). */
  decode?: ListDecodeOptions;
}

export async function listAllPages(lw: ListerWatcher, options: ListOptions, pager: PagerOptions): Promise<PagedListResult> {
  const opts: ListOptions = { ...options };
  if (!opts.limit && pager.pageSize > 0) opts.limit = pager.pageSize;
  const requestedRV = opts.resourceVersion;
  const requestedMatch = opts.resourceVersionMatch;
  const fullListIfExpired = pager.fullListIfExpired ?? true;
  let items: Deferred[] | undefined;
  let listRV = '';
  let paginated = false;
  let pages = 0;

  for (;;) {
    pager.signal?.throwIfAborted();
    let page: Awaited<ReturnType<ListerWatcher['list']>>;
    try {
      pages++;
      const sent = { ...opts };
      pager.onRequest?.(sent);
      page = await abortable(lw.list(sent, pager.signal, pager.decode), pager.signal);
    } catch (err) {
      // Only an Expired continuation page falls back to a full list: the first page's RV fell out
      // of the compaction window while we were paging.
      if (!isExpired(err) || !fullListIfExpired || !opts.continue) throw err;
      const full: ListOptions = { ...opts };
      delete full.limit;
      delete full.continue;
      if (requestedRV !== undefined) full.resourceVersion = requestedRV;
      else delete full.resourceVersion;
      if (requestedMatch !== undefined) full.resourceVersionMatch = requestedMatch;
      else delete full.resourceVersionMatch;
      pages++;
      pager.onRequest?.(full);
      const result = await abortable(lw.list(full, pager.signal, pager.decode), pager.signal);
      return { items: result.items, resourceVersion: result.resourceVersion, paginated, pages, encoding: result.encoding };
    }
    if (!page.continue && items === undefined) {
      return { items: page.items, resourceVersion: page.resourceVersion, paginated, pages, encoding: page.encoding };
    }
    if (items === undefined) {
      items = [];
      listRV = page.resourceVersion;
    }
    for (const item of page.items) items.push(item);
    if (!page.continue) return { items, resourceVersion: listRV, paginated, pages, encoding: page.encoding };
    opts.continue = page.continue;
    delete opts.resourceVersion;
    delete opts.resourceVersionMatch;
    paginated = true;
  }
}
