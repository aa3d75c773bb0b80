import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { DelayingQueue } from './delaying-queue.js';
import { InMemoryMetricsProvider, quantile } from './in-memory-metrics.js';
import { DURATION_BUCKETS_SECONDS } from './metrics.js';
import { formatFloat } from './prometheus-text.js';
import { Queue } from './queue.js';

describe('InMemoryMetricsProvider', () => {
  it('snapshots depth, adds, retries and both histograms per queue name', async () => {
    const clock = new FakeClock(0);
    const metrics = new InMemoryMetricsProvider();
    const q = new DelayingQueue<string>({ clock, name: 'deployments', metricsProvider: metrics });

    q.add('a');
    q.add('b');
    q.addAfter('c', 1000);
    await clock.step(2); // a and b waited 2 ms
    const a = await q.get();
    await clock.step(3);
    q.done(a.item!); // worked 3 ms
    await clock.step(1000); // c ready at 1000

    const snap = metrics.snapshot().deployments!;
    expect(snap.name).toBe('deployments');
    expect(snap.depth).toBe(2); // b and c
    expect(snap.adds).toBe(3);
    expect(snap.retries).toBe(1);
    expect(snap.queueDuration.count).toBe(1);
    expect(snap.queueDuration.sum).toBeCloseTo(0.002, 12);
    expect(snap.workDuration.count).toBe(1);
    expect(snap.workDuration.sum).toBeCloseTo(0.003, 12);
    // 2 ms falls in the (1e-3, 1e-2] bucket.
    const le = snap.queueDuration.buckets.map((b) => b.count);
    expect(le).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
    expect(snap.queueDuration.p50).toBeGreaterThan(0.001);
    expect(snap.queueDuration.p50).toBeLessThanOrEqual(0.01);
    // Plain data: survives JSON unchanged.
    expect(JSON.parse(JSON.stringify(snap))).toEqual(snap);
    q.shutDown();
  });

  it('computes unfinished work and the longest running processor when read', async () => {
    const clock = new FakeClock(0);
    const metrics = new InMemoryMetricsProvider();
    const q = new Queue<string>({ clock, name: 'q', metricsProvider: metrics });
    q.add('x');
    q.add('y');
    await q.get(); // x from t=0
    await clock.step(1000);
    await q.get(); // y from t=1000
    await clock.step(500);
    expect(clock.pendingTimers()).toBe(0); // pulled on read, no ticker
    let snap = metrics.snapshot().q!;
    expect(snap.unfinishedWorkSeconds).toBeCloseTo(1.5 + 0.5, 9);
    expect(snap.longestRunningProcessorSeconds).toBeCloseTo(1.5, 9);
    q.done('x');
    q.done('y');
    snap = metrics.snapshot().q!;
    expect(snap.unfinishedWorkSeconds).toBe(0);
    expect(snap.longestRunningProcessorSeconds).toBe(0);
    q.shutDown();
  });

  it('keeps no series for unnamed queues', () => {
    const metrics = new InMemoryMetricsProvider();
    const q = new Queue<string>({ metricsProvider: metrics });
    q.add('a');
    expect(metrics.snapshot()).toEqual({});
    expect(metrics.renderPrometheus()).toBe('');
  });

  it('renders the Prometheus text format with client-go names, buckets and escaping', async () => {
    const clock = new FakeClock(0);
    const metrics = new InMemoryMetricsProvider();
    const q = new DelayingQueue<string>({ clock, name: 'we"ird\\name', metricsProvider: metrics });
    q.add('a');
    await clock.step(0.5);
    const r = await q.get();
    q.done(r.item!);
    q.addAfter('b', 0);
    const text = metrics.renderPrometheus();
    const label = 'name="we\\"ird\\\\name"';
    expect(text).toContain('# TYPE workqueue_depth gauge\n');
    expect(text).toContain(`workqueue_depth{${label}} 1\n`);
    expect(text).toContain('# TYPE workqueue_adds_total counter\n');
    expect(text).toContain(`workqueue_adds_total{${label}} 2\n`);
    expect(text).toContain(`workqueue_retries_total{${label}} 1\n`);
    expect(text).toContain('# TYPE workqueue_queue_duration_seconds histogram\n');
    expect(text).toContain(`workqueue_queue_duration_seconds_bucket{${label},le="1e-08"} 0\n`);
    expect(text).toContain(`workqueue_queue_duration_seconds_bucket{${label},le="9.999999999999999e-05"} 0\n`);
    expect(text).toContain(`workqueue_queue_duration_seconds_bucket{${label},le="0.001"} 1\n`);
    expect(text).toContain(`workqueue_queue_duration_seconds_bucket{${label},le="+Inf"} 1\n`);
    expect(text).toContain(`workqueue_queue_duration_seconds_sum{${label}} 0.0005\n`);
    expect(text).toContain(`workqueue_queue_duration_seconds_count{${label}} 1\n`);
    expect(text).toContain(`workqueue_work_duration_seconds_count{${label}} 1\n`);
    expect(text).toContain(`workqueue_unfinished_work_seconds{${label}} 0\n`);
    expect(text).toContain(`workqueue_longest_running_processor_seconds{${label}} 0\n`);
    expect(text.match(/_bucket\{/g)).toHaveLength(2 * 11);
    // Every sample line is "name{labels} value".
    for (const line of text.trimEnd().split('\n')) {
      if (!line.startsWith('#')) expect(line).toMatch(/^workqueue_[a-z_]+\{name="(?:[^"\\]|\\.)*"(?:,le="[^"]+")?\} \S+$/);
    }
    q.shutDown();
  });
});

