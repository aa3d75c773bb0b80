// Behaviours of client-go util/workqueue/queue_test.go (test names in brackets) plus
// docs/design/clientgo-semantics.md §5.
import { describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from '../../tools/testing/fake-clock.js';
import type { CounterMetric, GaugeMetric, HistogramMetric, MetricsProvider, SettableGaugeMetric } from './metrics.js';
import { Queue } from './queue.js';
import { int32Ring, RingQueueStorage, type QueueStorage } from './queue-storage.js';

/** A FIFO that counts touch() calls (client-go's testQueue in TestCollapse*). */
class TouchCountingStorage<T> implements QueueStorage<T> {
  readonly inner = new RingQueueStorage<T>();
  touches: T[] = [];
  touch(item: T): void {
    this.touches.push(item);
  }
  push(item: T): void {
    this.inner.push(item);
  }
  len(): number {
    return this.inner.len();
  }
  pop(): T {
    return this.inner.pop();
  }
}

async function getItem<T>(q: Queue<T>): Promise<T> {
  const r = await q.get();
  if (r.shutdown) throw new Error('unexpected shutdown');
  return r.item;
}

describe('Queue', () => {
  it('[TestBasic] many producers and consumers: every item processed exactly once', async () => {
    const q = new Queue<number>();
    const processed: number[] = [];
    const inFlight = new Set<number>();
    let overlap = false;
    const consumer = async (): Promise<void> => {
      for (;;) {
        const r = await q.get();
        if (r.shutdown) return;
        if (inFlight.has(r.item)) overlap = true;
        inFlight.add(r.item);
        await Promise.resolve();
        processed.push(r.item);
        inFlight.delete(r.item);
        q.done(r.item);
      }
    };
    const producer = async (p: number): Promise<void> => {
      for (let i = 0; i < 50; i++) {
        q.add(p * 1000 + i);
        await Promise.resolve();
      }
    };
    const consumers = Array.from({ length: 10 }, () => consumer());
    await Promise.all(Array.from({ length: 50 }, (_, p) => producer(p)));
    await q.shutDownWithDrain();
    q.shutDown();
    await Promise.all(consumers);
    expect(overlap).toBe(false);
    expect(processed).toHaveLength(2500);
    expect(new Set(processed).size).toBe(2500);
  });

  it('is fair: items leave in the order added, waiting getters are served in arrival order', async () => {
    const q = new Queue<string>();
    const a = q.get();
    const b = q.get();
    q.add('x');
    q.add('y');
    q.add('z');
    expect((await a).item).toBe('x');
    expect((await b).item).toBe('y');
    expect(await getItem(q)).toBe('z');
  });

  it('[TestAddWhileProcessing] an item added while processing comes back on done, not before', async () => {
    const q = new Queue<string>();
    q.add('foo');
    const item = await getItem(q);
    q.add('foo');
    expect(q.len()).toBe(0);
    let second: string | undefined;
    void q.get().then((r) => (second = r.item));
    await flushMicrotasks();
    expect(second).toBeUndefined(); // never handed to a second worker while processing
    q.done(item);
    await flushMicrotasks();
    expect(second).toBe('foo');
  });

  it('[TestLen] len counts waiting items only; duplicate adds collapse', async () => {
    const q = new Queue<string>();
    q.add('foo');
    expect(q.len()).toBe(1);
    q.add('bar');
    expect(q.len()).toBe(2);
    q.add('foo');
    expect(q.len()).toBe(2);
    await getItem(q);
    expect(q.len()).toBe(1);
  });

  it('[TestReinsert] done after a re-add requeues it once', async () => {
    const q = new Queue<string>();
    q.add('foo');
    const i = await getItem(q);
    q.add(i);
    q.add(i);
    q.done(i);
    expect(q.len()).toBe(1);
    expect(await getItem(q)).toBe('foo');
    q.done('foo');
    expect(q.len()).toBe(0);
  });

  it('[TestCollapse] duplicate adds of a waiting item collapse and touch the storage', async () => {
    const storage = new TouchCountingStorage<string>();
    const q = new Queue<string>({ storage });
    q.add('bar');
    q.add('bar');
    expect(q.len()).toBe(1);
    expect(storage.touches).toEqual(['bar']);
    expect(await getItem(q)).toBe('bar');
    q.done('bar');
    expect(q.len()).toBe(0);
  });

  it('[TestCollapseWhileProcessing] adds while processing collapse without touching', async () => {
    const storage = new TouchCountingStorage<string>();
    const q = new Queue<string>({ storage });
    q.add('bar');
    const item = await getItem(q);
    q.add('bar');
    q.add('bar');
    q.add('bar');
    expect(storage.touches).toEqual([]);
    expect(q.len()).toBe(0);
    q.done(item);
    expect(q.len()).toBe(1);
    expect(await getItem(q)).toBe('bar');
  });

  it('[TestNoQueueDrainageUsingShutDown] shutDown is immediate: waiting getters are released', async () => {
    const q = new Queue<string>();
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).toEqual({ item: undefined, shutdown: true });
    expect(q.shuttingDown()).toBe(true);
  });

  it('get returns shutdown only when empty: workers drain what is left', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    q.shutDown();
    expect(await q.get()).toEqual({ item: 'a', shutdown: false });
    expect(await q.get()).toEqual({ item: 'b', shutdown: false });
    expect(await q.get()).toEqual({ item: undefined, shutdown: true });
  });

  it('ignores adds while shutting down', async () => {
    const q = new Queue<string>();
    q.shutDown();
    q.add('late');
    expect(q.len()).toBe(0);
    expect((await q.get()).shutdown).toBe(true);
  });

  it('done re-pushes an item re-added before shutdown, even after shutdown', async () => {
    const q = new Queue<string>();
    q.add('a');
    await getItem(q);
    q.add('a');
    q.shutDown();
    q.done('a');
    expect(await q.get()).toEqual({ item: 'a', shutdown: false });
  });

  it('[TestQueueDrainageUsingShutDownWithDrain] shutDownWithDrain waits for done', async () => {
    const q = new Queue<string>();
    q.add('foo');
    q.add('bar');
    const first = await getItem(q);
    const second = await getItem(q);
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    await flushMicrotasks();
    expect(drained).toBe(false);
    expect(q.shuttingDown()).toBe(true);
    q.done(first);
    await flushMicrotasks();
    expect(drained).toBe(false);
    q.done(second);
    await drain;
    expect(drained).toBe(true);
  });

  it('shutDownWithDrain resolves at once when nothing is processing (waiting items are not awaited)', async () => {
    const q = new Queue<string>();
    q.add('waiting');
    await q.shutDownWithDrain();
    expect(q.len()).toBe(1);
  });

  it('[TestForceQueueShutdownUsingShutDown] shutDown ends a pending drain', async () => {
    const q = new Queue<string>();
    q.add('foo');
    await getItem(q);
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    await flushMicrotasks();
    expect(drained).toBe(false);
    q.shutDown();
    await drain;
    expect(drained).toBe(true);
  });

  it('[TestQueueDrainageUsingShutDownWithDrainWithDirtyItem] a dirty item is handed out again during drain', async () => {
    const q = new Queue<string>();
    q.add('foo');
    const gotten = await getItem(q);
    q.add('foo');
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    // Drain has started: nothing is waiting, so a get says shutdown.
    expect((await q.get()).shutdown).toBe(true);
    q.done(gotten);
    const again = await q.get();
    expect(again).toEqual({ item: 'foo', shutdown: false });
    await flushMicrotasks();
    expect(drained).toBe(false);
    q.done('foo');
    expect((await q.get()).shutdown).toBe(true);
    await drain;
    expect(drained).toBe(true);
  });

  it('keeps identity by value for strings and by reference for objects', async () => {
    const q = new Queue<unknown>();
    const o1 = { k: 1 };
    const o2 = { k: 1 };
    q.add('ns/a');
    q.add(`ns/${'a'}`);
    q.add(o1);
    q.add(o2);
    q.add(o1);
    expect(q.len()).toBe(3);
  });
});

