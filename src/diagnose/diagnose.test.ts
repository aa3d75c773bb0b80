import { describe, expect, it } from 'vitest';
import type { KubeObject, Lease } from '../kube/index.js';
import { diagnose } from './diagnose.js';
import { diagnosisBrief, diagnosisText } from './text.js';
import type { ControllerQueue, DiagnoseInput, LeaseInput } from './types.js';
import { createReadiness } from '../readiness/index.js';

const readiness = await createReadiness();

const NOW = Date.parse('2026-12-01T12:00:00Z');
const ago = (s: number): string => new Date(NOW - s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
const NS = 'demo';

function deployment(
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

function replicaSet(o: { replicas?: number; conditions?: unknown[]; changedAgo?: number } = {}): KubeObject {
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

interface PodOpts {
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

function pod(o: PodOpts = {}): KubeObject {
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

function node(name: string, ready: 'True' | 'False' | 'Unknown' = 'True', since = 600): KubeObject {
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

function lease(component: LeaseInput['component'], renewedAgo: number, holder = `${component}-host_1`): LeaseInput {
  const l: Lease = {
    metadata: { name: component, namespace: 'kube-system' },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, renewTime: new Date(NOW - renewedAgo * 1000).toISOString() },
  };
  return { component, namespace: 'kube-system', name: component, lease: { seen: true, value: l } };
}

function event(o: {
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

function input(o: Partial<DiagnoseInput> & { pods?: KubeObject[]; rs?: KubeObject[] } = {}): DiagnoseInput {
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

describe('diagnose: healthy', () => {
  it('a converged Deployment with every source seen is healthy, every link ok', () => {
    const d = diagnose(input());
    expect(d.verdict).toBe('healthy');
    expect(d.link).toBeNull();
    expect(d.summary).toContain('converged');
    expect(d.links.map((l) => l.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(d.links.find((l) => l.link === 'controller-observed')!.detail).toContain('renewed');
  });

  it('a Pod inside the grace period is progressing, not broken', () => {
    const d = diagnose(
      input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-1' }), pod({ name: 'web-abc-2', ready: false, createdAgo: 5, readyAgo: 5 })] }),
    );
    expect(d.verdict).toBe('healthy');
    expect(d.summary).toContain('in progress');
    expect(d.links.find((l) => l.link === 'containers-started')!.status).toBe('progressing');
  });
});

describe('diagnose: accepted and spec', () => {
  it('a target that does not exist is broken at accepted', () => {
    const d = diagnose(input({ object: undefined, descendants: [] }));
    expect(d.verdict).toBe('broken');
    expect(d.link).toBe('accepted');
    expect(d.next[0]).toBe('kubectl get deployment web -n demo');
  });

  it('a paused Deployment that has not rolled out is broken at spec', () => {
    const d = diagnose(input({ object: deployment({ paused: true, generation: 3, observed: 3, ready: 1 }) }));
    expect(d.link).toBe('spec');
    expect(d.evidence[0]).toMatchObject({ source: 'field', type: 'spec.paused', reason: 'Paused' });
    expect(d.next).toEqual(['kubectl rollout resume deployment/web -n demo']);
  });
});

describe('diagnose: controller observed', () => {
  it('generation not observed and the leader Lease expired: broken, with the Lease and how long', () => {
    const d = diagnose(
      input({ object: deployment({ generation: 3, observed: 2, changedAgo: 50 }), leases: [lease('kube-controller-manager', 45), lease('kube-scheduler', 1)] }),
    );
    expect(d.verdict).toBe('broken');
    expect(d.link).toBe('controller-observed');
    expect(d.evidence[0]).toMatchObject({
      object: { kind: 'Deployment', name: 'web' },
      reason: 'GenerationNotObserved',
      message: 'observedGeneration 2 < generation 3',
      forMs: 50_000,
    });
    const l = d.evidence.find((e) => e.source === 'lease')!;
    expect(l).toMatchObject({ object: { kind: 'Lease', namespace: 'kube-system', name: 'kube-controller-manager' }, reason: 'Expired', forMs: 30_000 });
    expect(l.message).toContain('expired 30.0s ago');
    expect(d.next).toContain('kubectl get lease kube-controller-manager -n kube-system -o yaml');
  });

  it('a released Lease (no holder) is broken even before the generation lags past the grace', () => {
    const released = lease('kube-controller-manager', 3, '');
    const d = diagnose(input({ object: deployment({ generation: 3, observed: 2, changedAgo: 2 }), leases: [released, lease('kube-scheduler', 1)] }));
    expect(d.link).toBe('controller-observed');
    expect(d.evidence.some((e) => e.reason === 'Released')).toBe(true);
  });

  it('a missing Lease is evidence too', () => {
    const d = diagnose(
      input({
        object: deployment({ generation: 3, observed: 2, changedAgo: 40 }),
        leases: [{ component: 'kube-controller-manager', namespace: 'kube-system', name: 'kube-controller-manager', lease: { seen: true, value: undefined } }],
      }),
    );
    expect(d.link).toBe('controller-observed');
    expect(d.evidence.find((e) => e.source === 'lease')!.reason).toBe('NotFound');
  });

  it('a lag inside the grace period with a renewed Lease is progressing', () => {
    const d = diagnose(input({ object: deployment({ generation: 3, observed: 2, changedAgo: 3 }) }));
    expect(d.verdict).toBe('healthy');
    expect(d.links.find((l) => l.link === 'controller-observed')!.status).toBe('progressing');
  });

  it('a lag past the grace with a renewed Lease names the queue when its metrics were read', () => {
    const queues = {
      seen: true as const,
      value: [
        {
          name: 'deployment',
          controller: null,
          depth: 4,
          addsPerSecond: 1,
          retriesPerSecond: 0.5,
          addsTotal: 10,
          retriesTotal: 3,
          queueTime: { p50: null, p99: null, observations: null, basis: null },
          workTime: { p50: null, p99: null, observations: null, basis: null },
          unfinishedWorkSeconds: 0,
          longestRunningProcessorSeconds: 0,
        },
      ],
    };
    const d = diagnose(input({ object: deployment({ generation: 3, observed: 2, changedAgo: 60 }), queues }));
    expect(d.link).toBe('controller-observed');
    expect(d.summary).toContain('holds its Lease');
    expect(d.evidence.find((e) => e.source === 'queue')).toMatchObject({
      object: { name: 'deployment' },
      reason: 'Retrying',
      message: 'depth 4, retries/s 0.50',
    });
  });

  it('an unreadable Lease with the generation lagging is still broken (what was seen), and says what was not seen', () => {
    const d = diagnose(
      input({
        object: deployment({ generation: 3, observed: 2, changedAgo: 60 }),
        leases: [
          {
            component: 'kube-controller-manager',
            namespace: 'kube-system',
            name: 'kube-controller-manager',
            lease: { seen: false, why: 'forbidden: get leases in kube-system (403)' },
          },
        ],
      }),
    );
    expect(d.verdict).toBe('broken');
    expect(d.link).toBe('controller-observed');
    expect(d.summary).toContain('Lease could not be read');
    expect(d.unseen).toEqual([{ what: 'Lease kube-system/kube-controller-manager', why: 'forbidden: get leases in kube-system (403)' }]);
  });
});

describe('diagnose: children created', () => {
  it('a ResourceQuota refusing the Pods: FailedCreate at the ReplicaSet, with the quota command', () => {
    const rs = replicaSet({
      replicas: 2,
      conditions: [
        {
          type: 'ReplicaFailure',
          status: 'True',
          reason: 'FailedCreate',
          message: 'pods "web-abc-x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1',
          lastTransitionTime: ago(40),
        },
      ],
    });
    const p1 = pod({ name: 'web-abc-1' });
    const ev = event({
      reason: 'FailedCreate',
      kind: 'ReplicaSet',
      regarding: rs,
      note: 'Error creating: pods "web-abc-x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1',
      count: 7,
      firstAgo: 40,
      lastAgo: 3,
      controller: 'replicaset-controller',
    });
    const d = diagnose(input({ object: deployment({ ready: 1 }), rs: [rs], pods: [p1], events: { seen: true, value: [ev] } }));
    expect(d.verdict).toBe('broken');
    expect(d.link).toBe('children-created');
    expect(d.summary).toContain('ReplicaSet/web-abc could not create a Pod: Error creating: pods "web-abc-x" is forbidden: exceeded quota');
    expect(d.evidence[0]).toMatchObject({ source: 'condition', type: 'ReplicaFailure', reason: 'FailedCreate', forMs: 40_000 });
    expect(d.evidence[1]).toMatchObject({ source: 'event', reason: 'FailedCreate', count: 7, reporter: 'replicaset-controller', forMs: 40_000 });
    expect(d.next).toEqual(['kubectl describe replicaset web-abc -n demo', 'kubectl describe resourcequota -n demo']);
  });

  it('a FailedCreate from before the newest Pod does not explain anything now', () => {
    const rs = replicaSet();
    const old = event({ reason: 'FailedCreate', kind: 'ReplicaSet', regarding: rs, note: 'exceeded quota', firstAgo: 900, lastAgo: 800 });
    expect(diagnose(input({ events: { seen: true, value: [old] } })).verdict).toBe('healthy');
  });

  it('Pods missing past the grace with no Event is broken, with the Lease as context', () => {
    const d = diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-1' })] }));
    expect(d.link).toBe('children-created');
    expect(d.evidence[0]).toMatchObject({ reason: 'PodsMissing' });
  });
});

describe('diagnose: scheduled', () => {
  it('Pods too big for any node: the PodScheduled condition and the FailedScheduling Event', () => {
    const msg = '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.';
    const p = pod({
      name: 'web-abc-1',
      node: null,
      createdAgo: 20,
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: msg, lastTransitionTime: ago(20) }],
    });
    const ev = event({ reason: 'FailedScheduling', kind: 'Pod', regarding: p, note: msg, firstAgo: 20, lastAgo: 2, count: 3, controller: 'default-scheduler' });
    const d = diagnose(input({ object: deployment({ ready: 1, replicas: 2 }), pods: [pod({ name: 'web-abc-2' }), p], events: { seen: true, value: [ev] } }));
    expect(d.link).toBe('scheduled');
    expect(d.summary).toContain('1 Pod cannot be scheduled: Unschedulable: 0/2 nodes are available: 2 Insufficient cpu.');
    expect(d.evidence[0]).toMatchObject({
      object: { kind: 'Pod', name: 'web-abc-1' },
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      forMs: 20_000,
    });
    expect(d.evidence[1]).toMatchObject({ source: 'event', reason: 'FailedScheduling', count: 3, reporter: 'default-scheduler' });
    expect(d.next).toEqual(['kubectl describe pod web-abc-1 -n demo', 'kubectl describe nodes']);
  });

  it("Pods never considered while kube-scheduler's Lease is expired", () => {
    const p = pod({ name: 'web-abc-1', node: null, createdAgo: 60, conditions: [] });
    const d = diagnose(
      input({
        object: deployment({ ready: 1 }),
        pods: [pod({ name: 'web-abc-2' }), p],
        leases: [lease('kube-controller-manager', 1), lease('kube-scheduler', 80)],
      }),
    );
    expect(d.link).toBe('scheduled');
    expect(d.summary).toContain("kube-scheduler's leader Lease is not renewed");
    expect(d.evidence.map((e) => e.reason)).toEqual(['NotScheduled', 'Expired']);
    expect(d.next[0]).toBe('kubectl get lease kube-scheduler -n kube-system -o yaml');
  });
});

describe('diagnose: containers started', () => {
  it('a node that stopped heartbeating: the node condition, then the Pod', () => {
    const p = pod({
      name: 'web-abc-1',
      ready: true,
      readyAgo: 30,
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: ago(300) },
        { type: 'Ready', status: 'False', lastTransitionTime: ago(30) },
      ],
    });
    const ev = event({ reason: 'NodeNotReady', kind: 'Pod', regarding: p, note: 'Node is not ready', controller: 'node-controller' });
    const d = diagnose(
      input({
        object: deployment({ ready: 1 }),
        pods: [p, pod({ name: 'web-abc-2', node: 'node-b' })],
        nodes: { seen: true, value: [node('node-a', 'Unknown', 35), node('node-b')] },
        events: { seen: true, value: [ev] },
      }),
    );
    expect(d.link).toBe('containers-started');
    expect(d.summary).toContain('node node-a is not Ready');
    expect(d.evidence[0]).toMatchObject({
      object: { kind: 'Node', name: 'node-a' },
      type: 'Ready',
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
      forMs: 35_000,
    });
    expect(d.evidence[1]).toMatchObject({ object: { kind: 'Pod', name: 'web-abc-1' }, type: 'Ready', status: 'False' });
    expect(d.evidence[2]).toMatchObject({ source: 'event', reason: 'NodeNotReady' });
    expect(d.next[0]).toBe('kubectl describe node node-a');
  });

  it('an image that cannot be pulled is broken at once, whatever the grace', () => {
    const p = pod({
      name: 'web-abc-1',
      ready: false,
      readyAgo: 4,
      phase: 'Pending',
      containerStatuses: [
        { name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "nope:1"' } } },
      ],
    });
    const d = diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p] }));
    expect(d.link).toBe('containers-started');
    expect(d.evidence[0]).toMatchObject({
      source: 'container',
      type: 'container app',
      status: 'waiting',
      reason: 'ImagePullBackOff',
      message: 'Back-off pulling image "nope:1"',
    });
    expect(d.next).toEqual(['kubectl describe pod web-abc-1 -n demo']);
  });

  it("a crash loop points at the previous container's logs", () => {
    const p = pod({
      name: 'web-abc-1',
      ready: false,
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          restartCount: 4,
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } },
          lastState: { terminated: { exitCode: 2, reason: 'Error', finishedAt: ago(10) } },
        },
      ],
    });
    const d = diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p] }));
    expect(d.evidence[0]!.message).toBe(`back-off 40s; last exit 2 (Error) at ${ago(10)}; 4 restarts`);
    expect(d.next).toContain('kubectl logs web-abc-1 -n demo -c app --previous');
  });

  it('a container running but never ready is broken after the grace, progressing before', () => {
    const p = (readyAgo: number): KubeObject =>
      pod({
        name: 'web-abc-1',
        ready: false,
        readyAgo,
        conditions: [
          { type: 'PodScheduled', status: 'True' },
          {
            type: 'ContainersReady',
            status: 'False',
            reason: 'ContainersNotReady',
            message: 'containers with unready status: [app]',
            lastTransitionTime: ago(readyAgo),
          },
          { type: 'Ready', status: 'False', reason: 'ContainersNotReady', lastTransitionTime: ago(readyAgo) },
        ],
      });
    const late = diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p(60)] }));
    expect(late.link).toBe('containers-started');
    expect(late.summary).toContain('1 container running but not ready for 1m0s'.replace('1m0s', '1m'));
    expect(late.evidence.find((e) => e.source === 'condition')).toMatchObject({
      type: 'ContainersReady',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [app]',
    });
    expect(late.next).toEqual(['kubectl describe pod web-abc-1 -n demo', 'kubectl logs web-abc-1 -n demo -c app']);
    expect(diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p(10)] })).verdict).toBe('healthy');
  });

  it('Nodes that could not be read leave an unexplained not-ready Pod unknown', () => {
    const p = pod({ name: 'web-abc-1', ready: false, readyAgo: 120 });
    const d = diagnose(
      input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p], nodes: { seen: false, why: 'forbidden: list nodes (403)' } }),
    );
    expect(d.verdict).toBe('unknown');
    expect(d.link).toBe('containers-started');
    expect(d.unseen).toEqual([{ what: 'Nodes', why: 'forbidden: list nodes (403)' }]);
  });
});

