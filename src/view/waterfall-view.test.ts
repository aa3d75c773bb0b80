import { describe, expect, it } from 'vitest';
import { linkHops, ref, syntheticRollout, TRIGGER_AT, type HopSpec, type SyntheticTrace } from '../../tools/testing/synthetic-trace.js';
import type { ObjectRef, TraceSnapshot, TreeNode } from '../trace/index.js';
import { summarise } from './trace-view.js';
import { axisLabel, buildWaterfallView, columnOf, criticalPath, layoutWaterfall, stats, tickStep, type WaterfallLane } from './waterfall-view.js';

const dep = ref('Deployment', 'web');
const newRs = ref('ReplicaSet', 'web-new');
const oldRs = ref('ReplicaSet', 'web-old');
const podA = ref('Pod', 'web-new-a');
const podB = ref('Pod', 'web-new-b');
const oldPod = ref('Pod', 'web-old-x');

function node(r: ObjectRef, children: TreeNode[] = []): TreeNode {
  return { ref: r, status: '', ready: true, deleting: false, children };
}

function podLife(p: ObjectRef, owner: ObjectRef, created: number, ready: number): HopSpec[] {
  return [
    { t: created, kind: 'created', object: p, owner },
    { t: created + 10, kind: 'scheduled', object: p, owner },
    { t: created + 100, kind: 'initialized', object: p, owner },
    { t: ready - 5, kind: 'containers-ready', object: p, owner },
    { t: ready, kind: 'ready', object: p, owner },
  ];
}

/** A 2-replica restart: Pod A is ready at 1s, Pod B at 3s; the old Pod goes at 3.2s; converged 3.3s. */
function restart(extraTree: TreeNode[] = []): SyntheticTrace {
  const specs: HopSpec[] = [
    { t: 20, kind: 'target-modified', object: dep },
    { t: 50, kind: 'controller-observed', object: dep },
    { t: 80, kind: 'created', object: newRs, owner: dep, detail: '2 replicas' },
    ...podLife(podA, newRs, 100, 1000),
    ...podLife(podB, newRs, 110, 3000),
    { t: 3100, kind: 'scaled-down', object: oldRs, owner: dep, detail: '1→0 replicas', key: 'scaled-0' },
    { t: 3150, kind: 'terminating', object: oldPod, owner: oldRs },
    { t: 3200, kind: 'deleted', object: oldPod, owner: oldRs },
    { t: 3300, kind: 'converged', object: dep, detail: '2 updated' },
  ];
  return {
    target: { kind: 'Deployment', namespace: 'demo', name: 'web' },
    trigger: { kind: 'restart', wrote: 'restarted', at: TRIGGER_AT, writes: 1 },
    hops: linkHops(specs, dep.uid),
    tree: node(dep, [node(newRs, [node(podA), node(podB)]), node(oldRs), ...extraTree]),
    outcome: 'converged',
  };
}

const laneOf = (lanes: WaterfallLane[], label: string): WaterfallLane => {
  const l = lanes.find((x) => x.label === label);
  if (!l) throw new Error(`no lane ${label}: ${lanes.map((x) => x.label).join(', ')}`);
  return l;
};

