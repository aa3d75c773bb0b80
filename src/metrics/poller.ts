/**
 * Scrapes every source every interval (default 2 s) and hands subscribers a fresh snapshot after
 * each scrape: per source, the queue statistics between its last two good scrapes, or why its
 * latest scrape failed.
 *
 * - Each source runs on its own schedule (start to start), so one that hangs until its timeout
 *   does not hold the others back.
 * - The previous good scrape is kept per source; a failed scrape leaves it in place, so the next
 *   good one measures rates over the whole gap, and the last statistics stay visible, marked stale.
 * - Time comes from the injected Clock; run() ends when its AbortSignal aborts, without emitting
 *   anything after that.
 */
import { realClock, type Clock } from '../clock.js';
import { UsageError } from '../errors.js';
import type { MultiScraper, SourceResult } from './multi-scraper.js';
import { computeQueueStats, type QueueStatsSnapshot, type TimedScrape } from './queue-stats.js';
import type { ScrapeFailure } from './scrape-error.js';
import type { MetricsSource } from './sources.js';

export const DEFAULT_POLL_INTERVAL_MS = 2_000;

export interface SourceStatus {
  source: string;
  /** Whether the latest scrape worked; false before the first one too. */
  ok: boolean;
  /** From the latest good scrape; null until there is one. */
  stats: QueueStatsSnapshot | null;
  /** True when `stats` predates a failed scrape. */
  stale: boolean;
  error: string | null;
  kind: ScrapeFailure | null;
  hint: string | null;
  lastAttemptAtMs: number | null;
  lastSuccessAtMs: number | null;
  consecutiveFailures: number;
  scrapeDurationMs: number | null;
}

export interface MetricsSnapshot {
  /** Increases with every snapshot emitted. */
  seq: number;
  atMs: number;
  intervalMs: number;
  /** In the order the sources were given. */
  sources: SourceStatus[];
}

export type SnapshotListener = (snapshot: MetricsSnapshot) => void;

export interface PollerOptions {
  clock?: Clock;
  intervalMs?: number;
  /** A listener that throws does not stop the poller; its error goes here (default: ignored). */
  onListenerError?: (err: unknown) => void;
}

export class MetricsPoller {
  readonly intervalMs: number;
  private readonly clock: Clock;
  private readonly listeners = new Set<SnapshotListener>();
  private readonly previous = new Map<string, TimedScrape>();
  private readonly status = new Map<string, SourceStatus>();
  private seq = 0;
  private current: MetricsSnapshot;

  constructor(
    private readonly scraper: MultiScraper,
    private readonly options: PollerOptions = {},
  ) {
    this.clock = options.clock ?? realClock;
    this.intervalMs = options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    if (!(this.intervalMs > 0) || !Number.isFinite(this.intervalMs))
      throw new UsageError(`the metrics interval must be a positive duration (got ${this.intervalMs}ms)`);
    for (const s of scraper.sources) this.status.set(s.name, initialStatus(s.name));
    this.current = this.snapshot();
  }

  /** Calls `listener` with every snapshot from now on; returns the unsubscribe function. */
  subscribe(listener: SnapshotListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The latest snapshot (every source pending before the first scrape). */
  latest(): MetricsSnapshot {
    return this.current;
  }

  /** The latest good scrape of a source, families included, for views that want more than stats. */
  lastScrape(source: string): TimedScrape | undefined {
    return this.previous.get(source);
  }

  /** One scrape of every source, then one snapshot. For one-shot output and tests. */
  async pollOnce(signal?: AbortSignal): Promise<MetricsSnapshot> {
    const results = await this.scraper.scrapeAll(signal);
    if (signal?.aborted) return this.current;
    for (const r of results) this.record(r);
    this.emit();
    return this.current;
  }

  /** Polls until `signal` aborts; resolves then. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all(this.scraper.sources.map((s) => this.loop(s, signal)));
  }

  private async loop(source: MetricsSource, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const started = this.clock.now();
      const result = await this.scraper.scrapeOne(source, signal);
      if (signal.aborted) return;
      this.record(result);
      this.emit();
      await this.clock.sleep(Math.max(0, started + this.intervalMs - this.clock.now()), signal);
    }
  }

  private record(r: SourceResult): void {
    const before = this.status.get(r.source) ?? initialStatus(r.source);
    if (r.ok) {
      const scrape: TimedScrape = { atMs: r.startedAtMs, families: r.families };
      const stats = computeQueueStats(scrape, this.previous.get(r.source));
      this.previous.set(r.source, scrape);
      this.status.set(r.source, {
        source: r.source,
        ok: true,
        stats,
        stale: false,
        error: null,
        kind: null,
        hint: null,
        lastAttemptAtMs: r.startedAtMs,
        lastSuccessAtMs: r.startedAtMs,
        consecutiveFailures: 0,
        scrapeDurationMs: r.durationMs,
      });
    } else {
      this.status.set(r.source, {
        ...before,
        ok: false,
        stale: before.stats !== null,
        error: r.error,
        kind: r.kind,
        hint: r.hint,
        lastAttemptAtMs: r.startedAtMs,
        consecutiveFailures: before.consecutiveFailures + 1,
        scrapeDurationMs: r.durationMs,
      });
    }
  }

  private snapshot(): MetricsSnapshot {
    return { seq: this.seq, atMs: this.clock.now(), intervalMs: this.intervalMs, sources: [...this.status.values()] };
  }

  private emit(): void {
    this.seq++;
    this.current = this.snapshot();
    for (const listener of [...this.listeners]) {
      try {
        listener(this.current);
      } catch (err) {
        this.options.onListenerError?.(err);
      }
    }
  }
}

function initialStatus(source: string): SourceStatus {
  return {
    source,
    ok: false,
    stats: null,
    stale: false,
    error: null,
    kind: null,
    hint: null,
    lastAttemptAtMs: null,
    lastSuccessAtMs: null,
    consecutiveFailures: 0,
    scrapeDurationMs: null,
  };
}
