import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import { FakeClock, flushMicrotasks } from '../../tools/testing/fake-clock.js';
import { Notification, ProcessorListener, type ResourceEventHandler } from './processor-listener.js';
import { RingGrowing } from './ring-buffer.js';
import { determineResyncPeriod, SharedProcessor } from './shared-processor.js';
import { describeError, InformerEventHub } from './stats.js';
import { fakeErrors } from '../../tools/testing/fake-lister-watcher.js';
import { chainTransforms, metadataOnly, stripManagedFields } from './transform.js';

const obj = (name: string, rv = '1'): KubeObject => ({ metadata: { name, resourceVersion: rv } });
const add = (name: string, initial = false) => new Notification('add', obj(name), undefined, initial, 0, 0, 'Added', 'ADDED', false);
const sync = (name: string) => new Notification('update', obj(name), obj(name), false, 0, 0, 'Sync', undefined, true);

function listener(handler: ResourceEventHandler, options: { clock?: FakeClock; synced?: () => boolean; resync?: number } = {}) {
  return new ProcessorListener({
    name: 'l',
    handler,
    requestedResyncPeriod: options.resync ?? 0,
    resyncPeriod: options.resync ?? 0,
    now: (options.clock ?? new FakeClock(0)).now(),
    clock: options.clock ?? new FakeClock(0),
    upstreamHasSynced: options.synced ?? (() => true),
  });
}

describe('RingGrowing', () => {
  it('grows past its initial size, wrapping, without losing order', () => {
    const r = new RingGrowing<number>(4);
    const out: number[] = [];
    for (let i = 0; i < 3; i++) r.writeOne(i);
    out.push(r.readOne() as number, r.readOne() as number); // beg moves, so the next writes wrap
    for (let i = 3; i < 20; i++) r.writeOne(i);
    expect(r.length).toBe(18);
    const seen: number[] = [];
    r.forEach((v) => {
      seen.push(v);
    });
    expect(seen).toEqual(Array.from({ length: 18 }, (_, i) => i + 2));
    while (r.length > 0) out.push(r.readOne() as number);
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(r.readOne()).toBeUndefined();
  });

  it('without a normal size keeps what it grew to; with one, goes back to it once read to the end or cleared', () => {
    const kept = new RingGrowing<number>(4);
    for (let i = 0; i < 10; i++) kept.writeOne(i);
    while (kept.length > 0) kept.readOne();
    expect(kept.capacity).toBe(16);

    const r = new RingGrowing<number>(4, 4);
    for (let i = 0; i < 10; i++) r.writeOne(i);
    expect(r.capacity).toBe(16);
    const out: number[] = [];
    for (let i = 0; i < 9; i++) out.push(r.readOne() as number);
    expect(r.capacity).toBe(16); // not empty yet: nothing moves
    r.writeOne(10);
    while (r.length > 0) out.push(r.readOne() as number);
    expect(out).toEqual(Array.from({ length: 11 }, (_, i) => i));
    expect(r.capacity).toBe(4);
    // It grows again from there, in order.
    for (let i = 0; i < 6; i++) r.writeOne(i);
    expect(r.capacity).toBe(8);
    r.clear();
    expect([r.length, r.capacity, r.readOne()]).toEqual([0, 4, undefined]);
  });
});