describe('buildWaterfallView: lanes', () => {
  it('one lane per object of the chain, owners before what they own, siblings by first hop', () => {
    const v = buildWaterfallView(restart());
    expect(v.lanes.map((l) => `${'  '.repeat(l.depth)}${l.label}`)).toEqual([
      'Deployment/web',
      '  ReplicaSet/web-new',
      '    Pod/web-new-a',
      '    Pod/web-new-b',
      '  ReplicaSet/web-old',
      '    Pod/web-old-x',
    ]);
    expect(v.totalLanes).toBe(6);
    expect(v.spanMs).toBe(3300);
    expect(v.title).toBe('Deployment/web in demo');
    expect(v.subtitle).toBe('restart · converged in 3.30s');
    expect(v.endHopMs).toBe(3300);
  });

  it('a Pod lane starts when it was created and is cut into its phases', () => {
    const a = laneOf(buildWaterfallView(restart()).lanes, 'Pod/web-new-a');
    expect(a.segments.map((s) => [s.phase, s.startMs, s.endMs])).toEqual([
      ['created', 100, 110],
      ['scheduled', 110, 200],
      ['initialized', 200, 995],
      ['containers-ready', 995, 1000],
      ['ready', 1000, 3300],
    ]);
    expect(a.note).toBe('ready 900ms');
    expect(a.marks.every((m) => m.boundary)).toBe(true);
  });

  it('an object that existed before the trigger is "existing" from 0 until it terminates; deleted ends its lane', () => {
    const v = buildWaterfallView(restart());
    const old = laneOf(v.lanes, 'Pod/web-old-x');
    expect(old.segments.map((s) => [s.phase, s.startMs, s.endMs])).toEqual([
      ['existing', 0, 3150],
      ['terminating', 3150, 3200],
    ]);
    expect(old.note).toBe('deleted');
    const rs = laneOf(v.lanes, 'ReplicaSet/web-old');
    expect(rs.segments.map((s) => s.phase)).toEqual(['existing']);
    // A scale step changes no phase: it is a mark.
    expect(rs.marks).toEqual([expect.objectContaining({ kind: 'scaled-down', boundary: false, atMs: 3100 })]);
    expect(rs.note).toBe('0 replicas');
  });

  it('the target rolls out from the trigger until it converges', () => {
    const target = buildWaterfallView(restart()).lanes[0]!;
    expect(target.segments.map((s) => [s.phase, s.startMs, s.endMs])).toEqual([['progressing', 0, 3300]]);
    expect(target.note).toBe('converged 3.30s');
    expect(target.marks.map((m) => [m.kind, m.boundary])).toEqual([
      ['target-modified', false],
      ['controller-observed', false],
      ['converged', true],
    ]);
  });

  it('objects with no hop get no lane and are counted; their owners get one when a descendant has a hop', () => {
    const untouched = [node(ref('ReplicaSet', 'web-history')), node(ref('ReplicaSet', 'web-history-2'))];
    const v = buildWaterfallView(restart(untouched));
    expect(v.lanes.some((l) => l.label.includes('history'))).toBe(false);
    expect(v.unchanged).toBe(2);

    // CronJob → Job → Pod: the Job has no hop of its own, but its Pod has.
    const cron = ref('CronJob', 'nightly');
    const job = ref('Job', 'nightly-1');
    const pod = ref('Pod', 'nightly-1-abc');
    const t: SyntheticTrace = {
      target: { kind: 'CronJob', name: 'nightly', namespace: 'demo' },
      trigger: { kind: 'watch', wrote: '', at: TRIGGER_AT, writes: 0 },
      hops: linkHops(
        [...podLife(pod, job, 50, 500), { t: 900, kind: 'succeeded', object: pod, owner: job }, { t: 950, kind: 'complete', object: job, owner: cron }],
        cron.uid,
      ),
      tree: node(cron, [node(job, [node(pod)])]),
      outcome: 'interrupted',
    };
    const w = buildWaterfallView(t);
    expect(w.lanes.map((l) => [l.label, l.depth])).toEqual([
      ['CronJob/nightly', 0],
      ['Job/nightly-1', 1],
      ['Pod/nightly-1-abc', 2],
    ]);
    expect(w.lanes[2]!.segments.at(-1)).toEqual({ phase: 'succeeded', startMs: 900, endMs: 950, critical: false });
    expect(w.lanes[1]!.segments.map((s) => s.phase)).toEqual(['existing']);
    expect(w.lanes[1]!.marks).toEqual([expect.objectContaining({ kind: 'complete', boundary: true })]);
    expect(w.subtitle).toBe('watched change · interrupted after 950ms');
  });

  it('a StatefulSet chain: its Pods right under it, each ordinal replaced in turn on the critical path', () => {
    const sts = ref('StatefulSet', 'db');
    const old1 = ref('Pod', 'db-1', 'old-1');
    const new1 = ref('Pod', 'db-1', 'new-1');
    const old0 = ref('Pod', 'db-0', 'old-0');
    const new0 = ref('Pod', 'db-0', 'new-0');
    const t: SyntheticTrace = {
      target: { kind: 'StatefulSet', name: 'db', namespace: 'demo' },
      trigger: { kind: 'restart', wrote: 'restarted', at: TRIGGER_AT, writes: 1 },
      hops: linkHops(
        [
          { t: 10, kind: 'controller-observed', object: sts },
          { t: 30, kind: 'terminating', object: old1, owner: sts },
          { t: 60, kind: 'deleted', object: old1, owner: sts },
          ...podLife(new1, sts, 100, 2000),
          { t: 2050, kind: 'terminating', object: old0, owner: sts },
          { t: 2080, kind: 'deleted', object: old0, owner: sts },
          ...podLife(new0, sts, 2100, 4000),
          { t: 4100, kind: 'converged', object: sts },
        ],
        sts.uid,
      ),
      tree: node(sts, [node(new0), node(new1)]),
      outcome: 'converged',
    };
    const v = buildWaterfallView(t);
    expect(v.lanes.map((l) => [l.label, l.depth, l.id])).toEqual([
      ['StatefulSet/db', 0, sts.uid],
      ['Pod/db-1', 1, 'old-1'],
      ['Pod/db-1', 1, 'new-1'],
      ['Pod/db-0', 1, 'old-0'],
      ['Pod/db-0', 1, 'new-0'],
    ]);
    // The tracker links a Pod's first hop to its owner's last one; the critical path instead follows
    // what the StatefulSet controller waited for: the namesake's deletion, the previous ordinal ready.
    expect(v.critical.map((c) => `${c.laneId} ${c.kind}`)).toEqual([
      `${sts.uid} controller-observed`,
      'old-1 terminating',
      'old-1 deleted',
      'new-1 created',
      'new-1 scheduled',
      'new-1 initialized',
      'new-1 containers-ready',
      'new-1 ready',
      'old-0 terminating',
      'old-0 deleted',
      'new-0 created',
      'new-0 scheduled',
      'new-0 initialized',
      'new-0 containers-ready',
      'new-0 ready',
      `${sts.uid} converged`,
    ]);
    expect(v.critical.reduce((n, c) => n + c.sincePreviousMs, 0)).toBe(4100);
    expect(v.lanes.every((l) => l.critical)).toBe(true);
  });

  it('before the trigger there is nothing to draw', () => {
    const t = { ...restart(), trigger: undefined, hops: [], outcome: undefined };
    const v = buildWaterfallView(t);
    expect(v.lanes).toEqual([]);
    expect(v.subtitle).toBe('waiting for a change');
  });

  it('is plain data: it survives JSON unchanged', () => {
    const v = buildWaterfallView(syntheticRollout(50), { maxLanes: 12 });
    expect(JSON.parse(JSON.stringify(v))).toEqual(v);
  });
});

