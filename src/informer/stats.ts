/**
 * Counters and an event hook for one informer, so the UI can show what the machinery is doing
 * ("relisting after 410 Gone", "backing off 1.6 s after 429") and read a plain snapshot.
 *
 * client-go has no direct counterpart: it logs through klog and exposes reflector metrics through
 * a provider interface that is a no-op by default. Here the Reflector and the informer write
 * counters into an InformerStatsRecorder (plain field increments on the hot path) and announce
 * notable moments as InformerEvents; `snapshot()` returns a serialisable copy.
 */
import type { WatchEventType } from '../kube/types.js';

export type InformerEventLevel = 'debug' | 'info' | 'warning' | 'error';

export type InformerEventKind =
  /** A list (all its pages) started. */
  | 'list'
  /** A list finished and replaced the store. */
  | 'listed'
  /** A list failed. */
  | 'list-failed'
  /** A watch request is about to be sent. */
  | 'watch'
  /** A watch ended (closed by the server, by us, with an error, or stalled and given up). */
  | 'watch-closed'
  /** A watch request could not be opened. */
  | 'watch-failed'
  /** The reflector waits before retrying. */
  | 'backoff'
  /** A BOOKMARK moved the resource version. */
  | 'bookmark'
  /** A periodic resync queued Sync deltas. */
  | 'resync'
  /** A streaming list (sendInitialEvents) started. */
  | 'stream'
  /** A streaming list reached its initial-events-end bookmark. */
  | 'streamed'
  /** A streaming list failed. */
  | 'stream-failed'
  /** The informer's cache became synced. */
  | 'synced'
  /** An event handler threw or rejected. */
  | 'handler-error'
  /** Something the reflector skipped or could not store. */
  | 'warning'
  | 'started'
  | 'stopped';

export interface InformerEvent {
  kind: InformerEventKind;
  level: InformerEventLevel;
  /** Clock time (ms). */
  at: number;
  /** One readable line, e.g. `relisting at resourceVersion "" after 410 Expired`. */
  message: string;
  /** The informer or reflector name. */
  source: string;
  error?: unknown;
  resourceVersion?: string;
  /** For 'backoff': how long the wait is. */
  delayMs?: number;
  /** For 'listed'/'streamed': objects; for 'watch-closed': events seen. */
  count?: number;
  durationMs?: number;
}

export type InformerEventListener = (event: InformerEvent) => void;

/** A tiny emitter: listeners run synchronously, a throwing listener does not stop the others. */
export class InformerEventHub {
  private listeners: InformerEventListener[] = [];

  on(listener: InformerEventListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  emit(event: InformerEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // A broken listener must not break the informer.
      }
    }
  }

  get size(): number {
    return this.listeners.length;
  }
}

export interface ErrorRecord {
  message: string;
  at: number;
  /** What the reflector was doing: list, watch-open, watch, watch-list, resync, store, handler. */
  phase: string;
  code?: number;
  reason?: string;
}

export interface ListenerStats {
  name: string;
  /** Notifications queued and not yet handed to the handler. */
  backlog: number;
  /** Notifications handed to the handler. */
  delivered: number;
  handlerErrors: number;
  /** Effective resync period (ms), 0 = none. */
  resyncPeriod: number;
  synced: boolean;
}

export type EventCounts = Record<WatchEventType, number>;

/**
 * client-go's informer_processing_latency_seconds buckets (k8s.io/component-base
 * metrics/prometheus/clientgo/fifo, 1.36): seconds, upper bounds.
 */
export const PROCESSING_LATENCY_BUCKETS: readonly number[] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Observations of the time a popped item took to process: counts per bucket (not cumulative), then +Inf. */
export interface LatencyHistogram {
  /** counts[i] observations ≤ PROCESSING_LATENCY_BUCKETS[i] and above the bucket before; the last is above every bound. */
  counts: number[];
  /** Seconds. */
  sum: number;
  count: number;
}

