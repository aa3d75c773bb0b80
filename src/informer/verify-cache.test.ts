import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { fakeErrors, FakeListerWatcher } from '../../tools/testing/fake-lister-watcher.js';
import { SharedIndexInformer } from './shared-informer.js';
import { compareCache, verifyCache } from './verify-cache.js';

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
