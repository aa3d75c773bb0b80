import { describe, expect, it } from 'vitest';
import { resourceInfo } from '../../tools/testing/resource-info.js';
import { runUntilSynced } from '../informer/index.js';
import { ApiError, type Kube } from '../kube/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { FakeListerWatcher, fakeErrors } from '../../tools/testing/fake-lister-watcher.js';
import { chainInformer, ChainInformers } from './chain-informers.js';
import { childCandidates, discoverChildren, discoveredKinds, type FirstListGate, leftOut } from './child-discovery.js';

const kube = { connection: { server: 'https://fake:6443', userName: 'tester' } } as unknown as Kube;

const info = resourceInfo;

const cm = (name: string) => ({ kind: 'ConfigMap', metadata: { name, namespace: 'ns', uid: name } });

/** Steps the fake clock until the promise settles. */
async function settle(clock: FakeClock, p: Promise<unknown>, maxMs = 60_000): Promise<void> {
  let done = false;
  let error: Error | undefined;
  p.then(
    () => (done = true),
    (err: unknown) => ((done = true), (error = err instanceof Error ? err : new Error(String(err)))),
  );
  for (let t = 0; t <= maxMs && !done; t += 50) await clock.step(50);
  if (!done) throw new Error('still pending');
  if (error) throw error;
}

describe('discoverChildren', () => {
  it('names the candidates without asking the server anything but discovery', async () => {
    const widgets = info('example.com', 'widgets', 'Widget');
    const all = [widgets, info('', 'configmaps', 'ConfigMap'), info('', 'events', 'Event'), info('', 'nodes', 'Node', { namespaced: false })];
    let asked = 0;
    const kinds = await discoverChildren({ served: async () => (asked++, all) }, widgets);
    expect(asked).toBe(1);
    expect(kinds).toEqual(childCandidates(all, widgets));
    expect(kinds.map((k) => `${k.info.resource}:${k.metadataOnly}`)).toEqual(['widgets:false', 'configmaps:true']);
  });
});

