/**
 * What `cache` shows of a running informer, as plain data for every output (NDJSON lines, the live
 * view): each delta the informer applied with its index values, the moments of its machinery
 * (relist, resync, bookmark, watch restart). Pure: it reads the informer it is given and nothing
 * else (the comparison of the cache with a fresh list is src/informer/verify-cache.ts).
 *
 * - Times are the informer's clock (ms); lines carry them as ISO strings.
 * - A delta's index values are those of the object it carries (for a deletion, its last state).
 */
import type { KubeObject } from '../kube/index.js';
import {
  PROCESSING_LATENCY_BUCKETS,
  storeResourceVersionValue,
  type DeltaType,
  type IndexFunc,
  type InformerEvent,
  type InformerStats,
  type ObservedDelta,
  type SharedIndexInformer,
} from '../informer/index.js';

export interface DeltaLine {
  kind: 'delta';
  type: DeltaType;
  key: string;
  resourceVersion: string;
  /** When our informer received it (ISO). */
  receivedAt: string;
  /** Part of the initial list. */
  initial?: true;
  /** A deletion a relist found: the object's final state is unknown. */
  tombstone?: true;
  /** Each custom index's values for this object. */
  indexes?: Record<string, string[]>;
}

export type MarkerKind = 'relist' | 'resync' | 'bookmark' | 'watch-restart' | 'watch-closed';

export interface MarkerLine {
  kind: MarkerKind;
  at: string;
  resourceVersion?: string;
  message: string;
}

export interface SyncedLine {
  kind: 'synced';
  at: string;
  resourceVersion: string;
  objects: number;
  /** Each custom index: value → number of objects. */
  indexes?: Record<string, Record<string, number>>;
  /** client-go's informer metrics, as the informer stands. */
  metrics: InformerMetrics;
}

/** client-go's informer metrics (informer_queued_items, _store_resource_version, _processing_latency_seconds) of one informer. */
export interface InformerMetrics {
  queuedItems: number;
  /** The 15 least significant digits of the store's resourceVersion, as client-go reports it. */
  storeResourceVersion: number;
  processingLatency: {
    count: number;
    sumSeconds: number;
    /** Cumulative counts by upper bound, in client-go's bucket order, then "+Inf". */
    buckets: { le: string; count: number }[];
  };
}

export function informerMetrics(stats: InformerStats): InformerMetrics {
  const buckets: { le: string; count: number }[] = [];
  let cumulative = 0;
  PROCESSING_LATENCY_BUCKETS.forEach((le, i) => {
    cumulative += stats.processingLatency.counts[i] ?? 0;
    buckets.push({ le: String(le), count: cumulative });
  });
  buckets.push({ le: '+Inf', count: stats.processingLatency.count });
  return {
    queuedItems: stats.queued,
    storeResourceVersion: storeResourceVersionValue(stats.storeResourceVersion),
    processingLatency: { count: stats.processingLatency.count, sumSeconds: stats.processingLatency.sum, buckets },
  };
}

/** The smallest bucket bound holding quantile q of the observations ("+Inf" above them all); undefined with none. */
export function latencyQuantileBound(m: InformerMetrics, q: number): string | undefined {
  const { count, buckets } = m.processingLatency;
  if (count === 0) return undefined;
  for (const b of buckets) if (b.count >= q * count) return b.le;
  return '+Inf';
}

/** One line of the internals: "queued 0 · store rv 1234 · processed 12, p99 ≤ 0.001 s". */
export function formatInformerMetrics(m: InformerMetrics): string {
  const p99 = latencyQuantileBound(m, 0.99);
  const processed = p99 === undefined ? 'processed 0' : `processed ${m.processingLatency.count}, p99 ${p99 === '+Inf' ? '> 10 s' : `≤ ${p99} s`}`;
  return `queued ${m.queuedItems} · store rv ${m.storeResourceVersion} · ${processed}`;
}

export type IndexFuncs = ReadonlyArray<readonly [name: string, fn: IndexFunc]>;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Values of each index for one object; an index function that throws gives no values. */
export function indexValuesOf(obj: KubeObject | undefined, indexes: IndexFuncs): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, fn] of indexes) {
    let values: string[] = [];
    if (obj) {
      try {
        values = fn(obj);
      } catch {
        values = [];
      }
    }
    out[name] = values;
  }
  return out;
}

export function deltaLine(d: ObservedDelta, indexes: IndexFuncs): DeltaLine {
  return {
    kind: 'delta',
    type: d.type,
    key: d.key,
    resourceVersion: d.resourceVersion,
    receivedAt: iso(d.receivedAt),
    ...(d.initial ? { initial: true as const } : {}),
    ...(d.tombstone ? { tombstone: true as const } : {}),
    ...(indexes.length ? { indexes: indexValuesOf(d.object, indexes) } : {}),
  };
}

/** Each index's values with their object counts, values sorted. */
export function indexCounts(informer: SharedIndexInformer, names: readonly string[]): Record<string, Record<string, number>> {
  const indexer = informer.getIndexer();
  const out: Record<string, Record<string, number>> = {};
  for (const name of names) {
    const counts: Record<string, number> = {};
    for (const value of indexer.listIndexFuncValues(name).sort()) counts[value] = indexer.indexKeys(name, value).length;
    out[name] = counts;
  }
  return out;
}

export function syncedLine(informer: SharedIndexInformer, names: readonly string[], at: number): SyncedLine {
  return {
    kind: 'synced',
    at: iso(at),
    resourceVersion: informer.lastSyncResourceVersion(),
    objects: informer.getIndexer().size(),
    ...(names.length ? { indexes: indexCounts(informer, names) } : {}),
    metrics: informerMetrics(informer.stats()),
  };
}

/**
 * Turns the informer's events into the moments worth marking among the deltas. The first list (or
 * streaming list) and the first watch are the start, not marks; every later one is a relist or a
 * watch restart.
 */
export class MarkerTracker {
  private listed = false;
  /** A relist is under way (marked once, however many requests it takes). */
  private relisting = false;
  private watches = 0;

  marker(e: InformerEvent): MarkerLine | undefined {
    const base = { at: iso(e.at), ...(e.resourceVersion !== undefined ? { resourceVersion: e.resourceVersion } : {}), message: e.message };
    switch (e.kind) {
      case 'list':
      case 'stream':
        if (!this.listed || this.relisting) return undefined;
        this.relisting = true;
        return { kind: 'relist', ...base };
      case 'listed':
      case 'streamed':
        this.listed = true;
        this.relisting = false;
        return undefined;
      case 'watch':
        return this.watches++ === 0 ? undefined : { kind: 'watch-restart', ...base };
      case 'resync':
        return { kind: 'resync', ...base };
      case 'bookmark':
        return { kind: 'bookmark', ...base };
      case 'watch-closed':
      case 'watch-failed':
        return { kind: 'watch-closed', ...base };
      default:
        return undefined;
    }
  }
}

/** One line of the delta pane: a delta, or a moment of the machinery between them. */
export type DeltaPaneEntry =
  | { seq: number; kind: 'delta'; type: DeltaType; key: string; resourceVersion: string; at: number; tombstone: boolean; initial: boolean }
  | { seq: number; kind: MarkerKind | 'synced'; at: number; resourceVersion: string; message: string };
