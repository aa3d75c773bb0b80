import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { fakeErrors, FakeListerWatcher, type FakeListerWatcherOptions } from '../../tools/testing/fake-lister-watcher.js';
import { fieldPathIndexFunc, NamespaceIndex, metaNamespaceIndexFunc } from './index-funcs.js';
import type { NotificationInfo, ResourceEventHandler } from './processor-listener.js';
import { SharedIndexInformer, waitForCacheSync, type SharedIndexInformerOptions } from './shared-informer.js';
import { informerKey, SharedInformerFactory } from './shared-informer-factory.js';
import type { InformerEvent } from './stats.js';
import { DeletedFinalStateUnknown } from './store.js';
import { metadataOnly } from './transform.js';

function pod(name: string, extra: Record<string, unknown> = {}): KubeObject {
  const { labels, ...rest } = extra as { labels?: Record<string, string> };
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'ns', name, ...(labels ? { labels } : {}) }, ...rest };
}

const nameOf = (o: KubeObject | DeletedFinalStateUnknown): string =>
  o instanceof DeletedFinalStateUnknown ? `tombstone(${o.key}, ${o.obj?.metadata.name ?? 'nil'})` : (o.metadata.name as string);

/** A handler that logs what it is told. */
function recorder() {
  const log: string[] = [];
  const infos: NotificationInfo[] = [];
  const handler: ResourceEventHandler = {
    onAdd(obj, initial, info) {
      log.push(`add ${nameOf(obj)}${initial ? ' (initial)' : ''}`);
      infos.push(info);
    },
    onUpdate(oldObj, newObj, info) {
      log.push(`update ${nameOf(newObj)} ${oldObj.metadata.resourceVersion}->${newObj.metadata.resourceVersion}${info.isSync ? ' (sync)' : ''}`);
      infos.push(info);
    },
    onDelete(obj, info) {
      log.push(`delete ${nameOf(obj)}`);
      infos.push(info);
    },
  };
  return { log, infos, handler };
}

interface Setup {
  clock: FakeClock;
  lw: FakeListerWatcher;
  informer: SharedIndexInformer;
  events: InformerEvent[];
  run(): Promise<void>;
  settle(times?: number): Promise<void>;
  stop(): Promise<void>;
}

let live: Setup[] = [];
afterEach(async () => {
  const s = live;
  live = [];
  for (const x of s) await x.stop();
});

function setup(options: { objects?: KubeObject[]; lw?: FakeListerWatcherOptions; informer?: SharedIndexInformerOptions } = {}): Setup {
  const clock = new FakeClock();
  const lw = new FakeListerWatcher({ objects: options.objects ?? [pod('p0'), pod('p1')], ...options.lw });
  const events: InformerEvent[] = [];
  const informer = new SharedIndexInformer(lw, { clock, random: () => 0, onEvent: (e) => events.push(e), ...options.informer });
  const abort = new AbortController();
  let done: Promise<void> | undefined;
  const s: Setup = {
    clock,
    lw,
    informer,
    events,
    run: async () => {
      done = informer.run(abort.signal);
      await clock.step(0);
    },
    settle: async (times = 1) => {
      for (let i = 0; i < times; i++) await clock.step(0);
    },
    stop: async () => {
      abort.abort();
      await clock.step(0);
      await done;
    },
  };
  live.push(s);
  return s;
}

