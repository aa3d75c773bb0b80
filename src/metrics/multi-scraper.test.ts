import { describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from '../../tools/testing/fake-clock.js';
import { MultiScraper, type SourceResult } from './multi-scraper.js';
import { parseExposition, type Exposition } from './parse.js';
import { ScrapeError } from './scrape-error.js';
import type { MetricsSource } from './sources.js';

function source(name: string, scrape: (signal?: AbortSignal) => Promise<Exposition>, timeoutMs = 5000): MetricsSource {
  return { name, timeoutMs, scrape };
}

const good = source('good', async () => parseExposition('workqueue_depth{name="a"} 1\n'));
const html = source('html', async () => {
  throw new ScrapeError('html', 'not-metrics', 'answered text/html, not Prometheus metrics');
});

/** Never answers; records that its signal was aborted. */
function hanging(name: string, timeoutMs = 5000) {
  const state = { aborted: false, reason: undefined as unknown };
  const s = source(
    name,
    (signal) =>
      new Promise<Exposition>(() => {
        signal?.addEventListener('abort', () => {
          state.aborted = true;
          state.reason = signal.reason;
        });
      }),
    timeoutMs,
  );
  return { source: s, state };
}

describe('MultiScraper', () => {
  it('returns one result per source; a hanging one times out on the clock without holding the others', async () => {
    const clock = new FakeClock();
    const hang = hanging('slow', 3000);
    const scraper = new MultiScraper([good, html, hang.source], clock);
    let results: SourceResult[] | undefined;
    void scraper.scrapeAll().then((r) => (results = r));
    await flushMicrotasks();
    expect(results).toBeUndefined();
    await clock.step(2999);
    expect(results).toBeUndefined();
    await clock.step(1);
    expect(results).toBeDefined();
    const [a, b, c] = results!;
    expect(a).toMatchObject({ source: 'good', ok: true, format: 'prometheus', durationMs: 0 });
    expect(a!.ok && a!.families[0]!.name).toBe('workqueue_depth');
    expect(b).toMatchObject({ source: 'html', ok: false, kind: 'not-metrics', error: 'answered text/html, not Prometheus metrics', hint: null });
    expect(c).toMatchObject({ source: 'slow', ok: false, kind: 'timeout', error: 'no answer within 3s', durationMs: 3000 });
    expect(hang.state.aborted).toBe(true);
    expect(hang.state.reason).toBeInstanceOf(ScrapeError);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('stops the timeout timer when a scrape answers', async () => {
    const clock = new FakeClock();
    const result = await new MultiScraper([good], clock).scrapeOne(good);
    expect(result.ok).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('reports a cancelled scrape when the caller aborts', async () => {
    const clock = new FakeClock();
    const hang = hanging('slow');
    const ctrl = new AbortController();
    const p = new MultiScraper([hang.source], clock).scrapeAll(ctrl.signal);
    await flushMicrotasks();
    ctrl.abort();
    const [r] = await p;
    expect(r).toMatchObject({ ok: false, kind: 'aborted', error: 'scrape cancelled' });
    expect(hang.state.aborted).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('turns a source that throws something unexpected into a failed result', async () => {
    const broken = source('broken', () => {
      throw new TypeError('cannot read properties of undefined');
    });
    const [r] = await new MultiScraper([broken, good], new FakeClock()).scrapeAll();
    expect(r).toMatchObject({ source: 'broken', ok: false, kind: 'error', error: 'cannot read properties of undefined' });
  });
});
