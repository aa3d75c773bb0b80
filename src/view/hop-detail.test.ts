import { describe, expect, it } from 'vitest';
import type { Hop } from '../trace/index.js';
import { hopDetailLines, ownerChain } from './hop-detail.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const ref = (kind: string, name: string) => ({ kind, namespace: 'demo', name, uid: name });
const dep = ref('Deployment', 'web');
const rs = ref('ReplicaSet', 'web-abc');
const pod = ref('Pod', 'web-abc-1');

const rsCreated: Hop = {
  id: 'created/rs',
  kind: 'created',
  object: rs,
  owner: dep,
  observedAt: T0 + 40,
  reconciledAt: T0 + 41,
  sinceTriggerMs: 40,
  sincePreviousMs: 40,
  events: [],
};
const podReady: Hop = {
  id: 'ready/pod',
  kind: 'ready',
  object: pod,
  owner: rs,
  observedAt: T0 + 3200,
  reconciledAt: T0 + 3205,
  sinceTriggerMs: 3200,
  previousId: 'created/rs',
  sincePreviousMs: 3160,
  serverTime: '2026-01-01T12:00:03Z',
  serverTimeSource: 'Ready lastTransitionTime',
  events: [{ reason: 'Started', note: 'Started container c', time: '2026-01-01T12:00:02Z', reportingController: 'kubelet' }],
  changes: [
    { path: 'status.conditions[Ready].status', from: 'False', to: 'True' },
    { path: 'metadata.labels["x"]', to: 'y' },
  ],
};

describe('hop detail', () => {
  it('walks the owners through the hops when the tree no longer has the object', () => {
    expect(ownerChain(podReady, { tree: undefined, hops: [rsCreated, podReady] }).map((r) => r.name)).toEqual(['web-abc', 'web']);
  });

  it('says when it was received and after what, the server time and its field, Events and changed fields', () => {
    const text = hopDetailLines(podReady, { tree: undefined, hops: [rsCreated, podReady] }).map((l) => l.text);
    expect(text[0]).toBe('Pod/web-abc-1 ready');
    expect(text).toContain('received    +3.20s after the trigger, at 12:00:03.200 (our clock)');
    expect(text).toContain('            +3.16s after ReplicaSet/web-abc created');
    expect(text).toContain('reconciled  +5ms later, from our cache');
    expect(text).toContain('server      2026-01-01T12:00:03Z from Ready lastTransitionTime (1s precision)');
    expect(text).toContain('owners      Pod/web-abc-1 ← ReplicaSet/web-abc ← Deployment/web');
    expect(text).toContain('  Started: Started container c  (kubelet, 12:00:02Z)');
    expect(text).toContain('  status.conditions[Ready].status: False → True');
    expect(text).toContain('  metadata.labels["x"]: (added) y');
  });
});

describe('hop detail of a custom resource', () => {
  it('puts the operator behind a hop it wrote under "written by": its Lease and queue', () => {
    const w = ref('Widget', 'w');
    const hop: Hop = {
      id: 'condition/w',
      kind: 'condition',
      object: w,
      observedAt: T0 + 10,
      reconciledAt: T0 + 11,
      sinceTriggerMs: 10,
      sincePreviousMs: 10,
      events: [],
      writer: 'widget-operator (status)',
    };
    const behind = {
      manager: 'widget-operator',
      lease: {
        namespace: 'demo',
        name: 'widget-operator',
        holder: 'widget-operator-1',
        renewTime: new Date(T0 - 2_000).toISOString(),
        leaseDurationSeconds: 15,
        transitions: 1,
        foundBy: 'metrics' as const,
      },
      queue: {
        source: 'http://127.0.0.1:8080/metrics',
        sourceIs: 'leader' as const,
        foundBy: ['EndpointSlice demo/widget-metrics-1 of Service demo/widget-metrics, port metrics: an endpoint of Pod widget-operator-1'],
        queue: 'widget',
        controller: 'widget',
        matchedBy: 'kind' as const,
        alsoMatched: [],
        depth: 0,
        adds: 4,
        retries: 0,
        reconciles: { success: 4 },
        workTime: { p50: 0.002, p99: 0.012, observations: 4 },
        objectReconciles: [],
        windowMs: 9_000,
      },
      unseen: [],
    };
    const lines = hopDetailLines(hop, { hops: [hop], tree: undefined }, { behind, at: T0 }).map((l) => l.text);
    expect(lines).toContain(
      "            widget-operator · Lease demo/widget-operator held by widget-operator-1, renewed 2.00s ago (1 transitions) · queue widget: depth 0, 4 adds, 0 retries, reconciles 4 success, work p99 12ms in 9.00s (the leader's, http://127.0.0.1:8080/metrics, found through EndpointSlice demo/widget-metrics-1 of Service demo/widget-metrics, port metrics: an endpoint of Pod widget-operator-1)",
    );
    // Not under a hop someone else wrote.
    expect(
      hopDetailLines({ ...hop, writer: 'kubectl-informer-trace' }, { hops: [hop], tree: undefined }, { behind, at: T0 }).some((l) => l.text.includes('Lease')),
    ).toBe(false);
  });
});
