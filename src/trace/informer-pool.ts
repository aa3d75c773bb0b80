/**
 * Informers shared by many traces at once: the traces of a set of objects (`--apply -f DIR`) ask
 * for the same kinds in the same namespaces, and each kind and namespace is listed and watched
 * once, whatever the number of objects. 500 objects in one namespace cost about what the
 * namespace costs.
 *
 * Contract:
 * - One informer per group, resource, namespace, shape (whole objects, or metadata only), label
 *   selector (none, but when a set's members are found by labels) and whether a refused first LIST
 *   leaves its kind out (a discovered kind's, see child-discovery.ts). A trace that asks for its
 *   target by name gets its kind's informer of the whole namespace, and keeps to its own object in
 *   its handlers.
 * - The pool runs its informers until it is closed, not as long as the trace that first asked:
 *   sync() starts the new ones and waits for them; a trace that ends only takes its handlers away.
 * - What discovery finds for the children of a kind the tool does not know is found once per kind
 *   and namespace (discover()).
 * - The consistent Lists traces ask for as they end (serverState()) are shared: at most one in
 *   flight per informer, and one more queued behind it for every trace that asked meanwhile, not
 *   one per trace. A set's traces end by the dozen; each List is the whole collection.
 */
import { listNow, type ServerState, type SharedIndexInformer, type SyncOptions } from '../informer/index.js';

type ListNow = (informer: SharedIndexInformer, options: { signal: AbortSignal }) => Promise<ServerState>;

/** An informer's Lists: the last one started (in flight or back), and the one queued behind it. */
interface ListSlot {
  last?: { startedAt: number; state: Promise<ServerState>; back: boolean } | undefined;
  next?: Promise<ServerState> | undefined;
}
import type { ResourceInfo } from '../kube/index.js';

export interface PooledInformerKey {
  info: ResourceInfo;
  namespace: string | undefined;
  metadataOnly: boolean;
  /** Only the objects these labels select (a set's members, found by `-l`). */
  labelSelector?: string | undefined;
  /** A discovered kind's: it stops, and is left out of the chain, if its first LIST is refused. */
  leaveOutIfRefused?: boolean;
}

export class InformerPool {
  private readonly byKey = new Map<string, SharedIndexInformer>();
  private readonly discovered = new Map<string, Promise<unknown>>();
  /** Per informer, the consistent Lists made of its collection (serverState()). */
  private readonly lists = new Map<SharedIndexInformer, ListSlot>();
  private readonly controller = new AbortController();
  private readonly parent: AbortSignal | undefined;
  private readonly onParentAbort = (): void => this.controller.abort();

  /**
   * @param make makes the informer for a key the first time it is asked for (chainInformer()).
   * @param run runs informers until synced (runUntilSynced against the API server), under the
   * pool's signal: they outlive the traces that asked for them.
   * @param parent the command's signal (an interrupt): closes the pool.
   * @param list makes a consistent List of an informer's collection (listNow, unless a test gives its own).
   */
  constructor(
    private readonly make: (key: PooledInformerKey) => SharedIndexInformer,
    private readonly run: (informers: SharedIndexInformer[], options: SyncOptions) => Promise<void>,
    parent?: AbortSignal,
    private readonly list: ListNow = listNow,
  ) {
    if (parent?.aborted) this.controller.abort();
    this.parent = parent;
    parent?.addEventListener('abort', this.onParentAbort, { once: true });
  }

  /** Aborts when the pool is closed: what the informers run under. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The informer for `key`, made the first time it is asked for. */
  informer(key: PooledInformerKey): SharedIndexInformer {
    const id = keyOf(key);
    let inf = this.byKey.get(id);
    if (!inf) this.byKey.set(id, (inf = this.make(key)));
    return inf;
  }

  /** Starts the informers not running yet and resolves once all of `informers` synced. */
  sync = (informers: SharedIndexInformer[], options: SyncOptions): Promise<void> => this.run(informers, { ...options, signal: this.controller.signal });

  /**
   * A consistent List of `informer`'s collection started at `since` or later (chain-currency.ts):
   * the one made for another trace when it started late enough; else, while one is in flight, the
   * one queued to start once it is back (shared by every trace that asks meanwhile); else a new one.
   * Many traces that end about together share a few Lists per informer, not one each.
   */
  serverState(informer: SharedIndexInformer, since: number, now: () => number): Promise<ServerState> {
    let slot = this.lists.get(informer);
    if (!slot) this.lists.set(informer, (slot = {}));
    const last = slot.last;
    if (last && last.startedAt >= since) return last.state;
    if (last && !last.back) {
      const queued = slot;
      queued.next ??= last.state.then(
        () => this.startList(informer, queued, now),
        () => this.startList(informer, queued, now),
      );
      return queued.next;
    }
    return this.startList(informer, slot, now);
  }

  private startList(informer: SharedIndexInformer, slot: ListSlot, now: () => number): Promise<ServerState> {
    // Under the pool's signal: a trace that ends does not cut the List short for the others.
    const entry = { startedAt: now(), state: this.list(informer, { signal: this.controller.signal }), back: false };
    slot.last = entry;
    slot.next = undefined;
    entry.state.then(
      () => void (entry.back = true),
      () => {
        entry.back = true;
        // A failed List is not shared: the next to ask makes a new one.
        if (slot.last === entry) slot.last = undefined;
      },
    );
    return entry.state;
  }

  /** What `find` resolves to for one kind and namespace, asked once. */
  discover<T>(info: ResourceInfo, namespace: string | undefined, find: () => Promise<T>): Promise<T> {
    const id = `${info.group}/${info.kind}/${namespace ?? ''}`;
    let p = this.discovered.get(id) as Promise<T> | undefined;
    if (!p) {
      p = find();
      // A failed discovery is not remembered: the next trace asks again.
      p.catch(() => this.discovered.delete(id));
      this.discovered.set(id, p);
    }
    return p;
  }

  /** The informers the pool runs. */
  informers(): SharedIndexInformer[] {
    return [...this.byKey.values()];
  }

  /** How many informers the pool runs. */
  size(): number {
    return this.byKey.size;
  }

  /**
   * Stops every informer, and lets go of the parent signal: a pool closed while its parent lives on
   * (the probe's, after a failed round) is not kept by the parent's listener.
   */
  close(): void {
    this.parent?.removeEventListener('abort', this.onParentAbort);
    this.controller.abort();
  }
}

function keyOf(k: PooledInformerKey): string {
  return `${k.info.group}/${k.info.resource}/${k.namespace ?? ''}/${k.metadataOnly ? 'meta' : 'full'}${k.labelSelector ? `/${k.labelSelector}` : ''}${k.leaveOutIfRefused ? '/gated' : ''}`;
}
