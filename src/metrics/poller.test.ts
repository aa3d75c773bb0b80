import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { FakeClock, flushMicrotasks } from '../../tools/testing/fake-clock.js';
import { MultiScraper } from './multi-scraper.js';
import { parseExposition, type Exposition } from './parse.js';
import { MetricsPoller, type MetricsSnapshot } from './poller.js';
import { ScrapeError } from './scrape-error.js';
import type { MetricsSource } from './sources.js';

/** A source whose counters grow by `addsPerScrape` per scrape; `fail` makes the next scrapes throw. */
function counting(name: string, addsPerScrape: number) {
  const state = { scrapes: 0, fail: undefined as ScrapeError | undefined, hang: false };
  const source: MetricsSource = {
    name,
    timeoutMs: 1000,
    scrape: async (signal) => {
      state.scrapes++;
      if (state.hang) {
        return new Promise<Exposition>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
      }
      if (state.fail) throw state.fail;
      const adds = state.scrapes * addsPerScrape;
      return parseExposition(
        `# TYPE workqueue_adds_total counter\nworkqueue_adds_total{name="q"} ${adds}\n# TYPE workqueue_depth gauge\nworkqueue_depth{name="q"} ${state.scrapes}\n`,
      );
    },
  };
  return { source, state };
}

function setup(intervalMs?: number) {
  const clock = new FakeClock();
  const a = counting('a', 10);
  const b = counting('b', 4);
  const poller = new MetricsPoller(new MultiScraper([a.source, b.source], clock), { clock, ...(intervalMs ? { intervalMs } : {}) });
  const seen: MetricsSnapshot[] = [];
  poller.subscribe((s) => seen.push(s));
  const ctrl = new AbortController();
  return { clock, a, b, poller, seen, ctrl };
}

const statusOf = (snap: MetricsSnapshot, source: string) => snap.sources.find((s) => s.source === source)!;

