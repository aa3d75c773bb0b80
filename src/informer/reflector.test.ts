import { afterEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../kube/api-error.js';
import { ConnectionStalledError } from '../kube/http.js';
import type { KubeObject, ListerWatcher, ListOptions, ListResult, Watch, WatchEvent, WatchOptions } from '../kube/types.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { fakeErrors, FakeListerWatcher, type FakeListerWatcherOptions } from '../../tools/testing/fake-lister-watcher.js';
import { BackoffManager } from './backoff.js';
import { Reflector, type ReflectorOptions, type WatchErrorContext } from './reflector.js';
import type { InformerEvent } from './stats.js';
import { newStore, type DeltaInfo, type ReflectorStore, type Store } from './store.js';

function pod(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return { metadata: { namespace: 'ns', name }, ...extra };
}

/** A ReflectorStore that records what the reflector did to it. */
class RecordingStore implements ReflectorStore {
  readonly inner: Store = newStore();
  readonly calls: string[] = [];
  readonly infos: DeltaInfo[] = [];
  readonly rvs: string[] = [];
  readonly replaces: { names: string[]; rv: string }[] = [];
  resyncs = 0;
  failResync: Error | undefined;

  add(obj: KubeObject, info?: DeltaInfo): void {
    this.calls.push(`add ${obj.metadata.name}`);
    if (info) this.infos.push(info);
    this.inner.add(obj);
  }
  update(obj: KubeObject, info?: DeltaInfo): void {
    this.calls.push(`update ${obj.metadata.name}`);
    if (info) this.infos.push(info);
    this.inner.update(obj);
  }
  delete(obj: KubeObject, info?: DeltaInfo): void {
    this.calls.push(`delete ${obj.metadata.name}`);
    if (info) this.infos.push(info);
    this.inner.delete(obj);
  }
  replace(list: KubeObject[], rv: string): void {
    this.calls.push(`replace ${list.length} @${rv}`);
    this.replaces.push({ names: list.map((o) => o.metadata.name as string).sort(), rv });
    this.inner.replace(list, rv);
  }
  resync(): void {
    if (this.failResync) throw this.failResync;
    this.resyncs++;
  }
  updateResourceVersion(rv: string): void {
    this.rvs.push(rv);
  }
  keys(): string[] {
    return this.inner.listKeys().sort();
  }
}

interface Harness {
  clock: FakeClock;
  lw: FakeListerWatcher;
  store: RecordingStore;
  r: Reflector;
  events: InformerEvent[];
  errors: { err: unknown; ctx: WatchErrorContext }[];
  abort: AbortController;
  done: Promise<void>;
  settle(): Promise<void>;
  stop(): Promise<void>;
}

let running: Harness[] = [];

afterEach(async () => {
  const hs = running;
  running = [];
  for (const h of hs) await h.stop();
});

/** `serverTimeouts`: the fake ends each watch at its timeoutSeconds, as kube-apiserver does. */
function start(
  options: {
    lw?: FakeListerWatcherOptions;
    objects?: number;
    reflector?: Partial<ReflectorOptions>;
    listerWatcher?: ListerWatcher;
    serverTimeouts?: boolean;
  } = {},
): Harness {
  const clock = new FakeClock();
  const objects = Array.from({ length: options.objects ?? 0 }, (_, i) => pod(`p${i}`));
  const lw = new FakeListerWatcher({ objects, ...(options.serverTimeouts ? { clock } : {}), ...options.lw });
  const store = new RecordingStore();
  const events: InformerEvent[] = [];
  const errors: { err: unknown; ctx: WatchErrorContext }[] = [];
  const r = new Reflector(options.listerWatcher ?? lw, store, {
    clock,
    random: () => 0,
    onEvent: (e) => events.push(e),
    watchErrorHandler: (err, ctx) => errors.push({ err, ctx }),
    ...options.reflector,
  });
  const abort = new AbortController();
  const done = r.run(abort.signal);
  const h: Harness = {
    clock,
    lw,
    store,
    r,
    events,
    errors,
    abort,
    done,
    settle: () => clock.step(0),
    stop: async () => {
      abort.abort();
      await clock.step(0);
      await done;
    },
  };
  running.push(h);
  return h;
}

const rvsOf = (calls: { resourceVersion?: string }[]) => calls.map((c) => c.resourceVersion);

describe('Reflector list', () => {
  it('first list: RV "0", limit 500; then a watch from the list RV with bookmarks and a timeout', async () => {
    const h = start({ objects: 3 });
    await h.settle();
    expect(h.lw.listCalls).toEqual([{ resourceVersion: '0', limit: 500 }]);
    expect(h.store.replaces).toEqual([{ names: ['p0', 'p1', 'p2'], rv: '103' }]);
    expect(h.lw.watchCalls).toEqual([{ resourceVersion: '103', timeoutSeconds: 30, allowWatchBookmarks: true }]);
    expect(h.r.lastSyncResourceVersion()).toBe('103');
  });

  it("passes the store's transform to every list page, so items are transformed as they are decoded", async () => {
    const clock = new FakeClock();
    const lw = new FakeListerWatcher({ objects: [pod('a'), pod('b'), pod('c')], watchCache: false });
    const seen: string[] = [];
    const transformer = (o: KubeObject): KubeObject => {
      seen.push(o.metadata.name ?? '');
      o.metadata.labels = { transformed: 'yes' };
      return o;
    };
    const store = newStore(undefined, { transformer });
    const r = new Reflector(lw, store, { clock, random: () => 0, watchListPageSize: 2 });
    const abort = new AbortController();
    const done = r.run(abort.signal);
    await clock.step(0);
    expect(lw.listCalls).toHaveLength(2);
    expect(lw.listDecodes.map((d) => d?.transform)).toEqual([transformer, transformer]);
    // Once while decoding, once on the way into the store (transforms are idempotent).
    expect(seen).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    expect(store.list().map((o) => o.metadata.labels)).toEqual([{ transformed: 'yes' }, { transformed: 'yes' }, { transformed: 'yes' }]);
    abort.abort();
    await clock.step(0);
    await done;
  });

  it("paginates via continue: continuation pages clear the RV, the list RV is the first page's", async () => {
    const h = start({ objects: 5, lw: { watchCache: false }, reflector: { watchListPageSize: 2 } });
    await h.settle();
    expect(h.lw.listCalls).toEqual([
      { resourceVersion: '0', limit: 2 },
      { limit: 2, continue: 'continue-1' },
      { limit: 2, continue: 'continue-2' },
    ]);
    expect(h.store.replaces[0]?.names).toHaveLength(5);
    expect(h.store.replaces[0]?.rv).toBe('105');
    expect(h.r.stats.listRequests).toBe(3);
    expect(h.r.stats.lists).toBe(1);
  });

  it('the list RV comes from the first page even if later pages say otherwise', async () => {
    const calls: ListOptions[] = [];
    const lw: ListerWatcher = {
      description: 'scripted',
      list: async (o) => {
        calls.push(o);
        return o.continue ? { items: [pod('b')], resourceVersion: '99' } : { items: [pod('a')], resourceVersion: '10', continue: 'c1' };
      },
      watch: async () => new Promise<Watch>(() => {}),
    };
    const h = start({ listerWatcher: lw });
    await h.settle();
    expect(h.store.replaces).toEqual([{ names: ['a', 'b'], rv: '10' }]);
  });

  it('an Expired continuation page gives one full (unpaginated) list at the original RV', async () => {
    const h = start({ objects: 8, lw: { watchCache: false }, reflector: { watchListPageSize: 4 } });
    await h.settle();
    expect(h.store.replaces[0]?.names).toHaveLength(8);
    // Force a relist: the watch ends with 410.
    h.lw.failContinue(fakeErrors.expired('The provided continue parameter is too old'));
    h.lw.sendError(fakeErrors.expired());
    await h.clock.step(800);
    expect(rvsOf(h.lw.listCalls)).toEqual(['0', undefined, '108', undefined, '108']);
    expect(h.lw.listCalls.slice(2)).toEqual([{ resourceVersion: '108', limit: 4 }, { limit: 4, continue: 'continue-2' }, { resourceVersion: '108' }]);
    expect(h.store.replaces).toHaveLength(2);
    expect(h.store.replaces[1]?.names).toHaveLength(8);
  });

  it('Expired or Gone on list sets the unavailable flag and retries at once at RV ""', async () => {
    for (const err of [fakeErrors.expired(), fakeErrors.gone()]) {
      const h = start({ objects: 2 });
      h.lw.failList(err);
      await h.settle();
      expect(h.clock.now()).toBe(new FakeClock().now()); // no wait in between
      expect(h.lw.listCalls).toEqual([
        { resourceVersion: '0', limit: 500 },
        { resourceVersion: '', limit: 500 },
      ]);
      expect(h.store.replaces).toHaveLength(1);
      expect(h.errors[0]?.ctx).toEqual({ phase: 'list', action: 'retry-list', reflector: 'fake' });
      expect(h.events.some((e) => e.kind === 'list-failed' && e.message.includes('relisting at resourceVersion ""'))).toBe(true);
      // The flag is cleared by the successful list: the next relist is at the last RV again.
      h.lw.sendError(fakeErrors.expired());
      await h.clock.step(800);
      expect(h.lw.listCalls[2]).toEqual({ resourceVersion: '102' });
      await h.stop();
    }
  });

  it('all three "too large RV" formats give a relist at ""', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    for (const format of ['cause', 'cause-message', 'message'] as const) {
      h.lw.failList(fakeErrors.tooLargeResourceVersion(format));
      h.lw.sendError(fakeErrors.expired());
      await h.clock.step(60_000);
    }
    expect(rvsOf(h.lw.listCalls)).toEqual(['0', '101', '', '101', '', '101', '']);
    expect(h.errors.filter((e) => e.ctx.action === 'retry-list')).toHaveLength(3);
  });

  it('a relist uses the last-sync RV and is unpaginated (served by the watch cache)', async () => {
    const h = start({ objects: 2 });
    await h.settle();
    h.lw.add(pod('new'));
    h.lw.modify(pod('p0', { spec: { x: 1 } }));
    await h.settle();
    expect(h.r.lastSyncResourceVersion()).toBe('104');
    h.lw.sendError(fakeErrors.expired());
    await h.settle();
    expect(h.lw.listCalls).toHaveLength(1); // not before the backoff
    await h.clock.step(799);
    expect(h.lw.listCalls).toHaveLength(1);
    await h.clock.step(1);
    expect(h.lw.listCalls[1]).toEqual({ resourceVersion: '104' });
  });

  it('specific-RV lists are paginated once an RV="0" list came back paginated (sticky)', async () => {
    const h = start({ objects: 501, lw: { watchCache: false } });
    await h.settle();
    expect(h.lw.listCalls.slice(0, 2)).toEqual([
      { resourceVersion: '0', limit: 500 },
      { limit: 500, continue: 'continue-1' },
    ]);
    h.lw.sendError(fakeErrors.expired());
    await h.clock.step(800);
    expect(h.lw.listCalls[2]).toEqual({ resourceVersion: '601', limit: 500 });
    h.lw.sendError(fakeErrors.expired());
    await h.clock.step(5000);
    expect(h.lw.listCalls[4]).toEqual({ resourceVersion: '601', limit: 500 });
  });

  it('specific-RV lists stay unpaginated when the RV="0" list was not paginated', async () => {
    const h = start({ objects: 501 }); // watch cache on: RV=0 ignores the limit
    await h.settle();
    expect(h.lw.listCalls).toEqual([{ resourceVersion: '0', limit: 500 }]);
    h.lw.sendError(fakeErrors.expired());
    await h.clock.step(800);
    expect(h.lw.listCalls[1]).toEqual({ resourceVersion: '601' });
  });

  it('a failed list goes to the error handler and is retried after backoff', async () => {
    const h = start({ objects: 1 });
    h.lw.failList(fakeErrors.internalError(), fakeErrors.forbidden());
    await h.settle();
    expect(h.lw.listCalls).toHaveLength(1);
    expect(h.errors[0]?.ctx).toEqual({ phase: 'list', action: 'relist', reflector: 'fake' });
    await h.clock.step(800);
    expect(h.lw.listCalls).toHaveLength(2);
    await h.clock.step(1599);
    expect(h.lw.listCalls).toHaveLength(2);
    await h.clock.step(1);
    expect(h.lw.listCalls).toHaveLength(3);
    expect(h.store.replaces).toHaveLength(1);
    expect(h.r.stats.errors).toBe(2);
    expect(h.r.stats.lastError).toMatchObject({ code: 403, reason: 'Forbidden', phase: 'list' });
  });
});

