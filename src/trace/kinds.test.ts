import { describe, expect, it } from 'vitest';
import { resourceInfo } from '../../tools/testing/resource-info.js';
import type { KubeObject, ResourceInfo } from '../kube/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { FakeListerWatcher } from '../../tools/testing/fake-lister-watcher.js';
import { ChainInformers } from './chain-informers.js';
import { builtinKind, factsOf } from './kinds.js';

const info = resourceInfo;

const finished: KubeObject = {
  kind: 'Job',
  metadata: { name: 'j', namespace: 'ns', uid: 'j1', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { replicas: 3 },
  status: { phase: 'Done', conditions: [{ type: 'Complete', status: 'True', reason: 'Finished', lastTransitionTime: '2026-01-01T00:00:05Z' }] },
};

describe('the built-in kinds, by group and kind', () => {
  it('gives a batch Job its own facts, and a custom resource named Job the facts of its status', () => {
    const batch = factsOf({ group: 'batch', kind: 'Job' }, finished);
    expect(batch.get('complete')).toMatchObject({ value: true, serverTime: '2026-01-01T00:00:05Z' });
    expect([...batch.keys()].filter((k) => k.startsWith('condition:') || k.startsWith('status.'))).toEqual([]);

    const custom = factsOf({ group: 'example.com', kind: 'Job' }, finished);
    expect(custom.has('complete')).toBe(false);
    expect(custom.get('condition:Complete')).toMatchObject({ value: 'True', detail: 'Finished' });
    expect(custom.get('status.phase')).toMatchObject({ value: 'Done' });
  });

  it('counts replicas of an apps ReplicaSet, not of a custom ReplicaSet, and reads Pod facts of core Pods only', () => {
    const rs: KubeObject = { ...finished, kind: 'ReplicaSet' };
    expect(factsOf({ group: 'apps', kind: 'ReplicaSet' }, rs).get('replicas')?.value).toBe(3);
    expect(factsOf({ group: 'example.com', kind: 'ReplicaSet' }, rs).has('replicas')).toBe(false);

    const pod: KubeObject = { ...finished, kind: 'Pod', status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } };
    expect(factsOf({ group: '', kind: 'Pod' }, pod).has('ready')).toBe(true);
    expect(factsOf({ group: 'example.com', kind: 'Pod' }, pod).has('ready')).toBe(false);
  });

  it('knows what each owns: the core group is empty, another group is another kind', () => {
    expect(builtinKind({ group: 'apps', kind: 'Deployment' })?.owns).toEqual([{ group: 'apps', kind: 'ReplicaSet', resource: 'replicasets' }]);
    expect(builtinKind({ group: 'batch', kind: 'CronJob' })?.owns).toEqual([{ group: 'batch', kind: 'Job', resource: 'jobs' }]);
    expect(builtinKind({ group: '', kind: 'Pod' })?.owns).toEqual([]);
    expect(builtinKind({ group: 'example.com', kind: 'Deployment' })).toBeUndefined();
    expect(builtinKind({ group: '', kind: 'Job' })).toBeUndefined();
    expect(builtinKind({ group: 'apps', kind: 'Pod' })).toBeUndefined();
  });

  it("watches a batch Job's Pods, and for a custom resource named Job only what it is given; owns by group and kind", () => {
    const clock = new FakeClock();
    const chain = (target: ResourceInfo, extra: ResourceInfo[] = []) =>
      new ChainInformers('ns', () => new FakeListerWatcher(), clock, { info: target, name: 'j' }, extra);

    const batch = chain(info('batch', 'jobs', 'Job'));
    expect(batch.children.map((c) => `${c.info.group}/${c.info.resource}`)).toEqual(['/pods']);
    expect(batch.ownable({ group: 'batch', kind: 'Job' })).toEqual(batch.children);
    expect(batch.ownable({ group: '', kind: 'Pod' })).toEqual([]);

    const configMaps = info('', 'configmaps', 'ConfigMap');
    const custom = chain(info('example.com', 'jobs', 'Job'), [configMaps]);
    expect(custom.children.map((c) => `${c.info.group}/${c.info.resource}`)).toEqual(['/configmaps']);
    // A kind the tool does not know may own objects of any kind the chain watches.
    expect(custom.ownable({ group: 'example.com', kind: 'Job' })).toEqual(custom.children);

    const deployments = chain(info('example.com', 'deployments', 'Deployment'));
    expect(deployments.children).toEqual([]);
    expect(chain(info('apps', 'deployments', 'Deployment')).children.map((c) => c.info.resource)).toEqual(['replicasets', 'pods']);
  });
});