describe('buildWaterfallView: the critical path', () => {
  it('walks back from converged through the latest-finishing predecessors: the slow Pod, not the fast one', () => {
    const t = restart();
    const path = criticalPath(t.hops, t.outcome);
    expect(path.map(({ hop: h }) => `${h.object.name} ${h.kind}`)).toEqual([
      'web target-modified',
      'web controller-observed',
      'web-new created',
      'web-new-b created',
      'web-new-b scheduled',
      'web-new-b initialized',
      'web-new-b containers-ready',
      'web-new-b ready',
      'web-old scaled-down',
      'web-old-x terminating',
      'web-old-x deleted',
      'web converged',
    ]);
    // The steps add up to the time to converge.
    expect(path.reduce((s, p) => s + p.sincePreviousMs, 0)).toBe(3300);
  });

  it('marks the hops, the lanes and the segments between consecutive critical hops of one lane', () => {
    const v = buildWaterfallView(restart());
    expect(v.critical.at(-1)).toMatchObject({ kind: 'converged', object: 'Deployment/web', atMs: 3300 });
    expect(v.critical[0]).toMatchObject({ kind: 'target-modified', sincePreviousMs: 20 });
    const a = laneOf(v.lanes, 'Pod/web-new-a');
    const b = laneOf(v.lanes, 'Pod/web-new-b');
    expect(a.critical).toBe(false);
    expect(a.segments.some((s) => s.critical)).toBe(false);
    expect(b.critical).toBe(true);
    // created → ready are all on the path: every segment between them is critical; ready after is not.
    expect(b.segments.map((s) => [s.phase, s.critical])).toEqual([
      ['created', true],
      ['scheduled', true],
      ['initialized', true],
      ['containers-ready', true],
      ['ready', false],
    ]);
    expect(b.marks.filter((m) => m.critical)).toHaveLength(5);
  });

  it('hops seen in the same instant, listed out of order, still chain', () => {
    const pod = ref('Pod', 'p');
    const rs = ref('ReplicaSet', 'r');
    const hops = linkHops(
      [
        { t: 10, kind: 'created', object: rs, owner: dep },
        { t: 20, kind: 'created', object: pod, owner: rs },
        { t: 50, kind: 'scheduled', object: pod, owner: rs },
        { t: 50, kind: 'initialized', object: pod, owner: rs },
        { t: 90, kind: 'ready', object: pod, owner: rs },
        { t: 95, kind: 'converged', object: dep },
      ],
      dep.uid,
    );
    // initialized follows scheduled, both seen at 50ms; listed the other way round.
    const swapped = [hops[0]!, hops[1]!, hops[3]!, hops[2]!, hops[4]!, hops[5]!];
    const path = criticalPath(swapped, 'converged');
    expect(path.map((p) => p.hop.kind)).toEqual(['created', 'created', 'scheduled', 'initialized', 'ready', 'converged']);
    expect(path.reduce((n, p) => n + p.sincePreviousMs, 0)).toBe(95);
  });

  it('a running trace has none yet, and its axis reaches now', () => {
    const t = { ...restart(), outcome: undefined, hops: restart().hops.filter((h) => h.kind !== 'converged') };
    const v = buildWaterfallView(t, { now: TRIGGER_AT + 5000 });
    expect(v.critical).toEqual([]);
    expect(v.spanMs).toBe(5000);
    expect(v.outcome).toBe('running');
    expect(v.lanes[0]!.segments).toEqual([{ phase: 'progressing', startMs: 0, endMs: 5000, critical: false }]);
  });

  it('a trace that ended without converging: the path to its last hop', () => {
    const t = { ...restart(), outcome: 'timeout' as const, hops: restart().hops.filter((h) => h.kind !== 'converged') };
    expect(buildWaterfallView(t).critical.at(-1)).toMatchObject({ kind: 'deleted', object: 'Pod/web-old-x' });
  });

  it("its longest step is the summary's slowest hop, named after the step before it", () => {
    for (const t of [restart(), syntheticRollout(4, { surge: 1 }), syntheticRollout(50)]) {
      const v = buildWaterfallView(t);
      let longest = v.critical[0]!;
      for (const c of v.critical) if (c.sincePreviousMs > longest.sincePreviousMs) longest = c;
      const before = v.critical[v.critical.indexOf(longest) - 1];
      const sum = summarise({ ...t, figures: undefined, informers: [] } as unknown as TraceSnapshot, 0);
      expect(sum.slowestHop).toEqual({
        id: longest.hopId,
        kind: longest.kind,
        object: longest.object,
        sincePreviousMs: longest.sincePreviousMs,
        previousId: before?.hopId,
        previousKind: before?.kind,
        previousObject: before?.object,
      });
    }
  });
});

