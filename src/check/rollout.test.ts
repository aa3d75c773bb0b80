import { describe, expect, it } from 'vitest';
import type { Hop, HopKind, TraceOutcome, TraceSnapshot, TreeNode } from '../trace/index.js';
import { describeStuck, evaluateRollout } from './rollout.js';
import type { RolloutCheckSpec } from './types.js';

const T = 1_000_000;
const spec: RolloutCheckSpec = {
  kind: 'rollout',
  name: 'rollout deploy/web in demo',
  target: 'deploy/web',
  namespace: 'demo',
  trigger: { kind: 'restart' },
  maxConvergeMs: 10_000,
  maxHopMs: 3_000,
  timeoutMs: 10_000,
  origin: { source: 'flags' },
};

function hop(id: string, kind: HopKind, object: string, at: number, previous?: string): Hop {
  const [k, name] = object.split('/') as [string, string];
  return {
    id,
    kind,
    object: { kind: k, name, uid: id },
    observedAt: T + at,
    reconciledAt: T + at,
    sinceTriggerMs: at,
    previousId: previous,
    sincePreviousMs: 0,
    events: [],
  };
}

function snapshot(outcome: TraceOutcome | undefined, hops: Hop[], endMessage?: string, tree?: TreeNode): TraceSnapshot {
  // sincePreviousMs as the tracker computes it: from the hop it follows, else from the trigger.
  const byId = new Map(hops.map((h) => [h.id, h]));
  for (const h of hops) h.sincePreviousMs = h.observedAt - (h.previousId ? byId.get(h.previousId)!.observedAt : T);
  return {
    target: { kind: 'Deployment', namespace: 'demo', name: 'web' },
    trigger: { kind: 'restart', wrote: 'restarted', at: T, writes: 1 },
    hops,
    tree,
    informers: [],
    queue: undefined,
    reconciles: 3,
    targetWatchEvents: 2,
    outcome,
    endMessage,
    burst: undefined,
  };
}

describe('rollout check verdicts', () => {
  const chain = [
    hop('m', 'target-modified', 'Deployment/web', 100),
    hop('rs', 'created', 'ReplicaSet/web-2', 400, 'm'),
    hop('p', 'created', 'Pod/web-2-a', 600, 'rs'),
    hop('s', 'scheduled', 'Pod/web-2-a', 2_900, 'p'),
    hop('r', 'ready', 'Pod/web-2-a', 3_500, 's'),
    hop('c', 'converged', 'Deployment/web', 4_000, 'r'),
    // After convergence: an old Pod's graceful termination, not the controllers' latency.
    hop('d', 'deleted', 'Pod/web-1-a', 34_000, 'c'),
  ];

  it('passes a rollout that converged in time with no slow hop, measuring up to convergence', () => {
    const results = evaluateRollout(spec, snapshot('converged', chain, 'Deployment/web converged: 1 updated'), T + 35_000);
    expect(results).toEqual([
      {
        name: 'time to converge',
        passed: true,
        status: 'passed',
        measured: 4_000,
        limit: 10_000,
        unit: 'ms',
        message: 'converged in 4.00s (Deployment/web converged: 1 updated)',
      },
      {
        name: 'slowest hop',
        passed: true,
        status: 'passed',
        measured: 2_300,
        limit: 3_000,
        unit: 'ms',
        message: 'slowest: Pod/web-2-a scheduled, 2.30s after Pod/web-2-a created',
      },
    ]);
  });

  it('fails a slow convergence and a slow hop with the measured values', () => {
    const results = evaluateRollout({ ...spec, maxConvergeMs: 3_000, maxHopMs: 2_000, timeoutMs: 60_000 }, snapshot('converged', chain), T + 5_000);
    expect(results[0]).toMatchObject({ passed: false, status: 'failed', measured: 4_000, limit: 3_000, message: 'converged in 4.00s, over the 3.00s limit' });
    expect(results[1]).toMatchObject({
      passed: false,
      status: 'failed',
      measured: 2_300,
      message: 'over the 2.00s limit: Pod/web-2-a scheduled, 2.30s after Pod/web-2-a created',
    });
  });

  it('fails a timeout, counting the stall since the last hop as a hop, and says where it is stuck', () => {
    const stuckAt = chain.slice(0, 3);
    const results = evaluateRollout(
      spec,
      snapshot('timeout', stuckAt, 'no convergence within 10.0s'),
      T + 10_000,
      'Deployment/web 0/1 ready; 1 Pod not ready: Pod/web-2-a Pending (FailedScheduling: 0/2 nodes are available)',
    );
    expect(results[0]).toEqual({
      name: 'time to converge',
      passed: false,
      status: 'failed',
      measured: null,
      limit: 10_000,
      unit: 'ms',
      message:
        'not converged within the 10.0s limit (3 hops seen); Deployment/web 0/1 ready; 1 Pod not ready: Pod/web-2-a Pending (FailedScheduling: 0/2 nodes are available)',
    });
    expect(results[1]).toMatchObject({ status: 'failed', measured: 9_400, message: 'over the 3.00s limit: no progress for 9.40s after Pod/web-2-a created' });
  });

  it('without --max-converge the timeout is the limit; a controller-reported failure and a deletion fail; an interrupt is an error', () => {
    const noLimit = { ...spec, maxConvergeMs: undefined, maxHopMs: undefined, timeoutMs: 120_000 };
    expect(evaluateRollout(noLimit, snapshot('timeout', []), T + 120_000)).toEqual([
      {
        name: 'time to converge',
        passed: false,
        status: 'failed',
        measured: null,
        limit: 120_000,
        unit: 'ms',
        message: 'not converged within the 2m timeout (0 hops seen)',
      },
    ]);
    expect(evaluateRollout(noLimit, snapshot('failed', [hop('f', 'failed', 'Deployment/web', 600)], 'ProgressDeadlineExceeded'), T)[0]).toMatchObject({
      status: 'failed',
      message: 'the rollout failed: ProgressDeadlineExceeded',
    });
    expect(evaluateRollout(noLimit, snapshot('deleted', [], 'Deployment/web was deleted'), T)[0]).toMatchObject({
      status: 'failed',
      message: 'the workload was deleted during the rollout: Deployment/web was deleted',
    });
    expect(evaluateRollout(noLimit, snapshot('interrupted', []), T)).toEqual([
      {
        name: 'time to converge',
        passed: false,
        status: 'error',
        measured: null,
        limit: 120_000,
        unit: 'ms',
        message: 'interrupted before the rollout ended',
        exitCode: 130,
      },
    ]);
    expect(evaluateRollout(noLimit, snapshot('no-rollout', [], 'metadata-only change'), T)[0]).toMatchObject({
      status: 'passed',
      measured: null,
      message: 'no rollout followed the write: metadata-only change',
    });
  });
});

