import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseExposition } from './parse.js';
import { computeQueueStats, type QueueRow, type QueueStatsSnapshot, type TimedScrape } from './queue-stats.js';

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const T0 = Date.UTC(2026, 0, 1);

function scrape(text: string, atMs: number, contentType?: string): TimedScrape {
  return { atMs, families: parseExposition(text, { contentType }).families };
}

function queue(snap: QueueStatsSnapshot, name: string, controller: string | null = null): QueueRow {
  const row = snap.queues.find((q) => q.name === name && q.controller === controller);
  if (!row) throw new Error(`no queue ${name}/${controller} in ${snap.queues.map((q) => `${q.name}/${q.controller}`).join(', ')}`);
  return row;
}

describe('queue stats from one kube-controller-manager scrape', () => {
  const snap = computeQueueStats(scrape(fixture('synthetic-kube-controller-manager.prom'), T0));

  it('has a row per workqueue name, with gauges and counter totals', () => {
    expect(snap.queues.map((q) => q.name)).toEqual(expect.arrayContaining(['deployment', 'replicaset', 'endpoint', 'garbage_collector_attempt_to_delete']));
    const d = queue(snap, 'deployment');
    expect(d).toMatchObject({
      controller: null,
      depth: 1,
      addsTotal: 126,
      retriesTotal: 7,
      unfinishedWorkSeconds: 0.012,
      longestRunningProcessorSeconds: 0.012,
    });
  });

  it('gives no rates from a single scrape, and quantiles over the whole life, saying so', () => {
    const d = queue(snap, 'deployment');
    expect(snap.windowSeconds).toBeNull();
    expect(d.addsPerSecond).toBeNull();
    expect(d.retriesPerSecond).toBeNull();
    expect(d.queueTime.basis).toBe('since-start');
    expect(d.queueTime.observations).toBe(126);
    // 88 of 126 waited <= 1e-5 s, none <= 1e-6 s: the median is 63/88 of the way through that bucket.
    expect(d.queueTime.p50).toBeCloseTo(1e-6 + (9.999999999999999e-6 - 1e-6) * (63 / 88), 15);
    // Rank 124.74 falls among the 8 observations in (0.001, 0.01].
    expect(d.queueTime.p99).toBeCloseTo(0.001 + 0.009 * ((0.99 * 126 - 118) / 8), 12);
  });

  it('shows a queue that never saw an item as zero observations with no quantiles', () => {
    const c = queue(snap, 'cronjob');
    expect(c.depth).toBe(0);
    expect(c.addsTotal).toBe(0);
    expect(c.queueTime).toEqual({ p50: null, p99: null, observations: 0, basis: 'since-start' });
  });

  it('adds up totals and reads leader election', () => {
    expect(snap.totals.queues).toBe(snap.queues.length);
    expect(snap.totals.depth).toBe(1);
    expect(snap.totals.addsPerSecond).toBeNull();
    expect(snap.leaderElection).toEqual([{ name: 'kube-controller-manager', isLeader: true, value: 1 }]);
    expect(snap.controllers).toEqual([]);
  });

  it('is plain data that survives JSON', () => {
    expect(JSON.parse(JSON.stringify(snap))).toEqual(snap);
  });
});

describe('queue stats between two controller-runtime scrapes 10 s apart', () => {
  const snap = computeQueueStats(scrape(fixture('controller-runtime.2.prom'), T0 + 10_000), scrape(fixture('controller-runtime.prom'), T0));

  it('keys rows by controller and name', () => {
    expect(snap.queues.map((q) => [q.controller, q.name])).toEqual([
      ['guestbook', 'guestbook'],
      ['webapp', 'webapp'],
    ]);
    expect(snap.windowSeconds).toBe(10);
    expect(snap.previousAtMs).toBe(T0);
  });

  it('gives rates per second over the window', () => {
    const w = queue(snap, 'webapp', 'webapp');
    expect(w.addsPerSecond).toBe(2.5);
    expect(w.retriesPerSecond).toBe(0.4);
    expect(w.depth).toBe(3);
    const g = queue(snap, 'guestbook', 'guestbook');
    // A quiet queue has a rate of zero, which is not the same as no rate.
    expect(g.addsPerSecond).toBe(0);
    expect(snap.totals.addsPerSecond).toBe(2.5);
  });

  it('takes quantiles from the bucket deltas of the interval', () => {
    const w = queue(snap, 'webapp', 'webapp');
    expect(w.workTime.basis).toBe('interval');
    expect(w.workTime.observations).toBe(25);
    // Interval: 5 items at ~3 ms, 15 at ~40 ms, 5 at ~0.6 s; controller-runtime's work buckets
    // are 1e-8..1e3 by tens, so the median lies in (0.01, 0.1].
    expect(w.workTime.p50).toBeCloseTo(0.01 + 0.09 * (7.5 / 15), 12);
    expect(w.workTime.p99).toBeCloseTo(0.1 + 0.9 * (4.75 / 5), 12);
    const g = queue(snap, 'guestbook', 'guestbook');
    expect(g.workTime).toEqual({ p50: null, p99: null, observations: 0, basis: 'interval' });
  });

  it('gives reconcile rates by result, error rate and reconcile time per controller', () => {
    const w = snap.controllers.find((c) => c.controller === 'webapp')!;
    expect(w.reconcilesPerSecond).toBe(2.5);
    expect(w.resultsPerSecond).toEqual({ error: 0.4, requeue: 0, requeue_after: 0.1, success: 2 });
    expect(w.errorsPerSecond).toBe(0.4);
    expect(w.reconcilesTotal).toBe(65);
    expect(w.errorsTotal).toBe(7);
    expect(w.activeWorkers).toBe(1);
    expect(w.maxConcurrentReconciles).toBe(2);
    // Reconcile buckets 0.005, 0.01, 0.025, 0.05, ...: 5 in the first, 15 in (0.025, 0.05], 5 in (0.5, 0.6].
    expect(w.reconcileTime.p50).toBeCloseTo(0.025 + 0.025 * (7.5 / 15), 12);
    expect(w.reconcileTime.p99).toBeCloseTo(0.5 + 0.1 * (4.75 / 5), 12);
    const g = snap.controllers.find((c) => c.controller === 'guestbook')!;
    expect(g.reconcilesPerSecond).toBe(0);
    expect(g.reconcileTime.p50).toBeNull();
    expect(snap.leaderElection).toEqual([{ name: 'webapp-operator-lock', isLeader: true, value: 1 }]);
  });
});

