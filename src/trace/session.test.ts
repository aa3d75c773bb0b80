import { describe, expect, it } from 'vitest';
import { resourceInfo } from '../../tools/testing/resource-info.js';
import { CheckFailedError } from '../errors.js';
import type { Kube, KubeObject } from '../kube/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { FakeListerWatcher, fakeErrors } from '../../tools/testing/fake-lister-watcher.js';
import { rng } from '../../tools/testing/rng.js';
import { hopFigures, summarise, summaryLines } from '../view/trace-view.js';
import { hopFiguresOf } from './hop-figures.js';
import { LATE_EVENTS_MAX_MS, LATE_EVENTS_QUIET_MS, TraceSession, type Stall, type TraceSessionOptions } from './session.js';
import type { TraceEvent, TreeNode } from './types.js';
import { createReadiness, loadReadiness } from '../readiness/index.js';
import { InMemoryMetricsProvider } from '../workqueue/index.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const readiness = await createReadiness();

const info = resourceInfo;
const deploymentsInfo = info('apps', 'deployments', 'Deployment');
const eventsInfo = info('events.k8s.io', 'events', 'Event');

function deployment(generation: number, observed: number, extra: { template?: string; converged?: boolean; name?: string } = {}): KubeObject {
  return {
    kind: 'Deployment',
    metadata: { name: extra.name ?? 'web', namespace: 'ns', uid: 'dep', generation },
    spec: { replicas: 1, template: { metadata: { annotations: { v: extra.template ?? '1' } } } },
    status: {
      observedGeneration: observed,
      replicas: 1,
      updatedReplicas: extra.converged ? 1 : 0,
      readyReplicas: extra.converged ? 1 : 0,
      availableReplicas: extra.converged ? 1 : 0,
      conditions: [{ type: 'Progressing', status: 'True', reason: extra.converged ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated' }],
    },
  };
}

function replicaSet(uid: string): KubeObject {
  return {
    kind: 'ReplicaSet',
    metadata: {
      name: `web-${uid}`,
      namespace: 'ns',
      uid,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep', controller: true }],
    },
    spec: { replicas: 1 },
  };
}

function pod(name: string, rsUid: string, ready = false, created = '2026-01-01T00:00:00Z'): KubeObject {
  return {
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'ns',
      uid: name,
      creationTimestamp: created,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${rsUid}`, uid: rsUid, controller: true }],
    },
    spec: { nodeName: 'node-0' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

function event(uid: string, reason: string, note: string, regardingUid: string, count?: number): KubeObject {
  return {
    kind: 'Event',
    metadata: { name: uid, namespace: 'ns', uid },
    reason,
    note,
    regarding: { uid: regardingUid },
    eventTime: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    ...(count ? { series: { count, lastObservedTime: new Date(Date.UTC(2026, 0, 1)).toISOString() } } : {}),
  } as KubeObject;
}

/** A session watching for a change, no coalescing, a 10 s timeout; `o` sets the rest. */
function newSession(o: Pick<TraceSessionOptions, 'kube' | 'target' | 'listerWatcher' | 'clock'> & Partial<TraceSessionOptions>): TraceSession {
  return new TraceSession({
    coalesceMs: 0,
    settleMs: 3_000,
    trigger: { kind: 'watch' },
    timeoutMs: 10_000,
    syncTimeoutMs: 5_000,
    signal: new AbortController().signal,
    readiness,
    ...o,
  });
}

interface Harness {
  clock: FakeClock;
  fakes: Record<string, FakeListerWatcher>;
  session: TraceSession;
  events: TraceEvent[];
  interrupt: AbortController;
}

function harness(objects: { deployments?: KubeObject[] } = {}, options: Partial<TraceSessionOptions> = {}): Harness {
  const clock = new FakeClock();
  const fakes: Record<string, FakeListerWatcher> = {
    deployments: new FakeListerWatcher({ objects: objects.deployments ?? [deployment(1, 1, { converged: true })] }),
    replicasets: new FakeListerWatcher({ description: 'replicasets.apps in ns' }),
    pods: new FakeListerWatcher({ description: 'pods in ns' }),
    events: new FakeListerWatcher(),
    widgets: new FakeListerWatcher(),
    certificates: new FakeListerWatcher(),
  };
  const kube = { connection: { server: 'https://fake', userName: 'tester' }, discovery: { resolve: async () => eventsInfo } } as unknown as Kube;
  const interrupt = new AbortController();
  const session = newSession({
    kube,
    target: { info: deploymentsInfo, namespace: 'ns', name: 'web' },
    signal: interrupt.signal,
    clock,
    listerWatcher: (i) => fakes[i.resource]!,
    ...options,
  });
  const events: TraceEvent[] = [];
  session.subscribe((e) => events.push(e));
  return { clock, fakes, session, events, interrupt };
}

/** Steps the fake clock until the promise settles (at most `maxMs`). */
async function settle<T>(clock: FakeClock, p: Promise<T>, maxMs = 30_000, stepMs = 10): Promise<T> {
  let done = false;
  let value: T | undefined;
  let error: unknown;
  let failed = false;
  p.then(
    (v) => ((done = true), (value = v)),
    (err: unknown) => ((done = true), (failed = true), (error = err)),
  );
  for (let t = 0; t <= maxMs && !done; t += stepMs) await clock.step(stepMs);
  if (!done) throw new Error(`still pending after ${maxMs} ms of fake time`);
  if (failed) throw error;
  return value as T;
}

async function started(h: Harness): Promise<void> {
  await settle(h.clock, h.session.start());
  await h.session.fire(); // watching: no write, nothing to wait for, the timeout starts now
}

describe('TraceSession', () => {
  it('hands over the target once its own informer synced, while a child kind still lists; nothing when start() fails first', async () => {
    const h = harness();
    // The Pods' LIST fails twice: their informer syncs after two backoffs, the target's at once.
    h.fakes.pods!.failList(fakeErrors.internalError(), fakeErrors.internalError());
    const start = h.session.start();
    let startedYet = false;
    void start.then(() => (startedYet = true));
    const target = await settle(h.clock, h.session.targetWhenSynced(start));
    expect(target?.metadata.name).toBe('web');
    expect(startedYet).toBe(false);
    await settle(h.clock, start);
    h.session.close();

    // The target's own LIST refused: start() fails, and the target is never handed over.
    const refused = harness();
    refused.fakes.deployments!.failList(fakeErrors.forbidden('deployments.apps is forbidden'));
    const failing = refused.session.start();
    const failed = failing.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(await settle(refused.clock, refused.session.targetWhenSynced(failing))).toBeUndefined();
    expect(await failed).toMatchObject({ message: expect.stringContaining('forbidden') });
    refused.session.close();
  });

  it('watches, traces the change to convergence, and attaches an Event that arrives after the end', async () => {
    const h = harness();
    await started(h);
    h.fakes.deployments!.modify(deployment(2, 1, { template: '2' }));
    h.fakes.replicasets!.add(replicaSet('b'));
    await h.clock.step(50);
    h.fakes.deployments!.modify(deployment(2, 2, { template: '2', converged: true }));
    await settle(h.clock, h.session.ended);
    const end = h.events.find((e) => e.type === 'end');
    expect(end).toMatchObject({ outcome: 'converged' });
    const endedAt = h.clock.now();
    expect(h.session.endedAt).toBe(end?.type === 'end' ? end.at : -1);

    // After the end, an Event about the new ReplicaSet's creation arrives; the report waits for it.
    const finished = h.session.finish();
    await h.clock.step(LATE_EVENTS_QUIET_MS - 50);
    h.fakes.events!.add(event('e1', 'ScalingReplicaSet', 'Scaled up replica set web-b from 0 to 1', 'dep'));
    // It recurs a quiet window later: the wait goes on until the informer has been quiet.
    await h.clock.step(LATE_EVENTS_QUIET_MS);
    h.fakes.events!.modify(event('e1', 'ScalingReplicaSet', 'Scaled up replica set web-b from 0 to 1', 'dep', 2));
    const snap = await settle(h.clock, finished);
    expect(h.clock.now() - endedAt).toBeGreaterThan(2 * LATE_EVENTS_QUIET_MS);
    expect(h.clock.now() - endedAt).toBeLessThanOrEqual(LATE_EVENTS_MAX_MS + 20);
    expect(snap.hops.find((x) => x.id === 'created/b')?.events).toMatchObject([{ uid: 'e1', note: 'Scaled up replica set web-b from 0 to 1', count: 2 }]);
    h.session.close();
  });

  it('does not end converged while a child informer is behind the server: its silent watch is replaced, its hops arrive, then it ends', async () => {
    const h = harness({}, { timeoutMs: 120_000 });
    await started(h);
    // The Pods' watch goes half-open: the new Pod is made on the server, and never reaches it.
    h.fakes.pods!.freezeWatches();
    h.fakes.deployments!.modify(deployment(2, 1, { template: '2' }));
    h.fakes.replicasets!.add(replicaSet('b'));
    h.fakes.pods!.add(pod('web-b-1', 'b', true));
    await h.clock.step(50);
    h.fakes.deployments!.modify(deployment(2, 2, { template: '2', converged: true }));
    await h.clock.step(2_000);
    // Converged by its status, but the Pod informer has not caught up: no end yet, said once.
    expect(h.session.snapshot().hops.map((x) => x.id)).toContain('converged/dep');
    expect(h.session.snapshot().outcome).toBeUndefined();
    const waiting = h.events.filter((e) => e.type === 'note' && e.message.startsWith('waiting for pods in ns to catch up'));
    expect(waiting).toHaveLength(1);
    expect(h.session.tracer.snapshot().informers.map((i) => i.watchStalls)).toEqual([0, 0, 0, 0]);
    // Within 60 s of its request the silent watch is given up and opened again from its
    // resourceVersion; the Pod's creation is replayed, and only then does the trace end.
    const snap = await settle(h.clock, h.session.finish(), 70_000, 100);
    expect(snap.outcome).toBe('converged');
    expect(snap.hops.map((x) => x.id)).toContain('created/web-b-1');
    expect(snap.endMessage).not.toMatch(/caught up/);
    const pods = snap.informers.find((i) => i.description === 'pods in ns')!;
    expect(pods.watchStalls).toBe(1);
    expect(h.events.filter((e) => e.type === 'note' && e.message.startsWith('waiting for'))).toHaveLength(1);
    h.session.close();
  });

  it('a trace that times out while a child informer is behind says converged, and which informer had not caught up', async () => {
    const h = harness({}, { timeoutMs: 5_000 });
    await started(h);
    h.fakes.pods!.freezeWatches();
    h.fakes.deployments!.modify(deployment(2, 1, { template: '2' }));
    h.fakes.replicasets!.add(replicaSet('b'));
    h.fakes.pods!.add(pod('web-b-1', 'b', true));
    await h.clock.step(50);
    h.fakes.deployments!.modify(deployment(2, 2, { template: '2', converged: true }));
    const snap = await settle(h.clock, h.session.finish(), 10_000, 100);
    expect(snap.outcome).toBe('converged');
    expect(snap.endMessage).toMatch(/; pods in ns had not caught up with the server: hops not yet received are missing$/);
    expect(snap.hops.map((x) => x.id)).not.toContain('created/web-b-1');
    h.session.close();
  });

  it('says once that Events past the cap per object are not read, and counts them all in the snapshot', async () => {
    const h = harness();
    await started(h);
    h.fakes.deployments!.modify(deployment(2, 1, { template: '2' }));
    await h.clock.step(50);
    for (let i = 0; i < 150; i++) {
      h.fakes.events!.add(event(`flood-${i}`, 'Flood', `flood ${i}`, 'dep'));
      if (i % 20 === 0) await h.clock.step(10);
    }
    await h.clock.step(100);
    const notes = h.events.filter((e) => e.type === 'note' && e.message.startsWith('Events not read'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      message: expect.stringMatching(/past 100 Events per object \(\d+ about object\/dep\); later ones are counted, not said/),
    });
    expect(h.session.snapshot().eventsNotRead).toBe('Events not read: 50 Event versions past 100 Events per object (50 about object/dep)');
    expect(summaryLines(summarise(h.session.snapshot(), h.clock.now()))).toContain(h.session.snapshot().eventsNotRead);
    h.session.close();
  });

  it('times out on the injected clock', async () => {
    const h = harness();
    await started(h);
    await h.clock.step(9_990);
    expect(h.session.snapshot().outcome).toBeUndefined();
    await h.clock.step(20);
    expect(h.session.snapshot()).toMatchObject({ outcome: 'timeout', endMessage: 'no convergence within 10.0s' });
    h.session.close();
  });

  it('calls onStall when no hop has arrived for the given time after the change, once per quiet stretch', async () => {
    const h = harness();
    await started(h);
    const stalls: Stall[] = [];
    h.session.onStall(2_000, (s) => stalls.push(s));
    await h.clock.step(5_000);
    expect(stalls).toEqual([]); // nothing changed yet: waiting for a change is not a stall
    h.fakes.deployments!.modify(deployment(2, 1, { template: '2' }));
    await h.clock.step(1_500);
    h.fakes.replicasets!.add(replicaSet('b'));
    await h.clock.step(1_500);
    expect(stalls).toEqual([]);
    await h.clock.step(600);
    expect(stalls).toHaveLength(1);
    expect(stalls[0]!.sinceMs).toBe(2_000);
    expect(stalls[0]!.lastHop?.id).toBe('created/b');
    await h.clock.step(1_900);
    expect(stalls).toHaveLength(1);
    h.session.stop('interrupted', 'quit');
    await h.clock.step(5_000);
    expect(stalls).toHaveLength(1);
    h.session.close();
  });

  it('stays converged when quit or interrupted while it follows terminating objects to their deletion', async () => {
    for (const how of ['quit', 'signal'] as const) {
      const h = harness();
      await started(h);
      h.fakes.deployments!.modify(deployment(2, 1, { template: '2' }));
      h.fakes.replicasets!.add(replicaSet('b'));
      const old = pod('web-a-1', 'a', true);
      h.fakes.pods!.add({
        ...old,
        metadata: { ...old.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-b', uid: 'b', controller: true }] },
      });
      await h.clock.step(50);
      h.fakes.pods!.modify({
        ...old,
        metadata: {
          ...old.metadata,
          deletionTimestamp: '2026-01-01T00:00:05Z',
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-b', uid: 'b', controller: true }],
        },
      });
      h.fakes.deployments!.modify(deployment(2, 2, { template: '2', converged: true }));
      await h.clock.step(100);
      expect(h.events.some((e) => e.type === 'note' && e.message.includes('converged; following 1 terminating object(s)'))).toBe(true);
      expect(h.session.snapshot().outcome).toBeUndefined();
      if (how === 'quit') h.session.stop('interrupted', 'quit');
      else h.interrupt.abort();
      const snap = await settle(h.clock, h.session.finish());
      expect(snap.outcome).toBe('converged');
      expect(snap.endMessage).toMatch(/^Deployment\/web converged: .*\(1 object\(s\) still terminating\)$/);
      h.session.close();
    }
  });

  it('ends interrupted when the signal aborts, and the final snapshot does not wait for Events', async () => {
    const h = harness();
    await started(h);
    h.interrupt.abort();
    const snap = await h.session.finish();
    expect(snap.outcome).toBe('interrupted');
    expect(h.session.signal.aborted).toBe(true);
    h.session.close();
  });

  it('keeps the chain between reconciles as a walk of the whole cache finds it, while objects join, change, move and leave', async () => {
    const uidsOf = (n: TreeNode | undefined, out = new Set<string>()): Set<string> => {
      for (const c of n?.children ?? []) uidsOf(c, out.add(c.ref.uid));
      return out;
    };
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const h = harness();
      await started(h);
      const tracer = h.session.tracer;
      // The change: from here the tracer hands its tracker only what the handlers told of.
      h.fakes.deployments!.modify(deployment(2, 1, { template: '2' }));
      await h.clock.step(10);
      const random = rng(seed);
      const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
      const owned = (o: KubeObject, kind: string, uid: string | undefined): KubeObject => ({
        ...o,
        metadata: { ...o.metadata, ownerReferences: uid ? [{ apiVersion: 'apps/v1', kind, name: uid, uid, controller: true }] : [] },
      });
      // ReplicaSets owned by the Deployment or by another object; Pods by any of them (existing or not yet).
      const rsUids = ['a', 'b', 'c', 'd'];
      const podNames = Array.from({ length: 12 }, (_, i) => `p${i}`);
      let compared = 0;
      for (let step = 0; step < 120; step++) {
        for (let ops = 1 + Math.floor(random() * 3); ops > 0; ops--) {
          const rsUid = pick(rsUids);
          const name = pick(podNames);
          const rsKey = `ns/web-${rsUid}`;
          const podKey = `ns/${name}`;
          switch (Math.floor(random() * 6)) {
            case 0: // a ReplicaSet appears, or moves between the Deployment and a stranger
              (h.fakes.replicasets!.get(rsKey) ? h.fakes.replicasets!.modify.bind(h.fakes.replicasets) : h.fakes.replicasets!.add.bind(h.fakes.replicasets))(
                owned(replicaSet(rsUid), 'Deployment', random() < 0.8 ? 'dep' : 'stranger'),
              );
              break;
            case 1: // a Pod appears or moves to another owner (or none)
              (h.fakes.pods!.get(podKey) ? h.fakes.pods!.modify.bind(h.fakes.pods) : h.fakes.pods!.add.bind(h.fakes.pods))(
                owned(pod(name, rsUid), 'ReplicaSet', random() < 0.9 ? rsUid : undefined),
              );
              break;
            case 2: // a Pod changes
            case 3: {
              const p = h.fakes.pods!.get(podKey);
              if (p) h.fakes.pods!.modify({ ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: random() < 0.5 ? 'True' : 'False' }] } });
              break;
            }
            case 4:
              if (h.fakes.pods!.get(podKey)) h.fakes.pods!.delete(podKey);
              break;
            case 5:
              if (h.fakes.replicasets!.get(rsKey)) h.fakes.replicasets!.delete(rsKey);
              break;
          }
        }
        // Until the handlers have delivered and the worker has read it all.
        for (let i = 0; i < 50 && !(tracer.idle() && tracer.informers().every((inf) => inf.stats().queued === 0 && inf.stats().backlog === 0)); i++)
          await h.clock.step(5);
        await h.clock.step(5);
        if (!tracer.idle()) continue;
        expect([...tracer.chainMembers()].sort(), `seed ${seed}, step ${step}`).toEqual([...uidsOf(h.session.snapshot().tree)].sort());
        compared++;
      }
      expect(h.session.snapshot().outcome).toBeUndefined();
      expect(compared).toBeGreaterThan(100);
      h.session.close();
    }
  });

  it('waits for a watched target that does not exist yet: its creation is the change', async () => {
    const h = harness({ deployments: [] }, { waitForTarget: true });
    await started(h);
    expect(h.session.targetExists()).toBe(false);
    h.fakes.deployments!.add(deployment(1, 0));
    await h.clock.step(50);
    expect(h.session.targetExists()).toBe(true);
    expect(h.events.filter((e) => e.type === 'trigger')).toHaveLength(1);
    expect(h.session.snapshot().hops.map((x) => `${x.kind}:${x.object.kind}`)).toEqual(['created:Deployment']);
    h.fakes.replicasets!.add(replicaSet('b'));
    h.fakes.deployments!.modify(deployment(1, 1, { converged: true }));
    await settle(h.clock, h.session.ended);
    expect(h.session.snapshot().outcome).toBe('converged');
    h.session.close();
  });

  it('a target created after the watch began (found by a selector) is traced from its creation: it and its children are hops, not the baseline', async () => {
    const createdAt = new FakeClock().now() + 10;
    const h = harness({ deployments: [deployment(1, 0)] }, { waitForTarget: true, trigger: { kind: 'watch', createdAt } });
    // Created, with its ReplicaSet, before its trace started (the caches had them at its start): its creation is still the change.
    h.fakes.replicasets!.add(replicaSet('b'));
    await settle(h.clock, h.session.start());
    expect(h.session.targetExists()).toBe(true);
    await h.session.fire();
    await h.clock.step(50);
    const triggers = h.events.filter((e) => e.type === 'trigger');
    expect(triggers.map((e) => e.type === 'trigger' && e.trigger.at)).toEqual([createdAt]);
    expect(h.session.snapshot().hops.map((x) => `${x.kind}:${x.object.kind}`)).toEqual(['created:Deployment', 'created:ReplicaSet']);
    h.fakes.deployments!.modify(deployment(1, 1, { converged: true }));
    await settle(h.clock, h.session.ended);
    expect(h.session.snapshot().outcome).toBe('converged');
    h.session.close();
  });

  it('with ignoreStatus, a version that changes only the status is not the change; one that changes the spec is', async () => {
    const h = harness({ deployments: [deployment(2, 1, { template: '2' })] }, { trigger: { kind: 'watch', ignoreStatus: true } });
    await started(h);
    // The controller finishing an earlier rollout: status alone.
    h.fakes.deployments!.modify(deployment(2, 2, { template: '2', converged: true }));
    await h.clock.step(100);
    expect(h.events.some((e) => e.type === 'trigger')).toBe(false);
    h.fakes.deployments!.modify(deployment(3, 2, { template: '3' }));
    await h.clock.step(50);
    expect(h.events.filter((e) => e.type === 'trigger')).toHaveLength(1);
    h.fakes.deployments!.modify(deployment(3, 3, { template: '3', converged: true }));
    await settle(h.clock, h.session.ended);
    expect(h.session.snapshot().outcome).toBe('converged');
    h.session.close();
  });

  it('fails with close names when the target does not exist and nothing would create it', async () => {
    const h = harness({ deployments: [deployment(1, 1, { name: 'webb' })] });
    const err = await settle(h.clock, h.session.start()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CheckFailedError);
    expect((err as CheckFailedError).message).toBe('deployments.apps "web" not found in namespace ns');
    expect((err as CheckFailedError).hint).toBe('did you mean "webb"?');
    h.session.close();
  });

  it('without a trigger, syncs the caches only: a target that does not exist is what they hold, not an error, and nothing is fired', async () => {
    const h = harness({ deployments: [deployment(1, 1, { name: 'webb' })] }, { trigger: undefined, timeoutMs: undefined });
    await settle(h.clock, h.session.start());
    expect(h.session.targetExists()).toBe(false);
    expect(
      h.session
        .caches()
        .target.store.list()
        .map((o) => o.metadata.name),
    ).toEqual(['webb']);
    await expect(h.session.fire()).rejects.toThrow('a session without a trigger has nothing to fire');
    await h.clock.step(20_000);
    expect(h.events).toEqual([]);
    h.session.close();
  });

  it('leaves the Events out when told they may not be read', async () => {
    const h = harness(undefined, { trigger: undefined, timeoutMs: undefined, events: false });
    await settle(h.clock, h.session.start());
    expect(h.session.caches().events).toBeUndefined();
    expect(
      h.session
        .caches()
        .target.store.list()
        .map((o) => o.metadata.name),
    ).toEqual(['web']);
    h.session.close();
  });

  it('exposes the informer caches', async () => {
    const h = harness();
    await started(h);
    h.fakes.replicasets!.add(replicaSet('b'));
    h.fakes.events!.add(event('e1', 'ScalingReplicaSet', 'Scaled up replica set web-b from 0 to 1', 'dep'));
    await h.clock.step(50);
    const caches = h.session.caches();
    expect(caches.target.store.list().map((o) => o.metadata.name)).toEqual(['web']);
    expect(caches.children.map((c) => c.info.kind)).toEqual(['ReplicaSet', 'Pod']);
    expect(caches.children[0]!.store.list().map((o) => o.metadata.name)).toEqual(['web-b']);
    expect(caches.events?.store.list().map((o) => o.metadata.uid)).toEqual(['e1']);
    h.session.close();
  });

  it('looks for children of a kind given as extra under any owner, and for the children of such a kind in every child informer', async () => {
    const widgetsInfo = info('example.com', 'widgets', 'Widget');
    const h = harness(undefined, { extraChildren: [widgetsInfo] });
    await started(h);
    h.fakes.replicasets!.add(replicaSet('b'));
    h.fakes.pods!.add(pod('p1', 'b'));
    // A Widget the Deployment owns, and a Pod the Widget owns: neither relation is one the tool knows.
    h.fakes.widgets!.add({
      kind: 'Widget',
      metadata: {
        name: 'w',
        namespace: 'ns',
        uid: 'w1',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep', controller: true }],
      },
    });
    h.fakes.pods!.add({
      ...pod('pw', 'b'),
      metadata: {
        name: 'pw',
        namespace: 'ns',
        uid: 'pw',
        creationTimestamp: '2026-01-01T00:00:00Z',
        ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'w1', controller: true }],
      },
    });
    await h.clock.step(10);
    const lines = (n: TreeNode, depth = 0): string[] => [`${'  '.repeat(depth)}${n.ref.kind}/${n.ref.name}`, ...n.children.flatMap((c) => lines(c, depth + 1))];
    expect(lines(h.session.snapshot().tree!).sort()).toEqual(['Deployment/web', '  ReplicaSet/web-b', '    Pod/p1', '  Widget/w', '    Pod/pw'].sort());
    h.session.close();
  });

  it('stops its work queue when closed, also after a start that failed: a shared metrics provider keeps nothing of it', async () => {
    class Counting extends InMemoryMetricsProvider {
      live = 0;
      override registerUnfinishedWorkRefresher(name: string, refresh: () => void): () => void {
        this.live++;
        const off = super.registerUnfinishedWorkRefresher(name, refresh);
        return () => {
          this.live--;
          off();
        };
      }
    }
    const provider = new Counting();
    const failing = harness(undefined, { metricsProvider: provider });
    failing.fakes.deployments!.failList(fakeErrors.forbidden('deployments.apps is forbidden'));
    await expect(settle(failing.clock, failing.session.start())).rejects.toThrow(/forbidden/);
    failing.session.close();
    const ok = harness(undefined, { metricsProvider: provider });
    await started(ok);
    expect(provider.live).toBe(1);
    ok.session.close();
    expect(provider.live).toBe(0);
  });

  it('loads the rules of a child kind only once its first object arrives, and judges that object by them', async () => {
    const lazy = await loadReadiness({ env: { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'rules-')) } });
    const certificates = info('cert-manager.io', 'certificates', 'Certificate');
    const h = harness(undefined, { extraChildren: [certificates], readiness: lazy });
    await started(h);
    // Synced with no Certificate: the library's rules for it (and the CEL evaluator) are not loaded.
    expect(lazy.canJudge(certificates)).toBe(false);
    h.fakes.certificates!.add({
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: {
        name: 'tls',
        namespace: 'ns',
        uid: 'c1',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep', controller: true }],
      },
      status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Issuing' }] },
    });
    await settle(
      h.clock,
      (async () => {
        while (!lazy.canJudge(certificates)) await new Promise((r) => setTimeout(r, 5));
      })(),
    );
    const cert = h.session.snapshot().tree!.children.find((c) => c.ref.kind === 'Certificate');
    expect(cert).toMatchObject({ ready: false, status: 'not ready' });
    h.session.close();
  });

  it('finds the children of a kind it does not know through discovery: metadata-only where the chain needs no status, never Secret data, forbidden kinds left out', async () => {
    const widgetsInfo = info('example.com', 'widgets', 'Widget');
    const kinds = [
      widgetsInfo,
      { ...info('', 'configmaps', 'ConfigMap'), verbs: ['list', 'watch', 'get'] },
      info('', 'secrets', 'Secret'),
      info('apps', 'deployments', 'Deployment'),
      info('apps', 'replicasets', 'ReplicaSet'),
      info('', 'pods', 'Pod'),
      info('', 'events', 'Event'),
      eventsInfo,
      info('coordination.k8s.io', 'leases', 'Lease'),
      { ...info('', 'bindings', 'Binding'), verbs: ['create'] },
      { ...info('', 'nodes', 'Node'), namespaced: false },
    ];
    const fakes: Record<string, FakeListerWatcher> = {};
    const asked: Record<string, boolean> = {};
    for (const k of kinds) fakes[`${k.group}/${k.resource}`] = new FakeListerWatcher();
    const widget = (gen: number, status?: Record<string, unknown>): KubeObject => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'ns', uid: 'w1', generation: gen },
      spec: { size: gen },
      ...(status ? { status } : {}),
    });
    fakes['example.com/widgets']!.add(widget(1, { observedGeneration: 1 }));
    fakes['coordination.k8s.io/leases']!.failList(fakeErrors.forbidden('leases is forbidden'));
    const owned = (kind: string, name: string, uid: string, ownerKind = 'Widget', ownerUid = 'w1'): KubeObject => ({
      kind,
      metadata: {
        name,
        namespace: 'ns',
        uid,
        creationTimestamp: '2026-01-01T00:00:00Z',
        ownerReferences: [{ apiVersion: 'v1', kind: ownerKind, name: 'x', uid: ownerUid, controller: true }],
      },
    });
    const clock = new FakeClock();
    const kube = {
      connection: { server: 'https://fake', userName: 'tester' },
      discovery: { resolve: async () => eventsInfo, served: async () => kinds },
    } as unknown as Kube;
    const session = newSession({
      kube,
      target: { info: widgetsInfo, namespace: 'ns', name: 'w' },
      clock,
      listerWatcher: (i, o) => {
        if (!o.fieldSelector) asked[`${i.group}/${i.resource}`] = o.metadataOnly === true;
        return fakes[`${i.group}/${i.resource}`]!;
      },
    });
    await settle(clock, session.start());
    await session.fire();
    fakes['/configmaps']!.add(owned('ConfigMap', 'w-config', 'cm'));
    fakes['/secrets']!.add(owned('Secret', 'w-secret', 'sec'));
    fakes['apps/deployments']!.add(owned('Deployment', 'w', 'dep'));
    fakes['apps/replicasets']!.add(owned('ReplicaSet', 'w-1', 'rs', 'Deployment', 'dep'));
    fakes['/pods']!.add(owned('Pod', 'w-1-a', 'pod', 'ReplicaSet', 'rs'));
    fakes['/configmaps']!.add(owned('ConfigMap', 'unrelated', 'cm2', 'Deployment', 'someone-else'));
    await clock.step(10);
    const snap = session.snapshot();
    const lines = (n: TreeNode, depth = 0): string[] => [`${'  '.repeat(depth)}${n.ref.kind}/${n.ref.name}`, ...n.children.flatMap((c) => lines(c, depth + 1))];
    expect(lines(snap.tree!)).toEqual(['Widget/w', '  Deployment/w', '    ReplicaSet/w-1', '      Pod/w-1-a', '  ConfigMap/w-config', '  Secret/w-secret']);
    // Namespaced kinds that can be listed and watched, Events apart, each once; the forbidden one left out.
    expect(snap.discoveredChildren).toEqual({
      full: ['widgets.example.com', 'deployments.apps', 'replicasets.apps', 'pods'],
      metadataOnly: ['configmaps', 'secrets'],
      refused: ['leases.coordination.k8s.io (forbidden)'],
    });
    expect(asked).toMatchObject({ '/configmaps': true, '/secrets': true, 'apps/deployments': false, '/pods': false });
    // No LIST asks first whether a kind may be listed: the informers' own LISTs tell.
    expect(Object.values(fakes).flatMap((f) => f.listCalls.filter((c) => c.limit === 1))).toEqual([]);
    expect(fakes['coordination.k8s.io/leases']!.listCalls).toHaveLength(1);
    expect(snap.informers).toHaveLength(8);
    expect(summaryLines(summarise(snap, clock.now()))).toContain(
      'children looked for in 6 kinds found through discovery (2 metadata-only): configmaps, deployments.apps, pods, replicasets.apps, secrets, widgets.example.com; left out: leases.coordination.k8s.io (forbidden)',
    );
    session.close();
  });

  it('follows a custom resource: controller observed (a numeric-string observedGeneration), each condition and phase transition, then converged by its rule', async () => {
    const widgetsInfo = info('example.com', 'widgets', 'Widget');
    const widget = (gen: number, status: Record<string, unknown>): KubeObject => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: {
        name: 'w',
        namespace: 'ns',
        uid: 'w1',
        generation: gen,
        managedFields: [
          { manager: 'kubectl', operation: 'Update', time: '2026-01-01T00:00:01Z' },
          { manager: 'widget-operator', operation: 'Update', subresource: 'status', time: '2026-01-01T00:00:02Z' },
        ],
      },
      spec: { size: gen },
      status,
    });
    const cond = (type: string, status: string, reason: string, message = ''): Record<string, unknown> => ({
      type,
      status,
      reason,
      message,
      lastTransitionTime: '2026-01-01T00:00:03Z',
    });
    const fakes: Record<string, FakeListerWatcher> = {
      widgets: new FakeListerWatcher({
        objects: [widget(1, { observedGeneration: '1', phase: 'Healthy', conditions: [cond('Healthy', 'True', 'Available')] })],
      }),
      events: new FakeListerWatcher(),
    };
    const clock = new FakeClock();
    const kube = { connection: { server: 'https://fake', userName: 'tester' }, discovery: { resolve: async () => eventsInfo } } as unknown as Kube;
    const session = newSession({
      kube,
      target: { info: widgetsInfo, namespace: 'ns', name: 'w' },
      discoverChildren: false,
      timeoutMs: 60_000,
      clock,
      listerWatcher: (i) => fakes[i.resource]!,
    });
    await settle(clock, session.start());
    await session.fire();
    fakes.widgets!.modify(widget(2, { observedGeneration: '1', phase: 'Healthy', conditions: [cond('Healthy', 'True', 'Available')] }));
    await clock.step(20);
    fakes.widgets!.modify(
      widget(2, { observedGeneration: '2', phase: 'Progressing', conditions: [cond('Healthy', 'False', 'RolloutInProgress', 'updating 1 of 3')] }),
    );
    await clock.step(20);
    expect(session.snapshot().outcome).toBeUndefined();
    fakes.widgets!.modify(widget(2, { observedGeneration: '2', phase: 'Healthy', conditions: [cond('Healthy', 'True', 'Available', 'all 3 up')] }));
    await settle(clock, session.ended);
    const snap = session.snapshot();
    const seen = snap.hops.map((h) => `${h.kind}: ${h.detail ?? ''}`);
    // Hops of one object version come in the same instant; the converged hop comes last.
    expect(seen.slice(0, -1).sort()).toEqual(
      [
        'spec-changed: generation 1→2',
        'controller-observed: observedGeneration 2',
        'condition: Healthy True→False  RolloutInProgress: updating 1 of 3',
        'status: status.phase Healthy→Progressing',
        'condition: Healthy False→True  Available: all 3 up',
        'status: status.phase Progressing→Healthy',
      ].sort(),
    );
    expect(seen.at(-1)).toBe('converged: phase Healthy (rule: status.phase)');
    expect(snap.hops.find((h) => h.kind === 'condition')).toMatchObject({
      serverTime: '2026-01-01T00:00:03Z',
      serverTimeSource: 'Healthy lastTransitionTime',
      writer: 'widget-operator (status)',
    });
    expect(snap.outcome).toBe('converged');
    session.close();
  });

  it('leaves the verdict to the children when the status has none of its own: converged once the Pods it owns are Ready', async () => {
    const gizmosInfo = info('example.com', 'gizmos', 'Gizmo');
    const podsInfo = { ...info('', 'pods', 'Pod'), shortNames: ['po'] };
    const gizmo = (gen: number, observed: number): KubeObject => ({
      apiVersion: 'example.com/v1',
      kind: 'Gizmo',
      metadata: { name: 'g', namespace: 'ns', uid: 'g1', generation: gen },
      spec: { size: gen },
      status: { observedGeneration: observed },
    });
    const owned = (ready: boolean): KubeObject => ({
      kind: 'Pod',
      metadata: {
        name: 'g-head',
        namespace: 'ns',
        uid: 'p1',
        ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Gizmo', name: 'g', uid: 'g1', controller: true }],
      },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
    });
    const fakes: Record<string, FakeListerWatcher> = {
      gizmos: new FakeListerWatcher({ objects: [gizmo(1, 1)] }),
      pods: new FakeListerWatcher(),
      events: new FakeListerWatcher(),
    };
    const clock = new FakeClock();
    const kube = { connection: { server: 'https://fake', userName: 'tester' }, discovery: { resolve: async () => eventsInfo } } as unknown as Kube;
    const session = newSession({
      kube,
      target: { info: gizmosInfo, namespace: 'ns', name: 'g' },
      extraChildren: [podsInfo],
      discoverChildren: false,
      timeoutMs: 60_000,
      clock,
      listerWatcher: (i) => fakes[i.resource]!,
    });
    await settle(clock, session.start());
    await session.fire();
    fakes.gizmos!.modify(gizmo(2, 1));
    await clock.step(20);
    fakes.gizmos!.modify(gizmo(2, 2));
    fakes.pods!.add(owned(false));
    for (let i = 0; i < 50; i++) await clock.step(20);
    // The controller caught up, but what it owns is not ready: not converged.
    expect(session.snapshot().outcome).toBeUndefined();
    fakes.pods!.modify(owned(true));
    await settle(clock, session.ended);
    const snap = session.snapshot();
    expect(snap.outcome).toBe('converged');
    expect(snap.hops.at(-1)).toMatchObject({
      kind: 'converged',
      detail: 'observedGeneration 2 / generation 2, and the status says nothing more (rule: observedGeneration); its 1 child is ready',
    });
    session.close();
  });

  it('knows a kind by its group: a custom resource named Job has no Job hops, tree line or Pods, a batch Job has', async () => {
    const trace = async (group: string) => {
      const job = (complete: boolean): KubeObject => ({
        apiVersion: `${group}/v1`,
        kind: 'Job',
        metadata: { name: 'j', namespace: 'ns', uid: 'j1' },
        spec: {},
        status: {
          phase: complete ? 'Done' : 'Working',
          conditions: [{ type: 'Complete', status: complete ? 'True' : 'False', reason: 'Finished', lastTransitionTime: '2026-01-01T00:00:03Z' }],
        },
      });
      const fakes: Record<string, FakeListerWatcher> = {
        jobs: new FakeListerWatcher({ objects: [job(false)] }),
        pods: new FakeListerWatcher(),
        events: new FakeListerWatcher(),
      };
      const watched: string[] = [];
      const clock = new FakeClock();
      const kube = { connection: { server: 'https://fake', userName: 'tester' }, discovery: { resolve: async () => eventsInfo } } as unknown as Kube;
      const session = newSession({
        kube,
        target: { info: info(group, 'jobs', 'Job'), namespace: 'ns', name: 'j' },
        discoverChildren: false,
        clock,
        listerWatcher: (i) => (watched.push(i.resource), fakes[i.resource]!),
      });
      await settle(clock, session.start());
      await session.fire();
      fakes.jobs!.modify(job(true));
      await clock.step(20);
      const snap = session.snapshot();
      session.close();
      return { watched, hops: snap.hops.map((h) => h.kind), tree: snap.tree! };
    };
    const batch = await trace('batch');
    expect(batch.watched.filter((r) => r !== 'events')).toEqual(['jobs', 'pods']);
    expect(batch.hops).toContain('complete');
    expect(batch.hops).not.toContain('condition');
    expect(batch.tree).toMatchObject({ status: 'Complete', ready: true });

    const custom = await trace('example.com');
    expect(custom.watched.filter((r) => r !== 'events')).toEqual(['jobs']);
    expect(custom.hops).toContain('condition');
    expect(custom.hops).not.toContain('complete');
    // Its phase, as any custom resource's tree line says it, not a Job's verdict.
    expect(custom.tree.status).toBe('Done');
  });

  it('keeps the tree node of an object the cache has not replaced; a changed object and its owners get new nodes', async () => {
    const h = harness();
    await started(h);
    h.fakes.replicasets!.add(replicaSet('b'));
    h.fakes.pods!.add(pod('p1', 'b'));
    h.fakes.pods!.add(pod('p2', 'b'));
    await h.clock.step(10);
    const first = h.session.snapshot().tree!;
    const rs = first.children[0]!;
    expect(rs.ref.name).toBe('web-b');
    expect(rs.children.map((n) => `${n.ref.name} ${n.ready}`)).toEqual(['p1 false', 'p2 false']);
    expect(h.session.snapshot().tree!.children[0]!.children[0]).toBe(rs.children[0]); // nothing changed: the same nodes

    h.fakes.pods!.modify(pod('p2', 'b', true));
    await h.clock.step(10);
    const second = h.session.snapshot().tree!;
    const [p1, p2] = second.children[0]!.children;
    expect(p1).toBe(rs.children[0]);
    expect(p2).not.toBe(rs.children[1]);
    expect(p2!.ready).toBe(true);
    expect(second.children[0]).not.toBe(rs);
    // The snapshot handed out before is not altered.
    expect(rs.children[1]!.ready).toBe(false);

    // Newest first, then by name, as Pods come and go between snapshots.
    h.fakes.pods!.add(pod('p0', 'b', false, '2026-01-01T00:00:05Z'));
    h.fakes.pods!.add(pod('p3', 'b', false, '2025-12-31T23:59:59Z'));
    h.fakes.pods!.add(pod('p15', 'b'));
    h.fakes.pods!.delete(pod('p1', 'b'));
    await h.clock.step(10);
    expect(h.session.snapshot().tree!.children[0]!.children.map((n) => n.ref.name)).toEqual(['p0', 'p15', 'p2', 'p3']);
    h.fakes.pods!.add(pod('p1', 'b', false, '2026-01-01T00:00:01Z'));
    await h.clock.step(10);
    expect(h.session.snapshot().tree!.children[0]!.children.map((n) => n.ref.name)).toEqual(['p0', 'p1', 'p15', 'p2', 'p3']);
    h.session.close();
  });

  it('runs the coalesce window from when a key was first queued: the Events queued behind the target are read as soon as the target was', async () => {
    const h = harness(undefined, { coalesceMs: 50 });
    await started(h);
    await h.clock.step(100); // past the reconcile of what the initial sync queued
    h.fakes.deployments!.modify(deployment(2, 1, { template: '2' }));
    h.fakes.replicasets!.add(replicaSet('b'));
    h.fakes.events!.add(event('e1', 'ScalingReplicaSet', 'Scaled up replica set web-b from 0 to 1', 'dep'));
    await h.clock.step(49);
    expect(h.session.snapshot().hops).toEqual([]);
    await h.clock.step(1);
    // The target's key waited its 50 ms; the Events' key, queued at the same moment behind it,
    // does not wait another 50.
    const created = h.session.snapshot().hops.find((x) => x.id === 'created/b');
    expect(created?.reconciledAt).toBe(h.clock.now());
    expect(created?.events.map((e) => e.uid)).toEqual(['e1']);
    const snap = h.session.snapshot();
    expect(hopFigures(snap).longestObject).toBe('ReplicaSet/web-b'.length);
    // What the tracer keeps is what one pass over its hops finds.
    expect(snap.figures).toEqual(hopFiguresOf(snap.hops));
    h.session.close();
  });
});
