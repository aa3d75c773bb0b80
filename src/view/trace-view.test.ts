import { describe, expect, it } from 'vitest';
import type { TraceSnapshot } from '../trace/tracer.js';
import type { HopFigures } from '../trace/hop-figures.js';
import type { Hop } from '../trace/types.js';
import { hopFigures, hopLine, summarise, summaryLines } from './trace-view.js';

function hop(id: string, kind: string, observedAt: number, sincePreviousMs: number, name = id): Hop {
  return {
    id,
    kind,
    object: { kind: 'Pod', name, namespace: 'ns', uid: id },
    observedAt,
    reconciledAt: observedAt,
    sinceTriggerMs: observedAt,
    sincePreviousMs,
    events: [],
  };
}

function snapshot(hops: Hop[], figures?: HopFigures): TraceSnapshot {
  return {
    target: { kind: 'Deployment', namespace: 'ns', name: 'web' },
    trigger: { kind: 'restart', wrote: 'restarted', at: 0, writes: 1 },
    hops,
    figures,
    tree: undefined,
    informers: [],
    queue: undefined,
    reconciles: 0,
    targetWatchEvents: 0,
    outcome: undefined,
    endMessage: undefined,
    burst: undefined,
  } as TraceSnapshot;
}

describe('hopFigures', () => {
  it('reads the figures the tracer keeps, and passes over the hops when it keeps none', () => {
    const hops = [
      hop('a', 'created', 10, 10),
      hop('b', 'scheduled', 40, 30, 'a-much-longer-name'),
      hop('c', 'converged', 140, 100),
      hop('d', 'deleted', 900, 760),
    ];
    const kept: HopFigures = { end: undefined, slowest: hops[0], longestObject: 3, ids: ['a'] };
    expect(hopFigures(snapshot(hops, kept))).toBe(kept);
    // The slowest hop on the way to convergence: d comes after it and does not count.
    expect(hopFigures(snapshot(hops))).toMatchObject({
      slowest: { id: 'c' },
      end: { id: 'c' },
      longestObject: 'Pod/a-much-longer-name'.length,
      ids: ['a', 'b', 'c', 'd'],
    });
    expect(summarise(snapshot(hops), 1_000)).toMatchObject({ slowestHop: { id: 'c', sincePreviousMs: 100 }, elapsedMs: 140 });
  });
});

describe('hopLine', () => {
  it('signs its times once: a hop received before the trigger reads -155ms, not +-155ms', () => {
    const hop: Hop = {
      id: 'target-modified/w',
      kind: 'target-modified',
      object: { kind: 'Widget', namespace: 'ns', name: 'w', uid: 'w' },
      observedAt: 0,
      reconciledAt: 1,
      sinceTriggerMs: -155,
      sincePreviousMs: -155,
      events: [],
    };
    const line = hopLine(hop, 10);
    expect(line).toMatch(/^-155ms +\(-155ms\) +Widget\/w/);
    expect(hopLine({ ...hop, sinceTriggerMs: 20, sincePreviousMs: 5 }, 10)).toMatch(/^\+20ms +\(\+5ms\) +Widget\/w/);
  });
});

describe('summarise: watch stalls', () => {
  it("counts the stalled and resumed watches of the trace's informers, and names them in one line", () => {
    const informer = (description: string, watchStalls: number) => ({ description, watchStalls }) as TraceSnapshot['informers'][number];
    const quiet = summarise({ ...snapshot([]), informers: [informer('pods in ns', 0)] }, 0);
    expect(quiet.watchStalls).toBe(0);
    expect(quiet.stalls).toBeUndefined();
    expect(summaryLines(quiet).some((l) => l.includes('stalled'))).toBe(false);

    const one = summarise({ ...snapshot([]), informers: [informer('deployments.apps in ns', 0), informer('pods in ns', 1)] }, 0);
    expect(one).toMatchObject({ watchStalls: 1, stalls: '1 watch stalled and resumed (pods in ns)' });
    expect(summaryLines(one)).toContain('1 watch stalled and resumed (pods in ns)');

    const three = summarise({ ...snapshot([]), informers: [informer('pods in ns', 1), informer('replicasets.apps in ns', 2)] }, 0);
    expect(three.stalls).toBe('3 watches stalled and resumed (pods in ns, replicasets.apps in ns ×2)');
  });
});
