/**
 * Inputs of the diagnosis (src/diagnose) for its tests: a Deployment `web` in namespace demo with its
 * ReplicaSet, two ready Pods on ready nodes and renewed control-plane Leases, at a fixed time, unless
 * told otherwise.
 */
import type { DiagnoseInput, LeaseInput } from '../../src/diagnose/types.js';
import type { KubeObject, Lease } from '../../src/kube/index.js';
import { createReadiness } from '../../src/readiness/index.js';

export const readiness = await createReadiness();

export const NOW = Date.parse('2026-12-01T12:00:00Z');
export const ago = (s: number): string => new Date(NOW - s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
export const NS = 'demo';

export function deployment(
  o: { generation?: number; observed?: number; replicas?: number; ready?: number; paused?: boolean; conditions?: unknown[]; changedAgo?: number } = {},
): KubeObject {
  const replicas = o.replicas ?? 2;
  const ready = o.ready ?? replicas;
  return {
    metadata: {
      name: 'web',
      namespace: NS,
      uid: 'd-1',
      generation: o.generation ?? 2,
      resourceVersion: '100',
      annotations: { 'deployment.kubernetes.io/revision': '2' },
      creationTimestamp: ago(3600),
      managedFields: [{ manager: 'kubectl', operation: 'Update', time: ago(o.changedAgo ?? 120) }],
    },
    spec: { replicas, ...(o.paused ? { paused: true } : {}) },
    status: {
      observedGeneration: o.observed ?? o.generation ?? 2,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: ready,
      availableReplicas: ready,
      conditions: o.conditions ?? [
        {
          type: 'Progressing',
          status: 'True',
          reason: ready === replicas ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated',
          lastTransitionTime: ago(100),
          lastUpdateTime: ago(100),
        },
      ],
    },
  };
}

export function replicaSet(o: { replicas?: number; conditions?: unknown[]; changedAgo?: number } = {}): KubeObject {
  return {
    metadata: {
      name: 'web-abc',
      namespace: NS,
      uid: 'rs-1',
      generation: 1,
      annotations: { 'deployment.kubernetes.io/revision': '2' },
      creationTimestamp: ago(o.changedAgo ?? 120),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd-1', controller: true }],
    },
    spec: { replicas: o.replicas ?? 2 },
    status: { observedGeneration: 1, replicas: o.replicas ?? 2, ...(o.conditions ? { conditions: o.conditions } : {}) },
  };
}

export interface PodOpts {
  name?: string;
  node?: string | null;
  ready?: boolean;
  phase?: string;
  createdAgo?: number;
  readyAgo?: number;
  conditions?: unknown[];
  containerStatuses?: unknown[];
  owner?: { kind: string; uid: string; name: string };
}

export function pod(o: PodOpts = {}): KubeObject {
  const node = o.node === undefined ? 'node-a' : o.node;
  const ready = o.ready ?? true;
  const conditions = o.conditions ?? [
    { type: 'PodScheduled', status: node ? 'True' : 'False', lastTransitionTime: ago(o.createdAgo ?? 100) },
    { type: 'Initialized', status: 'True', lastTransitionTime: ago(o.createdAgo ?? 100) },
    { type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: ago(o.readyAgo ?? 90) },
    { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: ago(o.readyAgo ?? 90) },
  ];
  const owner = o.owner ?? { kind: 'ReplicaSet', uid: 'rs-1', name: 'web-abc' };
  return {
    metadata: {
      name: o.name ?? 'web-abc-1',
      namespace: NS,
      uid: `pod-${o.name ?? 'web-abc-1'}`,
      creationTimestamp: ago(o.createdAgo ?? 100),
      ownerReferences: [{ apiVersion: 'v1', kind: owner.kind, name: owner.name, uid: owner.uid, controller: true }],
    },
    spec: { ...(node ? { nodeName: node } : {}), containers: [{ name: 'app', image: 'nginx' }] },
    status: {
      phase: o.phase ?? (node ? 'Running' : 'Pending'),
      conditions,
      containerStatuses:
        o.containerStatuses ?? (node ? [{ name: 'app', ready, started: true, restartCount: 0, state: { running: { startedAt: ago(95) } } }] : undefined),
    },
  };
}

export function node(name: string, ready: 'True' | 'False' | 'Unknown' = 'True', since = 600): KubeObject {
  return {
    metadata: { name, uid: `node-${name}` },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: ready,
          reason: ready === 'True' ? 'KubeletReady' : 'NodeStatusUnknown',
          message: ready === 'True' ? 'kubelet is posting ready status' : 'Kubelet stopped posting node status.',
          lastTransitionTime: ago(since),
        },
      ],
    },
  };
}

export function lease(component: LeaseInput['component'], renewedAgo: number, holder = `${component}-host_1`): LeaseInput {
  const l: Lease = {
    metadata: { name: component, namespace: 'kube-system' },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, renewTime: new Date(NOW - renewedAgo * 1000).toISOString() },
  };
  return { component, namespace: 'kube-system', name: component, lease: { seen: true, value: l } };
}

export function event(o: {
  reason: string;
  note: string;
  regarding: KubeObject;
  kind: string;
  type?: string;
  firstAgo?: number;
  lastAgo?: number;
  count?: number;
  controller?: string;
}): KubeObject {
  return {
    metadata: {
      name: `${o.regarding.metadata.name}.${o.reason}`,
      namespace: NS,
      uid: `ev-${o.reason}-${o.regarding.metadata.name}`,
      creationTimestamp: ago(o.firstAgo ?? 60),
    },
    reason: o.reason,
    note: o.note,
    type: o.type ?? 'Warning',
    regarding: { kind: o.kind, name: o.regarding.metadata.name, namespace: NS, uid: o.regarding.metadata.uid },
    deprecatedFirstTimestamp: ago(o.firstAgo ?? 60),
    deprecatedLastTimestamp: ago(o.lastAgo ?? 5),
    deprecatedCount: o.count ?? 1,
    reportingController: o.controller ?? '',
  };
}

export function input(o: Partial<DiagnoseInput> & { pods?: KubeObject[]; rs?: KubeObject[] } = {}): DiagnoseInput {
  const rs = o.rs ?? [replicaSet()];
  const pods = o.pods ?? [pod({ name: 'web-abc-1' }), pod({ name: 'web-abc-2' })];
  return {
    now: NOW,
    readiness,
    target: { kind: 'Deployment', namespace: NS, name: 'web' },
    object: 'object' in o ? o.object : deployment(),
    descendants: o.descendants ?? [...rs.map((obj) => ({ kind: 'ReplicaSet', obj })), ...pods.map((obj) => ({ kind: 'Pod', obj }))],
    events: o.events ?? { seen: true, value: [] },
    nodes: o.nodes ?? { seen: true, value: [node('node-a'), node('node-b')] },
    leases: o.leases ?? [lease('kube-controller-manager', 2), lease('kube-scheduler', 1)],
    queues: o.queues,
    graceMs: o.graceMs ?? 30_000,
  };
}
