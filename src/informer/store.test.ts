import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import {
  ControllerUIDIndex,
  controllerUIDIndexFunc,
  fieldPathIndexFunc,
  metaNamespaceIndexFunc,
  NamespaceIndex,
  NodeNameIndex,
  nodeNameIndexFunc,
  OwnerUIDIndex,
  ownerUIDIndexFunc,
} from './index-funcs.js';
import {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  KeyError,
  metaNamespaceKeyFunc,
  newIndexer,
  newStore,
  splitMetaNamespaceKey,
} from './store.js';
import { newThreadSafeStore } from './thread-safe-store.js';

function pod(ns: string, name: string, extra: Partial<KubeObject> & { nodeName?: string; labels?: Record<string, string> } = {}): KubeObject {
  const { nodeName, labels, ...rest } = extra;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: ns, name, resourceVersion: '1', ...(labels ? { labels } : {}) },
    ...(nodeName !== undefined ? { spec: { nodeName } } : {}),
    ...rest,
  };
}

describe('key functions', () => {
  it('metaNamespaceKeyFunc: ns/name, name when cluster-scoped, an explicit key as is, an error without metadata', () => {
    expect(metaNamespaceKeyFunc(pod('ns', 'a'))).toBe('ns/a');
    expect(metaNamespaceKeyFunc({ metadata: { name: 'node-1' } })).toBe('node-1');
    expect(metaNamespaceKeyFunc('explicit/key')).toBe('explicit/key');
    expect(() => metaNamespaceKeyFunc({ spec: {} })).toThrow(KeyError);
    expect(() => metaNamespaceKeyFunc(null)).toThrow(/object has no meta/);
  });

  it('splitMetaNamespaceKey: 1 part = name, 2 = ns/name, more is an error', () => {
    expect(splitMetaNamespaceKey('a')).toEqual({ namespace: '', name: 'a' });
    expect(splitMetaNamespaceKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(() => splitMetaNamespaceKey('a/b/c')).toThrow('unexpected key format: "a/b/c"');
  });

  it('deletionHandlingMetaNamespaceKeyFunc uses a tombstone key first', () => {
    expect(deletionHandlingMetaNamespaceKeyFunc(new DeletedFinalStateUnknown('ns/gone', undefined))).toBe('ns/gone');
    expect(deletionHandlingMetaNamespaceKeyFunc(pod('ns', 'b'))).toBe('ns/b');
  });
});

describe('Store', () => {
  it('add/update/delete/get/list/replace', () => {
    const s = newStore();
    s.add(pod('ns', 'a'));
    s.add(pod('ns', 'b'));
    s.update({ ...pod('ns', 'a'), metadata: { namespace: 'ns', name: 'a', resourceVersion: '2' } });
    expect(s.getByKey('ns/a')?.metadata.resourceVersion).toBe('2');
    expect(s.get(pod('ns', 'b'))?.metadata.name).toBe('b');
    expect(s.listKeys().sort()).toEqual(['ns/a', 'ns/b']);
    s.delete(pod('ns', 'a'));
    expect(s.getByKey('ns/a')).toBeUndefined();
    expect(s.size()).toBe(1);
    s.replace([pod('x', '1'), pod('x', '2')], '10');
    expect(s.listKeys().sort()).toEqual(['x/1', 'x/2']);
    expect(s.list()).toHaveLength(2);
  });

  it('runs its transformer on add, update and replace', () => {
    let n = 0;
    const s = newStore(metaNamespaceKeyFunc, {
      transformer: (o) => {
        n++;
        return { ...o, transformed: true };
      },
    });
    s.add(pod('ns', 'a'));
    s.update(pod('ns', 'a'));
    s.replace([pod('ns', 'b')], '1');
    expect(n).toBe(3);
    expect(s.getByKey('ns/b')?.transformed).toBe(true);
  });

  it('delete by tombstone with the deletion-handling key function', () => {
    const s = newStore(deletionHandlingMetaNamespaceKeyFunc);
    s.add(pod('ns', 'a'));
    s.delete(new DeletedFinalStateUnknown('ns/a', undefined));
    expect(s.size()).toBe(0);
  });
});

describe('Indexer (ThreadSafeStore)', () => {
  function indexed() {
    return newIndexer(metaNamespaceKeyFunc, { [NamespaceIndex]: metaNamespaceIndexFunc, app: fieldPathIndexFunc('metadata.labels.app') });
  }

  it('index, byIndex, indexKeys (sorted), listIndexFuncValues', () => {
    const i = indexed();
    i.add(pod('a', 'p2', { labels: { app: 'web' } }));
    i.add(pod('a', 'p1', { labels: { app: 'web' } }));
    i.add(pod('b', 'p3', { labels: { app: 'db' } }));
    expect(i.indexKeys(NamespaceIndex, 'a')).toEqual(['a/p1', 'a/p2']);
    expect(
      i
        .byIndex('app', 'web')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['p1', 'p2']);
    expect(i.index(NamespaceIndex, pod('b', 'whatever')).map((o) => o.metadata.name)).toEqual(['p3']);
    expect(i.listIndexFuncValues('app').sort()).toEqual(['db', 'web']);
    expect(i.byIndex('app', 'none')).toEqual([]);
    expect(i.indexKeys('app', 'none')).toEqual([]);
  });

  it('an unknown index gives "Index with name X does not exist" (listIndexFuncValues gives [])', () => {
    const i = indexed();
    expect(() => i.byIndex('nope', 'x')).toThrow('Index with name nope does not exist');
    expect(() => i.indexKeys('nope', 'x')).toThrow('Index with name nope does not exist');
    expect(() => i.index('nope', pod('a', 'b'))).toThrow('Index with name nope does not exist');
    expect(i.listIndexFuncValues('nope')).toEqual([]);
  });

  it('update moves a key between values and drops empty value sets', () => {
    const i = indexed();
    i.add(pod('a', 'p', { labels: { app: 'web' } }));
    i.update(pod('a', 'p', { labels: { app: 'api' } }));
    expect(i.byIndex('app', 'web')).toEqual([]);
    expect(i.listIndexFuncValues('app')).toEqual(['api']);
    i.delete(pod('a', 'p'));
    expect(i.listIndexFuncValues('app')).toEqual([]);
    expect(i.listIndexFuncValues(NamespaceIndex)).toEqual([]);
  });

  it('index with several values unions and dedupes', () => {
    const i = newIndexer(metaNamespaceKeyFunc, { owner: ownerUIDIndexFunc });
    const owned = (name: string, uids: string[]) => ({
      metadata: { namespace: 'n', name, ownerReferences: uids.map((uid) => ({ apiVersion: 'v1', kind: 'X', name: uid, uid })) },
    });
    i.add(owned('a', ['u1', 'u2']));
    i.add(owned('b', ['u2']));
    i.add(owned('c', ['u3']));
    expect(
      i
        .index('owner', owned('q', ['u1', 'u2']))
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('replace rebuilds every index', () => {
    const i = indexed();
    i.add(pod('a', 'old', { labels: { app: 'web' } }));
    i.replace([pod('c', 'new', { labels: { app: 'db' } })], '5');
    expect(i.listIndexFuncValues('app')).toEqual(['db']);
    expect(i.indexKeys(NamespaceIndex, 'c')).toEqual(['c/new']);
    expect(i.indexKeys(NamespaceIndex, 'a')).toEqual([]);
  });

  it('addIndexers backfills existing items and refuses a duplicate name', () => {
    const i = newIndexer(metaNamespaceKeyFunc, {});
    i.add(pod('a', 'p1', { nodeName: 'n1' }));
    i.add(pod('a', 'p2', { nodeName: 'n2' }));
    i.addIndexers({ [NodeNameIndex]: nodeNameIndexFunc });
    expect(i.indexKeys(NodeNameIndex, 'n1')).toEqual(['a/p1']);
    expect(() => i.addIndexers({ [NodeNameIndex]: nodeNameIndexFunc })).toThrow(`indexer conflict: ${NodeNameIndex}`);
    expect(Object.keys(i.getIndexers())).toEqual([NodeNameIndex]);
  });

  it('an index function that throws makes the write throw with key and index named', () => {
    const s = newThreadSafeStore({
      bad: () => {
        throw new Error('nope');
      },
    });
    expect(() => s.add('k', pod('a', 'b'))).toThrow('unable to calculate an index entry for key "k" on index "bad": nope');
  });
});

describe('built-in index functions', () => {
  it('namespace', () => {
    expect(metaNamespaceIndexFunc(pod('ns', 'a'))).toEqual(['ns']);
    expect(metaNamespaceIndexFunc({ metadata: { name: 'n' } })).toEqual(['']);
  });

  it('controller owner UID and every owner UID', () => {
    const o: KubeObject = {
      metadata: {
        name: 'p',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true },
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'cm-uid' },
        ],
      },
    };
    expect(controllerUIDIndexFunc(o)).toEqual(['rs-uid']);
    expect(ownerUIDIndexFunc(o)).toEqual(['rs-uid', 'cm-uid']);
    expect(controllerUIDIndexFunc({ metadata: {} })).toEqual([]);
    expect(ControllerUIDIndex).not.toBe(OwnerUIDIndex);
  });

  it('spec.nodeName (nothing while unscheduled)', () => {
    expect(nodeNameIndexFunc(pod('a', 'b', { nodeName: 'n1' }))).toEqual(['n1']);
    expect(nodeNameIndexFunc(pod('a', 'b', { nodeName: '' }))).toEqual([]);
    expect(nodeNameIndexFunc(pod('a', 'b'))).toEqual([]);
  });

  it('field path index: labels, nested fields, arrays yield every element', () => {
    const o: KubeObject = {
      metadata: { name: 'p', labels: { app: 'web', 'app.kubernetes.io/name': 'shop' } },
      spec: { nodeName: 'n1', containers: [{ image: 'a:1', ports: [{ containerPort: 80 }, { containerPort: 443 }] }, { image: 'b:2' }] },
      status: { phase: 'Running' },
    };
    expect(fieldPathIndexFunc('metadata.labels.app')(o)).toEqual(['web']);
    expect(fieldPathIndexFunc("metadata.labels['app.kubernetes.io/name']")(o)).toEqual(['shop']);
    expect(fieldPathIndexFunc('spec.nodeName')(o)).toEqual(['n1']);
    expect(fieldPathIndexFunc('status.phase')(o)).toEqual(['Running']);
    expect(fieldPathIndexFunc('spec.containers.image')(o)).toEqual(['a:1', 'b:2']);
    expect(fieldPathIndexFunc('spec.containers[*].ports[*].containerPort')(o)).toEqual(['80', '443']);
    expect(fieldPathIndexFunc('spec.containers[1].image')(o)).toEqual(['b:2']);
    expect(fieldPathIndexFunc('metadata.labels.missing')(o)).toEqual([]);
    expect(() => fieldPathIndexFunc('spec..nodeName')).toThrow(/invalid field path "spec..nodeName": empty segment/);
  });
});
