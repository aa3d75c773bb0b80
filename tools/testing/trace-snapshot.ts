/**
 * A small trace of a Deployment `web` in `demo`, for the trace screen's tests: its tree with `pods`
 * ready Pods, the hops given, and the outcome when it ended.
 */
import type { Hop, HopKind, TraceSnapshot, TreeNode } from '../../src/trace/index.js';

export const T0 = Date.UTC(2026, 0, 1, 12);
export const ref = (kind: string, name: string, uid = name) => ({ kind, namespace: 'demo', name, uid });

export function hop(id: string, kind: HopKind, object: ReturnType<typeof ref>, since: number, prev: number): Hop {
  return { id, kind, object, observedAt: T0 + since, reconciledAt: T0 + since + 1, sinceTriggerMs: since, sincePreviousMs: prev, events: [] };
}

export function snapshot(pods: number, hops: Hop[], outcome?: TraceSnapshot['outcome']): TraceSnapshot {
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
