import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.js';
import { convergence, generationOf, readinessOf } from './facts.js';

const T = '2026-01-01T00:00:05Z';
const cr = (generation: number, status?: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject =>
  ({
    apiVersion: 'example.com/v1',
    kind: 'Thing',
    metadata: { name: 'x', namespace: 'ns', uid: 'u', generation, ...metadata },
    spec: {},
    ...(status ? { status } : {}),
  }) as KubeObject;
const cond = (type: string, status: string, reason = '', extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type,
  status,
  reason,
  lastTransitionTime: T,
  ...extra,
});

describe('readinessOf: a kind without a rule of its own', () => {
  it.each([
    [
      'a brand-new object no controller has written status for is not observed, not done',
      cr(1),
      false,
      undefined,
      'no controller has written its status yet (rule: not observed)',
    ],
    ['being deleted', cr(1, { observedGeneration: 1 }, { deletionTimestamp: T }), false, undefined, 'being deleted (rule: terminating)'],
    [
      'observedGeneration behind, as a numeric string',
      cr(4, { observedGeneration: '3', phase: 'Healthy' }),
      false,
      undefined,
      'observedGeneration 3 < generation 4 (rule: not observed)',
    ],
    [
      'a condition of an older generation',
      cr(4, { observedGeneration: 4, conditions: [cond('Ready', 'True', 'Done', { observedGeneration: 3 })] }),
      false,
      undefined,
      'condition Ready is of generation 3 < 4 (rule: not observed)',
    ],
    [
      'Stalled=True is failed',
      cr(2, { observedGeneration: 2, conditions: [cond('Ready', 'False', 'X'), cond('Stalled', 'True', 'ManualStall', { message: 'stalled on request' })] }),
      true,
      true,
      'Stalled=True ManualStall: stalled on request (rule: Stalled condition)',
    ],
    [
      'Reconciling=True is in progress',
      cr(2, { observedGeneration: 2, conditions: [cond('Reconciling', 'True', 'Progressing')] }),
      false,
      undefined,
      'Reconciling=True Progressing (rule: Reconciling condition)',
    ],
    [
      'Ready=False is in progress, with its reason and message',
      cr(2, { observedGeneration: 2, conditions: [cond('Ready', 'False', 'Waiting', { message: '1 of 3' })] }),
      false,
      undefined,
      'Ready=False Waiting: 1 of 3 (rule: Ready condition)',
    ],
    [
      'Ready=True is current',
      cr(2, { observedGeneration: 2, conditions: [cond('Ready', 'True', 'Available')] }),
      true,
      undefined,
      'Ready=True Available (rule: Ready condition)',
    ],
    [
      'a progressive-delivery resource: observedGeneration a string, Healthy phase, no Ready condition',
      cr(4, {
        observedGeneration: '4',
        phase: 'Healthy',
        conditions: [
          cond('Progressing', 'True', 'NewReplicaSetAvailable'),
          cond('Available', 'True', 'AvailableReason'),
          cond('Healthy', 'True', 'RolloutHealthy'),
          cond('Completed', 'True', 'RolloutCompleted'),
        ],
      }),
      true,
      undefined,
      'Available=True AvailableReason, Healthy=True RolloutHealthy, Completed=True RolloutCompleted (rule: conditions)',
    ],
    [
      'one positive condition False is in progress',
      cr(4, { observedGeneration: '4', phase: 'Progressing', conditions: [cond('Available', 'True'), cond('Healthy', 'False', 'RolloutInProgress')] }),
      false,
      undefined,
      'Healthy=False RolloutInProgress (rule: Healthy condition)',
    ],
    // KubeRay's first status of a RayCluster: positive types are found by their ending, negative ones (Suspended) are not read as readiness.
    [
      'a cluster resource whose first status has no state yet',
      cr(1, {
        observedGeneration: 1,
        conditions: [
          cond('HeadPodReady', 'True', 'HeadPodRunningAndReady'),
          cond('RayClusterProvisioned', 'False', 'RayClusterPodsProvisioning'),
          cond('RayClusterSuspended', 'False', 'RayClusterSuspended'),
        ],
      }),
      false,
      undefined,
      'RayClusterProvisioned=False RayClusterPodsProvisioning (rule: RayClusterProvisioned condition)',
    ],
    [
      'the same once ready',
      cr(1, {
        observedGeneration: 1,
        state: 'ready',
        conditions: [
          cond('HeadPodReady', 'True', 'HeadPodRunningAndReady'),
          cond('RayClusterProvisioned', 'True', 'AllPodRunningAndReadyFirstTime'),
          cond('RayClusterSuspended', 'False', 'RayClusterSuspended'),
        ],
      }),
      true,
      undefined,
      'HeadPodReady=True HeadPodRunningAndReady, RayClusterProvisioned=True AllPodRunningAndReadyFirstTime (rule: conditions)',
    ],
    [
      'a NotReady condition True is not readiness',
      cr(1, { observedGeneration: 1, conditions: [cond('NotReady', 'True', 'Waiting')] }),
      true,
      undefined,
      'observedGeneration 1 / generation 1, no condition says otherwise (rule: observedGeneration)',
    ],
    ['a phase that is not done yet', cr(1, { observedGeneration: 1, phase: 'Pending' }), false, undefined, 'phase Pending (rule: status.phase)'],
    ['a failed phase', cr(1, { phase: 'Failed' }), true, true, 'phase Failed (rule: status.phase)'],
    [
      'only an observedGeneration caught up',
      cr(3, { observedGeneration: 3 }),
      true,
      undefined,
      'observedGeneration 3 / generation 3, no condition says otherwise (rule: observedGeneration)',
    ],
    [
      'a status the rules cannot read',
      cr(3, { replicas: 2 }),
      false,
      undefined,
      'readiness unknown: its status has no observedGeneration, no condition and no phase the rules read (rule: unknown)',
    ],
  ])('%s', (_what, obj, done, failed, detail) => {
    const r = readinessOf(obj);
    expect(r.done).toBe(done);
    expect(r.failed).toBe(failed);
    expect(r.detail).toBe(detail);
    expect(convergence('Thing', obj)).toEqual(r);
  });

  it('takes the server time of the deciding condition', () => {
    expect(readinessOf(cr(2, { observedGeneration: 2, conditions: [cond('Ready', 'True', 'Available')] }))).toMatchObject({
      serverTime: T,
      serverTimeSource: 'Ready lastTransitionTime',
    });
  });
});

describe('generationOf', () => {
  it('reads numbers and numeric strings, nothing else', () => {
    expect([generationOf(4), generationOf('4'), generationOf('04'), generationOf('4a'), generationOf(''), generationOf(undefined), generationOf(null)]).toEqual(
      [4, 4, 4, undefined, undefined, undefined, undefined],
    );
  });
});
