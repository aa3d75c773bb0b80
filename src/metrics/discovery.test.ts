import { describe, expect, it } from 'vitest';
import { ClusterError } from '../errors.js';
import { errorFromResponse, type RawResponse, type RequestInit } from '../kube/client.js';
import type { KubeObject } from '../kube/types.js';
import { discoverControlPlane } from './discovery.js';
import type { RawGetter } from './sources.js';

function pod(name: string, labels: Record<string, string>, command: string[] = [], phase = 'Running'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'kube-system', labels },
    spec: { nodeName: 'cp-1', containers: [{ name: 'c', command }] },
    status: phase === 'Running' ? { phase, podIP: '10.0.0.11' } : { phase },
  };
}

const kubeadmPods = [
  pod('kube-controller-manager-cp-1', { component: 'kube-controller-manager', tier: 'control-plane' }, [
    'kube-controller-manager',
    '--bind-address=127.0.0.1',
    '--leader-elect=true',
  ]),
  pod('kube-scheduler-cp-1', { component: 'kube-scheduler', tier: 'control-plane' }, ['kube-scheduler', '--secure-port=11259']),
  pod('kube-apiserver-cp-1', { component: 'kube-apiserver', tier: 'control-plane' }),
  pod('etcd-cp-1', { component: 'etcd', tier: 'control-plane' }),
  // No component label: known by its name.
  pod('kube-scheduler-cp-2', { tier: 'control-plane' }, [], 'Pending'),
];

class FakeClient implements RawGetter {
  paths: string[] = [];
  constructor(private readonly answer: (selector: string) => KubeObject[] | Error) {}
  async raw(path: string, _init?: RequestInit): Promise<RawResponse> {
    this.paths.push(path);
    const selector = decodeURIComponent(new URL(path, 'https://x').searchParams.get('labelSelector') ?? '');
    const a = this.answer(selector);
    if (a instanceof Error) throw a;
    return { status: 200, headers: {}, body: JSON.stringify({ kind: 'PodList', items: a }) };
  }
}

/** Answers label selectors the way the API server would for the pods above. */
function select(selector: string): KubeObject[] {
  if (selector === 'tier=control-plane') return kubeadmPods.filter((p) => p.metadata.labels?.tier === 'control-plane');
  const m = /^component in \((.*)\)$/.exec(selector);
  if (m) {
    const wanted = m[1]!.split(',');
    return kubeadmPods.filter((p) => wanted.includes(p.metadata.labels?.component ?? ''));
  }
  throw new Error(`unexpected selector ${selector}`);
}

describe('discoverControlPlane', () => {
  it('finds the controller manager and schedulers with their secure ports', async () => {
    const client = new FakeClient(select);
    const found = await discoverControlPlane(client);
    expect(found).toEqual([
      {
        component: 'kube-controller-manager',
        namespace: 'kube-system',
        pod: 'kube-controller-manager-cp-1',
        node: 'cp-1',
        phase: 'Running',
        podIP: '10.0.0.11',
        port: 10257,
        spec: 'pod/kube-system/kube-controller-manager-cp-1:10257',
      },
      {
        component: 'kube-scheduler',
        namespace: 'kube-system',
        pod: 'kube-scheduler-cp-1',
        node: 'cp-1',
        phase: 'Running',
        podIP: '10.0.0.11',
        port: 11259,
        spec: 'pod/kube-system/kube-scheduler-cp-1:11259',
      },
      {
        component: 'kube-scheduler',
        namespace: 'kube-system',
        pod: 'kube-scheduler-cp-2',
        node: 'cp-1',
        phase: 'Pending',
        podIP: null,
        port: 10259,
        spec: 'pod/kube-system/kube-scheduler-cp-2:10259',
      },
    ]);
    expect(client.paths).toEqual([
      '/api/v1/namespaces/kube-system/pods?labelSelector=component%20in%20(kube-controller-manager%2Ckube-scheduler)',
      '/api/v1/namespaces/kube-system/pods?labelSelector=tier%3Dcontrol-plane',
    ]);
  });

  it('finds nothing on a cluster whose control plane does not run as pods', async () => {
    expect(await discoverControlPlane(new FakeClient(() => []))).toEqual([]);
  });

  it('fails as the command would, naming what was refused', async () => {
    const status = JSON.stringify({ kind: 'Status', status: 'Failure', message: 'pods is forbidden', reason: 'Forbidden', code: 403 });
    const client = new FakeClient(() => errorFromResponse(403, status, { verb: 'list', resource: 'pods', namespace: 'kube-system' }));
    const err = await discoverControlPlane(client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClusterError);
    expect((err as ClusterError).message).toBe('forbidden: the current user may not list pods in namespace kube-system (403)');
    expect((err as ClusterError).hint).toBe('confirm with: kubectl auth can-i list pods -n kube-system');
  });
});