describe('MetricsPoller', () => {
  it('scrapes every source at once, then every 2 s, with rates from the previous scrape', async () => {
    const { clock, a, b, poller, seen, ctrl } = setup();
    expect(poller.latest().sources.map((s) => [s.source, s.ok, s.stats])).toEqual([
      ['a', false, null],
      ['b', false, null],
    ]);
    const done = poller.run(ctrl.signal);
    await flushMicrotasks();
    expect(seen).toHaveLength(2); // one snapshot per source result
    const first = statusOf(seen.at(-1)!, 'a');
    expect(first.ok).toBe(true);
    expect(first.stats!.queues[0]!.addsPerSecond).toBeNull();
    expect(first.stats!.queues[0]!.addsTotal).toBe(10);

    await clock.step(1999);
    expect(a.state.scrapes).toBe(1);
    await clock.step(1);
    expect(a.state.scrapes).toBe(2);
    expect(b.state.scrapes).toBe(2);
    const latest = seen.at(-1)!;
    expect(statusOf(latest, 'a').stats!.queues[0]!.addsPerSecond).toBe(5); // 10 more in 2 s
    expect(statusOf(latest, 'b').stats!.queues[0]!.addsPerSecond).toBe(2);
    expect(statusOf(latest, 'a').stats!.windowSeconds).toBe(2);
    expect(latest.seq).toBe(4);
    expect(poller.latest()).toBe(latest);
    expect(poller.lastScrape('a')!.atMs).toBe(clock.now());

    ctrl.abort();
    await done;
    expect(clock.pendingTimers()).toBe(0);
  });

  it('keeps the others going while one source fails, and measures the next good scrape over the gap', async () => {
    const { clock, a, b, seen, ctrl, poller } = setup();
    const done = poller.run(ctrl.signal);
    await flushMicrotasks();
    a.state.fail = new ScrapeError('a', 'not-metrics', 'answered text/html, not Prometheus metrics', { hint: 'is it the metrics port?' });
    await clock.step(2000);
    const failed = statusOf(seen.at(-1)!, 'a');
    expect(failed).toMatchObject({
      ok: false,
      stale: true,
      kind: 'not-metrics',
      error: 'answered text/html, not Prometheus metrics',
      hint: 'is it the metrics port?',
      consecutiveFailures: 1,
    });
    expect(failed.stats!.queues[0]!.addsTotal).toBe(10); // the last good numbers stay, marked stale
    expect(statusOf(seen.at(-1)!, 'b')).toMatchObject({ ok: true, stale: false });

    await clock.step(2000);
    expect(statusOf(seen.at(-1)!, 'a').consecutiveFailures).toBe(2);
    a.state.fail = undefined;
    await clock.step(2000);
    const back = statusOf(seen.at(-1)!, 'a');
    expect(back).toMatchObject({ ok: true, stale: false, error: null, consecutiveFailures: 0 });
    // Scrape 4 at t=6 s against the last good one (scrape 1 at t=0): 30 adds in 6 s.
    expect(back.stats!.windowSeconds).toBe(6);
    expect(back.stats!.queues[0]!.addsPerSecond).toBe(5);
    expect(b.state.scrapes).toBe(4);
    ctrl.abort();
    await done;
  });

  it('does not let a hanging source slow down the others', async () => {
    const { clock, a, b, seen, ctrl, poller } = setup();
    a.state.hang = true;
    const done = poller.run(ctrl.signal);
    await flushMicrotasks();
    expect(b.state.scrapes).toBe(1);
    await clock.step(2000);
    expect(b.state.scrapes).toBe(2);
    expect(statusOf(seen.at(-1)!, 'a')).toMatchObject({ ok: false, kind: 'timeout', error: 'no answer within 1s', stale: false, stats: null });
    // The timed-out source starts again 2 s after its previous start.
    expect(a.state.scrapes).toBe(2);
    ctrl.abort();
    await done;
  });

  it('emits nothing after abort, and stops with a scrape in flight', async () => {
    const { clock, a, seen, ctrl, poller } = setup();
    a.state.hang = true;
    const done = poller.run(ctrl.signal);
    await flushMicrotasks();
    const count = seen.length;
    ctrl.abort();
    await done;
    await clock.step(10_000);
    expect(seen).toHaveLength(count);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('keeps going when a listener throws, and unsubscribes', async () => {
    const { clock, seen, ctrl, poller } = setup(500);
    const errors: unknown[] = [];
    const poller2 = new MetricsPoller(new MultiScraper([counting('x', 1).source], clock), { clock, intervalMs: 500, onListenerError: (e) => errors.push(e) });
    poller2.subscribe(() => {
      throw new Error('render failed');
    });
    const calls: number[] = [];
    const off = poller2.subscribe((s) => calls.push(s.seq));
    const done2 = poller2.run(ctrl.signal);
    const done = poller.run(ctrl.signal);
    await flushMicrotasks();
    await clock.step(500);
    expect(calls).toEqual([1, 2]);
    expect(errors).toHaveLength(2);
    off();
    await clock.step(500);
    expect(calls).toEqual([1, 2]);
    expect(seen.length).toBe(6);
    ctrl.abort();
    await Promise.all([done, done2]);
  });

  it('polls once on request, for one-shot output', async () => {
    const { a, b, poller, seen } = setup();
    const snap = await poller.pollOnce();
    expect(snap.seq).toBe(1);
    expect(seen).toEqual([snap]);
    expect(snap.sources.map((s) => s.ok)).toEqual([true, true]);
    expect(a.state.scrapes + b.state.scrapes).toBe(2);
  });

  it('refuses an interval that is not positive', () => {
    const scraper = new MultiScraper([], new FakeClock());
    expect(() => new MetricsPoller(scraper, { intervalMs: 0 })).toThrow(UsageError);
    expect(() => new MetricsPoller(scraper, { intervalMs: Number.NaN })).toThrow(/positive duration/);
  });
});