describe('ProcessorListener', () => {
  it('hands a joining handler the cache given once, each as an initial add made as it goes, before anything added after', async () => {
    const seen: string[] = [];
    const infos: unknown[] = [];
    const l = listener({
      onAdd: (o, initial, info) => {
        seen.push(`${o.metadata.name} ${initial}`);
        infos.push(info);
      },
    });
    l.addInitial([obj('a'), obj('b'), obj('c')], 42);
    l.add(add('d'));
    expect(l.backlog()).toBe(4);
    expect(l.hasSynced()).toBe(false);
    l.run();
    await flushMicrotasks();
    expect(seen).toEqual(['a true', 'b true', 'c true', 'd false']);
    expect(infos[0]).toMatchObject({ kind: 'add', isInInitialList: true, receivedAt: 42, distributedAt: 42, deltaType: undefined });
    expect(infos[0]).not.toBe(infos[1]);
    expect(l.backlog()).toBe(0);
    expect(l.hasSynced()).toBe(true);
    expect(l.delivered).toBe(4);

    const dropped = listener({ onAdd: (o) => void seen.push(`dropped ${o.metadata.name}`) });
    dropped.addInitial([obj('x')], 0);
    await dropped.stop();
    dropped.run();
    await flushMicrotasks();
    expect(seen).not.toContain('dropped x');
    expect(dropped.backlog()).toBe(0);
  });

  it('delivers in order, only after run(), never inside add()', async () => {
    const seen: string[] = [];
    const l = listener({ onAdd: (o) => void seen.push(o.metadata.name as string) });
    l.add(add('a'));
    await flushMicrotasks();
    expect(seen).toEqual([]);
    l.run();
    l.add(add('b'));
    expect(seen).toEqual([]); // not synchronously
    await flushMicrotasks();
    expect(seen).toEqual(['a', 'b']);
    expect(l.delivered).toBe(2);
  });

  it('awaits an async handler before the next call', async () => {
    const order: string[] = [];
    let release!: () => void;
    const l = listener({
      async onAdd(o) {
        order.push(`start ${o.metadata.name}`);
        if (o.metadata.name === 'a') await new Promise<void>((r) => (release = r));
        order.push(`end ${o.metadata.name}`);
      },
    });
    l.run();
    l.add(add('a'));
    l.add(add('b'));
    await flushMicrotasks();
    expect(order).toEqual(['start a']);
    expect(l.backlog()).toBe(1);
    release();
    await flushMicrotasks();
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b']);
  });

  it('yields to the event loop once per 1000 synchronous calls', async () => {
    let n = 0;
    const l = listener({ onAdd: () => void n++ });
    for (let i = 0; i < 2500; i++) l.add(add(`o${i}`));
    l.run();
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(n).toBe(1000);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(n).toBe(2500);
  });

  it('hasSynced needs the upstream and every initial add to have returned', async () => {
    let upstream = false;
    let release!: () => void;
    const l = listener(
      {
        onAdd: async (o) => {
          if (o.metadata.name === 'slow') await new Promise<void>((r) => (release = r));
        },
      },
      { synced: () => upstream },
    );
    l.add(add('x', true));
    l.add(add('slow', true));
    l.run();
    await flushMicrotasks();
    expect(l.hasSynced()).toBe(false);
    upstream = true;
    expect(l.hasSynced()).toBe(false);
    release();
    await flushMicrotasks();
    expect(l.hasSynced()).toBe(true);
  });

  it('stop drops the backlog and waits for the call in progress', async () => {
    let release!: () => void;
    const seen: string[] = [];
    let finished = false;
    const l = listener({
      async onAdd(o) {
        seen.push(o.metadata.name as string);
        await new Promise<void>((r) => (release = r));
        finished = true;
      },
    });
    l.run();
    l.add(add('a'));
    l.add(add('b'));
    await flushMicrotasks();
    const stopped = l.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await flushMicrotasks();
    expect(done).toBe(false);
    release();
    await stopped;
    expect(finished).toBe(true);
    expect(seen).toEqual(['a']);
    l.add(add('c'));
    expect(l.backlog()).toBe(0);
  });

  it('shouldResync at or after nextResync; never with period 0', () => {
    const clock = new FakeClock(0);
    const l = listener({}, { clock, resync: 1000 });
    expect(l.shouldResync(999)).toBe(false);
    expect(l.shouldResync(1000)).toBe(true);
    l.determineNextResync(1000);
    expect(l.shouldResync(1999)).toBe(false);
    expect(listener({}, { clock, resync: 0 }).shouldResync(1e12)).toBe(false);
  });
});