describe('buildWaterfallView: phases by hop kind', () => {
  it("a custom resource's condition and status hops are marks; a Job's complete begins succeeded", () => {
    const cr = ref('Rollout', 'demo');
    const job = ref('Job', 'j');
    const hops = linkHops(
      [
        { t: 10, kind: 'target-modified', object: cr },
        { t: 20, kind: 'status', object: cr, key: 'status.phase=Paused@1' },
        { t: 30, kind: 'condition', object: cr, key: 'condition:Paused=False@2' },
        { t: 40, kind: 'created', object: job, owner: cr },
        { t: 50, kind: 'complete', object: job, owner: cr },
        { t: 60, kind: 'converged', object: cr },
        { t: 90, kind: 'finalizer-removed', object: cr, key: 'finalizer-removed:x' },
      ],
      cr.uid,
    );
    const v = buildWaterfallView({
      target: { kind: 'Rollout', namespace: 'demo', name: 'demo' },
      trigger: restart().trigger,
      hops,
      tree: undefined,
      outcome: 'converged',
    });
    const lane = laneOf(v.lanes, 'Rollout/demo');
    expect(lane.marks.filter((m) => m.kind === 'status' || m.kind === 'condition').map((m) => m.boundary)).toEqual([false, false]);
    expect(lane.segments.map((x) => x.phase)).toEqual(['progressing', 'ready']);
    expect(laneOf(v.lanes, 'Job/j').segments.map((x) => x.phase)).toEqual(['active', 'succeeded']);
  });
});