describe('RingQueueStorage', () => {
  it.each([
    ['a plain array', undefined],
    ['an Int32Array', int32Ring],
  ])('keeps FIFO order across growth, wrap-around and shrinking, in %s', (_name, buffer) => {
    const s = new RingQueueStorage<number>(4, buffer);
    const out: number[] = [];
    let next = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 7; i++) s.push(next++);
      for (let i = 0; i < 5; i++) out.push(s.pop());
    }
    while (s.len() > 0) out.push(s.pop());
    // A burst past the shrink threshold, drained, then a small round in the shrunk ring.
    for (let i = 0; i < 3000; i++) s.push(next++);
    while (s.len() > 0) out.push(s.pop());
    for (let i = 0; i < 5; i++) s.push(next++);
    while (s.len() > 0) out.push(s.pop());
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
  });

  it('throws on pop when empty', () => {
    expect(() => new RingQueueStorage<number>().pop()).toThrow(/empty/);
  });
});

/** Records every metric call, as client-go's testMetricsProvider does. */
class RecordingProvider implements MetricsProvider {
  depth = 0;
  adds = 0;
  retries = 0;
  latency: number[] = [];
  work: number[] = [];
  unfinished: number[] = [];
  longest: number[] = [];
  names = new Set<string>();
  newDepthMetric(name: string): GaugeMetric {
    this.names.add(name);
    return { inc: () => void this.depth++, dec: () => void this.depth-- };
  }
  newAddsMetric(): CounterMetric {
    return { inc: () => void this.adds++ };
  }
  newLatencyMetric(): HistogramMetric {
    return { observe: (v) => void this.latency.push(v) };
  }
  newWorkDurationMetric(): HistogramMetric {
    return { observe: (v) => void this.work.push(v) };
  }
  newUnfinishedWorkSecondsMetric(): SettableGaugeMetric {
    return { set: (v) => void this.unfinished.push(v) };
  }
  newLongestRunningProcessorSecondsMetric(): SettableGaugeMetric {
    return { set: (v) => void this.longest.push(v) };
  }
  newRetriesMetric(): CounterMetric {
    return { inc: () => void this.retries++ };
  }
}