describe('SharedProcessor', () => {
  it('sync notifications go only to listeners flagged by the last shouldResync; others go to all', async () => {
    const clock = new FakeClock(0);
    const p = new SharedProcessor(clock);
    const seenA: string[] = [];
    const seenB: string[] = [];
    const a = listener(
      { onAdd: (o) => void seenA.push(`add ${o.metadata.name}`), onUpdate: (_o, n) => void seenA.push(`sync ${n.metadata.name}`) },
      { clock, resync: 1000 },
    );
    const b = listener(
      { onAdd: (o) => void seenB.push(`add ${o.metadata.name}`), onUpdate: (_o, n) => void seenB.push(`sync ${n.metadata.name}`) },
      { clock, resync: 0 },
    );
    p.addListener(a);
    p.addListener(b);
    p.run();
    p.distribute(sync('s0'), true); // new listeners start flagged
    await clock.step(1000);
    expect(p.shouldResync()).toBe(true);
    expect(p.isSyncing(a)).toBe(true);
    expect(p.isSyncing(b)).toBe(false);
    p.distribute(sync('s1'), true);
    p.distribute(add('x'), false);
    await flushMicrotasks();
    expect(seenA).toEqual(['sync s0', 'sync s1', 'add x']);
    expect(seenB).toEqual(['sync s0', 'add x']);
    expect(p.shouldResync()).toBe(false); // a's next resync is at 2000
    await p.stop();
    expect(p.getListeners()).toEqual([]);
  });

  it('determineResyncPeriod: 0 if either is 0, else at least the check period', () => {
    expect(determineResyncPeriod(0, 1000)).toBe(0);
    expect(determineResyncPeriod(5000, 0)).toBe(0);
    expect(determineResyncPeriod(500, 1000)).toBe(1000);
    expect(determineResyncPeriod(5000, 1000)).toBe(5000);
  });
});

describe('transforms and stats helpers', () => {
  it('stripManagedFields drops managedFields in place and is idempotent', () => {
    const o: KubeObject = { metadata: { name: 'a', managedFields: [{ manager: 'm' }] }, spec: { x: 1 } };
    expect(stripManagedFields(o)).toBe(o);
    expect(o).toEqual({ metadata: { name: 'a' }, spec: { x: 1 } });
    expect(stripManagedFields(o)).toEqual({ metadata: { name: 'a' }, spec: { x: 1 } });
  });

  it('metadataOnly keeps apiVersion, kind and metadata (no managedFields) and is idempotent', () => {
    const o: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', managedFields: [{}] }, data: { k: 'v' } };
    const once = metadataOnly(o);
    expect(once).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    expect(metadataOnly(once)).toEqual(once);
    expect(o.data).toEqual({ k: 'v' }); // the input is not changed
    expect(chainTransforms(metadataOnly, (x) => ({ ...x, kind: 'X' }))(o).kind).toBe('X');
  });

  it('describeError names code and reason, or the network failure', () => {
    expect(describeError(fakeErrors.gone())).toBe('410 Gone');
    expect(describeError(fakeErrors.tooManyRequests())).toBe('429 TooManyRequests');
    expect(describeError(fakeErrors.connectionRefused())).toBe('connect ECONNREFUSED 127.0.0.1:6443 (ECONNREFUSED)');
    expect(describeError(new Error('plain'))).toBe('plain');
  });

  it('the event hub isolates a throwing listener and unsubscribes', () => {
    const hub = new InformerEventHub();
    const got: string[] = [];
    hub.on(() => {
      throw new Error('bad listener');
    });
    const off = hub.on((e) => void got.push(e.message));
    hub.emit({ kind: 'synced', level: 'info', at: 0, message: 'one', source: 's' });
    off();
    hub.emit({ kind: 'synced', level: 'info', at: 0, message: 'two', source: 's' });
    expect(got).toEqual(['one']);
    expect(hub.size).toBe(1);
  });
});
