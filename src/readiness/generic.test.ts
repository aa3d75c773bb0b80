import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.js';
import { genericVerdict } from './generic.js';
import { generationOf } from './status-fields.js';

const T = '2026-01-01T00:00:05Z';
const cr = (generation: number, status?: Record<string, unknown>, metadata: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): KubeObject =>
  ({
    apiVersion: 'example.com/v1',
    kind: 'Thing',
    metadata: { name: 'x', namespace: 'ns', uid: 'u', generation, ...metadata },
    spec,
    ...(status ? { status } : {}),
  }) as KubeObject;
const cond = (type: string, status: string, reason = '', extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type,
  status,
  reason,
  lastTransitionTime: T,
  ...extra,
});

describe('the generic rules: a kind no rule names', () => {
  it.each([
    [
      'a brand-new object no controller has written status for is not observed, not done',
      cr(1),
      'InProgress',
      'no controller has written its status yet (rule: not observed)',
    ],
    [
      'observedGeneration behind, as a numeric string',
      cr(4, { observedGeneration: '3', phase: 'Healthy' }),
      'InProgress',
      'observedGeneration 3 < generation 4 (rule: not observed)',
    ],
    [
      'a condition of an older generation',
      cr(4, { observedGeneration: 4, conditions: [cond('Ready', 'True', 'Done', { observedGeneration: 3 })] }),
      'InProgress',
      'condition Ready is of generation 3 < 4 (rule: not observed)',
    ],
    [
      'Stalled=True is failed',
      cr(2, { observedGeneration: 2, conditions: [cond('Ready', 'False', 'X'), cond('Stalled', 'True', 'ManualStall', { message: 'stalled on request' })] }),
      'Failed',
      'Stalled=True ManualStall: stalled on request (rule: Stalled condition)',
    ],
    [
      'Reconciling=True is in progress',
      cr(2, { observedGeneration: 2, conditions: [cond('Reconciling', 'True', 'Progressing')] }),
      'InProgress',
      'Reconciling=True Progressing (rule: Reconciling condition)',
    ],
    [
      'Ready=False is in progress, with its reason and message',
      cr(2, { observedGeneration: 2, conditions: [cond('Ready', 'False', 'Waiting', { message: '1 of 3' })] }),
      'InProgress',
      'Ready=False Waiting: 1 of 3 (rule: Ready condition)',
    ],
    [
      'Ready=True is current',
      cr(2, { observedGeneration: 2, conditions: [cond('Ready', 'True', 'Available')] }),
      'Current',
      'Ready=True Available (rule: Ready condition)',
    ],
    [
      'Ready=True beside Degraded=True is failed: a degraded object is never current',
      cr(2, { observedGeneration: 2, conditions: [cond('Ready', 'True', 'Available'), cond('Degraded', 'True', 'ReplicaLost')] }),
      'Failed',
      'Degraded=True ReplicaLost (rule: Degraded condition)',
    ],
    [
      'Ready=True while an update failed (Synced=False ReconcileError) is failed',
      cr(2, {
        observedGeneration: 2,
        conditions: [cond('Ready', 'True', 'Available'), cond('Synced', 'False', 'ReconcileError', { message: 'update failed' })],
      }),
      'Failed',
      'Synced=False ReconcileError: update failed (rule: Synced condition)',
    ],
    [
      'Ready=True while another positive condition is not yet True is in progress',
      cr(2, { observedGeneration: 2, conditions: [cond('Ready', 'True', 'Available'), cond('Synced', 'Unknown', 'Pending')] }),
      'InProgress',
      'Synced=Unknown Pending (rule: Synced condition)',
    ],
    [
      'a failed phase beside an Available condition is failed',
      cr(2, { observedGeneration: 2, phase: 'Aborted', conditions: [cond('Available', 'True', 'AvailableReason')] }),
      'Failed',
      'phase Aborted (rule: status.phase)',
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
      'Current',
      'phase Healthy (rule: status.phase)',
    ],
    [
      'one positive condition False is in progress',
      cr(4, { observedGeneration: '4', phase: 'Progressing', conditions: [cond('Available', 'True'), cond('Healthy', 'False', 'RolloutInProgress')] }),
      'InProgress',
      'Healthy=False RolloutInProgress (rule: Healthy condition)',
    ],
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
      'InProgress',
      'RayClusterProvisioned=False RayClusterPodsProvisioning (rule: RayClusterProvisioned condition)',
    ],
    [
      'the same once ready: its state says so',
      cr(1, {
        observedGeneration: 1,
        state: 'ready',
        conditions: [
          cond('HeadPodReady', 'True', 'HeadPodRunningAndReady'),
          cond('RayClusterProvisioned', 'True', 'AllPodRunningAndReadyFirstTime'),
          cond('RayClusterSuspended', 'False', 'RayClusterSuspended'),
        ],
      }),
      'Current',
      'state ready (rule: status.state)',
    ],
    [
      'positive conditions all True, none of them Ready, no phase: current, and what it owns decides',
      cr(1, { observedGeneration: 1, conditions: [cond('HeadPodReady', 'True', 'HeadPodRunningAndReady'), cond('Available', 'True', 'Up')] }),
      'Current',
      'HeadPodReady=True HeadPodRunningAndReady, Available=True Up (rule: conditions)',
    ],
    [
      'a NotReady condition True is not readiness',
      cr(1, { observedGeneration: 1, conditions: [cond('NotReady', 'True', 'Waiting')] }),
      'Unknown',
      'observedGeneration 1 / generation 1, and the status says nothing more (rule: observedGeneration)',
    ],
    ['a phase that is not done yet', cr(1, { observedGeneration: 1, phase: 'Pending' }), 'InProgress', 'phase Pending (rule: status.phase)'],
    ['a failed phase', cr(1, { phase: 'Failed' }), 'Failed', 'phase Failed (rule: status.phase)'],
    ['a state word of a widely used operator', cr(1, { state: 'Exists' }), 'Current', 'state Exists (rule: status.state)'],
    [
      'a phase that says it is failing over is in progress, not failed',
      cr(1, { phase: 'Failing over' }),
      'InProgress',
      'phase Failing over (rule: status.phase)',
    ],
    ['a phase that says it timed out', cr(1, { phase: 'TimedOut' }), 'Failed', 'phase TimedOut (rule: status.phase)'],
    [
      'spec.suspend is suspended',
      cr(1, { observedGeneration: 1, conditions: [cond('Ready', 'True')] }, {}, { suspend: true }),
      'Suspended',
      'spec.suspend is true (rule: spec.suspend)',
    ],
    ['spec.paused is suspended', cr(1, { observedGeneration: 1 }, {}, { paused: true }), 'Suspended', 'spec.paused is true (rule: spec.paused)'],
    [
      'a Paused condition True is suspended',
      cr(1, { conditions: [cond('Paused', 'True', 'UserPaused')] }),
      'Suspended',
      'Paused=True UserPaused (rule: Paused condition)',
    ],
    ['a Paused phase is suspended', cr(1, { phase: 'Paused' }), 'Suspended', 'phase Paused (rule: status.phase)'],
    [
      'a route accepted by every parent, conditions nested the Gateway API way',
      cr(1, { parents: [{ parentRef: { name: 'gw' }, conditions: [cond('Accepted', 'True', 'Accepted'), cond('ResolvedRefs', 'True', 'ResolvedRefs')] }] }),
      'Current',
      'parents[gw] Accepted=True Accepted, parents[gw] ResolvedRefs=True ResolvedRefs (rule: conditions)',
    ],
    [
      'a route one parent refused',
      cr(1, {
        parents: [
          { parentRef: { name: 'a' }, conditions: [cond('Accepted', 'True', 'Accepted')] },
          { parentRef: { name: 'b' }, conditions: [cond('Accepted', 'False', 'NotAllowedByListeners')] },
        ],
      }),
      'Failed',
      'parents[b] Accepted=False NotAllowedByListeners (rule: parents[b] Accepted condition)',
    ],
    [
      'a route still pending with a parent',
      cr(1, { parents: [{ parentRef: { name: 'gw' }, conditions: [cond('Accepted', 'Unknown', 'Pending')] }] }),
      'InProgress',
      'parents[gw] Accepted=Unknown Pending (rule: parents[gw] Accepted condition)',
    ],
    [
      'only an observedGeneration caught up: unknown, not current',
      cr(3, { observedGeneration: 3 }),
      'Unknown',
      'observedGeneration 3 / generation 3, and the status says nothing more (rule: observedGeneration)',
    ],
    [
      'a status the rules cannot read',
      cr(3, { replicas: 2 }),
      'Unknown',
      'readiness unknown: its status has no observedGeneration, no condition and no phase the rules read (rule: unknown)',
    ],
  ])('%s', (_what, obj, status, detail) => {
    const r = genericVerdict(obj);
    expect(`${r.status}: ${r.detail} (rule: ${r.rule})`).toBe(`${status}: ${detail}`);
  });

  it('takes the server time of the deciding condition', () => {
    expect(genericVerdict(cr(2, { observedGeneration: 2, conditions: [cond('Ready', 'True', 'Available')] }))).toMatchObject({
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
