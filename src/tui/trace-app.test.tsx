import { describe, expect, it } from 'vitest';
import { renderInk } from '../testing/ink.js';
import type { TraceSnapshot, TreeNode } from '../trace/tracer.js';
import type { Hop, TraceEvent } from '../trace/types.js';
import { TraceApp, TraceScreen, nextPane } from './trace-app.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const ref = (kind: string, name: string, uid = name) => ({ kind, namespace: 'demo', name, uid });

function hop(id: string, kind: string, object: ReturnType<typeof ref>, since: number, prev: number): Hop {
  return { id, kind, object, observedAt: T0 + since, reconciledAt: T0 + since + 1, sinceTriggerMs: since, sincePreviousMs: prev, events: [] };
}

function snapshot(pods: number, hops: Hop[], outcome?: TraceSnapshot['outcome']): TraceSnapshot {
  const podNodes: TreeNode[] = Array.from({ length: pods }, (_, i) => ({ ref: ref('Pod', `web-abc-${i}`), status: 'Running', ready: true, node: 'kwok-node-0', restarts: 0, deleting: false, children: [] }));
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

const hops = [
  hop('target-modified/web', 'target-modified', ref('Deployment', 'web'), 12, 12),
  hop('created/rs', 'created', ref('ReplicaSet', 'web-abc'), 40, 28),
  hop('ready/p0', 'ready', ref('Pod', 'web-abc-0'), 4200, 4160),
  hop('converged/web', 'converged', ref('Deployment', 'web'), 4300, 100),
];

describe('trace TUI', () => {
  it('renders the tree, the timeline with latencies and the outcome', () => {
    const ink = renderInk(<TraceScreen snapshot={snapshot(3, hops, 'converged')} pane="timeline" help={false} now={T0 + 5000} />);
    const f = ink.frame();
    expect(f).toContain('Deployment/web in demo');
    expect(f).toContain('converged · 4.30s');
    expect(f).toContain('ReplicaSet/web-abc 3/3 ready');
    expect(f).toContain('Pod/web-abc-2 Running kwok-node-0');
    expect(f).toMatch(/\+4\.20s\s+\(\+4\.16s\)\s+Pod\/web-abc-0\s+ready/);
    expect(f).toContain('slowest hop Pod/web-abc-0 ready +4.16s');
    ink.unmount();
  });

  it('keeps the tree bounded for a target with 10,000 Pods', () => {
    const ink = renderInk(<TraceScreen snapshot={snapshot(10_000, hops)} pane="timeline" help={false} now={T0 + 5000} treeRows={20} />);
    const f = ink.frame();
    expect(f).toContain('… 9982 more');
    expect(f.split('\n').length).toBeLessThan(60);
    ink.unmount();
  });

  it('switches panes with tab, shows help with ?, and quits with q', async () => {
    let quit = false;
    const listeners = new Set<(e: TraceEvent) => void>();
    let snap = snapshot(2, hops.slice(0, 2));
    const source = { snapshot: () => snap, subscribe: (fn: (e: TraceEvent) => void) => (listeners.add(fn), () => listeners.delete(fn)) };
    const ink = renderInk(<TraceApp source={source} onQuit={() => (quit = true)} clockNow={() => T0 + 100} />);
    await ink.waitFor('Timeline (2 hops)');
    snap = snapshot(2, hops);
    for (const fn of listeners) fn({ type: 'hop', hop: hops[3]! });
    await ink.waitFor('Timeline (4 hops)');
    ink.stdin.write('?');
    await ink.waitFor('q quit · tab next pane');
    expect(nextPane('timeline')).toBe('internals');
    expect(nextPane('internals')).toBe('tree');
    ink.stdin.write('q');
    await new Promise((r) => setTimeout(r, 20));
    expect(quit).toBe(true);
    ink.unmount();
  });
});
