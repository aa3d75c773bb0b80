/**
 * Queue checks: scrape the sources at the start of the window, every sample interval, and at its
 * end, then hold workqueue depth and retry rate to their limits.
 *
 * - Depth is a gauge: its highest value in any sample of any source counts. Spikes between samples
 *   are not seen; a shorter --sample-interval sees more of them.
 * - Retry rate is workqueue_retries_total's increase (reset-aware, as rate()) between each source's
 *   first and last good scrape, per second; the highest source counts.
 * - Absent is not zero: a limit on a queue no source exposes fails and names the queues there are.
 * - A source that never answered is an error result of its own (exit 3 when nothing failed), with
 *   the scrape's reason and hint; the other sources' results stand.
 */
import { ExitCode } from '../exit-codes.js';
import type { Kube } from '../kube/index.js';
import {
  computeQueueStats,
  MultiScraper,
  QUEUE_STATS_FAMILIES,
  scrapeSources,
  type MetricsSource,
  type SourceResult,
  type TimedScrape,
} from '../metrics/index.js';
import { formatDuration } from '../util/duration.js';
import { closest } from '../util/suggest.js';
import type { RunContext } from './context.js';
import { formatValue, queueLimitName } from './limits.js';
import { checked, unchecked, unmeasured, type CheckResult, type QueueCheckSpec, type QueueLimit } from './types.js';

export interface SourceSamples {
  source: string;
  /** Good scrapes, oldest first. */
  scrapes: TimedScrape[];
  /** The latest failure, if any scrape failed. */
  lastError: { error: string; hint: string | null; kind: string } | null;
  failures: number;
}

function matches(limit: QueueLimit, queue: string): boolean {
  return limit.queue === '*' || limit.queue === queue;
}

function queuesSeen(samples: readonly SourceSamples[]): string[] {
  const names = new Set<string>();
  for (const s of samples) for (const scrape of s.scrapes) for (const q of computeQueueStats(scrape).queues) names.add(q.name);
  return [...names].sort();
}

function absent(limit: QueueLimit, samples: readonly SourceSamples[], series: string): string {
  const seen = queuesSeen(samples);
  const sources = samples
    .filter((s) => s.scrapes.length > 0)
    .map((s) => s.source)
    .join(', ');
  if (seen.length === 0) return `no workqueue metrics (${series}) in ${sources}`;
  const near = limit.queue === '*' ? [] : closest(limit.queue, seen, 3);
  const list = seen.length > 60 ? `${seen.slice(0, 60).join(', ')}, … (${seen.length})` : seen.join(', ');
  if (limit.queue === '*') return `no ${series} in ${sources}`;
  return `no workqueue named "${limit.queue}" with ${series} in ${sources}${near.length ? ` (did you mean ${near.map((n) => `"${n}"`).join(', ')}?)` : ''} (queues there: ${list})`;
}

