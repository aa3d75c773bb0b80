import { describe, expect, it } from 'vitest';
import { resourceInfo } from '../../tools/testing/resource-info.js';
import { OwnerUIDIndex, metaNamespaceKeyFunc, newIndexer, ownerUIDIndexFunc, type Indexer } from '../informer/index.js';
import type { KubeObject, ResourceInfo } from '../kube/index.js';
import type { TraceCaches } from '../trace/index.js';
import { chainFromCaches } from './chain.js';

const info = (kind: string, resource: string, group = ''): ResourceInfo => resourceInfo(group, resource, kind);

function store(objs: KubeObject[]): Indexer {
  const s = newIndexer(metaNamespaceKeyFunc, { [OwnerUIDIndex]: ownerUIDIndexFunc });
  for (const o of objs) s.add(o);
  return s;
}

const owned = (name: string, uid: string, owner: string): KubeObject => ({
  metadata: { name, namespace: 'demo', uid, ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: owner, controller: true }] },
});

describe('chainFromCaches', () => {
  const target = { info: info('Deployment', 'deployments', 'apps'), namespace: 'demo', name: 'web' };
  const deploy: KubeObject = { metadata: { name: 'web', namespace: 'demo', uid: 'd' } };

  it('walks the owner chain down every child kind, leaving out what another owner holds', () => {
    const caches: TraceCaches = {
      target: { info: target.info, store: store([deploy]) },
      children: [
        { info: info('ReplicaSet', 'replicasets', 'apps'), store: store([owned('web-a', 'rs', 'd'), owned('other-a', 'rs2', 'someone-else')]) },
        { info: info('Pod', 'pods'), store: store([owned('web-a-1', 'p1', 'rs'), owned('web-a-2', 'p2', 'rs'), owned('other-a-1', 'p3', 'rs2')]) },
      ],
      events: { info: info('Event', 'events', 'events.k8s.io'), store: store([{ metadata: { name: 'e', namespace: 'demo', uid: 'e1' } }]) },
    };
    const chain = chainFromCaches(caches, target);
    expect(chain.object).toBe(deploy);
    expect(chain.descendants.map((d) => `${d.kind}/${d.obj.metadata.name}`)).toEqual(['ReplicaSet/web-a', 'Pod/web-a-1', 'Pod/web-a-2']);
    expect(chain.events).toEqual({ seen: true, value: [expect.objectContaining({ metadata: expect.objectContaining({ uid: 'e1' }) })] });
  });

  it('no events informer: the Events are unseen, with the reason given', () => {
    const caches: TraceCaches = { target: { info: target.info, store: store([]) }, children: [], events: undefined };
    const chain = chainFromCaches(caches, target, 'forbidden: list events (403)');
    expect(chain.object).toBeUndefined();
    expect(chain.descendants).toEqual([]);
    expect(chain.events).toEqual({ seen: false, why: 'forbidden: list events (403)' });
  });
});