describe('SharedIndexInformer', () => {
  it('initial list: adds with isInInitialList, then live adds/updates/deletes; hasSynced on informer and registration', async () => {
    const s = setup();
    const r = recorder();
    const reg = s.informer.addEventHandler(r.handler);
    expect(s.informer.hasSynced()).toBe(false);
    expect(reg.hasSynced()).toBe(false);
    await s.run();
    expect(r.log).toEqual(['add p0 (initial)', 'add p1 (initial)']);
    expect(s.informer.hasSynced()).toBe(true);
    expect(reg.hasSynced()).toBe(true);
    s.lw.add(pod('p2'));
    s.lw.modify(pod('p0', { spec: { v: 2 } }));
    s.lw.delete('ns/p1');
    await s.settle();
    expect(r.log.slice(2)).toEqual(['add p2', 'update p0 101->104', 'delete p1']);
    expect(s.informer.getStore().listKeys().sort()).toEqual(['ns/p0', 'ns/p2']);
    expect(s.informer.lastSyncResourceVersion()).toBe('105');
  });

  it('onDelta: every delta once, in order, after the indexer changed; a relist shows Replaced and tombstones', async () => {
    const s = setup();
    const seen: string[] = [];
    const store = s.informer.getStore();
    const t0 = s.clock.now();
    const stop = s.informer.onDelta((d) => {
      const cached = store.getByKey(d.key)?.metadata.resourceVersion;
      seen.push(
        `${d.type} ${d.key} ${d.resourceVersion}${d.tombstone ? ' tombstone' : ''}${d.initial ? ' initial' : ''} cached=${cached ?? '-'} at=${d.receivedAt - t0}`,
      );
    });
    await s.run();
    s.lw.add(pod('p2'));
    s.lw.modify(pod('p0', { spec: { v: 2 } }));
    s.lw.delete('ns/p1');
    await s.settle();
    s.lw.silently((f) => f.delete('ns/p2'));
    s.lw.sendError(fakeErrors.expired());
    await s.clock.step(800);
    expect(seen).toEqual([
      'Replaced ns/p0 101 initial cached=101 at=0',
      'Replaced ns/p1 102 initial cached=102 at=0',
      'Added ns/p2 103 cached=103 at=0',
      'Updated ns/p0 104 cached=104 at=0',
      'Deleted ns/p1 105 cached=- at=0',
      'Replaced ns/p0 104 cached=104 at=800',
      'Deleted ns/p2 103 tombstone cached=- at=800',
    ]);
    stop();
    s.lw.add(pod('p3'));
    await s.settle();
    expect(seen).toHaveLength(7);
  });

  it("stats carry what client-go's informer metrics report: the store's resourceVersion, one processing latency per popped key, the FIFO depth", async () => {
    const s = setup();
    await s.run();
    expect(s.informer.stats()).toMatchObject({ storeResourceVersion: '102', queued: 0, processingLatency: { count: 2 } });
    s.lw.add(pod('p2'));
    s.lw.modify(pod('p0', { spec: { v: 2 } }));
    s.lw.delete('ns/p1');
    await s.settle();
    const st = s.informer.stats();
    expect(st.storeResourceVersion).toBe('105');
    expect(st.processingLatency.count).toBe(5);
    expect(st.processingLatency.counts).toHaveLength(13);
    expect(st.processingLatency.counts.reduce((a, b) => a + b, 0)).toBe(5);
    expect([st.group, st.version, st.resource]).toEqual(['', '', '']);
  });

  it('updates the indexer before any handler hears of a change', async () => {
    const s = setup();
    const seen: string[] = [];
    const store = s.informer.getStore();
    s.informer.addEventHandler({
      onAdd: (o) => void seen.push(`add ${store.getByKey(`ns/${o.metadata.name}`)?.metadata.resourceVersion === o.metadata.resourceVersion}`),
      onUpdate: (_o, n) => void seen.push(`update ${store.getByKey(`ns/${n.metadata.name}`)?.metadata.resourceVersion === n.metadata.resourceVersion}`),
      onDelete: (o) => void seen.push(`delete ${store.getByKey(`ns/${nameOf(o)}`) === undefined}`),
    });
    await s.run();
    s.lw.modify(pod('p0', { spec: { v: 1 } }));
    await s.settle();
    s.lw.delete('ns/p0');
    await s.settle();
    expect(seen).toEqual(['add true', 'add true', 'update true', 'delete true']);
  });

  it('a relist is applied object by object (client-go 1.36 replaces the store first): a handler sees the objects after its own still old', async () => {
    const s = setup();
    const store = s.informer.getStore();
    const seen: string[] = [];
    s.informer.addEventHandler({
      onUpdate: (_o, n) => {
        const others = ['ns/p0', 'ns/p1'].filter((k) => k !== `ns/${n.metadata.name}`);
        seen.push(
          `${n.metadata.name}@${n.metadata.resourceVersion} sees ${others.map((k) => `${k}@${store.getByKey(k)?.metadata.resourceVersion ?? '-'}`).join(' ')}`,
        );
      },
    });
    await s.run();
    s.lw.silently((f) => {
      f.modify(pod('p0', { spec: { v: 2 } }));
      f.modify(pod('p1', { spec: { v: 2 } }));
    });
    s.lw.sendError(fakeErrors.expired());
    await s.clock.step(800);
    expect(seen).toEqual(['p0@103 sees ns/p1@102', 'p1@104 sees ns/p0@103']);
  });

  it('a deletion missed during a watch arrives at the relist as a DeletedFinalStateUnknown', async () => {
    const s = setup();
    const r = recorder();
    s.informer.addEventHandler(r.handler);
    await s.run();
    s.lw.silently((f) => f.delete('ns/p1'));
    s.lw.sendError(fakeErrors.expired());
    await s.clock.step(800);
    expect(r.log).toContain('delete tombstone(ns/p1, p1)');
    expect(s.informer.getStore().listKeys()).toEqual(['ns/p0']);
    expect(r.infos.at(-1)?.deltaType).toBe('Deleted');
  });

  it('an unchanged object in a relist is a sync update: every listener when nothing resyncs', async () => {
    const s = setup({ objects: [pod('p0')] });
    const a = recorder();
    const b = recorder();
    s.informer.addEventHandler(a.handler);
    s.informer.addEventHandler(b.handler);
    await s.run();
    s.lw.sendError(fakeErrors.expired());
    await s.clock.step(800);
    // A new listener starts flagged as syncing and nothing re-evaluates it without a resync period.
    expect(a.log).toEqual(['add p0 (initial)', 'update p0 101->101 (sync)']);
    expect(b.log).toEqual(a.log);
    expect(a.infos[1]?.deltaType).toBe('Replaced');
  });

  it('sync updates go only to listeners due for resync', async () => {
    const s = setup({ objects: [pod('p0')], informer: { resyncPeriod: 10_000 } });
    const due = recorder();
    const never = recorder();
    s.informer.addEventHandler(due.handler);
    s.informer.addEventHandler(never.handler, 0);
    await s.run();
    await s.clock.step(10_000);
    expect(due.log).toEqual(['add p0 (initial)', 'update p0 101->101 (sync)']);
    expect(due.infos[1]?.deltaType).toBe('Sync');
    expect(never.log).toEqual(['add p0 (initial)']);
    // A real change reaches everyone.
    s.lw.modify(pod('p0', { spec: { v: 2 } }));
    await s.settle();
    expect(never.log).toEqual(['add p0 (initial)', 'update p0 101->102']);
    // An unchanged relist item is a sync: only the listener flagged at the last check gets it.
    s.lw.sendError(fakeErrors.expired());
    await s.clock.step(800);
    expect(due.log.at(-1)).toBe('update p0 102->102 (sync)');
    expect(never.log).toHaveLength(2);
  });

  it('per-handler resync periods follow client-go: 1 s minimum, lower the check period before start, raised to it after', async () => {
    const s = setup({ objects: [pod('p0')], informer: { resyncPeriod: 5000 } });
    const fast = recorder();
    const slow = recorder();
    s.informer.addEventHandler(slow.handler, { name: 'slow' }); // default 5 s
    s.informer.addEventHandler(fast.handler, { resyncPeriod: 500, name: 'fast' }); // → 1 s, check period → 1 s
    s.informer.addEventHandler({}, { resyncPeriod: 0, name: 'none' });
    expect(s.informer.stats().listeners.map((l) => [l.name, l.resyncPeriod])).toEqual([
      ['slow', 5000],
      ['fast', 1000],
      ['none', 0],
    ]);
    await s.run();
    s.informer.addEventHandler({}, { resyncPeriod: 300, name: 'late' });
    expect(s.informer.stats().listeners.at(-1)).toMatchObject({ name: 'late', resyncPeriod: 1000 });
    await s.clock.step(10_000);
    expect(fast.log.filter((l) => l.includes('(sync)'))).toHaveLength(10);
    expect(slow.log.filter((l) => l.includes('(sync)'))).toHaveLength(2);
  });

  it('a resync period ignored when the informer does not resync', () => {
    const s = setup({ informer: { resyncPeriod: 0 } });
    s.informer.addEventHandler({}, { resyncPeriod: 5000, name: 'wants' });
    expect(s.informer.stats().listeners[0]?.resyncPeriod).toBe(0);
    expect(s.events.some((e) => e.kind === 'warning' && e.message.includes('does not resync'))).toBe(true);
  });

  it('a handler added after start gets synthetic initial adds first, and its hasSynced waits for them', async () => {
    const s = setup();
    await s.run();
    s.lw.add(pod('p2'));
    await s.settle();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const log: string[] = [];
    const infos: NotificationInfo[] = [];
    const reg = s.informer.addEventHandler({
      async onAdd(o, initial, info) {
        log.push(`add ${o.metadata.name} ${initial}`);
        infos.push(info);
        await gate;
      },
    });
    s.lw.add(pod('p3'));
    await s.settle();
    expect(log).toEqual(['add p0 true']);
    expect(s.informer.hasSynced()).toBe(true);
    expect(reg.hasSynced()).toBe(false);
    release();
    await s.settle();
    expect(log).toEqual(['add p0 true', 'add p1 true', 'add p2 true', 'add p3 false']);
    expect(reg.hasSynced()).toBe(true);
    expect(infos[0]?.deltaType).toBeUndefined();
    expect(infos[3]?.deltaType).toBe('Added');
  });

  it('a slow handler never delays another; its backlog grows and drains in order', async () => {
    const s = setup({ objects: [] });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow: string[] = [];
    const fast: string[] = [];
    s.informer.addEventHandler(
      {
        async onAdd(o) {
          slow.push(o.metadata.name as string);
          await gate;
        },
      },
      { name: 'slow' },
    );
    s.informer.addEventHandler({ onAdd: (o) => void fast.push(o.metadata.name as string) }, { name: 'fast' });
    await s.run();
    for (let i = 0; i < 2500; i++) s.lw.add(pod(`o${i}`));
    await s.settle(5);
    expect(fast).toHaveLength(2500);
    expect(slow).toEqual(['o0']);
    const st = s.informer.stats();
    expect(st.listeners.find((l) => l.name === 'slow')?.backlog).toBe(2499);
    expect(st.listeners.find((l) => l.name === 'fast')?.backlog).toBe(0);
    expect(st.backlog).toBe(2499);
    expect(s.informer.backlog()).toBe(2499);
    release();
    await s.settle(5);
    expect(slow).toHaveLength(2500);
    expect(slow).toEqual(fast);
  });

  it('a handler that throws is reported, pauses 1 s, then goes on', async () => {
    const s = setup({ objects: [pod('bad'), pod('good')] });
    const seen: string[] = [];
    s.informer.addEventHandler(
      {
        onAdd(o) {
          seen.push(o.metadata.name as string);
          if (o.metadata.name === 'bad') throw new Error('handler bug');
        },
      },
      { name: 'h' },
    );
    await s.run();
    expect(seen).toEqual(['bad']);
    const ev = s.events.find((e) => e.kind === 'handler-error');
    expect(ev?.message).toBe('handler h failed on add of ns/bad: handler bug; pausing it for 1 s');
    expect(s.informer.stats().lastError).toMatchObject({ message: 'handler bug', phase: 'handler' });
    await s.clock.step(999);
    expect(seen).toEqual(['bad']);
    await s.clock.step(1);
    expect(seen).toEqual(['bad', 'good']);
    expect(s.informer.stats().listeners[0]).toMatchObject({ handlerErrors: 1, delivered: 2, synced: true });
  });

  it('remove() stops delivery and drops the backlog', async () => {
    const s = setup({ objects: [] });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    const reg = s.informer.addEventHandler({
      async onAdd(o) {
        seen.push(o.metadata.name as string);
        await gate;
      },
    });
    await s.run();
    s.lw.add(pod('a'));
    s.lw.add(pod('b'));
    await s.settle();
    const removed = reg.remove();
    release();
    await removed;
    s.lw.add(pod('c'));
    await s.settle();
    expect(seen).toEqual(['a']);
    expect(s.informer.stats().listeners).toHaveLength(0);
  });

  it('notifications carry the delta: type, watch event type, when it was received and distributed', async () => {
    const s = setup({ objects: [pod('p0')] });
    const r = recorder();
    s.informer.addEventHandler(r.handler);
    await s.run();
    await s.clock.step(1234);
    const t = s.clock.now();
    s.lw.add(pod('x'));
    s.lw.modify(pod('x', { spec: { a: 1 } }));
    s.lw.delete('ns/x');
    await s.settle();
    expect(r.infos[0]).toMatchObject({ deltaType: 'Replaced', eventType: undefined, isSync: false });
    expect(r.infos.slice(1).map((i) => [i.deltaType, i.eventType, i.receivedAt, i.distributedAt])).toEqual([
      ['Added', 'ADDED', t, t],
      ['Updated', 'MODIFIED', t, t],
      ['Deleted', 'DELETED', t, t],
    ]);
  });

  it('the default transform drops managedFields; setTransform fails once started', async () => {
    const s = setup({ objects: [{ ...pod('p0'), metadata: { namespace: 'ns', name: 'p0', managedFields: [{ manager: 'kubectl' }] } }] });
    await s.run();
    expect(s.informer.getStore().getByKey('ns/p0')?.metadata.managedFields).toBeUndefined();
    expect(() => s.informer.setTransform(null)).toThrow('informer has already started');
    expect(() => s.informer.setWatchErrorHandler(() => {})).toThrow('informer has already started');
  });

  it('a metadata-only transform keeps only apiVersion, kind and metadata', async () => {
    const s = setup({ objects: [{ ...pod('p0'), spec: { secret: 'x' }, data: { token: 'y' } }] });
    s.informer.setTransform(metadataOnly);
    await s.run();
    expect(s.informer.getStore().getByKey('ns/p0')).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: expect.objectContaining({ name: 'p0', namespace: 'ns' }),
    });
    s.lw.modify({ ...pod('p0'), data: { token: 'z' } });
    await s.settle();
    expect(Object.keys(s.informer.getStore().getByKey('ns/p0') ?? {}).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
  });

  it('indexers: given at construction and added while running (backfilled), kept up to date', async () => {
    const s = setup({
      objects: [pod('a', { labels: { app: 'web' } }), pod('b', { labels: { app: 'db' } })],
      informer: { indexers: { [NamespaceIndex]: metaNamespaceIndexFunc } },
    });
    await s.run();
    s.informer.addIndexers({ app: fieldPathIndexFunc('metadata.labels.app') });
    const idx = s.informer.getIndexer();
    expect(idx.indexKeys('app', 'web')).toEqual(['ns/a']);
    s.lw.modify(pod('b', { labels: { app: 'web' } }));
    await s.settle();
    expect(idx.indexKeys('app', 'web')).toEqual(['ns/a', 'ns/b']);
    expect(idx.indexKeys(NamespaceIndex, 'ns')).toEqual(['ns/a', 'ns/b']);
    expect(() => s.informer.addIndexers({ app: fieldPathIndexFunc('x') })).toThrow('indexer conflict: app');
  });

  it('an index function that throws is reported and the informer keeps going', async () => {
    const s = setup({ objects: [pod('ok'), pod('boom')] });
    s.informer.addIndexers({
      picky: (o) => {
        if (o.metadata.name === 'boom') throw new Error('cannot index');
        return ['x'];
      },
    });
    await s.run();
    s.lw.add(pod('later'));
    await s.settle();
    expect(s.informer.getStore().getByKey('ns/later')).toBeDefined();
    expect(s.events.some((e) => e.message.includes('cannot index'))).toBe(true);
    expect(s.informer.stats().lastError?.phase).toBe('process');
  });

  it('after stop: no new handlers or indexers; run resolves after listeners stop; a second run only warns', async () => {
    const s = setup();
    await s.run();
    await s.informer.run(new AbortController().signal);
    expect(s.events.some((e) => e.kind === 'warning' && e.message.includes('more than once'))).toBe(true);
    await s.stop();
    expect(s.informer.isStopped()).toBe(true);
    expect(() => s.informer.addEventHandler({})).toThrow('handler was not added to shared informer because it has stopped already');
    expect(() => s.informer.addIndexers({ x: () => [] })).toThrow('indexer was not added because it has stopped already');
    expect(s.events.at(-1)?.kind).toBe('stopped');
    expect(s.lw.openWatches()).toHaveLength(0);
  });

  it('waitForCacheSync resolves true once synced (polling every 100 ms), false when aborted first', async () => {
    const s = setup();
    s.lw.failList(fakeErrors.internalError());
    const ac = new AbortController();
    let result: boolean | undefined;
    void s.informer.waitForCacheSync(ac.signal).then((v) => (result = v));
    await s.run();
    await s.clock.step(799);
    expect(s.informer.hasSynced()).toBe(false);
    expect(result).toBeUndefined();
    await s.clock.step(1); // the list is retried at 800 ms and succeeds; the poll at 800 ms sees it
    expect(s.informer.hasSynced()).toBe(true);
    expect(result).toBe(true);

    const never = new AbortController();
    const p = waitForCacheSync(never.signal, [() => false], s.clock);
    never.abort();
    expect(await p).toBe(false);
  });

  it('streams the initial list when useWatchList is set', async () => {
    const s = setup({ informer: { useWatchList: true } });
    const r = recorder();
    s.informer.addEventHandler(r.handler);
    await s.run();
    expect(s.lw.listCalls).toHaveLength(0);
    expect(s.lw.watchCalls[0]?.sendInitialEvents).toBe(true);
    expect(r.log).toEqual(['add p0 (initial)', 'add p1 (initial)']);
    expect(s.informer.hasSynced()).toBe(true);
  });

  it('stats: a plain snapshot of objects, events, lists, relists, restarts, bookmarks, errors, RV, backlog, synced', async () => {
    const s = setup();
    s.informer.addEventHandler({}, { name: 'quiet' });
    await s.run();
    s.lw.add(pod('p2'));
    s.lw.bookmark();
    await s.clock.step(2000);
    s.lw.closeWatches();
    await s.settle();
    s.lw.sendError(fakeErrors.gone());
    await s.clock.step(800);
    const st = s.informer.stats();
    expect(st).toMatchObject({
      name: 'fake',
      description: 'fake',
      started: true,
      stopped: false,
      synced: true,
      objects: 3,
      queued: 0,
      events: { ADDED: 1, MODIFIED: 0, DELETED: 0, BOOKMARK: 1, ERROR: 1 },
      lists: 2,
      relists: 1,
      watches: 3,
      watchRestarts: 2,
      bookmarks: 1,
      errors: 1,
      lastSyncResourceVersion: '103',
      backlog: 0,
    });
    expect(st.lastError).toMatchObject({ code: 410, reason: 'Gone', phase: 'watch' });
    // 2 initial adds, 1 add, 3 unchanged relist items (sync updates reach a listener never re-evaluated)
    expect(st.listeners).toEqual([{ name: 'quiet', backlog: 0, delivered: 6, handlerErrors: 0, resyncPeriod: 0, synced: true }]);
    expect(JSON.parse(JSON.stringify(st))).toEqual(st);
    const messages = s.events.map((e) => e.message);
    expect(messages).toContain('watch ended: 410 Gone; relisting at resourceVersion "103" after backoff');
    expect(messages).toContain('cache synced with 2 objects');
    expect(messages).toContain('listed 2 objects at resourceVersion "102" in 1 request (0ms)');
  });

  it("says 'synced' once an empty list is stored, with nothing for the cache to take first", async () => {
    const s = setup({ objects: [] });
    await s.run();
    expect(s.informer.hasSynced()).toBe(true);
    expect(s.events.filter((e) => e.kind === 'synced').map((e) => e.message)).toEqual(['cache synced with 0 objects']);
    // The first object after it does not say it again.
    s.lw.add(pod('late'));
    await s.settle(3);
    expect(s.informer.getStore().list()).toHaveLength(1);
    expect(s.events.filter((e) => e.kind === 'synced')).toHaveLength(1);
  });

  it('onEvent subscribes and unsubscribes', async () => {
    const s = setup();
    const mine: string[] = [];
    const off = s.informer.onEvent((e) => mine.push(e.kind));
    await s.run();
    expect(mine).toContain('listed');
    off();
    const n = mine.length;
    s.lw.sendError(fakeErrors.expired());
    await s.clock.step(800);
    expect(mine).toHaveLength(n);
  });
});