/** The results over everything scraped: pure. */
export function evaluateQueues(spec: QueueCheckSpec, samples: readonly SourceSamples[]): CheckResult[] {
  const results: CheckResult[] = [];
  const good = samples.filter((s) => s.scrapes.length > 0);
  for (const s of samples) {
    if (s.scrapes.length === 0) {
      const why = s.lastError ? `${s.lastError.error}${s.lastError.hint ? ` (${s.lastError.hint})` : ''}` : 'no scrape was made';
      results.push(
        unchecked(
          `scrape ${s.source}`,
          null,
          'count',
          `no scrape of ${s.source} succeeded: ${why}`,
          s.lastError?.kind === 'aborted' ? ExitCode.Interrupted : ExitCode.Cluster,
        ),
      );
    }
  }
  if (good.length === 0) return results;

  for (const limit of spec.maxDepth) {
    const name = queueLimitName('depth', limit);
    let best: { value: number; queue: string; source: string; atMs: number } | undefined;
    for (const s of good) {
      for (const scrape of s.scrapes) {
        for (const q of computeQueueStats(scrape).queues) {
          if (!matches(limit, q.name) || q.depth === null) continue;
          if (!best || q.depth > best.value) best = { value: q.depth, queue: q.name, source: s.source, atMs: scrape.atMs };
        }
      }
    }
    const scrapes = good.reduce((n, s) => n + s.scrapes.length, 0);
    if (!best) {
      results.push(unmeasured(name, limit.limit, 'count', absent(limit, good, 'workqueue_depth')));
      continue;
    }
    const passed = best.value <= limit.limit;
    const what = `highest depth ${best.value}${limit.queue === '*' ? ` (queue ${best.queue})` : ''} in ${scrapes} sample${scrapes === 1 ? '' : 's'}, at ${new Date(best.atMs).toISOString()} from ${best.source}`;
    results.push(checked(name, best.value, limit.limit, 'count', passed, passed ? what : `${what}, over the limit of ${limit.limit}`));
  }

  for (const limit of spec.maxRetryRate) {
    const name = queueLimitName('retry rate', limit);
    const windows = good.filter((s) => s.scrapes.length >= 2);
    if (windows.length === 0) {
      results.push({
        name,
        passed: false,
        status: 'error',
        measured: null,
        limit: limit.limit,
        unit: 'per-second',
        message: 'a rate needs two good scrapes of a source, and no source had them',
        exitCode: ExitCode.Cluster,
      });
      continue;
    }
    let best: { rate: number; queue: string; source: string; seconds: number } | undefined;
    for (const s of windows) {
      const stats = computeQueueStats(s.scrapes.at(-1)!, s.scrapes[0]);
      for (const q of stats.queues) {
        if (!matches(limit, q.name) || q.retriesPerSecond === null) continue;
        if (!best || q.retriesPerSecond > best.rate) best = { rate: q.retriesPerSecond, queue: q.name, source: s.source, seconds: stats.windowSeconds ?? 0 };
      }
    }
    if (!best) {
      results.push(unmeasured(name, limit.limit, 'per-second', absent(limit, windows, 'workqueue_retries_total')));
      continue;
    }
    const passed = best.rate <= limit.limit + 1e-9;
    const retries = Math.round(best.rate * best.seconds);
    const what = `${limit.queue === '*' ? `highest: ${best.queue}, ` : ''}${retries} retr${retries === 1 ? 'y' : 'ies'} in ${formatDuration(best.seconds * 1000)} = ${formatValue(best.rate, 'per-second')} (${best.source})`;
    results.push(
      checked(name, best.rate, limit.limit, 'per-second', passed, passed ? what : `${what}, over the limit of ${formatValue(limit.limit, 'per-second')}`),
    );
  }
  return results;
}

function record(samples: Map<string, SourceSamples>, results: readonly SourceResult[]): void {
  for (const r of results) {
    const s = samples.get(r.source)!;
    if (r.ok) s.scrapes.push({ atMs: r.startedAtMs, families: r.families });
    else {
      s.failures++;
      s.lastError = { error: r.error, hint: r.hint, kind: r.kind };
    }
  }
}

export async function runQueueCheck(kube: Kube | undefined, spec: QueueCheckSpec, ctx: RunContext): Promise<CheckResult[]> {
  return sampleQueues(scrapeSources(spec.metrics, spec.access, kube, QUEUE_STATS_FAMILIES), spec, ctx);
}

/** Scrapes `sources` over the check's window, on the context's clock, and judges what it got. */
export async function sampleQueues(sources: readonly MetricsSource[], spec: QueueCheckSpec, ctx: RunContext): Promise<CheckResult[]> {
  const { clock, signal } = ctx;
  const scraper = new MultiScraper(sources, clock);
  const samples = new Map(sources.map((s) => [s.name, { source: s.name, scrapes: [], lastError: null, failures: 0 } as SourceSamples]));
  const end = clock.now() + spec.windowMs;
  record(samples, await scraper.scrapeAll(signal));
  for (const s of samples.values()) {
    if (s.lastError) ctx.log(`scrape of ${s.source} failed: ${s.lastError.error}${s.lastError.hint ? ` (${s.lastError.hint})` : ''}`);
  }
  ctx.log(`scraped ${sources.length} source${sources.length === 1 ? '' : 's'}; sampling for ${formatDuration(spec.windowMs)}`);
  while (!signal.aborted && clock.now() < end) {
    await clock.sleep(Math.min(end - clock.now(), spec.sampleIntervalMs), signal);
    if (signal.aborted) break;
    record(samples, await scraper.scrapeAll(signal));
  }
  return evaluateQueues(spec, [...samples.values()]);
}