describe('where a rollout is stuck', () => {
  const node = (kind: string, name: string, extra: Partial<TreeNode> = {}): TreeNode => ({
    ref: { kind, name, uid: `${name}-uid` },
    status: '',
    ready: true,
    deleting: false,
    children: [],
    ...extra,
  });
  const tree = node('Deployment', 'web', {
    status: '1/3 ready',
    children: [
      node('ReplicaSet', 'web-2', {
        children: [
          node('Pod', 'web-2-a', { ready: false, phase: 'Pending', status: 'Pending' }),
          node('Pod', 'web-2-b', { ready: false, phase: 'Pending', status: 'Pending' }),
          node('Pod', 'web-2-c'),
          node('Pod', 'web-1-x', { ready: false, deleting: true, status: 'Terminating' }),
        ],
      }),
    ],
  });

  it('lists the Pods that are not ready (not those going away) with their newest Warning event', () => {
    const events = [
      { type: 'Warning', reason: 'FailedScheduling', note: 'old', eventTime: '2026-01-01T00:00:01Z', regarding: { uid: 'web-2-a-uid' } },
      {
        type: 'Warning',
        reason: 'FailedScheduling',
        note: '0/2 nodes are available: 2 Insufficient cpu.',
        eventTime: '2026-01-01T00:00:05Z',
        regarding: { uid: 'web-2-a-uid' },
      },
      { type: 'Normal', reason: 'Scheduled', note: 'ignored', eventTime: '2026-01-01T00:00:09Z', regarding: { uid: 'web-2-b-uid' } },
    ];
    expect(describeStuck(tree, events)).toBe(
      'Deployment/web 1/3 ready; 2 Pods not ready: Pod/web-2-a Pending (FailedScheduling: 0/2 nodes are available: 2 Insufficient cpu.); Pod/web-2-b Pending',
    );
    expect(describeStuck(undefined, events)).toBeUndefined();
    expect(describeStuck(node('Deployment', 'web', { status: '0/0 ready' }), [])).toBe('Deployment/web 0/0 ready');
  });
});