export function emptyLatencyHistogram(): LatencyHistogram {
  return { counts: new Array<number>(PROCESSING_LATENCY_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
}

export function observeLatency(h: LatencyHistogram, seconds: number): void {
  let i = 0;
  while (i < PROCESSING_LATENCY_BUCKETS.length && seconds > PROCESSING_LATENCY_BUCKETS[i]!) i++;
  h.counts[i]!++;
  h.sum += seconds;
  h.count++;
}

/**
 * What client-go's informer_store_resource_version reports: the 15 least significant digits of
 * the store's resourceVersion as a number; 0 when it is not a decimal number.
 */
export function storeResourceVersionValue(rv: string): number {
  if (!/^\d+$/.test(rv)) return 0;
  return Number(rv.slice(-15));
}

export interface InformerStats {
  name: string;
  description: string;
  started: boolean;
  stopped: boolean;
  synced: boolean;
  /** Objects in the cache. */
  objects: number;
  /** Keys waiting in the DeltaFIFO. */
  queued: number;
  /** The resource the informer lists and watches, when its ListerWatcher names one (metric labels). */
  group: string;
  version: string;
  resource: string;
  /** The resourceVersion of the newest object applied to the store, or of the last list when none came since. */
  storeResourceVersion: string;
  /** Time each popped item took to process (store update and handing to the handlers). */
  processingLatency: LatencyHistogram;
  /** Watch events received, by type (streaming-list events included). */
  events: EventCounts;
  /** List operations (a paginated list counts once; the immediate retry at RV "" counts again). */
  lists: number;
  /** List requests (pages). */
  listRequests: number;
  /** List operations after the cache first synced from a list or stream. */
  relists: number;
  /** Watch requests sent (streaming lists included). */
  watches: number;
  /** Watch requests after the first. */
  watchRestarts: number;
  /**
   * Watches given up because their connection stopped delivering while it stayed open (a
   * half-open TCP connection, a hung API server): silent past the end the server was asked for.
   */
  watchStalls: number;
  bookmarks: number;
  resyncs: number;
  errors: number;
  lastError: ErrorRecord | undefined;
  lastSyncResourceVersion: string;
  /** When the last list or stream completed (ms), if any. */
  lastListAt: number | undefined;
  listeners: ListenerStats[];
  /** Sum of the listeners' backlogs. */
  backlog: number;
}

/** Mutable counters, written by the Reflector and the informer. */
export class InformerStatsRecorder {
  events: EventCounts = { ADDED: 0, MODIFIED: 0, DELETED: 0, BOOKMARK: 0, ERROR: 0 };
  lists = 0;
  listRequests = 0;
  relists = 0;
  watches = 0;
  watchRestarts = 0;
  watchStalls = 0;
  bookmarks = 0;
  resyncs = 0;
  errors = 0;
  lastError: ErrorRecord | undefined;
  lastSyncResourceVersion = '';
  /** Set as deltas are applied to the store. */
  storeResourceVersion = '';
  processingLatency: LatencyHistogram = emptyLatencyHistogram();
  lastListAt: number | undefined;
  /** Set once a list or stream has filled the store; later lists count as relists. */
  listedOnce = false;

  recordError(err: unknown, phase: string, at: number): void {
    this.errors++;
    const rec: ErrorRecord = { message: errorMessage(err), at, phase };
    const e = err as { code?: unknown; reason?: unknown } | null;
    if (e && typeof e === 'object') {
      if (typeof e.code === 'number') rec.code = e.code;
      if (typeof e.reason === 'string' && e.reason !== '') rec.reason = e.reason;
    }
    this.lastError = rec;
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}

/** "410 Expired", "429 TooManyRequests", "connection refused (ECONNREFUSED)", or the message. */
export function describeError(err: unknown): string {
  const e = err as { code?: unknown; reason?: unknown; networkCode?: unknown } | null;
  if (e && typeof e === 'object') {
    if (typeof e.networkCode === 'string' && e.networkCode) return `${errorMessage(err)} (${e.networkCode})`;
    if (typeof e.code === 'number' && e.code > 0) {
      const reason = typeof e.reason === 'string' && e.reason ? e.reason : '';
      return reason ? `${e.code} ${reason}` : `${e.code} ${errorMessage(err)}`;
    }
  }
  return errorMessage(err);
}