describe('Queue metrics', () => {
  it('[TestMetrics] adds, depth, queue latency, work duration and in-flight gauges', async () => {
    const clock = new FakeClock(0);
    const mp = new RecordingProvider();
    const q = new Queue<string>({ name: 'test', metricsProvider: mp, clock });

    q.add('foo');
    expect(mp.adds).toBe(1);
    expect(mp.depth).toBe(1);
    await clock.step(0.05); // 50 µs

    const i = await getItem(q);
    expect(i).toBe('foo');
    expect(mp.latency).toHaveLength(1);
    expect(mp.latency[0]).toBeCloseTo(5e-5, 12);

    // Re-added while processing; repeats are de-duplicated.
    for (let n = 0; n < 5; n++) q.add(i);
    expect(mp.adds).toBe(2);
    expect(mp.depth).toBe(1);
    await clock.step(0.025);

    q.done(i);
    expect(mp.work).toHaveLength(1);
    expect(mp.work[0]).toBeCloseTo(2.5e-5, 12);
    expect(mp.depth).toBe(1);

    expect(await getItem(q)).toBe('foo');
    expect(mp.latency).toHaveLength(2);
    expect(mp.latency[1]).toBeCloseTo(2.5e-5, 12); // since the add made while processing
    expect(mp.depth).toBe(0);

    // client-go's ticker (the provider cannot be pulled): every 500 ms from construction; the
    // item has been processing since t = 0.075 ms.
    await clock.step(500 - 0.075);
    expect(mp.unfinished.at(-1)).toBeCloseTo(0.499925, 9);
    expect(mp.longest.at(-1)).toBeCloseTo(0.499925, 9);

    q.done('foo');
    expect(mp.work[1]).toBeCloseTo(0.499925, 9);
    await clock.step(500);
    expect(mp.unfinished.at(-1)).toBe(0);
    expect(mp.longest.at(-1)).toBe(0);
    q.shutDown();
  });

  it('[TestMetricShutdown] the in-flight ticker stops at shutdown', async () => {
    const clock = new FakeClock(0);
    const q = new Queue<string>({ name: 'test', metricsProvider: new RecordingProvider(), clock });
    expect(clock.pendingTimers()).toBe(1);
    q.shutDown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('reports nothing for an unnamed queue', async () => {
    const clock = new FakeClock(0);
    const mp = new RecordingProvider();
    const q = new Queue<string>({ metricsProvider: mp, clock });
    q.add('a');
    q.done(await getItem(q));
    expect(mp.names.size).toBe(0);
    expect(mp.adds).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });
});

/** client-go's queue.go written out with two Sets and an array, to compare the Queue against. */
class ModelQueue {
  readonly fifo: number[] = [];
  readonly dirty = new Set<number>();
  readonly processing = new Set<number>();
  readonly touches: number[] = [];
  add(item: number): void {
    if (this.dirty.has(item)) {
      if (!this.processing.has(item)) this.touches.push(item);
      return;
    }
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.fifo.push(item);
  }
  get(): number {
    const item = this.fifo.shift()!;
    this.processing.add(item);
    this.dirty.delete(item);
    return item;
  }
  done(item: number): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) this.fifo.push(item);
  }
}