describe('buildWaterfallView: lanes that do not fit are grouped', () => {
  it('nearest-rank percentiles', () => {
    expect(stats([10, 1, 9, 2, 8, 3, 7, 4, 6, 5].map((x) => x * 100))).toEqual({ count: 10, p50: 500, p90: 900, max: 1000 });
    expect(stats([42])).toEqual({ count: 1, p50: 42, p90: 42, max: 42 });
  });

  it("groups a ReplicaSet's Pods into one lane with the p50/p90/max of each milestone and phase; the critical Pod stays named", () => {
    const pods = Array.from({ length: 11 }, (_, i) => ref('Pod', `web-new-${i}`));
    // Pods 0..9 are ready at 100ms..1000ms; Pod 10 is the slow one that decides convergence.
    const specs: HopSpec[] = [
      { t: 5, kind: 'created', object: newRs, owner: dep, detail: '11 replicas' },
      ...pods.flatMap((p, i) => podLife(p, newRs, 10, i === 10 ? 5000 : (i + 1) * 100 + 200)),
      { t: 5100, kind: 'converged', object: dep },
    ];
    const t: SyntheticTrace = {
      ...restart(),
      hops: linkHops(specs, dep.uid),
      tree: node(dep, [
        node(
          newRs,
          pods.map((p) => node(p)),
        ),
      ]),
    };
    const full = buildWaterfallView(t);
    expect(full.lanes).toHaveLength(13);
    const v = buildWaterfallView(t, { maxLanes: 5 });
    expect(v.aggregated).toBe(true);
    expect(v.totalLanes).toBe(13);
    expect(v.lanes.map((l) => l.label)).toEqual(['Deployment/web', 'ReplicaSet/web-new', 'Pod ×10 (grouped, p50)', 'Pod/web-new-10']);
    const g = v.lanes[2]!;
    expect(g.depth).toBe(2);
    expect(g.ownerId).toBe(newRs.uid);
    expect(g.group).toMatchObject({ count: 10, kind: 'Pod', owner: 'ReplicaSet/web-new' });
    expect(g.group!.milestones.find((m) => m.kind === 'ready')).toEqual({ kind: 'ready', count: 10, p50: 700, p90: 1100, max: 1200 });
    // Time in "initialized": from 110 to (ready - 5): 185..1085 → p50 585, p90 985, max 1085.
    expect(g.group!.phases.find((p) => p.phase === 'initialized')).toEqual({ phase: 'initialized', count: 10, p50: 585, p90: 985, max: 1085 });
    // The lane draws the median member.
    expect(g.segments.find((s) => s.phase === 'ready')).toMatchObject({ startMs: 700, endMs: 5100 });
    expect(v.lanes[3]!.critical).toBe(true);
    expect(v.hiddenLanes).toBe(0);
  });

  it('a 1,000-replica rollout fits the rows given; every Pod is in a lane or a group', () => {
    const t = syntheticRollout(1000);
    for (const rows of [40, 20, 12]) {
      const v = buildWaterfallView(t, { maxLanes: rows });
      expect(v.lanes.length).toBeLessThanOrEqual(rows);
      expect(v.totalLanes).toBe(1 + 2 + 2000);
      const pods = v.lanes.filter((l) => l.kind === 'Pod').reduce((n, l) => n + (l.group?.count ?? 1), 0);
      expect(pods + v.hiddenLanes).toBeGreaterThanOrEqual(2000);
      if (v.hiddenLanes === 0) expect(pods).toBe(2000);
      for (const l of v.lanes.filter((x) => x.group)) {
        expect(l.label).toMatch(/^Pod ×\d+ \(grouped, p50\)$/);
        for (const m of l.group!.milestones) {
          expect(m.p50).toBeLessThanOrEqual(m.p90);
          expect(m.p90).toBeLessThanOrEqual(m.max);
        }
      }
    }
  });

  it('when grouping is not enough, critical lanes are grouped too, and then the rest is cut and counted', () => {
    const t = syntheticRollout(4, { surge: 1 });
    const v = buildWaterfallView(t, { maxLanes: 5 });
    expect(v.lanes.map((l) => l.label)).toEqual([
      'Deployment/web',
      'ReplicaSet/web-new',
      'Pod ×4 (grouped, p50)',
      'ReplicaSet/web-old',
      'Pod ×4 (grouped, p50)',
    ]);
    expect(v.lanes[2]!.critical).toBe(true);
    expect(v.lanes[2]!.marks.some((m) => m.critical)).toBe(true);
    // 1,000 replicas in 5 lanes: the critical Pods join their ReplicaSet's group, one group per owner.
    const big = buildWaterfallView(syntheticRollout(1000), { maxLanes: 5 });
    expect(big.lanes.map((l) => l.label)).toEqual([
      'Deployment/web',
      'ReplicaSet/web-new',
      'Pod ×1000 (grouped, p50)',
      'ReplicaSet/web-old',
      'Pod ×1000 (grouped, p50)',
    ]);
    expect(new Set(big.lanes.map((l) => l.id)).size).toBe(5);
    expect(big.lanes[2]!.group!.milestones.find((m) => m.kind === 'ready')!.count).toBe(1000);
    const cut = buildWaterfallView(t, { maxLanes: 3 });
    expect(cut.lanes).toHaveLength(3);
    expect(cut.hiddenLanes).toBe(2);
  });
});

