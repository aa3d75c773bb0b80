import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ServerState, SharedIndexInformer } from '../informer/index.js';
import type { ResourceInfo } from '../kube/index.js';
import { InformerPool } from './informer-pool.js';

const info = (resource: string, group = ''): ResourceInfo => ({
  group,
  version: 'v1',
  resource,
  kind: resource,
  namespaced: true,
  shortNames: [],
  singularName: resource,
  verbs: ['list', 'watch'],
});

describe('InformerPool', () => {
  it('makes one informer per group, resource, namespace and shape', () => {
    const made: string[] = [];
    const pool = new InformerPool(
      (k) => {
        made.push(`${k.info.resource}/${k.namespace}/${k.metadataOnly}`);
        return {} as SharedIndexInformer;
      },
      async () => undefined,
    );
    const a = pool.informer({ info: info('pods'), namespace: 'a', metadataOnly: false });
    expect(pool.informer({ info: info('pods'), namespace: 'a', metadataOnly: false })).toBe(a);
    pool.informer({ info: info('pods'), namespace: 'b', metadataOnly: false });
    pool.informer({ info: info('pods'), namespace: 'a', metadataOnly: true });
    pool.informer({ info: info('pods', 'example.com'), namespace: 'a', metadataOnly: false });
    expect(made).toEqual(['pods/a/false', 'pods/b/false', 'pods/a/true', 'pods/a/false']);
    expect(pool.size()).toBe(4);
  });

  it('runs its informers under its own signal, which the parent signal or close() aborts', async () => {
    const parent = new AbortController();
    const signals: AbortSignal[] = [];
    const pool = new InformerPool(
      () => ({}) as SharedIndexInformer,
      async (_informers, o) => void signals.push(o.signal),
      parent.signal,
    );
    const trace = new AbortController();
    await pool.sync([], { signal: trace.signal, timeoutMs: 1_000 });
    trace.abort();
    expect(signals[0]!.aborted).toBe(false);
    parent.abort();
    expect(signals[0]!.aborted).toBe(true);
  });

  it('discovers once per kind and namespace, and asks again after a failure', async () => {
    const pool = new InformerPool(
      () => ({}) as SharedIndexInformer,
      async () => undefined,
    );
    let asked = 0;
    const find = async (): Promise<number> => ++asked;
    expect(await pool.discover(info('widgets', 'example.com'), 'a', find)).toBe(1);
    expect(await pool.discover(info('widgets', 'example.com'), 'a', find)).toBe(1);
    expect(await pool.discover(info('widgets', 'example.com'), 'b', find)).toBe(2);
    await expect(pool.discover(info('gadgets', 'example.com'), 'a', async () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(await pool.discover(info('gadgets', 'example.com'), 'a', find)).toBe(3);
  });

  it('shares consistent Lists: one started late enough, else one in flight and one queued behind it per informer', async () => {
    let t = 0;
    const now = (): number => t;
    const started: { at: number; resolve: (s: ServerState) => void; reject: (e: Error) => void }[] = [];
    const pool = new InformerPool(
      () => ({}) as SharedIndexInformer,
      async () => undefined,
      undefined,
      () =>
        new Promise<ServerState>((resolve, reject) => {
          started.push({ at: t, resolve, reject });
        }),
    );
    const a = {} as SharedIndexInformer;
    const state = (rv: string): ServerState => ({ resourceVersion: rv, objects: new Map() });
    t = 10;
    const first = pool.serverState(a, 10, now);
    // Asked at 10 too: the List started at 10 will do.
    expect(pool.serverState(a, 10, now)).toBe(first);
    t = 11;
    // Asked later, while it is in flight: one more, queued, shared by all who ask meanwhile.
    const queued = pool.serverState(a, 11, now);
    t = 12;
    expect(pool.serverState(a, 12, now)).toBe(queued);
    // Another informer's Lists are its own.
    void pool.serverState({} as SharedIndexInformer, 12, now);
    expect(started.map((s) => s.at)).toEqual([10, 12]);
    t = 13;
    started[0]!.resolve(state('1'));
    expect(await first).toEqual(state('1'));
    await Promise.resolve();
    // The queued one started once the first was back, after every trace that waited for it asked.
    expect(started.map((s) => s.at)).toEqual([10, 12, 13]);
    started[2]!.resolve(state('2'));
    expect(await queued).toEqual(state('2'));
    // Back, and started before the asker's moment: a new one. One that fails is not shared.
    t = 20;
    const failing = pool.serverState(a, 20, now);
    started[3]!.reject(new Error('gone'));
    await expect(failing).rejects.toThrow('gone');
    const again = pool.serverState(a, 20, now);
    expect(again).not.toBe(failing);
    expect(started.map((s) => s.at)).toEqual([10, 12, 13, 20, 20]);
    started[4]!.resolve(state('3'));
    expect(await again).toEqual(state('3'));
  });

  it('closes with its parent signal, and once closed is no longer held by it', () => {
    const parent = new AbortController();
    const make = (): InformerPool =>
      new InformerPool(
        () => ({}) as SharedIndexInformer,
        async () => undefined,
        parent.signal,
      );
    // The probe's rounds: a pool let go after each failed round, the command's signal living on.
    for (let i = 0; i < 3; i++) make().close();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    const open = make();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    parent.abort();
    expect(open.signal.aborted).toBe(true);
  });
});
