import { describe, expect, it } from 'vitest';
import type { Hop, HopKind, TraceSnapshot, TreeNode } from '../trace/index.js';
import { initialScreen } from './screen-state.js';
import { panes, traceLayout, type Pane } from './trace-layout.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const ref = (kind: string, name: string, uid = name) => ({ kind, namespace: 'demo', name, uid });

function hop(id: string, kind: HopKind, object: ReturnType<typeof ref>, since: number, prev: number): Hop {
  return { id, kind, object, observedAt: T0 + since, reconciledAt: T0 + since + 1, sinceTriggerMs: since, sincePreviousMs: prev, events: [] };
}

function snapshot(pods: number, hops: Hop[], outcome?: TraceSnapshot['outcome']): TraceSnapshot {
  const podNodes: TreeNode[] = Array.from({ length: pods }, (_, i) => ({
    ref: ref('Pod', `web-abc-${i}`),
    status: 'Running',
    ready: true,
    node: 'kwok-node-0',
    restarts: 0,
    deleting: false,
    children: [],
  }));
  const tree: TreeNode = {
    ref: ref('Deployment', 'web'),
    status: `${pods}/${pods} ready`,
    ready: true,
    deleting: false,
    children: [{ ref: ref('ReplicaSet', 'web-abc'), status: `${pods}/${pods} ready`, ready: true, deleting: false, children: podNodes }],
  };
  return {
    target: { kind: 'Deployment', namespace: 'demo', name: 'web' },
    trigger: { kind: 'restart', wrote: 'restarted deployments.apps/web in demo', at: T0, resourceVersion: '10', generation: 2, writes: 1 },
    hops,
    tree,
    informers: [],
    queue: undefined,
    reconciles: 3,
    targetWatchEvents: 4,
    outcome,
    endMessage: outcome ? 'Deployment/web converged: 3 updated' : undefined,
    burst: undefined,
  };
}

describe('traceLayout', () => {
  it('lays rows out within any height, the focused pane first', () => {
    const many = Array.from({ length: 40 }, (_, i) => hop(`ready/p${i}`, 'ready', ref('Pod', `web-abc-${i}`), 100 + i, 1));
    const big = snapshot(50, many);
    for (const height of [24, 45, 12]) {
      for (const pane of panes) {
        const l = traceLayout(big, initialScreen<Pane>(pane), 80, height, undefined);
        expect(l.heights.tree + l.heights.timeline + l.heights.internals).toBe(height - 3);
      }
    }
    const focusedTree = traceLayout(big, initialScreen<Pane>('tree'), 80, 24, undefined);
    const focusedTimeline = traceLayout(big, initialScreen<Pane>('timeline'), 80, 24, undefined);
    expect(focusedTree.heights.tree).toBeGreaterThan(focusedTimeline.heights.tree);
  });
});
