import { describe, expect, it } from 'vitest';
import { linkHops, ref, TRIGGER_AT, type HopSpec } from '../../tools/testing/synthetic-trace.js';
import type { Hop, HopFigures, HopKind, TraceSnapshot } from '../trace/index.js';
import { hopFigures, hopKindTitle, hopLine, hopTitle, slowestHop, summarise, summaryLines } from './trace-view.js';
import { buildWaterfallView } from './waterfall-view.js';

function hop(id: string, kind: HopKind, observedAt: number, sincePreviousMs: number, name = id): Hop {
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
    const kept: HopFigures = { end: undefined, longestObject: 3, ids: ['a'] };
    expect(hopFigures(snapshot(hops, kept))).toBe(kept);
    expect(hopFigures(snapshot(hops))).toEqual({ end: hops[2], longestObject: 'Pod/a-much-longer-name'.length, ids: ['a', 'b', 'c', 'd'] });
    expect(summarise(snapshot(hops), 1_000)).toMatchObject({ elapsedMs: 140 });
  });
});

/** A snapshot of linked hops (as the tracker links them) whose target is `target`. */
function traced(target: ReturnType<typeof ref>, specs: HopSpec[], outcome: TraceSnapshot['outcome'] = 'converged'): TraceSnapshot {
  return {
    ...snapshot(linkHops(specs, target.uid)),
    target: { kind: target.kind, namespace: 'demo', name: target.name },
    trigger: { kind: 'restart', wrote: 'restarted', at: TRIGGER_AT, writes: 1 },
    outcome,
  } as TraceSnapshot;
}

describe('summarise: the slowest hop', () => {
  const dep = ref('Deployment', 'web');
  const rs = ref('ReplicaSet', 'web-597c9cc4cf');
  const pod = ref('Pod', 'web-597c9cc4cf-4nwl4');
  // A restart whose Pod waited 8.65s after its ReplicaSet's scale step (the hop id `scaled-2/…`).
  const restart: HopSpec[] = [
    { t: 20, kind: 'target-modified', object: dep },
    { t: 60, kind: 'scaled', object: rs, owner: dep, detail: '1→2 replicas', key: 'scaled-2' },
    { t: 8710, kind: 'created', object: pod, owner: rs },
    { t: 9500, kind: 'ready', object: pod, owner: rs },
    { t: 9520, kind: 'converged', object: dep },
  ];

  it('says what it came after as the timeline names hops, never by a hop id', () => {
    const sum = summarise(traced(dep, restart), 0);
    expect(sum.slowestHop).toMatchObject({ id: `created/${pod.uid}`, sincePreviousMs: 8650, previousId: `scaled-2/${rs.uid}`, previousKind: 'scaled' });
    const line = summaryLines(sum).find((l) => l.startsWith('slowest hop:'));
    expect(line).toBe('slowest hop: Pod/web-597c9cc4cf-4nwl4 created (+8.65s after ReplicaSet/web-597c9cc4cf scaled)');
    expect(line).not.toContain('scaled-2');
  });

  it('names kinds with their timeline words, and the trigger when the wait began there', () => {
    const sum = summarise(
      traced(dep, [
        { t: 5000, kind: 'target-modified', object: dep },
        { t: 5100, kind: 'controller-observed', object: dep },
        { t: 5200, kind: 'converged', object: dep },
      ]),
      0,
    );
    expect(summaryLines(sum)).toContain('slowest hop: Deployment/web MODIFIED seen by our informer (+5.00s after the trigger)');
    expect(hopKindTitle('containers-ready')).toBe('containers ready');
    expect(hopTitle({ ...restart[0]!, kind: 'target-modified' } as never)).toBe('MODIFIED seen by our informer');
  });

  it("is the longest wait on the waterfall's critical path: an old Pod's slow deletion off the path does not count", () => {
    const ro = ref('Rollout', 'demo');
    const newRs = ref('ReplicaSet', 'demo-new');
    const a = ref('Pod', 'demo-new-a');
    const b = ref('Pod', 'demo-new-b');
    const old = ref('Pod', 'demo-old-x');
    const s = traced(ro, [
      { t: 10, kind: 'target-modified', object: ro },
      { t: 40, kind: 'created', object: newRs, owner: ro, detail: '1 replicas' },
      { t: 60, kind: 'created', object: a, owner: newRs },
      { t: 100, kind: 'terminating', object: old, owner: ro },
      { t: 1500, kind: 'ready', object: a, owner: newRs },
      // The canary step's pause: its status, then the condition that ends it 9.21s later.
      { t: 1600, kind: 'status', object: ro, detail: 'status.phase Progressing→Paused', key: 'status.phase=Paused@2989' },
      { t: 10810, kind: 'condition', object: ro, detail: 'Paused True→False', key: 'condition:Paused=False@3100' },
      { t: 10830, kind: 'scaled', object: newRs, owner: ro, detail: '1→2 replicas', key: 'scaled-2' },
      { t: 10850, kind: 'created', object: b, owner: newRs },
      // 12.2s after it began terminating: the largest gap of any hop, but nothing waited for it.
      { t: 12300, kind: 'deleted', object: old, owner: ro },
      { t: 12380, kind: 'ready', object: b, owner: newRs },
      { t: 12400, kind: 'converged', object: ro },
    ]);
    expect(s.hops.find((h) => h.kind === 'deleted')).toMatchObject({ sincePreviousMs: 12_200 });
    const sum = summarise(s, 0);
    expect(sum.slowestHop).toMatchObject({ kind: 'condition', object: 'Rollout/demo', sincePreviousMs: 9210, previousKind: 'status' });
    expect(summaryLines(sum)).toContain('slowest hop: Rollout/demo condition (+9.21s after Rollout/demo status)');
    // The waterfall beside it says the same: its critical path's longest step.
    const longest = [...buildWaterfallView(s).critical].sort((x, y) => y.sincePreviousMs - x.sincePreviousMs)[0]!;
    expect(longest).toMatchObject({ hopId: sum.slowestHop!.id, object: sum.slowestHop!.object, sincePreviousMs: sum.slowestHop!.sincePreviousMs });
  });

  it('has none while the trace runs without an end hop: no critical path yet', () => {
    const running: TraceSnapshot = { ...traced(dep, restart.slice(0, 3)), outcome: undefined };
    expect(summarise(running, TRIGGER_AT + 9000).slowestHop).toBeUndefined();
    expect(summaryLines(summarise(running, TRIGGER_AT + 9000)).some((l) => l.startsWith('slowest hop'))).toBe(false);
  });

  it('is kept per figures object and outcome, as the tracer replaces the figures only when a hop is placed', () => {
    const s = traced(dep, restart);
    const figures: HopFigures = { end: s.hops.at(-1), longestObject: 0, ids: s.hops.map((h) => h.id) };
    const first = slowestHop({ ...s, figures });
    expect(slowestHop({ ...s, figures })).toBe(first);
    // A new outcome, or new figures, is looked at afresh.
    expect(slowestHop({ ...s, figures, outcome: 'timeout' })).not.toBe(first);
    expect(slowestHop({ ...s, figures: { ...figures } })).toEqual(first);
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