describe('Reflector watch', () => {
  it('watch timeout lies in [min, 1.5·min); a minimum under 30 s is ignored', async () => {
    const cases: [number | undefined, number, number][] = [
      [undefined, 0, 30],
      [undefined, 0.9999, 44],
      [1000, 0, 30],
      [30 * 60_000, 0.5, 2250],
    ];
    for (const [min, rand, expected] of cases) {
      const h = start({ reflector: { ...(min !== undefined ? { minWatchTimeout: min } : {}), random: () => rand } });
      await h.settle();
      expect(h.lw.watchCalls[0]?.timeoutSeconds).toBe(expected);
      await h.stop();
    }
  });

  it('events go to add/update/delete with their watch type and receive time; lastSync RV follows every event', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    await h.clock.step(5);
    h.lw.add(pod('a'));
    h.lw.modify(pod('a', { spec: { v: 2 } }));
    h.lw.bookmark();
    h.lw.delete('ns/a');
    await h.settle();
    expect(h.store.calls).toEqual(['replace 1 @101', 'add a', 'update a', 'delete a']);
    expect(h.store.infos.map((i) => i.eventType)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(h.store.infos[0]?.receivedAt).toBe(h.clock.now());
    // ResourceVersionUpdater gets every event's RV, bookmarks included.
    expect(h.store.rvs).toEqual(['102', '103', '103', '104']);
    expect(h.r.lastSyncResourceVersion()).toBe('104');
    expect(h.r.stats.events).toEqual({ ADDED: 1, MODIFIED: 1, DELETED: 1, BOOKMARK: 1, ERROR: 0 });
    expect(h.r.stats.bookmarks).toBe(1);
  });

  it('a BOOKMARK moves lastSync RV without touching the store', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    h.lw.silently((f) => f.add(pod('unseen')));
    h.lw.bookmark();
    await h.settle();
    expect(h.store.calls).toEqual(['replace 1 @101']);
    expect(h.r.lastSyncResourceVersion()).toBe('102');
  });

  it('a watch started at "" does not move the RV on Added events until its first other event', async () => {
    const events: WatchEvent[] = [
      { type: 'ADDED', object: { metadata: { name: 'x', resourceVersion: '50' } } },
      { type: 'ADDED', object: { metadata: { name: 'y', resourceVersion: '40' } } },
      { type: 'MODIFIED', object: { metadata: { name: 'x', resourceVersion: '60' } } },
      { type: 'ADDED', object: { metadata: { name: 'z', resourceVersion: '61' } } },
    ];
    const seen: string[] = [];
    let r!: Reflector;
    const lw: ListerWatcher = {
      description: 'scripted',
      list: async () => ({ items: [], resourceVersion: '' }),
      watch: async (o) => {
        expect(o.resourceVersion).toBe('');
        let stopped!: () => void;
        const stop = new Promise<void>((resolve) => (stopped = resolve));
        return {
          stop: () => stopped(),
          async *[Symbol.asyncIterator]() {
            for (const e of events) {
              yield e;
              seen.push(r.lastSyncResourceVersion());
            }
            await stop;
          },
        };
      },
    };
    const h = start({ listerWatcher: lw });
    r = h.r;
    await h.settle();
    expect(seen).toEqual(['', '', '60', '61']);
  });

  it('connection refused or 429 on watch open: backoff, then re-watch without a relist', async () => {
    const h = start({ objects: 1 });
    h.lw.failWatch(fakeErrors.connectionRefused(), fakeErrors.tooManyRequests());
    await h.settle();
    expect(h.lw.watchCalls).toHaveLength(1);
    await h.clock.step(800);
    expect(h.lw.watchCalls).toHaveLength(2);
    await h.clock.step(1600);
    expect(h.lw.watchCalls).toHaveLength(3);
    expect(rvsOf(h.lw.watchCalls)).toEqual(['101', '101', '101']);
    expect(h.lw.listCalls).toHaveLength(1);
    expect(h.errors.map((e) => e.ctx)).toEqual([
      { phase: 'watch-open', action: 'rewatch', reflector: 'fake' },
      { phase: 'watch-open', action: 'rewatch', reflector: 'fake' },
    ]);
    expect(h.lw.openWatches()).toHaveLength(1);
  });

  it('other watch open errors relist after backoff', async () => {
    const h = start({ objects: 1 });
    h.lw.failWatch(fakeErrors.forbidden());
    await h.settle();
    expect(h.errors[0]?.ctx).toEqual({ phase: 'watch-open', action: 'relist', reflector: 'fake' });
    await h.clock.step(800);
    expect(h.lw.listCalls).toEqual([{ resourceVersion: '0', limit: 500 }, { resourceVersion: '101' }]);
    expect(h.lw.watchCalls).toHaveLength(2);
  });

  it('an ERROR event gives a relist that replaces the store (a missed deletion disappears)', async () => {
    const clock = new FakeClock();
    const lw = new FakeListerWatcher({ objects: [pod('a'), pod('b')] });
    const store = newStore();
    const r = new Reflector(lw, store, { clock, random: () => 0 });
    const abort = new AbortController();
    const done = r.run(abort.signal);
    await clock.step(0);
    expect(store.listKeys().sort()).toEqual(['ns/a', 'ns/b']);
    lw.silently((f) => f.delete('ns/b'));
    lw.sendError(fakeErrors.expired());
    await clock.step(800);
    expect(store.listKeys()).toEqual(['ns/a']);
    expect(r.stats.events.ERROR).toBe(1);
    expect(r.stats.relists).toBe(1);
    abort.abort();
    await clock.step(0);
    await done;
  });

  it('a watch closed normally is re-opened from lastSync without a relist', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    h.lw.add(pod('a'));
    await h.clock.step(2000);
    h.lw.closeWatches();
    await h.settle();
    expect(h.lw.listCalls).toHaveLength(1);
    expect(rvsOf(h.lw.watchCalls)).toEqual(['101', '102']);
    expect(h.r.stats.watchRestarts).toBe(1);
    expect(h.errors).toHaveLength(0);
  });

  it('a long quiet watch closed normally (no events, > 1 s) is also just re-opened', async () => {
    const h = start({ objects: 1, lw: { clock: undefined } });
    await h.settle();
    await h.clock.step(20_000);
    h.lw.closeWatches();
    await h.settle();
    expect(h.lw.listCalls).toHaveLength(1);
    expect(h.lw.watchCalls).toHaveLength(2);
  });

  it('the server ending a watch at its timeout leads to a re-watch', async () => {
    const clock = new FakeClock();
    const lw = new FakeListerWatcher({ objects: [pod('a')], clock });
    const r = new Reflector(lw, newStore(), { clock, random: () => 0 });
    const abort = new AbortController();
    const done = r.run(abort.signal);
    await clock.step(0);
    await clock.step(30_000);
    expect(lw.watchCalls).toHaveLength(2);
    expect(lw.listCalls).toHaveLength(1);
    abort.abort();
    await clock.step(0);
    await done;
  });

  it('a close within 1 s with no events is an error: relist after backoff', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    await h.clock.step(999);
    h.lw.closeWatches();
    await h.settle();
    expect(h.errors[0]?.ctx).toEqual({ phase: 'watch', action: 'relist', reflector: 'fake' });
    expect(String((h.errors[0]!.err as Error).message)).toContain('very short watch');
    await h.clock.step(800);
    expect(h.lw.listCalls).toHaveLength(2);
  });

  it('a dropped connection counts as a normal close: re-watch, no relist', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    h.lw.add(pod('a'));
    await h.settle();
    h.lw.dropWatches();
    await h.settle();
    expect(h.lw.listCalls).toHaveLength(1);
    expect(rvsOf(h.lw.watchCalls)).toEqual(['101', '102']);
    expect(h.errors[0]?.ctx).toEqual({ phase: 'watch', action: 'rewatch', reflector: 'fake' });
    expect(h.events.some((e) => e.kind === 'watch-closed' && e.level === 'warning')).toBe(true);
  });

  it('Expired/Gone during a watch: relist after backoff at the last RV, not ""', async () => {
    for (const err of [fakeErrors.expired(), fakeErrors.gone()]) {
      const h = start({ objects: 1 });
      await h.settle();
      h.lw.add(pod('a'));
      h.lw.sendError(err);
      await h.settle();
      expect(h.errors[0]?.ctx).toEqual({ phase: 'watch', action: 'relist', reflector: 'fake' });
      expect(h.events.find((e) => e.kind === 'watch-failed')?.message).toMatch(/410 (Expired|Gone); relisting at resourceVersion "102" after backoff/);
      expect(h.events.find((e) => e.kind === 'watch-failed')?.level).toBe('info');
      await h.clock.step(800);
      expect(h.lw.listCalls[1]).toEqual({ resourceVersion: '102' });
      await h.stop();
    }
  });

  it('a watch from a compacted RV gets 410 and relists at that RV (which works, as "not older than")', async () => {
    const h = start({ objects: 1 });
    h.lw.failWatch(fakeErrors.connectionRefused());
    await h.settle();
    h.lw.add(pod('b'));
    h.lw.compact();
    await h.clock.step(800); // re-watch at 101 < compacted 102
    expect(h.r.stats.events.ERROR).toBe(1);
    await h.clock.step(1600);
    expect(h.lw.listCalls[1]).toEqual({ resourceVersion: '101' });
    expect(h.store.keys()).toEqual(['ns/b', 'ns/p0']);
  });

  it('429 during a watch: backoff then re-watch, no relist', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    h.lw.add(pod('a'));
    h.lw.sendError(fakeErrors.tooManyRequests());
    await h.settle();
    expect(h.lw.watchCalls).toHaveLength(1);
    await h.clock.step(800);
    expect(rvsOf(h.lw.watchCalls)).toEqual(['101', '102']);
    expect(h.lw.listCalls).toHaveLength(1);
    expect(h.errors[0]?.ctx.action).toBe('rewatch');
  });

  it('HTTP 500 during a watch relists by default', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    h.lw.sendError(fakeErrors.internalError());
    await h.clock.step(800);
    expect(h.lw.listCalls).toHaveLength(2);
  });

  it('HTTP 500 is re-watched at once within maxInternalErrorRetryDuration, then relists', async () => {
    const h = start({ objects: 1, reflector: { maxInternalErrorRetryDuration: 5000 } });
    await h.settle();
    h.lw.sendError(fakeErrors.internalError());
    await h.settle();
    expect(h.lw.watchCalls).toHaveLength(2);
    expect(h.lw.listCalls).toHaveLength(1);
    await h.clock.step(6000);
    h.lw.sendError(fakeErrors.internalError());
    await h.settle();
    expect(h.lw.watchCalls).toHaveLength(2);
    expect(h.errors[1]?.ctx.action).toBe('relist');
    await h.clock.step(800);
    expect(h.lw.listCalls).toHaveLength(2);
  });

  it('another error thrown by the watch stream relists', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    h.lw.dropWatches(fakeErrors.badRequest('garbage on the stream'));
    await h.settle();
    expect(h.errors[0]?.ctx).toEqual({ phase: 'watch', action: 'relist', reflector: 'fake' });
    await h.clock.step(800);
    expect(h.lw.listCalls).toHaveLength(2);
  });

  it('skips objects of another kind and Table objects when a GVK is expected', async () => {
    const h = start({ objects: 0, reflector: { expectedGVK: { apiVersion: 'v1', kind: 'Pod' } } });
    await h.settle();
    h.lw.add({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ok' } });
    h.lw.add({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'no' } });
    h.lw.add({ apiVersion: 'meta.k8s.io/v1', kind: 'Table', metadata: { name: 't' } });
    await h.settle();
    expect(h.store.calls).toEqual(['replace 0 @100', 'add ok']);
    expect(h.errors.filter((e) => e.ctx.action === 'continue')).toHaveLength(2);
  });
});