describe('layoutWaterfall: scaled to the width', () => {
  it('maps time to columns from 0 to the end of the axis', () => {
    expect(columnOf(0, 1000, 50)).toBe(0);
    expect(columnOf(500, 1000, 50)).toBe(25);
    expect(columnOf(1000, 1000, 50)).toBe(49);
    expect(columnOf(-5, 1000, 50)).toBe(0);
  });

  it('round ticks whose labels do not collide', () => {
    expect(axisLabel(0)).toBe('0');
    expect(axisLabel(250)).toBe('250ms');
    expect(axisLabel(2500)).toBe('2.5s');
    expect(axisLabel(90_000)).toBe('1m30s');
    expect(tickStep(8510, 100)).toBe(1000);
    expect(tickStep(8510, 30)).toBe(2000);
    expect(tickStep(8510, 12)).toBe(5000);
    expect(tickStep(300, 60)).toBe(50);
  });

  it('rows are exactly as wide as the width at every width, and phases land in their columns', () => {
    const v = buildWaterfallView(restart());
    for (let width = 30; width <= 220; width += 7) {
      const l = layoutWaterfall(v, width);
      for (const r of l.rows) expect(1 + r.label.length + 1 + r.cells.length + (r.note ? r.note.length + 1 : 0)).toBeLessThanOrEqual(width);
      expect(l.axisLine).toHaveLength(l.chartWidth);
      expect(l.axisLabels).toHaveLength(l.chartWidth);
    }
    const l = layoutWaterfall(v, 120);
    const b = l.rows.find((r) => r.label.trim() === 'Pod/web-new-b')!;
    // Pod B is ready from 3000ms of 3300ms: the ready phase fills the columns from there to the end.
    const readyFrom = b.cells.findIndex((c) => c.phase === 'ready');
    expect(readyFrom).toBe(columnOf(3000, 3300, l.chartWidth));
    expect(b.cells.slice(readyFrom).every((c) => c.phase === 'ready' || c.mark === 'critical')).toBe(true);
    expect(b.cells.slice(0, columnOf(110, 3300, l.chartWidth)).every((c) => c.phase === undefined)).toBe(true);
    expect(b.gutter).toBe('◆');
    expect(l.rows.find((r) => r.label.trim() === 'Pod/web-new-a')!.gutter).toBe(' ');
    // Every tick label sits at its tick.
    for (const t of l.ticks) expect(l.axisLabels.slice(t.col).startsWith(t.label) || l.axisLabels.includes(t.label)).toBe(true);
    expect(l.ticks.map((t) => t.label)).toEqual(['0', '500ms', '1s', '1.5s', '2s', '2.5s', '3s']);
  });

  it('long names are cut in the middle, keeping both ends', () => {
    const long = ref('Pod', 'a-very-long-deployment-name-that-goes-on-7d9f5c6b8-x2k9z');
    const t = restart();
    t.hops = linkHops([...podLife(long, newRs, 10, 500), { t: 600, kind: 'converged', object: dep }], dep.uid);
    const l = layoutWaterfall(buildWaterfallView(t), 80);
    const row = l.rows.find((r) => r.label.includes('…'))!;
    expect(row.label.trim()).toMatch(/^ {0}Pod\/a-very.*….*x2k9z$/);
    expect(row.label.length).toBe(l.labelWidth);
  });
});