describe('queue stats between two real kube-controller-manager v1.37.2 scrapes', () => {
  const captured = JSON.parse(fixture('captured.json')) as { contentType: string; firstScrapeAtMs: number; secondScrapeAtMs: number };
  const snap = computeQueueStats(
    scrape(fixture('kube-controller-manager.2.prom'), captured.secondScrapeAtMs, captured.contentType),
    scrape(fixture('kube-controller-manager.prom'), captured.firstScrapeAtMs, captured.contentType),
  );

  it('measures the Deployment queue over the 10.3 s between the scrapes', () => {
    expect(snap.windowSeconds).toBeCloseTo(10.327, 3);
    const d = queue(snap, 'deployment');
    // adds 1 -> 12, retries 1 -> 8
    expect(d.addsTotal).toBe(12);
    expect(d.addsPerSecond).toBeCloseTo(11 / 10.327, 6);
    expect(d.retriesPerSecond).toBeCloseTo(7 / 10.327, 6);
    expect(d.depth).toBe(0);
    // Work-duration bucket deltas: 2 in (1e-4, 1e-3], 4 in (1e-3, 1e-2], 5 in (1e-2, 0.1].
    expect(d.workTime.observations).toBe(11);
    expect(d.workTime.p50).toBeCloseTo(0.001 + 0.009 * (3.5 / 4), 12);
    expect(d.workTime.p99).toBeCloseTo(0.01 + 0.09 * ((0.99 * 11 - 6) / 5), 12);
  });

  it('has a row for every controller queue, idle ones with zero rates', () => {
    expect(snap.queues.length).toBeGreaterThan(40);
    expect(snap.queues.every((q) => q.controller === null && q.depth !== null && q.addsPerSecond !== null)).toBe(true);
    const idle = queue(snap, 'cronjob');
    expect(idle.addsPerSecond).toBe(0);
    expect(idle.workTime.observations).toBe(0);
    expect(idle.workTime.p50).toBeNull();
    expect(snap.leaderElection).toEqual([{ name: 'kube-controller-manager', isLeader: true, value: 1 }]);
    expect(snap.controllers).toEqual([]);
  });

  it("reads the API server's internal queues and the scheduler's", () => {
    const api = computeQueueStats(
      scrape(fixture('kube-apiserver.2.prom'), captured.secondScrapeAtMs, captured.contentType),
      scrape(fixture('kube-apiserver.prom'), captured.firstScrapeAtMs, captured.contentType),
    );
    expect(api.queues.map((q) => q.name)).toEqual(expect.arrayContaining(['APIServiceRegistrationController', 'autoregister', 'crd_finalizer']));
    expect(api.totals.addsPerSecond).toBeGreaterThan(0);
    expect(api.leaderElection).toEqual([]);
    const sched = computeQueueStats(scrape(fixture('kube-scheduler.prom'), captured.firstScrapeAtMs, captured.contentType));
    expect(sched.queues.map((q) => q.name)).toContain('DynamicServingCertificateController');
    expect(sched.leaderElection).toEqual([{ name: 'kube-scheduler', isLeader: true, value: 1 }]);
  });
});

