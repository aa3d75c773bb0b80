import { describe, expect, it } from 'vitest';
import { parseExposition, type TimedScrape } from '../metrics/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { FakeMetricsSource } from '../../tools/testing/fake-metrics-source.js';
import type { RunContext } from './context.js';
import { evaluateQueues, sampleQueues, type SourceSamples } from './queue.js';
import type { QueueCheckSpec } from './types.js';
import { createReadiness } from '../readiness/index.js';

const readiness = await createReadiness();

const T = Date.UTC(2026, 0, 1, 12, 0, 0);

type Queues = Record<string, { depth: number; retries: number }>;

function exposition(queues: Queues): string {
  const lines = ['# TYPE workqueue_depth gauge'];
  for (const [name, q] of Object.entries(queues)) lines.push(`workqueue_depth{name="${name}"} ${q.depth}`);
  lines.push('# TYPE workqueue_retries_total counter');
  for (const [name, q] of Object.entries(queues)) lines.push(`workqueue_retries_total{name="${name}"} ${q.retries}`);
  return `${lines.join('\n')}\n`;
}

function scrape(atS: number, queues: Queues): TimedScrape {
  return { atMs: T + atS * 1000, families: parseExposition(exposition(queues)).families };
}

function spec(extra: Partial<QueueCheckSpec>): QueueCheckSpec {
  return {
    kind: 'queue',
    name: 'queues of kcm',
    metrics: ['kcm'],
    access: { insecureSkipTlsVerify: false, kubeconfigCredentials: false, token: undefined, timeoutMs: 5_000 },
    maxDepth: [],
    maxRetryRate: [],
    windowMs: 20_000,
    sampleIntervalMs: 5_000,
    origin: { source: 'flags' },
    ...extra,
  };
}

const source = (name: string, scrapes: TimedScrape[]): SourceSamples => ({ source: name, scrapes, lastError: null, failures: 0 });

const kcm = source('kcm', [
  scrape(0, { deployment: { depth: 0, retries: 10 }, replicaset: { depth: 1, retries: 100 } }),
  scrape(5, { deployment: { depth: 4, retries: 10 }, replicaset: { depth: 0, retries: 104 } }),
  scrape(10, { deployment: { depth: 1, retries: 10 }, replicaset: { depth: 7, retries: 110 } }),
  scrape(20, { deployment: { depth: 0, retries: 12 }, replicaset: { depth: 0, retries: 120 } }),
]);

describe('queue check verdicts', () => {
  it('takes the highest depth of any sample, per queue or over every queue', () => {
    const results = evaluateQueues(
      spec({
        maxDepth: [
          { queue: 'deployment', limit: 4, text: 'deployment=4' },
          { queue: '*', limit: 5, text: '5' },
        ],
      }),
      [kcm],
    );
    expect(results).toEqual([
      {
        name: 'depth of deployment',
        passed: true,
        status: 'passed',
        measured: 4,
        limit: 4,
        unit: 'count',
        message: 'highest depth 4 in 4 samples, at 2026-01-01T12:00:05.000Z from kcm',
      },
      {
        name: 'depth',
        passed: false,
        status: 'failed',
        measured: 7,
        limit: 5,
        unit: 'count',
        message: 'highest depth 7 (queue replicaset) in 4 samples, at 2026-01-01T12:00:10.000Z from kcm, over the limit of 5',
      },
    ]);
  });

  it('measures the retry rate between the first and the last scrape, reset-aware, highest queue first', () => {
    const results = evaluateQueues(
      spec({
        maxRetryRate: [
          { queue: '*', limit: 1, text: '1/s' },
          { queue: 'deployment', limit: 0.05, text: 'deployment=0.05/s' },
        ],
      }),
      [kcm],
    );
    expect(results[0]).toEqual({
      name: 'retry rate',
      passed: true,
      status: 'passed',
      measured: 1,
      limit: 1,
      unit: 'per-second',
      message: 'highest: replicaset, 20 retries in 20.0s = 1/s (kcm)',
    });
    expect(results[1]).toMatchObject({
      name: 'retry rate of deployment',
      status: 'failed',
      measured: 0.1,
      message: '2 retries in 20.0s = 0.1/s (kcm), over the limit of 0.05/s',
    });
    // A restarted process: the counter went back to 3, so 3 retries since the reset count.
    const restarted = source('kcm', [scrape(0, { deployment: { depth: 0, retries: 50 } }), scrape(10, { deployment: { depth: 0, retries: 3 } })]);
    expect(evaluateQueues(spec({ maxRetryRate: [{ queue: 'deployment', limit: 1, text: '1/s' }] }), [restarted])[0]).toMatchObject({
      measured: 0.3,
      status: 'passed',
    });
  });

  it('a queue no source exposes fails, naming the close names and the queues there are', () => {
    const results = evaluateQueues(spec({ maxDepth: [{ queue: 'deploymnet', limit: 1, text: 'deploymnet=1' }] }), [kcm]);
    expect(results[0]).toMatchObject({ status: 'failed', measured: null });
    expect(results[0]!.message).toBe(
      'no workqueue named "deploymnet" with workqueue_depth in kcm (did you mean "deployment"?) (queues there: deployment, replicaset)',
    );
  });

  it('a source that never answered is an error of its own; the others still count', () => {
    const down: SourceSamples = {
      source: 'kcm-2',
      scrapes: [],
      lastError: { error: 'connection refused', hint: 'is it running?', kind: 'unreachable' },
      failures: 4,
    };
    const results = evaluateQueues(spec({ maxDepth: [{ queue: '*', limit: 10, text: '10' }] }), [kcm, down]);
    expect(results).toHaveLength(2);
    expect(results[0]).toEqual({
      name: 'scrape kcm-2',
      passed: false,
      status: 'error',
      measured: null,
      limit: null,
      unit: 'count',
      message: 'no scrape of kcm-2 succeeded: connection refused (is it running?)',
      exitCode: 3,
    });
    expect(results[1]).toMatchObject({ name: 'depth', status: 'passed', measured: 7 });
    // With no source answering, there is nothing else to say.
    expect(evaluateQueues(spec({ maxDepth: [{ queue: '*', limit: 10, text: '10' }] }), [down]).map((r) => r.name)).toEqual(['scrape kcm-2']);
  });

  it('a rate needs two good scrapes', () => {
    const once = source('kcm', [scrape(0, { deployment: { depth: 0, retries: 1 } })]);
    expect(evaluateQueues(spec({ maxRetryRate: [{ queue: '*', limit: 1, text: '1/s' }] }), [once])[0]).toMatchObject({
      status: 'error',
      exitCode: 3,
      message: 'a rate needs two good scrapes of a source, and no source had them',
    });
  });
});