describe('Reflector backoff, resync, stop', () => {
  it('backoff: 800 ms doubling, capped at 30 s, jitter in [d, 2d), reset 2 min after the last reset', async () => {
    const clock = new FakeClock(0);
    let rand = 0;
    const b = new BackoffManager(clock, () => rand);
    expect([b.step(), b.step(), b.step(), b.step(), b.step(), b.step(), b.step(), b.step()]).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    rand = 0.5;
    expect(b.step()).toBe(45000);
    rand = 0.999;
    expect(b.step()).toBeCloseTo(59970);
    // Not measured from the last failure: steps every 10 s still reset 2 min after the last reset.
    rand = 0;
    await clock.step(120_001);
    expect(b.step()).toBe(800);
    await clock.step(60_000);
    expect(b.step()).toBe(1600);
    await clock.step(60_000);
    expect(b.step()).toBe(3200);
    await clock.step(1);
    expect(b.step()).toBe(800);
  });

  it('run waits a backoff delay (timer after the call) between failing ListAndWatch calls', async () => {
    const h = start({ objects: 1 });
    h.lw.failList(...Array.from({ length: 10 }, () => fakeErrors.internalError()));
    const t0 = h.clock.now();
    const times: number[] = [];
    for (let i = 0; i < 60; i++) {
      await h.clock.step(400);
      times.push(h.lw.listCalls.length);
    }
    // list calls at 0, 800, 2400, 5600, 12000, 24800 (ms after start)
    const at = (ms: number) => times[Math.floor(ms / 400) - 1];
    expect(at(400)).toBe(1);
    expect(at(800)).toBe(2);
    expect(at(2000)).toBe(2);
    expect(at(2400)).toBe(3);
    expect(at(5600)).toBe(4);
    expect(at(12000)).toBe(5);
    expect(at(23600)).toBe(5);
    expect(h.clock.now() - t0).toBe(24000);
    expect(h.events.filter((e) => e.kind === 'backoff').map((e) => e.delayMs)).toEqual([800, 1600, 3200, 6400, 12800]);
  });

  it('resync follows its timer and ShouldResync', async () => {
    let allow = true;
    const h = start({ objects: 1, reflector: { resyncPeriod: 1000, shouldResync: () => allow } });
    await h.settle();
    await h.clock.step(3500);
    expect(h.store.resyncs).toBe(3);
    allow = false;
    await h.clock.step(2000);
    expect(h.store.resyncs).toBe(3);
    allow = true;
    await h.clock.step(1000);
    expect(h.store.resyncs).toBe(4);
    expect(h.r.stats.resyncs).toBe(4);
  });

  it('no resync without a period', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    await h.clock.step(600_000);
    expect(h.store.resyncs).toBe(0);
  });

  it('a Resync error ends the watch and relists after backoff', async () => {
    const h = start({ objects: 1, reflector: { resyncPeriod: 1000 } });
    await h.settle();
    h.lw.add(pod('a'));
    await h.settle();
    h.store.failResync = new Error('resync broke');
    await h.clock.step(1000);
    expect(h.errors[0]?.ctx).toEqual({ phase: 'resync', action: 'relist', reflector: 'fake' });
    expect(h.lw.openWatches()).toHaveLength(0);
    h.store.failResync = undefined;
    await h.clock.step(800);
    expect(h.lw.listCalls).toHaveLength(2);
    expect(h.lw.openWatches()).toHaveLength(1);
  });

  it('abort stops run promptly, in any phase, and closes the watch', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    expect(h.lw.openWatches()).toHaveLength(1);
    await h.stop();
    expect(h.lw.openWatches()).toHaveLength(0);

    const h2 = start({ objects: 1 });
    h2.lw.failList(fakeErrors.internalError());
    await h2.settle(); // now waiting in backoff
    await h2.stop();
    expect(h2.lw.listCalls).toHaveLength(1);
    expect(h2.clock.pendingTimers()).toBe(0);
  });

  it('every error reaches the handler, the stats and the event hook', async () => {
    const h = start({ objects: 1 });
    h.lw.failWatch(fakeErrors.tooManyRequests());
    await h.settle();
    expect(h.errors).toHaveLength(1);
    expect(h.r.stats.errors).toBe(1);
    expect(h.r.stats.lastError).toMatchObject({ code: 429, reason: 'TooManyRequests', phase: 'watch-open', at: h.clock.now() });
    const ev = h.events.find((e) => e.kind === 'watch-failed');
    expect(ev?.message).toBe('watch failed: 429 TooManyRequests; backing off 800ms then watching again without a relist');
    expect(ev?.level).toBe('warning');
    expect((ev!.error as ApiError).code).toBe(429);
  });
});