describe('queue stats rules', () => {
  const exposition = (lines: string[]): string => `${lines.join('\n')}\n`;

  it('shows an absent series as null, never as zero', () => {
    const text = exposition([
      '# TYPE workqueue_depth gauge',
      'workqueue_depth{name="a"} 0',
      '# TYPE workqueue_adds_total counter',
      'workqueue_adds_total{name="a"} 5',
    ]);
    const snap = computeQueueStats(scrape(text, T0 + 1000), scrape(text, T0));
    const a = queue(snap, 'a');
    expect(a.depth).toBe(0);
    expect(a.addsPerSecond).toBe(0);
    expect(a.retriesPerSecond).toBeNull();
    expect(a.retriesTotal).toBeNull();
    expect(a.unfinishedWorkSeconds).toBeNull();
    expect(a.longestRunningProcessorSeconds).toBeNull();
    expect(a.queueTime).toEqual({ p50: null, p99: null, observations: null, basis: null });
    expect(snap.totals.retriesPerSecond).toBeNull();
    expect(snap.leaderElection).toEqual([]);
  });

  it('treats a counter that went down as reset, as rate() does', () => {
    const before = scrape(exposition(['workqueue_adds_total{name="a"} 100', 'workqueue_retries_total{name="a"} 4']), T0);
    const after = scrape(exposition(['workqueue_adds_total{name="a"} 30', 'workqueue_retries_total{name="a"} 6']), T0 + 10_000);
    const a = queue(computeQueueStats(after, before), 'a');
    expect(a.addsPerSecond).toBe(3);
    expect(a.retriesPerSecond).toBe(0.2);
  });

  it('takes the histogram whole after a restart', () => {
    const h = (c1: number, c2: number): string[] => [
      '# TYPE workqueue_work_duration_seconds histogram',
      `workqueue_work_duration_seconds_bucket{name="a",le="1"} ${c1}`,
      `workqueue_work_duration_seconds_bucket{name="a",le="+Inf"} ${c2}`,
    ];
    const snap = computeQueueStats(scrape(exposition(h(2, 2)), T0 + 2000), scrape(exposition(h(50, 60)), T0));
    expect(queue(snap, 'a').workTime).toMatchObject({ observations: 2, p50: 0.5, basis: 'interval' });
  });

  it('counts a series that appeared since the previous scrape from zero', () => {
    const before = scrape(exposition(['controller_runtime_reconcile_total{controller="c",result="success"} 10']), T0);
    const after = scrape(
      exposition([
        'controller_runtime_reconcile_total{controller="c",result="success"} 10',
        'controller_runtime_reconcile_total{controller="c",result="error"} 2',
      ]),
      T0 + 4000,
    );
    const c = computeQueueStats(after, before).controllers[0]!;
    expect(c.resultsPerSecond).toEqual({ success: 0, error: 0.5 });
    expect(c.reconcilesPerSecond).toBe(0.5);
    expect(c.errorsPerSecond).toBeNull(); // reconcile_errors_total is not exposed at all
  });

  it('gives no rates when the clock did not move forward', () => {
    const text = exposition(['workqueue_adds_total{name="a"} 5']);
    const snap = computeQueueStats(scrape(text, T0), scrape(text, T0));
    expect(snap.windowSeconds).toBeNull();
    expect(queue(snap, 'a').addsPerSecond).toBeNull();
  });

  it('sums series split by extra labels (controller-runtime priority queues) into one row', () => {
    const text = exposition(['workqueue_depth{controller="c",name="c",priority="0"} 2', 'workqueue_depth{controller="c",name="c",priority="10"} 1']);
    const snap = computeQueueStats(scrape(text, T0));
    expect(snap.queues).toHaveLength(1);
    expect(queue(snap, 'c', 'c').depth).toBe(3);
  });

  it('reads OpenMetrics expositions the same way', () => {
    const snap = computeQueueStats(scrape(fixture('openmetrics.txt'), T0, 'application/openmetrics-text; version=1.0.0'));
    const m = queue(snap, 'memcached', 'memcached');
    expect(m.addsTotal).toBe(42);
    expect(m.depth).toBe(2);
    expect(m.queueTime.observations).toBe(42);
    expect(m.queueTime.p50).toBeCloseTo(1e-6 + 9e-6 * (21 / 30), 15);
  });

  it('turns NaN gauges into null', () => {
    const snap = computeQueueStats(scrape(exposition(['workqueue_depth{name="a"} NaN', 'leader_election_master_status{name="l"} NaN']), T0));
    expect(queue(snap, 'a').depth).toBeNull();
    expect(snap.leaderElection).toEqual([{ name: 'l', isLeader: null, value: null }]);
  });

  it('reads the internal queues of a kube-apiserver exposition', () => {
    const snap = computeQueueStats(scrape(fixture('synthetic-kube-apiserver.prom'), T0));
    expect(snap.queues.map((q) => q.name)).toContain('AvailableConditionController');
    expect(queue(snap, 'AvailableConditionController').addsTotal).toBe(140);
  });
});
