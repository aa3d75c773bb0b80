import { isNotFound } from './api-error.js';
import type { KubeClient } from './client.js';
import type { Discovery } from './discovery.js';
import type { Lease, LeaseClient, ResourceInfo } from './types.js';

const base = '/apis/coordination.k8s.io/v1';
const resource = 'leases.coordination.k8s.io';

/** coordination.k8s.io/v1 Leases over the API: get, create, and update with optimistic concurrency. */
export class ApiLeaseClient implements LeaseClient {
  constructor(private readonly client: KubeClient) {}

  async get(namespace: string, name: string, signal?: AbortSignal): Promise<Lease | undefined> {
    try {
      return await this.client.json<Lease>(`${base}/namespaces/${namespace}/leases/${name}`, {
        signal,
        describe: { verb: 'get', resource, namespace, name },
      });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  create(lease: Lease, signal?: AbortSignal): Promise<Lease> {
    const namespace = lease.metadata.namespace ?? 'default';
    return this.client.json<Lease>(`${base}/namespaces/${namespace}/leases`, {
      method: 'POST',
      body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease },
      signal,
      describe: { verb: 'create', resource, namespace },
    });
  }

  update(lease: Lease, signal?: AbortSignal): Promise<Lease> {
    const namespace = lease.metadata.namespace ?? 'default';
    const name = lease.metadata.name ?? '';
    return this.client.json<Lease>(`${base}/namespaces/${namespace}/leases/${name}`, {
      method: 'PUT',
      body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease },
      signal,
      describe: { verb: 'update', resource, namespace, name },
    });
  }
}

/** coordination.k8s.io/v1 has served Leases since Kubernetes 1.14, so no discovery round trip. */
export const LEASES: ResourceInfo = {
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  namespaced: true,
  shortNames: [],
  singularName: 'lease',
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
};

/**
 * The LeaseCandidate resource in the version the server prefers (v1beta1 in Kubernetes 1.33 to
 * 1.37, v1alpha2 in 1.32), or undefined when the server does not serve it: coordinated leader
 * election is off (the CoordinatedLeaderElection gate or the API version is not enabled).
 */
export async function leaseCandidateResource(discovery: Discovery): Promise<ResourceInfo | undefined> {
  return discovery.first((r) => r.group === 'coordination.k8s.io' && r.resource === 'leasecandidates');
}