describe('FirstListGate: a discovered kind whose first LIST is refused is left out', () => {
  it('a 403 on the first LIST: the kind is left out, its informer stops and lists no more, and the sync does not wait for it', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const refused = new FakeListerWatcher({ description: 'leases.coordination.k8s.io in ns' });
    refused.failList(fakeErrors.forbidden('leases.coordination.k8s.io is forbidden'));
    const listed = new FakeListerWatcher({ description: 'configmaps in ns', objects: [cm('a')] });
    const gated = chainInformer(refused, clock, { leaveOutIfRefused: true });
    const other = chainInformer(listed, clock, { leaveOutIfRefused: true });
    await settle(clock, runUntilSynced(kube, [gated, other], { signal: ac.signal, timeoutMs: 30_000, clock }));
    expect(clock.now() - Date.UTC(2026, 0, 1)).toBeLessThan(1_000);
    expect(leftOut(gated.getListerWatcher())).toBe('forbidden');
    expect((gated.getListerWatcher() as FirstListGate).refusal?.code).toBe(403);
    expect(gated.isStopped()).toBe(true);
    expect(gated.hasSynced()).toBe(false);
    expect(leftOut(other.getListerWatcher())).toBeUndefined();
    expect(other.hasSynced()).toBe(true);
    expect(other.getIndexer().size()).toBe(1);
    // Stopped, not backing off: a minute later it has still asked once, and watched never.
    await clock.step(60_000);
    expect(refused.listCalls).toHaveLength(1);
    expect(refused.watchCalls).toHaveLength(0);
    expect(other.isStopped()).toBe(false);
    ac.abort();
  });

  it('a 403 on a LIST after one succeeded is not a refusal: the informer keeps it and lists again', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const lw = new FakeListerWatcher({ description: 'configmaps in ns', objects: [cm('a')] });
    const informer = chainInformer(lw, clock, { leaveOutIfRefused: true });
    await settle(clock, runUntilSynced(kube, [informer], { signal: ac.signal, timeoutMs: 30_000, clock }));
    const gate = informer.getListerWatcher() as FirstListGate;
    // The watch breaks with 410: the relist is refused twice (RBAC changed), then allowed again.
    lw.failList(fakeErrors.forbidden(), fakeErrors.forbidden());
    lw.sendError(fakeErrors.expired());
    await clock.step(60_000);
    expect(lw.listCalls.length).toBeGreaterThanOrEqual(4);
    expect(gate.refusal).toBeUndefined();
    expect(gate.signal.aborted).toBe(false);
    expect(leftOut(gate)).toBeUndefined();
    expect(informer.isStopped()).toBe(false);
    expect(informer.hasSynced()).toBe(true);
    lw.add(cm('b'));
    await clock.step(10);
    expect(informer.getIndexer().size()).toBe(2);
    ac.abort();
  });

  it('404 and 405 on the first LIST leave the kind out as not listable; another error is retried as ever', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const notFound = new FakeListerWatcher({ description: 'a' });
    notFound.failList(new ApiError('the server could not find the requested resource', { code: 404, reason: 'NotFound' }));
    const notAllowed = new FakeListerWatcher({ description: 'b' });
    notAllowed.failList(new ApiError('method not allowed', { code: 405, reason: 'MethodNotAllowed' }));
    const flaky = new FakeListerWatcher({ description: 'c', objects: [cm('a')] });
    flaky.failList(fakeErrors.internalError(), fakeErrors.internalError());
    const informers = [notFound, notAllowed, flaky].map((lw) => chainInformer(lw, clock, { leaveOutIfRefused: true }));
    await settle(clock, runUntilSynced(kube, informers, { signal: ac.signal, timeoutMs: 30_000, clock }));
    expect(informers.map((i) => leftOut(i.getListerWatcher()))).toEqual(['not listable', 'not listable', undefined]);
    expect(informers.map((i) => i.isStopped())).toEqual([true, true, false]);
    expect(flaky.listCalls).toHaveLength(3);
    expect(informers[2]!.hasSynced()).toBe(true);
    ac.abort();
  });

  it('without the gate a first-LIST 403 still fails the sync, as for the kinds a trace knows', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const lw = new FakeListerWatcher({ description: 'pods in ns' });
    lw.failList(fakeErrors.forbidden('pods is forbidden'));
    await expect(settle(clock, runUntilSynced(kube, [chainInformer(lw, clock)], { signal: ac.signal, timeoutMs: 30_000, clock }))).rejects.toThrow(/forbidden/);
    expect(leftOut(lw)).toBeUndefined();
    ac.abort();
  });

  it('the chain drops the kinds left out after the sync, naming them with why', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const fakes: Record<string, FakeListerWatcher> = {
      widgets: new FakeListerWatcher(),
      configmaps: new FakeListerWatcher({ objects: [cm('a')] }),
      leases: new FakeListerWatcher(),
      secrets: new FakeListerWatcher(),
    };
    fakes.leases!.failList(fakeErrors.forbidden());
    fakes.secrets!.failList(fakeErrors.forbidden());
    const widgets = info('example.com', 'widgets', 'Widget');
    const chain = new ChainInformers('ns', (i) => fakes[i.resource]!, clock, { info: widgets, name: 'w' }, []);
    const kinds = [info('', 'configmaps', 'ConfigMap'), info('coordination.k8s.io', 'leases', 'Lease'), info('', 'secrets', 'Secret')].map((i) => ({
      info: i,
      metadataOnly: true,
    }));
    chain.addDiscovered(kinds);
    await settle(clock, runUntilSynced(kube, [chain.target, ...chain.children.map((c) => c.informer)], { signal: ac.signal, timeoutMs: 30_000, clock }));
    expect(chain.ownable(widgets).map((c) => c.info.resource)).toEqual(['configmaps', 'leases', 'secrets']);
    const dropped = chain.dropLeftOut();
    expect(dropped.map((d) => `${d.info.resource} ${d.why}`).sort()).toEqual(['leases forbidden', 'secrets forbidden']);
    expect(discoveredKinds(kinds, dropped)).toEqual({
      full: [],
      metadataOnly: ['configmaps'],
      refused: ['leases.coordination.k8s.io (forbidden)', 'secrets (forbidden)'],
    });
    expect(chain.children.map((c) => c.info.resource)).toEqual(['configmaps']);
    expect(chain.ownable(widgets).map((c) => c.info.resource)).toEqual(['configmaps']);
    expect(chain.dropLeftOut()).toEqual([]);
    ac.abort();
  });
});
