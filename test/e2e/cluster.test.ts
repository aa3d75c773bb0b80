import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKube, cluster, createDeployment, createWorkloadNamespace, deleteNamespace, eventually, uniqueName } from './helpers.js';
import type { KubeObject } from '../../src/kube/index.js';

interface Deployment extends KubeObject {
  status?: { availableReplicas?: number; readyReplicas?: number };
}
interface Pod extends KubeObject {
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}

describe('the local control plane is real', () => {
  const kube = adminKube();
  const ns = uniqueName('it-cluster');

  beforeAll(async () => {
    await createWorkloadNamespace(kube, ns);
  });
  afterAll(async () => {
    await deleteNamespace(kube, ns);
  });

  it('runs a 3-replica Deployment to availableReplicas=3 with the real controllers, scheduler and kwok', async () => {
    await createDeployment(kube, ns, 'web', 3);
    const dep = await eventually(
      'availableReplicas=3',
      async () => {
        const d = await kube.client.json<Deployment>(`/apis/apps/v1/namespaces/${ns}/deployments/web`);
        return d.status?.availableReplicas === 3 ? d : undefined;
      },
      120_000,
    );
    expect(dep.status?.readyReplicas).toBe(3);

    const pods = await kube.client.json<{ items: Pod[] }>(`/api/v1/namespaces/${ns}/pods`, { query: { labelSelector: 'app=web' } });
    expect(pods.items).toHaveLength(3);
    for (const pod of pods.items) {
      // Scheduled by the real scheduler onto a kwok node, made Ready by kwok.
      expect(cluster().nodes).toContain(pod.spec?.nodeName);
      expect(pod.status?.phase).toBe('Running');
      expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      // Created by the real ReplicaSet controller.
      expect(pod.metadata.ownerReferences?.[0]?.kind).toBe('ReplicaSet');
    }
  });

  it('runs kube-controller-manager and kube-scheduler with leader election (their Leases exist)', async () => {
    for (const name of ['kube-controller-manager', 'kube-scheduler']) {
      const lease = await eventually(`lease ${name}`, () =>
        kube.client.json<{ spec?: { holderIdentity?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`),
      );
      expect(lease.spec?.holderIdentity).toBeTruthy();
    }
  });

  it('serves the controller-manager /metrics with workqueue series', async () => {
    // Self-signed serving certificate: read it with TLS verification off for this loopback check.
    const text = await insecureGet(cluster().metricsUrl('kube-controller-manager'));
    expect(text).toMatch(/^workqueue_adds_total\{name="deployment"\}/m);
  });

  it('refuses the no-access user and lets the namespace reader read only its namespace', async () => {
    const { connect } = await import('../../src/kube/index.js');
    const none = connect({ kubeconfig: cluster().noAccessKubeconfig });
    await expect(none.client.json('/api/v1/namespaces/default/pods')).rejects.toMatchObject({ code: 403 });
    const reader = connect({ kubeconfig: cluster().namespaceReaderKubeconfig });
    const { readerNamespace } = await import('../../tools/cluster/launcher.js');
    await expect(reader.client.json(`/api/v1/namespaces/${readerNamespace}/pods`)).resolves.toMatchObject({ kind: 'PodList' });
    await expect(reader.client.json('/api/v1/namespaces/default/pods')).rejects.toMatchObject({ code: 403 });
  });
});

async function insecureGet(url: string): Promise<string> {
  const { httpsGet } = await import('../../tools/cluster/launcher.js');
  const r = await httpsGet(url, { rejectUnauthorized: false });
  return r.body;
}