describe('diagnose: status conditions and Jobs', () => {
  const job = (o: { failed?: number; conditions?: unknown[] } = {}): KubeObject => ({
    metadata: { name: 'batch', namespace: NS, uid: 'job-1', generation: 1, creationTimestamp: ago(200) },
    spec: { backoffLimit: 2, parallelism: 1, completions: 1 },
    status: { failed: o.failed ?? 0, active: 0, ...(o.conditions ? { conditions: o.conditions } : {}) },
  });
  const failedPod = (name: string, createdAgo: number): KubeObject =>
    pod({
      name,
      phase: 'Failed',
      ready: false,
      createdAgo,
      owner: { kind: 'Job', uid: 'job-1', name: 'batch' },
      containerStatuses: [
        { name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(createdAgo - 2) } } },
      ],
    });
  const jobInput = (j: KubeObject, pods: KubeObject[]): DiagnoseInput => ({
    ...input(),
    target: { kind: 'Job', namespace: NS, name: 'batch' },
    object: j,
    descendants: pods.map((obj) => ({ kind: 'Pod', obj })),
  });

  it('a Job past its backoffLimit: the Failed condition, with what its Pods died of', () => {
    const j = job({
      failed: 3,
      conditions: [
        { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastTransitionTime: ago(10) },
      ],
    });
    const d = diagnose(jobInput(j, [failedPod('batch-1', 100), failedPod('batch-2', 60), failedPod('batch-3', 20)]));
    expect(d.verdict).toBe('broken');
    expect(d.link).toBe('status-conditions');
    expect(d.summary).toBe('Job/batch: Failed True: BackoffLimitExceeded: Job has reached the specified backoff limit');
    expect(d.evidence[0]).toMatchObject({ object: { kind: 'Job', name: 'batch' }, type: 'Failed', reason: 'BackoffLimitExceeded', forMs: 10_000 });
    expect(d.evidence[1]).toMatchObject({
      object: { kind: 'Pod', name: 'batch-3' },
      source: 'container',
      status: 'terminated',
      reason: 'Error',
      message: 'exited with code 1',
    });
    expect(d.next).toEqual(['kubectl describe job batch -n demo', 'kubectl logs batch-3 -n demo']);
  });

  it('a Job still retrying: the failed attempt at containers-started, with the retries so far', () => {
    const d = diagnose(jobInput(job({ failed: 1 }), [failedPod('batch-1', 30)]));
    expect(d.link).toBe('containers-started');
    expect(d.summary).toContain('exit code 1; the Job retries (1 failed, backoffLimit 2)');
  });

  it('ProgressDeadlineExceeded follows the cause found at an earlier link', () => {
    const dep = deployment({
      ready: 1,
      conditions: [
        {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: 'ReplicaSet "web-abc" has timed out progressing.',
          lastTransitionTime: ago(5),
        },
      ],
    });
    const p = pod({
      name: 'web-abc-1',
      ready: false,
      containerStatuses: [{ name: 'app', ready: false, state: { waiting: { reason: 'ErrImagePull', message: 'pull failed' } } }],
    });
    const d = diagnose(input({ object: dep, pods: [pod({ name: 'web-abc-2' }), p] }));
    expect(d.link).toBe('containers-started');
    expect(d.evidence.at(-1)).toMatchObject({ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' });
  });

  it('ProgressDeadlineExceeded alone is broken at status-conditions', () => {
    const dep = deployment({
      conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'timed out', lastTransitionTime: ago(5) }],
    });
    const d = diagnose(input({ object: dep }));
    expect(d.link).toBe('status-conditions');
  });
});

