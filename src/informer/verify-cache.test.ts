import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { fakeErrors, FakeListerWatcher } from '../../tools/testing/fake-lister-watcher.js';
import { SharedIndexInformer } from './shared-informer.js';
import { caughtUpWith, compareCache, listNow, verifyCache } from './verify-cache.js';

describe('compareCache', () => {
  it('names keys missing from the cache, extra in it, and cached at another resourceVersion, sorted by key', () => {
    const cache = new Map([
      ['a/1', '10'],
      ['a/2', '11'],
      ['a/4', '13'],
    ]);
    const server = new Map([
      ['a/1', '10'],
      ['a/2', '15'],
      ['a/3', '12'],
    ]);
    expect(compareCache(cache, server)).toEqual([
      { key: 'a/2', problem: 'stale', cacheResourceVersion: '11', serverResourceVersion: '15' },
      { key: 'a/3', problem: 'missing', serverResourceVersion: '12' },
      { key: 'a/4', problem: 'extra', cacheResourceVersion: '13' },
    ]);
    expect(compareCache(cache, new Map(cache))).toEqual([]);
  });
});

describe('verifyCache', () => {
  const cm = (name: string, v = ''): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name }, data: { v } });

  it("lists at exactly the cache's resourceVersion and reports what the cache missed; a 410 starts over", async () => {
    const clock = new FakeClock();
    const lw = new FakeListerWatcher({ objects: [cm('a'), cm('b'), cm('c')] });
    const informer = new SharedIndexInformer(lw, { clock, random: () => 0 });
    const stop = new AbortController();
    const done = informer.run(stop.signal);
    await clock.step(0);
    lw.add(cm('d'));
    await clock.step(0);
    // Changes the informer never hears of: what a stale cache looks like.
    lw.silently((f) => {
      f.delete('ns/a');
      f.modify(cm('b', 'changed'));
      f.add(cm('e'));
    });
    const rv = informer.lastSyncResourceVersion();
    lw.failList(fakeErrors.expired());
    const listsBefore = lw.listCalls.length;
    const result = await verifyCache(informer, { signal: stop.signal, clock });
    expect(lw.listCalls.slice(listsBefore).map((c) => [c.resourceVersion, c.resourceVersionMatch])).toEqual([
      [rv, 'Exact'],
      [rv, 'Exact'],
    ]);
    expect(result.resourceVersion).toBe(rv);
    expect(result.cached).toBe(4);
    expect(result.listed).toBe(4);
    expect(result.differences.map((d) => `${d.problem} ${d.key}`)).toEqual(['extra ns/a', 'stale ns/b', 'missing ns/e']);
    stop.abort();
    await clock.step(0);
    await done;
  });
});

describe('caughtUpWith', () => {
  const cm = (name: string, v = ''): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name }, data: { v } });

  it('a healthy idle cache has caught up with a List made later; one behind a silent watch has not, until the watch is replaced', async () => {
    const clock = new FakeClock();
    const lw = new FakeListerWatcher({ objects: [cm('a'), cm('b')] });
    const informer = new SharedIndexInformer(lw, { clock, random: () => 0 });
    const stop = new AbortController();
    const done = informer.run(stop.signal);
    await clock.step(0);
    const idle = await listNow(informer, { signal: stop.signal });
    expect(caughtUpWith(informer, idle)).toBe(true);
    // Idle while the rest of the cluster moved on: the List's resourceVersion is newer than any
    // event of this resource, and the cache holds what it held.
    const cached = new Map(
      informer
        .getIndexer()
        .list()
        .map((o) => [`ns/${o.metadata.name}`, o.metadata.resourceVersion ?? '']),
    );
    expect(caughtUpWith(informer, { resourceVersion: '999', objects: cached })).toBe(true);
    expect(caughtUpWith(informer, { resourceVersion: '999', objects: new Map([...cached, ['ns/b', '998']]) })).toBe(false);
    expect(caughtUpWith(informer, { resourceVersion: '999', objects: new Map([['ns/a', cached.get('ns/a')!]]) })).toBe(false);

    // The watch goes half-open: a change on the server never arrives.
    lw.freezeWatches();
    lw.modify(cm('a', 'changed'));
    lw.add(cm('c'));
    const later = await listNow(informer, { signal: stop.signal });
    expect(later.objects.size).toBe(3);
    expect(caughtUpWith(informer, later)).toBe(false);
    // A deletion it did not hear of counts as behind too.
    lw.delete('ns/b');
    const afterDelete = await listNow(informer, { signal: stop.signal });
    expect(caughtUpWith(informer, afterDelete)).toBe(false);

    // The stalled watch is given up (timeout 30 s + 15 s) and opened again from its
    // resourceVersion: the replayed changes catch the cache up with both Lists.
    await clock.step(46_000);
    await clock.step(0);
    expect(informer.stats().watchStalls).toBe(1);
    expect(caughtUpWith(informer, later)).toBe(true);
    expect(caughtUpWith(informer, afterDelete)).toBe(true);
    stop.abort();
    await clock.step(0);
    await done;
  });
});