describe('Queue state kept across items', () => {
  const compareWithModel = async (withStorage: boolean, keys: number, ops: number): Promise<void> => {
    const storage = withStorage ? new TouchCountingStorage<number>() : undefined;
    const q = new Queue<number>(storage ? { storage } : {});
    const model = new ModelQueue();
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const handedOut: number[] = [];
    for (let i = 0; i < ops; i++) {
      const op = random(10);
      if (op < 4) {
        const k = random(keys);
        q.add(k);
        model.add(k);
      } else if (op < 8) {
        if (model.fifo.length === 0) continue;
        const expected = model.get();
        const got = await getItem(q);
        expect(got).toBe(expected);
        handedOut.push(got);
      } else if (op < 9 && handedOut.length > 0) {
        // The usual done() of an item handed out earlier.
        const k = handedOut.splice(random(handedOut.length), 1)[0]!;
        q.done(k);
        model.done(k);
      } else {
        // done() of any key, whether or not it is being processed.
        const k = random(keys);
        q.done(k);
        model.done(k);
      }
      expect(q.len()).toBe(model.fifo.length);
    }
    if (storage) expect(storage.touches).toEqual(model.touches);
    let drained = false;
    void q.shutDownWithDrain().then(() => (drained = true));
    await flushMicrotasks();
    expect(drained).toBe(model.processing.size === 0);
    q.shutDown();
  };

  it('behaves as two Sets and a FIFO over many items, including done() without get()', async () => {
    await compareWithModel(false, 3000, 40_000);
    await compareWithModel(false, 20, 5_000);
  });

  it('behaves as two Sets and a FIFO with a caller storage', async () => {
    await compareWithModel(true, 3000, 40_000);
    await compareWithModel(true, 20, 5_000);
  });

  it('stops referencing items that stay idle, and takes them again afterwards', async () => {
    const q = new Queue<string>();
    const held = (): number => (q as unknown as { slots: Map<string, number> }).slots.size;
    for (let i = 0; i < 20_000; i++) {
      q.add(`item-${i}`);
      q.done(await getItem(q));
    }
    expect(held()).toBeLessThanOrEqual(2 * 1024 + 1);
    q.add('item-0');
    q.add('item-0');
    expect(q.len()).toBe(1);
    expect(await getItem(q)).toBe('item-0');
    q.done('item-0');
    expect(q.len()).toBe(0);
  });
});