describe('diagnose: never a guess', () => {
  it('Events that could not be read turn a healthy-looking chain into unknown, saying why', () => {
    const d = diagnose(input({ events: { seen: false, why: 'forbidden: list events.events.k8s.io in demo (403)' } }));
    expect(d.verdict).toBe('unknown');
    expect(d.summary).toContain('not seen: Events in demo');
    expect(d.unseen).toEqual([{ what: 'Events in demo', why: 'forbidden: list events.events.k8s.io in demo (403)' }]);
  });

  it('unreachable metrics are unseen too', () => {
    const d = diagnose(input({ queues: { seen: false, why: 'connect ECONNREFUSED 127.0.0.1:10257' } }));
    expect(d.verdict).toBe('unknown');
    expect(d.unseen[0]!.what).toContain('work queues');
  });
});

describe('diagnosisText', () => {
  it('prints the verdict, evidence with durations, next commands and the links', () => {
    const msg = '0/2 nodes are available: 2 Insufficient cpu.';
    const p = pod({
      name: 'web-abc-1',
      node: null,
      createdAgo: 20,
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: msg, lastTransitionTime: ago(20) }],
    });
    const text = diagnosisText(diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p] })));
    expect(text).toContain('diagnosis: broken at "scheduled" (the scheduler placed the Pods)');
    expect(text).toContain(`Pod/web-abc-1  PodScheduled=False Unschedulable: ${msg} (for 20.0s, since ${ago(20)})`);
    expect(text).toContain('next:\n  kubectl describe pod web-abc-1 -n demo');
    expect(text).toContain('links: spec ok · accepted ok · controller-observed ok · children-created ok · scheduled BROKEN');
  });

  it('diagnosisBrief puts the verdict, the first evidence and the first command on one line', () => {
    const p = pod({
      name: 'web-abc-1',
      node: null,
      createdAgo: 20,
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: '0/2 nodes are available: 2 Insufficient cpu.',
          lastTransitionTime: ago(20),
        },
      ],
    });
    const brief = diagnosisBrief(
      diagnose(input({ object: deployment({ ready: 1 }), pods: [pod({ name: 'web-abc-2' }), p], events: { seen: false, why: 'forbidden (403)' } })),
    );
    expect(brief).toBe(
      `diagnosis: broken at "scheduled": Deployment/web: 1 Pod cannot be scheduled: Unschedulable: 0/2 nodes are available: 2 Insufficient cpu.; evidence: Pod/web-abc-1  PodScheduled=False Unschedulable: 0/2 nodes are available: 2 Insufficient cpu. (for 20.0s, since ${ago(20)}); next: kubectl describe pod web-abc-1 -n demo; could not see: Events in demo (forbidden (403))`,
    );
    expect(brief).not.toContain('\n');
  });
});

