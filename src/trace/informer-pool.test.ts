import { describe, expect, it } from 'vitest';
import type { SharedIndexInformer } from '../informer/index.js';
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
});
