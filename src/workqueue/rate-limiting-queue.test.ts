// Behaviours of client-go util/workqueue/rate_limiting_queue_test.go (test names in brackets).
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { defaultControllerRateLimiter, ItemExponentialFailureRateLimiter } from './default-rate-limiters.js';
import { DelayingQueue, type DelayingInterface } from './delaying-queue.js';
import { InMemoryMetricsProvider } from './in-memory-metrics.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';

/** Records the delay of every addAfter, as the Go test reads waitingForAddCh. */
class RecordingDelayingQueue extends DelayingQueue<string> {
  readonly delays: { item: string; delayMs: number }[] = [];
  override addAfter(item: string, delayMs: number): void {
    this.delays.push({ item, delayMs });
    super.addAfter(item, delayMs);
  }
}

describe('RateLimitingQueue', () => {
  it('[TestRateLimitingQueue] backoff doubles per item, items are independent, Forget restarts it', () => {
    const clock = new FakeClock(0);
    const delaying = new RecordingDelayingQueue({ clock });
    const q = new RateLimitingQueue(new ItemExponentialFailureRateLimiter<string>(1, 1000), {
      delayingQueue: delaying,
    });

    q.addRateLimited('one');
    q.addRateLimited('one');
    expect(delaying.delays).toEqual([
      { item: 'one', delayMs: 1 },
      { item: 'one', delayMs: 2 },
    ]);
    expect(q.numRequeues('one')).toBe(2);

    q.addRateLimited('two');
    q.addRateLimited('two');
    expect(delaying.delays.slice(2)).toEqual([
      { item: 'two', delayMs: 1 },
      { item: 'two', delayMs: 2 },
    ]);

    q.forget('one');
    expect(q.numRequeues('one')).toBe(0);
    q.addRateLimited('one');
    expect(delaying.delays.at(-1)).toEqual({ item: 'one', delayMs: 1 });
    expect(q.numRequeues('two')).toBe(2);
    q.shutDown();
  });

  it('a rate-limited item becomes available after its delay', async () => {
    const clock = new FakeClock(0);
    const q = new RateLimitingQueue(new ItemExponentialFailureRateLimiter<string>(100, 10_000), { clock });
    q.addRateLimited('a'); // 100 ms
    await clock.step(99);
    expect(q.len()).toBe(0);
    await clock.step(1);
    expect(q.len()).toBe(1);
    const r = await q.get();
    q.done(r.item!);
    q.addRateLimited('a'); // 200 ms
    await clock.step(199);
    expect(q.len()).toBe(0);
    await clock.step(1);
    expect(q.len()).toBe(1);
    q.shutDown();
  });

  it('Forget clears only the failure count, not a delay already handed out', async () => {
    const clock = new FakeClock(0);
    const q = new RateLimitingQueue(new ItemExponentialFailureRateLimiter<string>(100, 10_000), { clock });
    q.addRateLimited('a');
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    await clock.step(50);
    expect(q.len()).toBe(0);
    await clock.step(50);
    expect(q.len()).toBe(1);
    q.shutDown();
  });

  it('still asks the limiter during shutdown (the failure counts) but adds nothing', async () => {
    const clock = new FakeClock(0);
    const q = new RateLimitingQueue(new ItemExponentialFailureRateLimiter<string>(1, 1000), { clock });
    q.shutDown();
    q.addRateLimited('a');
    expect(q.numRequeues('a')).toBe(1);
    await clock.step(10);
    expect(q.len()).toBe(0);
  });

  it('with the default controller limiter and metrics: retries counted, named series', async () => {
    const clock = new FakeClock(0);
    const metrics = new InMemoryMetricsProvider();
    const q = new RateLimitingQueue<string>(defaultControllerRateLimiter(clock), {
      clock,
      name: 'controller',
      metricsProvider: metrics,
    });
    q.addRateLimited('a');
    q.addRateLimited('b');
    await clock.step(5);
    expect(q.len()).toBe(2);
    expect(metrics.snapshot().controller).toMatchObject({ retries: 2, adds: 2, depth: 2 });
    q.shutDown();
  });

  it('is usable through the DelayingInterface type', () => {
    const clock = new FakeClock(0);
    const q: DelayingInterface<string> = new RateLimitingQueue(new ItemExponentialFailureRateLimiter<string>(1, 2), {
      clock,
    });
    q.addAfter('x', 0);
    expect(q.len()).toBe(1);
    q.shutDown();
  });
});