describe('diagnose: a custom resource', () => {
  const rollout = (status: Record<string, unknown>, statusAgo: number): KubeObject => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: {
      name: 'demo',
      namespace: NS,
      uid: 'ro-1',
      generation: 4,
      creationTimestamp: ago(3600),
      managedFields: [{ manager: 'rollouts-controller', operation: 'Update', subresource: 'status', time: ago(statusAgo) }],
    },
    spec: {},
    status,
  });
  const crInput = (obj: KubeObject): DiagnoseInput => ({
    ...input({ object: obj, descendants: [] }),
    target: { kind: 'Rollout', namespace: NS, name: 'demo' },
  });

  it('healthy when its readiness rule says so, with a numeric-string observedGeneration', () => {
    const d = diagnose(
      crInput(
        rollout(
          {
            observedGeneration: '4',
            phase: 'Healthy',
            conditions: [{ type: 'Healthy', status: 'True', reason: 'RolloutHealthy', lastTransitionTime: ago(10) }],
          },
          10,
        ),
      ),
    );
    expect(d.verdict).toBe('healthy');
    expect(d.summary).toBe(
      'Rollout/demo: healthy — converged: current expression true: Healthy=True RolloutHealthy; phase Healthy (rule: argoproj.io Rollout, library/argoproj.io.yaml)',
    );
  });

  it('never healthy while not ready: in progress within the grace, broken at the status after it', () => {
    const notObserved = rollout({ observedGeneration: '3', phase: 'Healthy' }, 5);
    expect(diagnose(crInput(notObserved)).summary).toBe(
      'Rollout/demo: healthy so far — in progress: observedGeneration 3 < generation 4: phase Healthy (rule: argoproj.io Rollout, library/argoproj.io.yaml)',
    );
    const stuck = diagnose(crInput(rollout({ observedGeneration: '3', phase: 'Healthy' }, 40)));
    expect(stuck.verdict).toBe('broken');
    expect(stuck.link).toBe('status-conditions');
    expect(stuck.summary).toBe(
      'Rollout/demo: not ready for 40.0s: observedGeneration 3 < generation 4: phase Healthy (rule: argoproj.io Rollout, library/argoproj.io.yaml)',
    );
  });

  const widget = (status: Record<string, unknown>, createdAgo: number): KubeObject => ({
    apiVersion: 'fixtures.example/v1',
    kind: 'Widget',
    metadata: {
      name: 'w',
      namespace: NS,
      uid: 'w-1',
      generation: 1,
      creationTimestamp: ago(createdAgo),
      managedFields: Object.keys(status).length ? [{ manager: 'widget-operator', operation: 'Update', subresource: 'status', time: ago(createdAgo) }] : [],
    },
    spec: {},
    status,
  });
  const opLease = (renewedAgo: number): LeaseInput => ({ ...lease('widget-operator', renewedAgo, 'widget-operator-0'), namespace: NS });
  const queue: ControllerQueue = {
    source: 'http://127.0.0.1:1/metrics',
    sourceIs: 'leader',
    foundBy: [],
    queue: 'widget',
    controller: 'widget',
    matchedBy: 'kind',
    alsoMatched: [],
    depth: 12,
    adds: 40,
    retries: 30,
    reconciles: { error: 30, success: 10 },
    workTime: null,
    objectReconciles: [],
    windowMs: 40_000,
  };
  const operated = (obj: KubeObject, o: Partial<DiagnoseInput> = {}): DiagnoseInput => ({
    ...input({ object: obj, descendants: [] }),
    target: { kind: 'Widget', namespace: NS, name: 'w' },
    operator: {
      manager: 'widget-operator',
      lease: {
        namespace: NS,
        name: 'widget-operator',
        holder: 'widget-operator-0',
        renewTime: ago(1),
        leaseDurationSeconds: 15,
        transitions: 0,
        foundBy: 'metrics',
      },
      queue,
      unseen: [],
    },
    ...o,
  });

  it("not observed: its operator's Lease expired is the cause, with the Lease and the queue as evidence", () => {
    const d = diagnose(operated(widget({}, 40), { leases: [lease('kube-controller-manager', 2), lease('kube-scheduler', 1), opLease(60)] }));
    expect(d.verdict).toBe('broken');
    expect(d.link).toBe('controller-observed');
    expect(d.summary).toBe(
      "Widget/w: no controller has written its status for 40.0s, and widget-operator's leader Lease is expired: no replica of it is reconciling Widgets",
    );
    expect(d.evidence.map((e) => `${e.source} ${e.reason}`)).toEqual(['field GenerationNotObserved', 'lease Expired', 'queue Retrying']);
    expect(diagnosisText(d)).toContain(
      "WorkQueue/widget  work queue: depth 12, 40 adds, 30 retries, reconciles 30 error, 10 success in the last 40.0s (during the trace), from the leader's, http://127.0.0.1:1/metrics",
    );
  });

  it('not observed while its operator holds its Lease: said so, with where to look', () => {
    const d = diagnose(operated(widget({}, 45), { leases: [lease('kube-controller-manager', 2), lease('kube-scheduler', 1), opLease(1)] }));
    expect(d.link).toBe('controller-observed');
    expect(d.summary).toBe('Widget/w: no controller has written its status for 45.0s: widget-operator holds its Lease but has not observed it');
    expect(d.evidence.find((e) => e.source === 'lease')?.message).toBe('held by widget-operator-0, renewed 1.00s ago (leaseDurationSeconds 15)');
    const noOperator = diagnose(
      operated(widget({}, 45), {
        operator: { manager: null, lease: null, queue: null, unseen: ['its controller: no status write names a field manager yet'] },
      }),
    );
    expect(noOperator.summary).toBe(
      'Widget/w: no controller has written its status for 45.0s: no controller has acted on it: is its operator installed and running, and watching this namespace? (if none ever writes its status, say when it is ready with --ready EXPR or --health-rules FILE)',
    );
  });

  it('a Stalled condition is broken at the status, with its reason, message and the queue', () => {
    const stalled = widget(
      {
        observedGeneration: 1,
        conditions: [{ type: 'Stalled', status: 'True', reason: 'ManualStall', message: 'stalled on request', lastTransitionTime: ago(20) }],
      },
      20,
    );
    const d = diagnose(operated(stalled, { leases: [lease('kube-controller-manager', 2), lease('kube-scheduler', 1), opLease(1)] }));
    expect(d.link).toBe('status-conditions');
    expect(d.summary).toBe('Widget/w: Stalled True: ManualStall: stalled on request');
  });

  it('a status with no verdict of its own: the first child not ready is diagnosed as a chain of its own', () => {
    const w = widget({ observedGeneration: 1 }, 120);
    const dep = {
      ...deployment({ ready: 0 }),
      metadata: { ...deployment().metadata, ownerReferences: [{ apiVersion: 'fixtures.example/v1', kind: 'Widget', name: 'w', uid: 'w-1', controller: true }] },
    };
    const pending = pod({ name: 'web-abc-1', node: null, ready: false, createdAgo: 120 });
    const d = diagnose(
      operated(w, {
        descendants: [
          { kind: 'Deployment', obj: dep },
          { kind: 'ReplicaSet', obj: replicaSet() },
          { kind: 'Pod', obj: pending },
        ],
        leases: [lease('kube-controller-manager', 2), lease('kube-scheduler', 1), opLease(1)],
      }),
    );
    // Its Pods are in the chain: the links of Pods find the one that is not scheduled.
    expect(d.link).toBe('scheduled');
    expect(d.evidence.some((e) => e.object.kind === 'Pod')).toBe(true);
    // A paused Deployment it owns, no Pods yet: the Deployment's own diagnosis.
    const paused = { ...deployment({ ready: 0, paused: true }), metadata: dep.metadata };
    const p = diagnose(
      operated(w, {
        descendants: [{ kind: 'Deployment', obj: paused }],
        leases: [lease('kube-controller-manager', 2), lease('kube-scheduler', 1), opLease(1)],
      }),
    );
    expect(p.link).toBe('status-conditions');
    expect(p.summary).toBe('Widget/w: its Deployment/web: the Deployment is paused: its controller does not roll out template changes until it is resumed');
    expect(p.next).toContain('kubectl rollout resume deployment/web -n demo');
  });
});
