/**
 * Scrapes several sources at once, each under its own timeout (timed by the injected Clock), and
 * returns one result per source: its families, or why it failed. One source hanging, refusing or
 * answering HTML never costs the others their result.
 */
import { realClock, type Clock } from '../clock.js';
import { flagDuration } from '../util/duration.js';
import type { ExpositionFormat, MetricFamily } from './parse.js';
import { ScrapeError, toScrapeError, type ScrapeFailure } from './scrape-error.js';
import type { TimedScrape } from './queue-stats.js';
import type { MetricsSource } from './sources.js';

interface ResultBase {
  source: string;
  /** Clock time the scrape started; the time its samples are taken to be from. */
  startedAtMs: number;
  durationMs: number;
}

export interface ScrapeSuccess extends ResultBase {
  ok: true;
  format: ExpositionFormat;
  families: MetricFamily[];
}

export interface ScrapeFailureResult extends ResultBase {
  ok: false;
  /** One line, without the source's name. */
  error: string;
  kind: ScrapeFailure;
  hint: string | null;
}

export type SourceResult = ScrapeSuccess | ScrapeFailureResult;

/** The sources that answered, each with its scrape as a TimedScrape (timed from when it started). */
export function answered(results: readonly SourceResult[]): Map<string, TimedScrape> {
  const out = new Map<string, TimedScrape>();
  for (const r of results) if (r.ok) out.set(r.source, { atMs: r.startedAtMs, families: r.families });
  return out;
}

export class MultiScraper {
  constructor(
    readonly sources: readonly MetricsSource[],
    private readonly clock: Clock = realClock,
  ) {}

  /** Scrapes every source in parallel. Never rejects. */
  scrapeAll(signal?: AbortSignal): Promise<SourceResult[]> {
    return Promise.all(this.sources.map((s) => this.scrapeOne(s, signal)));
  }

  /** Scrapes one source under its timeout. Never rejects. */
  async scrapeOne(source: MetricsSource, signal?: AbortSignal): Promise<SourceResult> {
    const startedAtMs = this.clock.now();
    const controller = new AbortController();
    let timer: { stop(): boolean } | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const cut = new Promise<never>((_, reject) => {
        timer = this.clock.setTimer(source.timeoutMs, () => {
          const err = new ScrapeError(source.name, 'timeout', `no answer within ${flagDuration(source.timeoutMs)}`, {
            hint: 'the endpoint is slow or not answering; a larger timeout may help',
          });
          controller.abort(err);
          reject(err);
        });
        onAbort = () => {
          const err = new ScrapeError(source.name, 'aborted', 'scrape cancelled');
          controller.abort(err);
          reject(err);
        };
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      });
      const work = Promise.resolve().then(() => source.scrape(controller.signal));
      // Whichever loses the race must not surface as an unhandled rejection.
      cut.catch(() => undefined);
      work.catch(() => undefined);
      const exposition = await Promise.race([work, cut]);
      return {
        source: source.name,
        ok: true,
        format: exposition.format,
        families: exposition.families,
        startedAtMs,
        durationMs: this.clock.now() - startedAtMs,
      };
    } catch (err) {
      const e = toScrapeError(source.name, err, { via: 'direct', target: source.name });
      return { source: source.name, ok: false, error: e.reason, kind: e.kind, hint: e.hint ?? null, startedAtMs, durationMs: this.clock.now() - startedAtMs };
    } finally {
      timer?.stop();
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }
}
