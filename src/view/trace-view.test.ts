import { describe, expect, it } from 'vitest';
import type { TraceSnapshot } from '../trace/tracer.js';
import type { Hop } from '../trace/types.js';
import { hopFigures, summarise } from './trace-view.js';

function hop(id: string, kind: string, observedAt: number, sincePreviousMs: number, name = id): Hop {
  return { id, kind, object: { kind: 'Pod', name, namespace: 'ns', uid: id }, observedAt, reconciledAt: observedAt, sinceTriggerMs: observedAt, sincePreviousMs, events: [] };
}

function snapshot(hops: Hop[], hopsVersion: number | undefined): TraceSnapshot {
  return { target: { kind: 'Deployment', namespace: 'ns', name: 'web' }, trigger: { kind: 'restart', wrote: 'restarted', at: 0, writes: 1 }, hops, hopsVersion, tree: undefined, informers: [], queue: undefined, reconciles: 0, targetWatchEvents: 0, outcome: undefined, endMessage: undefined, burst: undefined } as TraceSnapshot;
}

describe('hopFigures', () => {
  it('keeps its figures while the hop list keeps its version, and recomputes them when it moves', () => {
    const hops = [hop('a', 'created', 10, 10), hop('b', 'scheduled', 40, 30, 'a-much-longer-name')];
    const first = hopFigures(snapshot(hops, 1));
    expect(first).toMatchObject({ slowest: { id: 'b' }, longestObject: 'Pod/a-much-longer-name'.length, ids: ['a', 'b'], end: undefined });
    expect(hopFigures(snapshot(hops, 1))).toBe(first);

    hops.push(hop('c', 'converged', 140, 100), hop('d', 'deleted', 900, 760));
    const moved = hopFigures(snapshot(hops, 2));
    expect(moved).not.toBe(first);
    // The slowest hop on the way to convergence: d comes after it and does not count.
    expect(moved).toMatchObject({ slowest: { id: 'c' }, end: { id: 'c' }, ids: ['a', 'b', 'c', 'd'] });
    expect(summarise(snapshot(hops, 2), 1_000)).toMatchObject({ slowestHop: { id: 'c', sincePreviousMs: 100 }, elapsedMs: 140 });
  });

  it('recomputes every time for a snapshot without a version', () => {
    const hops = [hop('a', 'created', 10, 10)];
    const first = hopFigures(snapshot(hops, undefined));
    hops[0]!.sincePreviousMs = 5;
    hops.push(hop('b', 'ready', 20, 8));
    const second = hopFigures(snapshot(hops, undefined));
    expect(second).not.toBe(first);
    expect(second.slowest?.id).toBe('b');
  });
});
