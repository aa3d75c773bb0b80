import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.js';
import { NS, ago, deployment, input, lease, pod, replicaSet } from '../../tools/testing/diagnose-input.js';
import { diagnose } from './diagnose.js';
import { diagnosisText } from './text.js';
import type { ControllerQueue, DiagnoseInput, LeaseInput } from './types.js';

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