describe('histogram buckets and formatting', () => {
  it("uses client-go's ExponentialBuckets(10e-9, 10, 10) bit for bit", () => {
    expect(DURATION_BUCKETS_SECONDS.map(formatFloat)).toEqual([
      '1e-08',
      '1e-07',
      '1e-06',
      '9.999999999999999e-06',
      '9.999999999999999e-05',
      '0.001',
      '0.01',
      '0.1',
      '1',
      '10',
    ]);
  });

  it("formats like Go's strconv 'g' -1", () => {
    expect(formatFloat(0)).toBe('0');
    expect(formatFloat(1)).toBe('1');
    expect(formatFloat(123456)).toBe('123456');
    expect(formatFloat(1_000_000)).toBe('1e+06');
    expect(formatFloat(1234567)).toBe('1.234567e+06');
    expect(formatFloat(0.0001)).toBe('0.0001');
    expect(formatFloat(0.00001)).toBe('1e-05');
    expect(formatFloat(-2.5)).toBe('-2.5');
    expect(formatFloat(Infinity)).toBe('+Inf');
    expect(formatFloat(Number.NaN)).toBe('NaN');
  });

  it('estimates quantiles by interpolating within the bucket', () => {
    const n = DURATION_BUCKETS_SECONDS.length;
    // 10 observations in (0.1, 1]: the median sits halfway through that bucket.
    const cum = Array.from({ length: n }, (_, i) => (i >= 8 ? 10 : 0));
    const lo = DURATION_BUCKETS_SECONDS[7]!;
    const hi = DURATION_BUCKETS_SECONDS[8]!;
    expect(quantile(0.5, cum, 10)).toBeCloseTo(lo + (hi - lo) * 0.5, 12);
    expect(quantile(0.99, cum, 10)).toBeCloseTo(lo + (hi - lo) * 0.99, 12);
    expect(quantile(0.5, cum, 0)).toBeNull();
    // Everything above the last bound: the last finite bound.
    expect(quantile(0.5, new Array<number>(n).fill(0), 4)).toBe(DURATION_BUCKETS_SECONDS[n - 1]);
  });
});
