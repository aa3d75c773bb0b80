/**
 * A metrics source that answers from a script: each scrape takes the next exposition text (parsed
 * as a real scrape is) or fails with the next ScrapeError; the last entry repeats. With a
 * FakeClock, a MetricsPoller over these gives snapshots built from real fixtures, no sockets.
 */
import { readFileSync } from 'node:fs';
import {
  MetricsPoller,
  MultiScraper,
  parseExposition,
  ScrapeError,
  type Exposition,
  type MetricsSnapshot,
  type MetricsSource,
  type ScrapeFailure,
} from '../../src/metrics/index.js';
import { FakeClock } from './fake-clock.js';

export type Answer = string | { fail: ScrapeFailure; reason: string; hint?: string };

export class FakeMetricsSource implements MetricsSource {
  readonly timeoutMs = 1_000;
  scrapes = 0;

  constructor(
    readonly name: string,
    private readonly answers: Answer[],
  ) {}

  async scrape(): Promise<Exposition> {
    const a = this.answers[Math.min(this.scrapes, this.answers.length - 1)]!;
    this.scrapes++;
    if (typeof a !== 'string') throw new ScrapeError(this.name, a.fail, a.reason, { hint: a.hint });
    return parseExposition(a, { contentType: 'text/plain; version=0.0.4' });
  }
}

/** A file of src/metrics/fixtures. */
export function metricsFixture(name: string): string {
  return readFileSync(new URL(`../../src/metrics/fixtures/${name}`, import.meta.url), 'utf8');
}

/** Two polls of fake sources, `intervalMs` apart (default: the 10.327 s of the captured fixtures). */
export async function pollTwice(
  sources: Record<string, Answer[]>,
  intervalMs = 10_327,
): Promise<{ first: MetricsSnapshot; second: MetricsSnapshot; poller: MetricsPoller }> {
  const clock = new FakeClock();
  const poller = new MetricsPoller(
    new MultiScraper(
      Object.entries(sources).map(([name, answers]) => new FakeMetricsSource(name, answers)),
      clock,
    ),
    { clock, intervalMs },
  );
  const first = await poller.pollOnce();
  await clock.step(intervalMs);
  const second = await poller.pollOnce();
  return { first, second, poller };
}