describe('queue check sampling over the window', () => {
  function context(clock: FakeClock, signal = new AbortController().signal): { ctx: RunContext; log: string[] } {
    const log: string[] = [];
    return { ctx: { signal, log: (line) => log.push(line), syncTimeoutMs: 5_000, clock, readiness }, log };
  }

  it('scrapes at the start, every sample interval and at the end of the window', async () => {
    const clock = new FakeClock(T);
    const kcm = new FakeMetricsSource('kcm', [
      exposition({ deployment: { depth: 0, retries: 10 } }),
      exposition({ deployment: { depth: 3, retries: 11 } }),
      exposition({ deployment: { depth: 9, retries: 13 } }),
      exposition({ deployment: { depth: 1, retries: 16 } }),
    ]);
    const { ctx, log } = context(clock);
    let results: Awaited<ReturnType<typeof sampleQueues>> | undefined;
    const done = sampleQueues(
      [kcm],
      spec({
        windowMs: 12_000,
        sampleIntervalMs: 5_000,
        maxDepth: [{ queue: '*', limit: 5, text: '5' }],
        maxRetryRate: [{ queue: '*', limit: 1, text: '1/s' }],
      }),
      ctx,
    ).then((r) => (results = r));
    await clock.step(0);
    expect(kcm.scrapes).toBe(1);
    await clock.step(4_999);
    expect(kcm.scrapes).toBe(1);
    await clock.step(1);
    expect(kcm.scrapes).toBe(2);
    await clock.step(5_000);
    expect(kcm.scrapes).toBe(3);
    expect(results).toBeUndefined();
    // The last sample is taken when the window ends, 2 s after the one before.
    await clock.step(2_000);
    await done;
    expect(kcm.scrapes).toBe(4);
    expect(log).toEqual(['scraped 1 source; sampling for 12.0s']);
    expect(results).toEqual([
      {
        name: 'depth',
        passed: false,
        status: 'failed',
        measured: 9,
        limit: 5,
        unit: 'count',
        message: 'highest depth 9 (queue deployment) in 4 samples, at 2026-01-01T12:00:10.000Z from kcm, over the limit of 5',
      },
      {
        name: 'retry rate',
        passed: true,
        status: 'passed',
        measured: 0.5,
        limit: 1,
        unit: 'per-second',
        message: 'highest: deployment, 6 retries in 12.0s = 0.5/s (kcm)',
      },
    ]);
  });

  it('stops sampling when interrupted, and judges what it scraped until then', async () => {
    const clock = new FakeClock(T);
    const kcm = new FakeMetricsSource('kcm', [exposition({ deployment: { depth: 2, retries: 0 } }), exposition({ deployment: { depth: 4, retries: 5 } })]);
    const abort = new AbortController();
    const { ctx } = context(clock, abort.signal);
    const done = sampleQueues(
      [kcm],
      spec({
        windowMs: 60_000,
        sampleIntervalMs: 10_000,
        maxDepth: [{ queue: '*', limit: 10, text: '10' }],
        maxRetryRate: [{ queue: '*', limit: 1, text: '1/s' }],
      }),
      ctx,
    );
    await clock.step(10_000);
    await clock.step(3_000);
    abort.abort();
    const results = await done;
    expect(kcm.scrapes).toBe(2);
    expect(clock.pendingTimers()).toBe(0);
    expect(results.map((r) => [r.name, r.status, r.measured])).toEqual([
      ['depth', 'passed', 4],
      ['retry rate', 'passed', 0.5],
    ]);
  });

  it('a source that fails its first scrape is said at once, and counts with the scrapes that worked later', async () => {
    const clock = new FakeClock(T);
    const flaky = new FakeMetricsSource('kcm', [
      { fail: 'unreachable', reason: 'connection refused', hint: 'is it running?' },
      exposition({ deployment: { depth: 1, retries: 0 } }),
    ]);
    const { ctx, log } = context(clock);
    const done = sampleQueues([flaky], spec({ windowMs: 5_000, sampleIntervalMs: 5_000, maxDepth: [{ queue: '*', limit: 3, text: '3' }] }), ctx);
    await clock.step(5_000);
    const results = await done;
    expect(log[0]).toBe('scrape of kcm failed: connection refused (is it running?)');
    expect(results).toEqual([
      {
        name: 'depth',
        passed: true,
        status: 'passed',
        measured: 1,
        limit: 3,
        unit: 'count',
        message: 'highest depth 1 (queue deployment) in 1 sample, at 2026-01-01T12:00:05.000Z from kcm',
      },
    ]);
  });
});
