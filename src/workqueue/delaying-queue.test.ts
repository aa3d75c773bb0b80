// Behaviours of client-go util/workqueue/delaying_queue_test.go (test names in brackets).
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { DelayingQueue, MAX_WAIT_MS } from './delaying-queue.js';
import { InMemoryMetricsProvider } from './in-memory-metrics.js';
import { Queue } from './queue.js';

async function drainAll(q: DelayingQueue<string>): Promise<string[]> {
  const out: string[] = [];
  while (q.len() > 0) {
    const r = await q.get();
    if (r.shutdown) break;
    out.push(r.item);
    q.done(r.item);
  }
  return out;
}

describe('DelayingQueue', () => {
  it('[TestSimpleQueue] an item appears once its delay has passed, and only once', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('foo', 50);
    expect(q.len()).toBe(0);
    await clock.step(49);
    expect(q.len()).toBe(0);
    await clock.step(1);
    expect(q.len()).toBe(1);
    expect(await drainAll(q)).toEqual(['foo']);
    await clock.step(10_000);
    expect(q.len()).toBe(0);
    expect(q.waitingLen()).toBe(0);
    q.shutDown();
  });

  it('[TestDeduping] a re-add keeps the earlier ready time', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });

    q.addAfter('foo', 50);
    q.addAfter('foo', 70);
    expect(q.waitingLen()).toBe(1);
    await clock.step(60);
    expect(await drainAll(q)).toEqual(['foo']);
    await clock.step(20);
    expect(q.len()).toBe(0); // the 70 ms entry was folded into the 50 ms one

    q.addAfter('foo', 70);
    q.addAfter('foo', 50);
    expect(q.waitingLen()).toBe(1);
    await clock.step(60);
    expect(await drainAll(q)).toEqual(['foo']);
    await clock.step(20);
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it('[TestAddTwoFireEarly] an earlier entry fires first and re-arms for the later one', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('first', 1000);
    q.addAfter('second', 50);
    await clock.step(60);
    expect(await drainAll(q)).toEqual(['second']);
    q.addAfter('third', 2000);
    await clock.step(1000);
    expect(await drainAll(q)).toEqual(['first']);
    await clock.step(1000);
    expect(await drainAll(q)).toEqual(['third']);
    q.shutDown();
  });

  it('[TestCopyShifting] items leave in ready-time order, not insertion order', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('first', 1000);
    q.addAfter('second', 500);
    q.addAfter('third', 250);
    await clock.step(2000);
    expect(await drainAll(q)).toEqual(['third', 'second', 'first']);
    q.shutDown();
  });

  it('orders many entries by ready time (heap), equal times in insertion order', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    const delays = [70, 10, 50, 10, 90, 30, 30, 60, 20, 80];
    delays.forEach((d, i) => {
      q.addAfter(`k${i}`, d);
    });
    await clock.step(100);
    const expected = delays
      .map((d, i) => ({ d, i }))
      .sort((a, b) => a.d - b.d || a.i - b.i)
      .map(({ i }) => `k${i}`);
    expect(await drainAll(q)).toEqual(expected);
    q.shutDown();
  });

  it('d <= 0 adds now', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('zero', 0);
    q.addAfter('negative', -5);
    expect(q.len()).toBe(2);
    expect(q.waitingLen()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
    q.shutDown();
  });

  it('keeps one timer, armed for the earliest ready time, and none when nothing waits', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    expect(clock.pendingTimers()).toBe(0);
    q.addAfter('late', 5000);
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.nextTimerAt()).toBe(5000);
    q.addAfter('early', 100);
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.nextTimerAt()).toBe(100);
    q.addAfter('middle', 300);
    expect(clock.nextTimerAt()).toBe(100);
    await clock.step(100);
    expect(clock.nextTimerAt()).toBe(300);
    await clock.step(4900);
    expect(q.len()).toBe(3);
    expect(clock.pendingTimers()).toBe(0);
    q.shutDown();
  });

  it('never sleeps longer than the 10 s heartbeat, so a far entry is re-checked', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('far', 60_000);
    expect(clock.nextTimerAt()).toBe(MAX_WAIT_MS);
    await clock.step(MAX_WAIT_MS);
    expect(q.len()).toBe(0);
    expect(clock.nextTimerAt()).toBe(2 * MAX_WAIT_MS);
    await clock.step(50_000);
    expect(q.len()).toBe(1);
    q.shutDown();
  });

  it('is ignored during shutdown, counts no retry, and shutdown stops the timer', async () => {
    const clock = new FakeClock(0);
    const metrics = new InMemoryMetricsProvider();
    const q = new DelayingQueue<string>({ clock, name: 'dq', metricsProvider: metrics });
    q.addAfter('a', 100);
    expect(clock.pendingTimers()).toBe(1);
    q.shutDown();
    expect(clock.pendingTimers()).toBe(0);
    q.addAfter('b', 0);
    q.addAfter('c', 10);
    expect(metrics.snapshot().dq!.retries).toBe(1);
    await clock.step(1000);
    expect(q.len()).toBe(0);
    expect((await q.get()).shutdown).toBe(true);
  });

  it('counts a retry for every addAfter not ignored, including d <= 0', () => {
    const clock = new FakeClock(0);
    const metrics = new InMemoryMetricsProvider();
    const q = new DelayingQueue<string>({ clock, name: 'dq', metricsProvider: metrics });
    q.addAfter('a', 0);
    q.addAfter('a', 10);
    q.addAfter('b', 10);
    q.add('c');
    const snap = metrics.snapshot().dq!;
    expect(snap.retries).toBe(3);
    expect(snap.adds).toBe(2); // a and c; b still waits
    q.shutDown();
  });

  it('an item already queued collapses when its delayed entry fires', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.add('x');
    q.addAfter('x', 10);
    await clock.step(10);
    expect(q.len()).toBe(1);
    q.shutDown();
  });

  it('adds ready items to a supplied queue', async () => {
    const clock = new FakeClock(0);
    const inner = new Queue<string>({ clock });
    const q = new DelayingQueue<string>({ clock, queue: inner });
    q.addAfter('x', 5);
    await clock.step(5);
    expect(inner.len()).toBe(1);
    q.shutDown();
    expect(inner.shuttingDown()).toBe(true);
  });

  it('shutDownWithDrain stops the timer and waits for processing items', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.add('busy');
    const r = await q.get();
    q.addAfter('later', 100);
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    expect(clock.pendingTimers()).toBe(0);
    await clock.step(200);
    expect(drained).toBe(false);
    q.done(r.item!);
    await drain;
    expect(drained).toBe(true);
    expect(q.len()).toBe(0);
  });
});
