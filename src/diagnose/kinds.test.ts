import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.js';
import { hasObservedGeneration, isWorkload, knowledgeOf } from './kinds.js';

const obj = (apiVersion?: string): KubeObject => ({ ...(apiVersion ? { apiVersion } : {}), metadata: { name: 'x' }, status: { observedGeneration: 1 } });

describe('what the diagnosis knows of a kind, by group and kind', () => {
  it('a built-in kind is known by its group, or by the kind alone when the object does not say its apiVersion', () => {
    expect(isWorkload('Job', obj('batch/v1'))).toBe(true);
    expect(isWorkload('Job', obj())).toBe(true);
    expect(knowledgeOf('Job', obj())?.retries).toBeDefined();
    expect(knowledgeOf('Deployment', obj('apps/v1'))?.hold?.field).toBe('paused');
  });

  it('a custom resource named like a built-in kind is not that kind', () => {
    expect(knowledgeOf('Job', obj('example.com/v1'))).toBeUndefined();
    expect(isWorkload('Deployment', obj('example.com/v1'))).toBe(false);
    // Its observedGeneration counts as its controller's, as for any kind the tool does not know.
    expect(hasObservedGeneration('Job', obj('example.com/v1'))).toBe(true);
    expect(hasObservedGeneration('Job', obj('batch/v1'))).toBe(false);
  });

  it("names the service account kube-controller-manager makes each kind's Pods with", () => {
    expect(knowledgeOf('ReplicaSet', obj('apps/v1'))?.pods?.serviceAccount).toBe('replicaset-controller');
    expect(knowledgeOf('ReplicationController', obj('v1'))?.pods?.serviceAccount).toBe('replication-controller');
    expect(knowledgeOf('StatefulSet', obj('apps/v1'))?.pods?.serviceAccount).toBe('statefulset-controller');
    expect(knowledgeOf('DaemonSet', obj('apps/v1'))?.pods?.serviceAccount).toBe('daemon-set-controller');
  });
});