describe('Reflector streaming list (useWatchList)', () => {
  const streaming = { useWatchList: true } satisfies Partial<ReflectorOptions>;

  it('streams with sendInitialEvents, NotOlderThan, RV "" first; syncs at the end bookmark and keeps the watch', async () => {
    const h = start({ objects: 3, reflector: streaming });
    await h.settle();
    expect(h.lw.watchCalls).toEqual([
      { resourceVersion: '', allowWatchBookmarks: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', timeoutSeconds: 30 },
    ]);
    expect(h.lw.listCalls).toHaveLength(0);
    expect(h.store.calls).toEqual(['replace 3 @103']);
    expect(h.r.lastSyncResourceVersion()).toBe('103');
    h.lw.add(pod('later'));
    await h.settle();
    expect(h.store.calls).toEqual(['replace 3 @103', 'add later']);
    expect(h.lw.watchCalls).toHaveLength(1); // the same watch
    expect(h.events.some((e) => e.kind === 'streamed')).toBe(true);
  });

  it('is not synced before the bookmark; a stream closed before it is retried', async () => {
    const h = start({ objects: 2, reflector: streaming, lw: { watchListSupport: 'ignored' } });
    await h.settle();
    await h.clock.step(20_000);
    expect(h.store.calls).toEqual([]);
    h.lw.watchListSupport = 'supported';
    h.lw.closeWatches();
    await h.settle();
    expect(h.lw.watchCalls).toHaveLength(2);
    expect(h.lw.watchCalls[1]?.sendInitialEvents).toBe(true);
    expect(h.store.calls).toEqual(['replace 2 @102']);
    expect(h.lw.listCalls).toHaveLength(0);
  });

  it('429 or connection refused: backoff and stream again', async () => {
    const h = start({ objects: 1, reflector: streaming });
    h.lw.failWatch(fakeErrors.tooManyRequests(), fakeErrors.connectionRefused());
    await h.settle();
    expect(h.lw.watchCalls).toHaveLength(1);
    await h.clock.step(800);
    expect(h.lw.watchCalls).toHaveLength(2);
    await h.clock.step(1600);
    expect(h.lw.watchCalls.map((c) => c.sendInitialEvents)).toEqual([true, true, true]);
    expect(h.store.calls).toEqual(['replace 1 @101']);
    expect(h.errors.map((e) => e.ctx.action)).toEqual(['retry-stream', 'retry-stream']);
    expect(h.lw.listCalls).toHaveLength(0);
  });

  it('expired or too large: set the flag and stream again at once from ""', async () => {
    const h = start({ objects: 1, reflector: streaming });
    await h.settle();
    // End the kept watch with an error that needs a relist, so the next stream starts at the last RV.
    h.lw.sendError(fakeErrors.internalError());
    h.lw.failWatch(fakeErrors.tooLargeResourceVersion('message'), fakeErrors.expired());
    await h.clock.step(800);
    expect(rvsOf(h.lw.watchCalls)).toEqual(['', '101', '', '']);
    expect(h.lw.listCalls).toHaveLength(0);
    expect(h.store.replaces).toHaveLength(2);
  });

  it('an Expired ERROR event inside the stream also retries from ""', async () => {
    const h = start({ objects: 1, reflector: streaming, lw: { watchListSupport: 'ignored' } });
    await h.settle();
    h.lw.sendError(fakeErrors.expired());
    h.lw.watchListSupport = 'supported';
    await h.settle();
    expect(rvsOf(h.lw.watchCalls)).toEqual(['', '']);
    expect(h.store.replaces).toHaveLength(1);
  });

  it('other errors, or a server that does not support streaming, fall back to list and watch', async () => {
    const h = start({ objects: 2, reflector: streaming, lw: { watchListSupport: 'rejected' } });
    await h.settle();
    expect(h.errors[0]?.ctx).toEqual({ phase: 'watch-list', action: 'fallback-to-list', reflector: 'fake' });
    expect(h.lw.listCalls).toEqual([{ resourceVersion: '0', limit: 500 }]);
    expect(h.lw.watchCalls[1]).toEqual({ resourceVersion: '102', timeoutSeconds: 30, allowWatchBookmarks: true });
    expect(h.store.calls).toEqual(['replace 2 @102']);
    expect(h.events.some((e) => e.kind === 'stream-failed' && e.message.includes('falling back to list and watch'))).toBe(true);
  });

  it("streamed objects go through the store's transformer in the temporary store", async () => {
    const clock = new FakeClock();
    const lw = new FakeListerWatcher({ objects: [pod('a', { big: 'x'.repeat(10) })] });
    let calls = 0;
    const store = newStore(undefined, {
      transformer: (o) => {
        calls++;
        const { big: _b, ...rest } = o;
        return rest as KubeObject;
      },
    });
    const r = new Reflector(lw, store, { clock, useWatchList: true });
    const abort = new AbortController();
    const done = r.run(abort.signal);
    await clock.step(0);
    expect(store.getByKey('ns/a')?.big).toBeUndefined();
    expect(calls).toBe(2); // temporary store, then the store's own Replace (as in client-go)
    abort.abort();
    await clock.step(0);
    await done;
  });
});

describe('Reflector stalled watches (half-open connections, hung servers)', () => {
  // random() = 0: every watch asks for timeoutSeconds=30, so a stall is due 30 s + 15 s after it opened.
  const stalls = (h: Harness) => h.events.filter((e) => e.kind === 'watch-closed' && /stalled|no answer/.test(e.message));

  it('a watch that goes silent is replaced after its timeout + grace, from the last RV, on a new request; nothing is lost', async () => {
    const h = start({ objects: 1, serverTimeouts: true });
    await h.settle();
    h.lw.modify(pod('p0', { v: 1 })); // RV 102, delivered
    await h.settle();
    expect(h.r.lastSyncResourceVersion()).toBe('102');
    h.lw.freezeWatches();
    // Written while the connection is half-open: the old watch never delivers them.
    h.lw.add(pod('late-1')); // 103
    h.lw.modify(pod('p0', { v: 2 })); // 104
    await h.clock.step(44_999);
    expect(h.lw.watchCalls).toHaveLength(1);
    expect(h.store.keys()).toEqual(['ns/p0']);
    expect(h.r.stats.watchStalls).toBe(0);

    await h.clock.step(1);
    expect(h.lw.watches[0]!.stopped).toBe(true);
    expect(h.lw.watchCalls).toHaveLength(2);
    expect(h.lw.watchCalls[1]).toEqual({ resourceVersion: '102', timeoutSeconds: 30, allowWatchBookmarks: true });
    // The new watch replays what the dead one held back: nothing lost, no relist.
    expect(h.store.keys()).toEqual(['ns/late-1', 'ns/p0']);
    expect(h.store.inner.getByKey('ns/p0')?.v).toBe(2);
    expect(h.r.lastSyncResourceVersion()).toBe('104');
    expect(h.lw.listCalls).toHaveLength(1);

    // Counted, said once, handed to the handler.
    expect(h.r.stats.watchStalls).toBe(1);
    expect(stalls(h)).toHaveLength(1);
    const said = stalls(h)[0]!;
    expect(said.level).toBe('warning');
    expect(said.message).toBe(
      'watch stalled: nothing arrived for 45.0s, and the server did not end it at its 30s timeout (a half-open connection or a hung API server); watching again from resourceVersion "102" on a new connection',
    );
    expect(h.errors.map((e) => e.ctx)).toEqual([{ phase: 'watch', action: 'rewatch', reflector: 'fake' }]);
    expect(h.r.stats.lastError?.phase).toBe('watch');

    // The new connection is healthy: the server ends it at its timeout, no further stall.
    await h.clock.step(30_000);
    expect(h.lw.watchCalls).toHaveLength(3);
    expect(h.r.stats.watchStalls).toBe(1);
    await h.stop();
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('a watch that delivers bookmarks is not replaced early: the server ends it, and the re-watch starts at the bookmark', async () => {
    const h = start({ objects: 1, serverTimeouts: true });
    await h.settle();
    for (let round = 0; round < 8; round++) {
      // As kube-apiserver: a bookmark 2 s before the timeout, then the end at the timeout.
      await h.clock.step(28_000);
      h.lw.silently((f) => f.add(pod(`other-${round}`)));
      h.lw.bookmark();
      await h.clock.step(2_000);
      expect(h.lw.watchCalls[round + 1]?.resourceVersion).toBe(h.lw.resourceVersion);
    }
    expect(h.lw.watchCalls).toHaveLength(9);
    expect(h.r.stats.watchStalls).toBe(0);
    expect(stalls(h)).toHaveLength(0);
    expect(h.errors).toHaveLength(0);
  });

  it('a watch that keeps delivering past its timeout is alive; once it goes silent, it stalls 15 s after its last event', async () => {
    const h = start({ objects: 1 }); // a server that does not end watches by itself
    await h.settle();
    for (let i = 0; i < 12; i++) {
      await h.clock.step(10_000);
      h.lw.bookmark();
    }
    // 120 s, far past 30 s + 15 s: still the first watch.
    expect(h.lw.watchCalls).toHaveLength(1);
    await h.clock.step(14_999);
    expect(h.lw.watchCalls).toHaveLength(1);
    await h.clock.step(1);
    expect(h.lw.watchCalls).toHaveLength(2);
    expect(h.r.stats.watchStalls).toBe(1);
    expect(stalls(h)[0]!.message).toMatch(/^watch stalled: nothing arrived for 15\.0s/);
  });

  it('bytes of an event still arriving count as progress', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    await h.clock.step(40_000);
    h.lw.lastWatch()!.trickle();
    await h.clock.step(14_999);
    expect(h.lw.watchCalls).toHaveLength(1);
    await h.clock.step(1);
    expect(h.lw.watchCalls).toHaveLength(2);
    expect(h.r.stats.watchStalls).toBe(1);
  });

  it('a watch request that gets no answer is given up after the same time and sent again', async () => {
    const h = start({ objects: 1 });
    h.lw.hangWatchOpens(1);
    await h.settle();
    expect(h.lw.watchCalls).toHaveLength(1);
    await h.clock.step(44_999);
    expect(h.lw.watchCalls).toHaveLength(1);
    await h.clock.step(1);
    expect(h.lw.watchCalls).toHaveLength(2);
    expect(h.lw.watchCalls[1]!.resourceVersion).toBe('101');
    expect(h.lw.openWatches()).toHaveLength(1);
    expect(h.r.stats.watchStalls).toBe(1);
    expect(stalls(h).map((e) => e.message)).toEqual([
      'watch request got no answer within 45.0s (a half-open connection or a hung API server); watching again from resourceVersion "101" on a new connection',
    ]);
    expect(h.errors.map((e) => e.ctx)).toEqual([{ phase: 'watch-open', action: 'rewatch', reflector: 'fake' }]);
    h.lw.add(pod('after'));
    await h.settle();
    expect(h.store.keys()).toEqual(['ns/after', 'ns/p0']);
  });

  it('a streaming list that stalls streams again', async () => {
    const h = start({ objects: 2, reflector: { useWatchList: true } });
    h.lw.hangWatchOpens(1);
    await h.settle();
    await h.clock.step(45_000);
    expect(h.lw.watchCalls).toHaveLength(2);
    expect(h.lw.watchCalls[1]).toMatchObject({ sendInitialEvents: true, resourceVersion: '' });
    expect(h.store.replaces).toEqual([{ names: ['p0', 'p1'], rv: '102' }]);
    expect(h.errors.map((e) => e.ctx)).toEqual([{ phase: 'watch-list', action: 'retry-stream', reflector: 'fake' }]);
    expect(h.r.stats.watchStalls).toBe(1);
    // The stream's watch is read on, and judged by the same rule.
    h.lw.freezeWatches();
    await h.clock.step(45_000);
    expect(h.lw.watchCalls).toHaveLength(3);
    expect(h.lw.watchCalls[2]).toEqual({ resourceVersion: '102', timeoutSeconds: 30, allowWatchBookmarks: true });
    expect(h.r.stats.watchStalls).toBe(2);
  });

  it('a watch whose connection was found dead (an HTTP/2 PING unanswered) is a stall too: counted, said once, re-watched at once', async () => {
    const h = start({ objects: 1 });
    await h.settle();
    h.lw.modify(pod('p0', { v: 1 })); // RV 102
    await h.settle();
    h.lw.dropWatches(
      new ConnectionStalledError('watch stalled: the connection did not answer a ping within 15.0s (a half-open connection or a hung API server)'),
    );
    await h.settle();
    expect(h.lw.watchCalls).toHaveLength(2);
    expect(h.lw.watchCalls[1]!.resourceVersion).toBe('102');
    expect(h.lw.listCalls).toHaveLength(1);
    expect(h.r.stats.watchStalls).toBe(1);
    expect(stalls(h).map((e) => [e.level, e.message])).toEqual([
      [
        'warning',
        'watch stalled: the connection did not answer a ping within 15.0s (a half-open connection or a hung API server); watching again from resourceVersion "102" on a new connection',
      ],
    ]);
    expect(h.events.some((e) => /connection lost/.test(e.message))).toBe(false);
    expect(h.errors.map((e) => e.ctx)).toEqual([{ phase: 'watch', action: 'rewatch', reflector: 'fake' }]);

    // A watch request on such a connection fails the same way: a stall, not a backoff.
    h.lw.failWatch(new ConnectionStalledError('the connection did not answer a ping within 15.0s (a half-open connection or a hung API server)'));
    await h.clock.step(5_000); // not a "very short watch"
    h.lw.closeWatches();
    await h.settle();
    expect(h.r.stats.watchStalls).toBe(2);
    expect(stalls(h)[1]!.message).toBe(
      'watch stalled: the connection did not answer a ping within 15.0s (a half-open connection or a hung API server); watching again from resourceVersion "102" on a new connection',
    );
    expect(h.errors.map((e) => e.ctx.phase)).toEqual(['watch', 'watch-open']);
    expect(h.lw.openWatches()).toHaveLength(1);
    h.lw.add(pod('after'));
    await h.settle();
    expect(h.store.keys()).toEqual(['ns/after', 'ns/p0']);
  });

  it('watchStallGrace 0 turns the timer off', async () => {
    const h = start({ objects: 1, reflector: { watchStallGrace: 0 } });
    await h.settle();
    h.lw.freezeWatches();
    await h.clock.step(600_000);
    expect(h.lw.watchCalls).toHaveLength(1);
    expect(h.r.stats.watchStalls).toBe(0);
  });
});

describe('fake ListerWatcher', () => {
  it('records options, paginates over a snapshot and replays history from an RV', async () => {
    const lw = new FakeListerWatcher({ objects: [pod('a'), pod('b'), pod('c')], watchCache: false });
    const p1: ListResult = await lw.list({ resourceVersion: '0', limit: 2 });
    lw.add(pod('d'));
    const p2 = await lw.list({ limit: 2, continue: p1.continue as string });
    expect(p1.items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
    expect(p2.items.map((o) => o.metadata.name)).toEqual(['c']);
    expect(p2.resourceVersion).toBe('103');
    const w = await lw.watch({ resourceVersion: '103' } satisfies WatchOptions);
    const it = w[Symbol.asyncIterator]();
    expect((await it.next()).value).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'd', resourceVersion: '104' } } });
    w.stop();
    expect((await it.next()).done).toBe(true);
    expect(lw.listCalls).toHaveLength(2);
  });
});