describe('SharedInformerFactory', () => {
  it('returns the same informer for the same key; start runs only informers not started; waitForCacheSync and shutdown', async () => {
    const clock = new FakeClock();
    const made: string[] = [];
    const factory = new SharedInformerFactory(
      (key) => {
        made.push(key);
        return new FakeListerWatcher({ description: key, objects: [pod('x')] });
      },
      { clock, random: () => 0 },
    );
    const k1 = informerKey({ group: 'apps', version: 'v1', resource: 'deployments', namespace: 'demo', labelSelector: 'app=web' });
    const k2 = informerKey({ version: 'v1', resource: 'pods' });
    expect(k1).toBe('deployments.apps/v1 ns=demo labels=app=web');
    expect(k2).toBe('pods/v1 all-namespaces');
    const a = factory.informerFor(k1);
    expect(factory.informerFor(k1)).toBe(a);
    expect(made).toEqual([k1]);
    const abort = new AbortController();
    factory.start(abort.signal);
    const b = factory.informerFor(k2, { resyncPeriod: 1000 });
    expect(a.hasStarted()).toBe(true);
    expect(b.hasStarted()).toBe(false);
    factory.start(abort.signal);
    expect(b.hasStarted()).toBe(true);
    const synced = factory.waitForCacheSync(abort.signal);
    await clock.step(100);
    expect([...(await synced).entries()]).toEqual([
      [k1, true],
      [k2, true],
    ]);
    expect(factory.stats().map((st) => [st.name, st.objects])).toEqual([
      [k1, 1],
      [k2, 1],
    ]);
    abort.abort();
    await clock.step(0);
    await factory.shutdown();
    expect(a.isStopped() && b.isStopped()).toBe(true);
    factory.informerFor('late', { listerWatcher: new FakeListerWatcher() });
    factory.start(new AbortController().signal);
    expect(factory.get('late')?.hasStarted()).toBe(false);
  });

  it('throws without a ListerWatcher for a new key', () => {
    const factory = new SharedInformerFactory(undefined);
    expect(() => factory.informerFor('x')).toThrow('no ListerWatcher for informer "x"');
  });
});
