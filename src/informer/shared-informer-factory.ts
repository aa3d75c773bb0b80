/**
 * Mirrors client-go informers/factory.go (sharedInformerFactory) for a dynamic tool: informers are
 * keyed by a string the caller builds from GVR + namespace + selectors (informerKey), and the same
 * key always gives the same informer.
 *
 * - informerFor(key) creates the informer on first use (from the source function, or from a
 *   ListerWatcher passed with the call) and returns the same one afterwards.
 * - start(signal) runs every informer not started yet; later informerFor calls need another start.
 * - waitForCacheSync(signal) waits for the started informers and reports each one's result.
 * - shutdown() resolves once every started informer has stopped (abort the signal first); after it,
 *   start() does nothing.
 *
 * Deliberate differences: keys are strings, not Go types; per-informer options (resync, indexers,
 * transform) are given on first creation instead of through a custom-resync map and tweak funcs.
 */
import type { KubeObject, ListerWatcher } from '../kube/types.js';
import { SharedIndexInformer, waitForCacheSync, type SharedIndexInformerOptions } from './shared-informer.js';
import type { InformerStats } from './stats.js';
import type { TransformFunc } from './store.js';
import type { Indexers } from './thread-safe-store.js';

export interface InformerKeyParts {
  /** "" or undefined for the core group. */
  group?: string;
  version: string;
  /** Plural resource, e.g. "deployments". */
  resource: string;
  /** Undefined or "" for all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  metadataOnly?: boolean;
}

/** A stable key: `deployments.apps/v1 ns=demo labels=app=web fields=… metadata-only`. */
export function informerKey(parts: InformerKeyParts): string {
  const gr = parts.group ? `${parts.resource}.${parts.group}` : parts.resource;
  let key = `${gr}/${parts.version}`;
  key += parts.namespace ? ` ns=${parts.namespace}` : ' all-namespaces';
  if (parts.labelSelector) key += ` labels=${parts.labelSelector}`;
  if (parts.fieldSelector) key += ` fields=${parts.fieldSelector}`;
  if (parts.metadataOnly) key += ' metadata-only';
  return key;
}

export type ListerWatcherSource = (key: string) => ListerWatcher;

export interface InformerForOptions {
  /** Used instead of the factory's source for this key (first call only). */
  listerWatcher?: ListerWatcher;
  /** ms; default the factory's. */
  resyncPeriod?: number;
  indexers?: Indexers;
  /** Default: the factory's (stripManagedFields unless set); null for none. */
  transform?: TransformFunc | null;
}

export type SharedInformerFactoryOptions = Omit<SharedIndexInformerOptions, 'name' | 'indexers'>;

export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedIndexInformer>();
  private readonly running = new Map<string, Promise<void>>();
  private shuttingDown = false;

  constructor(
    private readonly source: ListerWatcherSource | undefined,
    private readonly options: SharedInformerFactoryOptions = {},
  ) {}

  /** The informer for `key`, created on first use. */
  informerFor(key: string, options: InformerForOptions = {}): SharedIndexInformer {
    const existing = this.informers.get(key);
    if (existing) return existing;
    const lw = options.listerWatcher ?? this.source?.(key);
    if (!lw) throw new Error(`no ListerWatcher for informer ${JSON.stringify(key)}: pass one or give the factory a source`);
    const informerOptions: SharedIndexInformerOptions = { ...this.options, name: key };
    if (options.resyncPeriod !== undefined) informerOptions.resyncPeriod = options.resyncPeriod;
    if (options.indexers) informerOptions.indexers = options.indexers;
    if (options.transform !== undefined) informerOptions.transform = options.transform;
    const informer = new SharedIndexInformer(lw, informerOptions);
    this.informers.set(key, informer);
    return informer;
  }

  /** The informer for `key` if it exists. */
  get(key: string): SharedIndexInformer | undefined {
    return this.informers.get(key);
  }

  keys(): string[] {
    return [...this.informers.keys()];
  }

  /** Runs every informer not started yet. */
  start(signal: AbortSignal): void {
    if (this.shuttingDown) return;
    for (const [key, informer] of this.informers) {
      if (this.running.has(key)) continue;
      this.running.set(key, informer.run(signal));
    }
  }

  /** Waits for each started informer; maps key → synced (false if the signal aborted first). */
  async waitForCacheSync(signal: AbortSignal): Promise<Map<string, boolean>> {
    const out = new Map<string, boolean>();
    const started = [...this.running.keys()];
    for (const key of started) {
      const informer = this.informers.get(key) as SharedIndexInformer;
      out.set(key, await waitForCacheSync(signal, [() => informer.hasSynced()], this.options.clock));
    }
    return out;
  }

  /** Resolves once every started informer has stopped. Abort the start signal first. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    await Promise.all(this.running.values());
  }

  stats(): InformerStats[] {
    return [...this.informers.values()].map((i) => i.stats());
  }

  /** Objects of one informer's cache (convenience for views). */
  list(key: string): KubeObject[] {
    return this.informers.get(key)?.getStore().list() ?? [];
  }
}
