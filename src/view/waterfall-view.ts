/**
 * The trace as a waterfall: one lane per object of the chain (the target, each ReplicaSet, Job or
 * other owned object, each Pod), on one time axis from the trigger (0) to the last hop, each lane
 * cut into segments coloured by the phase the object was in, and the critical path marked.
 *
 * Plain, serialisable data built from a trace snapshot; the text picture (`-o waterfall`), the SVG
 * (`--svg FILE`, `check --artifacts DIR`) and the TUI's waterfall pane all draw this and nothing
 * else. `layoutWaterfall` rasterises it to character cells for the two terminal renderers.
 *
 * - A lane starts at the object's `created` hop, or at 0 as "existing" when it was there before the
 *   trigger; the target is "rolling out" from 0 until it converges. A `deleted` hop ends the lane.
 * - A hop that moves an object to a new phase (scheduled, initialized, containers ready, ready,
 *   terminating, ...) starts a segment; hops that do not (scaled, controller observed, finalizer
 *   removed) are marks on the lane.
 * - Objects of the chain with no hop (untouched Pods, old ReplicaSets kept for history) get no lane
 *   unless an object below them has one; they are counted.
 * - When there are more lanes than `maxLanes`, leaf lanes of one kind under one owner (the Pods of a
 *   ReplicaSet) become one group lane, largest group first, until they fit. A group lane draws the
 *   median (p50) member and carries the p50/p90/max of each milestone and of the time in each
 *   phase. Lanes on the critical path are left out of groups while grouping the others suffices:
 *   the Pods that decided the time stay named. What still does not fit is cut and counted.
 */
import type { Hop, HopKind, ObjectRef, TraceOutcome, TraceSnapshot, TreeNode } from '../trace/index.js';
import { formatDuration } from '../util/duration.js';

export const PHASES = [
  'existing',
  'progressing',
  'active',
  'created',
  'scheduled',
  'initialized',
  'containers-ready',
  'ready',
  'not-ready',
  'suspended',
  'succeeded',
  'failed',
  'terminating',
] as const;
export type Phase = (typeof PHASES)[number];

export interface PhaseStyle {
  /** One terminal column; distinct per phase so a picture without colour still reads. */
  glyph: string;
  /** #rrggbb, the same in the TUI, ANSI text and SVG. */
  colour: string;
  label: string;
}

export const PHASE_STYLE: Record<Phase, PhaseStyle> = {
  existing: { glyph: '─', colour: '#8c959f', label: 'existed before' },
  progressing: { glyph: '═', colour: '#8250df', label: 'rolling out' },
  active: { glyph: '━', colour: '#57606a', label: 'exists' },
  created: { glyph: '░', colour: '#9ecae1', label: 'created' },
  scheduled: { glyph: '▒', colour: '#6baed6', label: 'scheduled' },
  initialized: { glyph: '▓', colour: '#3182bd', label: 'initialized' },
  'containers-ready': { glyph: '▄', colour: '#08519c', label: 'containers ready' },
  ready: { glyph: '█', colour: '#2da44e', label: 'ready / converged' },
  'not-ready': { glyph: '▁', colour: '#fb8500', label: 'not ready' },
  suspended: { glyph: '┄', colour: '#bf8700', label: 'suspended (paused)' },
  succeeded: { glyph: '▀', colour: '#116329', label: 'succeeded' },
  failed: { glyph: '╳', colour: '#82071e', label: 'failed' },
  terminating: { glyph: '▚', colour: '#d4a72c', label: 'terminating' },
};

export const CRITICAL_STYLE = { glyph: '◆', colour: '#e3116c', label: 'critical path' } as const;
export const MARK_STYLE = { glyph: '│', colour: '#6e7781', label: 'other hop' } as const;

export interface WaterfallSegment {
  phase: Phase;
  /** ms since the trigger. */
  startMs: number;
  endMs: number;
  /** Between two consecutive hops of the critical path on this lane. */
  critical: boolean;
}

export interface WaterfallMark {
  atMs: number;
  hopId: string;
  kind: HopKind;
  /** The hop starts a new segment (its phase change draws it); else it is only a mark. */
  boundary: boolean;
  critical: boolean;
}

export interface PercentileStats {
  /** Members that reached it. */
  count: number;
  p50: number;
  p90: number;
  max: number;
}

export interface WaterfallGroup {
  /** Members of the group. */
  count: number;
  kind: string;
  /** `ReplicaSet/web-7d9f`: the owner the members share. */
  owner: string;
  /** When each milestone (hop kind) was reached, ms since the trigger. */
  milestones: (PercentileStats & { kind: HopKind })[];
  /** Time spent in each phase, from the hop that began it to the member's next phase change. */
  phases: (PercentileStats & { phase: Phase })[];
}

export interface WaterfallLane {
  /** The object's uid, or `group:<owner uid>/<kind>`. */
  id: string;
  /** `Pod/web-7d9f-x2k`, or for a group `Pod ×998 (grouped, p50)`. */
  label: string;
  kind: string;
  /** 0 for the target, 1 for what it owns, ... */
  depth: number;
  ownerId: string | undefined;
  segments: WaterfallSegment[];
  marks: WaterfallMark[];
  /** A hop of the critical path is on this lane. */
  critical: boolean;
  /** Short text for the right-hand column: `ready 3.02s`, `0 replicas`, `converged 21.8s`. */
  note: string;
  group?: WaterfallGroup | undefined;
}

export interface WaterfallCriticalHop {
  hopId: string;
  laneId: string;
  /** `Pod/web-7d9f-x2k` */
  object: string;
  kind: HopKind;
  atMs: number;
  /** Its share of the time to converge: since the previous hop on the path (or the trigger). */
  sincePreviousMs: number;
}

export interface WaterfallView {
  /** `Deployment/web in demo` */
  title: string;
  /** `restart · converged in 21.8s`, `waiting for a change`. */
  subtitle: string;
  outcome: TraceOutcome | 'running';
  /** The axis runs from 0 (the trigger) to spanMs (the last hop, or now while running). */
  spanMs: number;
  /** When the hop that ended the rollout (converged, failed) was seen, ms since the trigger. */
  endHopMs: number | undefined;
  lanes: WaterfallLane[];
  /** Lanes before grouping and cutting. */
  totalLanes: number;
  /** Lanes cut because even grouped they did not fit. */
  hiddenLanes: number;
  /** Objects of the chain with no hop, hence no lane. */
  unchanged: number;
  /** Some lanes are groups. */
  aggregated: boolean;
  /** The hops that decided the time to converge, in time order, ending at the converged hop. */
  critical: WaterfallCriticalHop[];
  /** Phases drawn, in legend order. */
  phases: Phase[];
  /** Some lane has a mark that is neither a phase change nor on the critical path. */
  hasMarks: boolean;
}

export type WaterfallSource = Pick<TraceSnapshot, 'target' | 'trigger' | 'hops' | 'tree' | 'outcome'>;

export interface WaterfallOptions {
  /** Our clock now (ms): the axis of a running trace reaches it. */
  now?: number;
  /** Lanes that fit; more are grouped, then cut. Default: no limit. */
  maxLanes?: number;
}

/**
 * The phase each kind of hop moves its object to; undefined for hops that are only marks. A
 * `created` hop starts a Pod's `created` phase and any other object's `active` one.
 */
const PHASE_AFTER: Record<HopKind, Phase | undefined> = {
  created: 'created',
  terminating: 'terminating',
  'finalizer-added': undefined,
  'target-modified': undefined,
  'spec-changed': undefined,
  scaled: undefined,
  'controller-observed': undefined,
  condition: undefined,
  status: undefined,
  scheduled: 'scheduled',
  initialized: 'initialized',
  'containers-ready': 'containers-ready',
  ready: 'ready',
  'not-ready': 'not-ready',
  succeeded: 'succeeded',
  complete: 'succeeded',
  'job-failed': 'failed',
  'scaled-down': undefined,
  'finalizer-removed': undefined,
  // A deleted hop ends the lane: walkPhases handles it.
  deleted: undefined,
  suspended: 'suspended',
  converged: 'ready',
  failed: 'failed',
};

function phaseAfter(objectKind: string, hopKind: HopKind): Phase | undefined {
  return hopKind === 'created' && objectKind !== 'Pod' ? 'active' : PHASE_AFTER[hopKind];
}

interface ObjectDraft {
  ref: ObjectRef;
  ownerUid: string | undefined;
  hops: Hop[];
  isTarget: boolean;
}

/**
 * A lane before it is drawn: what grouping needs. Lanes that end up in a group are never drawn, so
 * a rollout of thousands of Pods costs little more than the lanes that are shown.
 */
interface LaneDraft {
  o: ObjectDraft;
  depth: number;
  critical: boolean;
  /** For a group: the lanes it stands for. */
  members?: LaneDraft[];
}

const at = (h: Hop): number => Math.max(0, h.sinceTriggerMs);

export function refLabel(r: { kind: string; name: string }): string {
  return `${r.kind}/${r.name}`;
}

/** Hops a controller reacts to: any change of a workload object, and a Pod's arrival at an end state. */
function prompts(h: Hop): boolean {
  return h.object.kind !== 'Pod' || h.kind === 'ready' || h.kind === 'not-ready' || h.kind === 'deleted' || h.kind === 'succeeded' || h.kind === 'failed';
}

/**
 * The critical path: the hops that decided the time to converge. Start at the hop that ended the
 * rollout (converged or failed; when the trace ended otherwise, its last hop) and step back, each
 * time to the latest-finishing hop this one could have been waiting for:
 *
 * - a hop a controller made (any hop of a workload object: created, scaled, observed, converged;
 *   and a Pod being created or deleted) follows the latest earlier hop that prompts a controller:
 *   a workload object's hop, or a Pod becoming ready, not ready, finished or deleted. So a
 *   Deployment's new Pod follows its ReplicaSet's scale step, the next scale step follows the Pod
 *   that became ready, and a StatefulSet's Pod follows the deletion of its namesake, whose
 *   termination followed the previous ordinal becoming ready;
 * - any other hop of a Pod (scheduled, initialized, containers ready, ready, deleted) follows the
 *   tracker's `previousId`: the Pod's own previous hop.
 *
 * Taking the latest-finishing predecessor at every step gives the chain of waits that could not
 * overlap: shortening a hop off the path would not have converged sooner. The steps' lengths add up
 * to the time to converge. A running trace has no critical path yet.
 */
export function criticalPath(hops: readonly Hop[], outcome: TraceOutcome | undefined): { hop: Hop; sincePreviousMs: number }[] {
  const sorted = byTime(hops);
  let endIndex = sorted.findIndex((h) => h.kind === 'converged' || h.kind === 'failed');
  if (endIndex < 0 && outcome) endIndex = sorted.length - 1;
  if (endIndex < 0) return [];
  // Both predecessors are earlier in time order, usually close by: searched backwards from the hop.
  const before = (i: number, match: (h: Hop) => boolean): number | undefined => {
    for (let j = i - 1; j >= 0; j--) if (match(sorted[j]!)) return j;
    return undefined;
  };
  const path: { hop: Hop; sincePreviousMs: number }[] = [];
  const seen = new Set<number>();
  for (let i: number | undefined = endIndex; i !== undefined && !seen.has(i); ) {
    seen.add(i);
    const h: Hop = sorted[i]!;
    const controllerMade = h.object.kind !== 'Pod' || h.kind === 'created' || h.kind === 'terminating';
    const previousId = h.previousId;
    let prev: number | undefined;
    if (controllerMade) prev = before(i, prompts);
    else if (previousId !== undefined) {
      // Seen in the same instant, a previous hop may sort after this one.
      prev = before(i, (p) => p.id === previousId) ?? sorted.findIndex((p) => p.id === previousId);
      if (prev < 0) prev = undefined;
    }
    path.push({ hop: h, sincePreviousMs: at(h) - (prev !== undefined ? at(sorted[prev]!) : 0) });
    i = prev;
  }
  return path.reverse();
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: ArrayLike<number>, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export function stats(values: number[]): PercentileStats {
  const sorted = Float64Array.from(values).sort();
  return { count: sorted.length, p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9), max: sorted[sorted.length - 1]! };
}

/** Hops in time order; the tracker's list usually is already, and then it is not copied. */
function byTime(hops: readonly Hop[]): readonly Hop[] {
  for (let i = 1; i < hops.length; i++) {
    if (hops[i]!.sinceTriggerMs < hops[i - 1]!.sinceTriggerMs) return [...hops].sort((a, b) => a.sinceTriggerMs - b.sinceTriggerMs);
  }
  return hops;
}

/**
 * The phases of one object from its hops (in time order), up to spanMs: `segment` for each phase
 * it was in (`byHop` when a hop ended it, not the axis), `mark` for each hop (`boundary` when it
 * began a phase or ended the object).
 */
function walkPhases(
  o: { kind: string; isTarget: boolean },
  hops: readonly Hop[],
  spanMs: number,
  segment: (phase: Phase, startMs: number, endMs: number, byHop: boolean) => void,
  mark?: (h: Hop, atMs: number, boundary: boolean) => void,
): void {
  let phase: Phase | undefined = o.isTarget ? 'progressing' : hops.some((h) => h.kind === 'created') ? undefined : 'existing';
  let start = 0;
  for (const h of hops) {
    const t = at(h);
    if (h.kind === 'deleted') {
      if (phase !== undefined && t > start) segment(phase, start, t, true);
      phase = undefined;
      start = t;
      mark?.(h, t, true);
      continue;
    }
    const next = phaseAfter(o.kind, h.kind);
    const boundary = next !== undefined && next !== phase;
    if (boundary) {
      if (phase !== undefined && t > start) segment(phase, start, t, true);
      phase = next;
      start = t;
    }
    mark?.(h, t, boundary);
  }
  if (phase !== undefined && spanMs > start) segment(phase, start, spanMs, false);
}

/** Segments and marks of one object; segments between consecutive critical hops are critical. */
function drawObject(o: ObjectDraft, spanMs: number, criticalIds: ReadonlySet<string>): { segments: WaterfallSegment[]; marks: WaterfallMark[] } {
  const segments: WaterfallSegment[] = [];
  const marks: WaterfallMark[] = [];
  const criticalSpans: [number, number][] = [];
  let lastCritical: number | undefined;
  walkPhases(
    { kind: o.ref.kind, isTarget: o.isTarget },
    o.hops,
    spanMs,
    (phase, startMs, endMs) => segments.push({ phase, startMs, endMs, critical: false }),
    (h, atMs, boundary) => {
      const critical = criticalIds.has(h.id);
      if (critical) {
        if (lastCritical !== undefined && atMs > lastCritical) criticalSpans.push([lastCritical, atMs]);
        lastCritical = atMs;
      }
      marks.push({ atMs, hopId: h.id, kind: h.kind, boundary, critical });
    },
  );
  if (criticalSpans.length) for (const seg of segments) seg.critical = criticalSpans.some(([a, b]) => seg.startMs >= a && seg.endMs <= b);
  return { segments, marks };
}

function laneNote(o: ObjectDraft, outcome: WaterfallView['outcome']): string {
  const hops = o.hops;
  const find = (kind: HopKind): Hop | undefined => hops.find((h) => h.kind === kind);
  if (o.isTarget) {
    const end = find('converged') ?? find('failed');
    if (end) return `${end.kind} ${formatDuration(at(end))}`;
    return outcome === 'running' ? '' : outcome;
  }
  if (find('deleted')) return 'deleted';
  if (o.ref.kind === 'Pod') {
    const created = find('created');
    const ready = find('ready');
    if (ready && created) return `ready ${formatDuration(at(ready) - at(created))}`;
    for (let i = hops.length - 1; i >= 0; i--) if (phaseAfter('Pod', hops[i]!.kind)) return hops[i]!.kind.replace(/-/g, ' ');
    return '';
  }
  for (let i = hops.length - 1; i >= 0; i--) {
    const m = /(?:→|^)(\d+) replicas/.exec(hops[i]!.detail ?? '');
    if (m) return `${m[1]} replicas`;
  }
  return '';
}

function drawLane(
  d: LaneDraft,
  spanMs: number,
  criticalIds: ReadonlySet<string>,
  outcome: WaterfallView['outcome'],
  labels: ReadonlyMap<string, string>,
): WaterfallLane {
  if (d.members) return groupLane(d, spanMs, criticalIds, labels);
  const { o } = d;
  const drawn = drawObject(o, spanMs, criticalIds);
  return {
    id: o.ref.uid,
    label: refLabel(o.ref),
    kind: o.ref.kind,
    depth: d.depth,
    ownerId: o.isTarget ? undefined : o.ownerUid,
    segments: drawn.segments,
    marks: drawn.marks,
    critical: d.critical,
    note: laneNote(o, outcome),
  };
}

/** A group lane: the median member drawn, the spread of each milestone and phase in numbers. */
function groupLane(d: LaneDraft, spanMs: number, criticalIds: ReadonlySet<string>, labels: ReadonlyMap<string, string>): WaterfallLane {
  const members = d.members!;
  const kind = d.o.ref.kind;
  const n = members.length;
  // When each member first reached each milestone, and how long each phase lasted.
  const byKind = new Map<HopKind, { values: number[]; member: number }>();
  const byPhase = new Map<Phase, number[]>();
  const marks: WaterfallMark[] = [];
  members.forEach((m, i) => {
    walkPhases(
      { kind, isTarget: false },
      m.o.hops,
      spanMs,
      (phase, startMs, endMs, byHop) => {
        if (!byHop || phase === 'existing') return;
        let list = byPhase.get(phase);
        if (!list) byPhase.set(phase, (list = []));
        list.push(endMs - startMs);
      },
      (h, atMs, boundary) => {
        // The members' hops on the critical path stay marked where they happened.
        if (criticalIds.has(h.id)) marks.push({ atMs, hopId: h.id, kind: h.kind, boundary, critical: true });
        if (!boundary) return;
        let e = byKind.get(h.kind);
        if (!e) byKind.set(h.kind, (e = { values: [], member: -1 }));
        if (e.member === i) return;
        e.member = i;
        e.values.push(atMs);
      },
    );
  });
  const milestones = [...byKind].map(([k, e]) => ({ kind: k, ...stats(e.values) })).sort((a, b) => a.p50 - b.p50);
  const phases = PHASES.filter((p) => byPhase.has(p)).map((phase) => ({ phase, ...stats(byPhase.get(phase)!) }));
  // Drawn: the milestones most members reached, each at its median time.
  const median = milestones
    .filter((m) => m.count * 2 >= n)
    .map(
      (m): Hop => ({
        id: `group/${m.kind}`,
        kind: m.kind,
        object: d.o.ref,
        observedAt: 0,
        reconciledAt: 0,
        sinceTriggerMs: m.p50,
        sincePreviousMs: 0,
        events: [],
      }),
    );
  const segments: WaterfallSegment[] = [];
  walkPhases({ kind, isTarget: false }, median, spanMs, (phase, startMs, endMs) => segments.push({ phase, startMs, endMs, critical: false }));
  const ownerId = d.o.ownerUid;
  return {
    id: `group:${ownerId ?? ''}/${kind}`,
    label: `${kind} ×${n} (grouped, p50)`,
    kind,
    depth: d.depth,
    ownerId,
    segments,
    marks: marks.sort((a, b) => a.atMs - b.atMs),
    critical: d.critical,
    note: `${n} ${kind}s`,
    group: { count: n, kind, owner: (ownerId && labels.get(ownerId)) ?? '', milestones, phases },
  };
}

/** Groups leaf lanes of one kind under one owner, largest group first, until they fit; then cuts. */
function fit(drafts: LaneDraft[], maxLanes: number): { drafts: LaneDraft[]; hidden: number; aggregated: boolean } {
  let current = drafts;
  let aggregated = false;
  // Lanes on the critical path are grouped only when grouping the others was not enough.
  let withCritical = false;
  while (current.length > maxLanes) {
    const owners = new Set<string | undefined>();
    for (const d of current) owners.add(d.o.ownerUid);
    const groups = new Map<string, Map<string, LaneDraft[]>>();
    for (const d of current) {
      if (d.depth === 0 || (!withCritical && (d.critical || d.members)) || owners.has(d.o.ref.uid)) continue;
      const owner = d.o.ownerUid ?? '';
      let byKind = groups.get(owner);
      if (!byKind) groups.set(owner, (byKind = new Map<string, LaneDraft[]>()));
      let list = byKind.get(d.o.ref.kind);
      if (!list) byKind.set(d.o.ref.kind, (list = []));
      list.push(d);
    }
    let largest: LaneDraft[] | undefined;
    for (const byKind of groups.values())
      for (const list of byKind.values()) if (list.length >= 2 && (!largest || list.length > largest.length)) largest = list;
    if (!largest) {
      if (withCritical) break;
      withCritical = true;
      continue;
    }
    aggregated = true;
    const replaced = new Set(largest);
    const head = largest[0]!;
    // A group taking in critical lanes takes in the group made before it, too: one lane per owner.
    const members = largest.flatMap((d) => d.members ?? [d]);
    const group: LaneDraft = { o: head.members?.[0]?.o ?? head.o, depth: head.depth, critical: largest.some((d) => d.critical), members };
    const next: LaneDraft[] = [];
    for (const d of current) {
      if (!replaced.has(d)) next.push(d);
      else if (d === head) next.push(group);
    }
    current = next;
  }
  const hidden = Math.max(0, current.length - maxLanes);
  return { drafts: hidden > 0 ? current.slice(0, maxLanes) : current, hidden, aggregated };
}

function emptyView(s: WaterfallSource, subtitle: string): WaterfallView {
  return {
    title: targetTitle(s),
    subtitle,
    outcome: s.outcome ?? 'running',
    spanMs: 0,
    endHopMs: undefined,
    lanes: [],
    totalLanes: 0,
    hiddenLanes: 0,
    unchanged: 0,
    aggregated: false,
    critical: [],
    phases: [],
    hasMarks: false,
  };
}

function targetTitle(s: WaterfallSource): string {
  return `${s.target.kind}/${s.target.name}${s.target.namespace ? ` in ${s.target.namespace}` : ''}`;
}

/**
 * The objects the lanes are drawn for: those with hops, the target, and their owners up the chain
 * (from the hops and the tree), each with its hops; and how many objects of the tree had none.
 */
function collectObjects(s: WaterfallSource, hops: readonly Hop[]): { objects: Map<string, ObjectDraft>; targetRef: ObjectRef; unchanged: number } {
  const treeRefs = new Map<string, { ref: ObjectRef; parent: string | undefined }>();
  const walkTree = (n: TreeNode, parent: string | undefined): void => {
    treeRefs.set(n.ref.uid, { ref: n.ref, parent });
    for (const c of n.children) walkTree(c, n.ref.uid);
  };
  if (s.tree) walkTree(s.tree, undefined);
  const targetHop = hops.find((h) => h.object.kind === s.target.kind && h.object.name === s.target.name && !h.owner);
  const targetRef: ObjectRef = s.tree?.ref ?? targetHop?.object ?? { kind: s.target.kind, name: s.target.name, namespace: s.target.namespace, uid: 'target' };
  const objects = new Map<string, ObjectDraft>();
  objects.set(targetRef.uid, { ref: targetRef, ownerUid: undefined, hops: [], isTarget: true });
  const knownRefs = new Map<string, ObjectRef>();
  const ownerOf = new Map<string, string>();
  for (const h of hops) {
    knownRefs.set(h.object.uid, h.object);
    if (h.owner) {
      knownRefs.set(h.owner.uid, h.owner);
      ownerOf.set(h.object.uid, h.owner.uid);
    }
  }
  for (const [uid, t] of treeRefs) if (t.parent && !ownerOf.has(uid)) ownerOf.set(uid, t.parent);
  const ensure = (uid: string): ObjectDraft | undefined => {
    const existing = objects.get(uid);
    if (existing) return existing;
    const ref = knownRefs.get(uid) ?? treeRefs.get(uid)?.ref;
    if (!ref) return undefined;
    const draft: ObjectDraft = { ref, ownerUid: undefined, hops: [], isTarget: false };
    objects.set(uid, draft);
    const owner = ownerOf.get(uid);
    draft.ownerUid = owner && owner !== uid && ensure(owner) ? owner : targetRef.uid;
    return draft;
  };
  for (const h of hops) ensure(h.object.uid)?.hops.push(h);
  let unchanged = 0;
  for (const uid of treeRefs.keys()) if (!objects.has(uid)) unchanged++;
  return { objects, targetRef, unchanged };
}

/** The lanes in order: the owner tree, depth first; siblings by their first hop (or first descendant's). */
function laneOrder(objects: Map<string, ObjectDraft>, targetUid: string, criticalIds: ReadonlySet<string>): LaneDraft[] {
  const children = new Map<string, ObjectDraft[]>();
  for (const o of objects.values()) {
    if (o.isTarget) continue;
    let list = children.get(o.ownerUid!);
    if (!list) children.set(o.ownerUid!, (list = []));
    list.push(o);
  }
  const firstAt = new Map<string, number>();
  const first = (o: ObjectDraft): number => {
    const cached = firstAt.get(o.ref.uid);
    if (cached !== undefined) return cached;
    firstAt.set(o.ref.uid, Infinity);
    let v = o.hops.length ? at(o.hops[0]!) : Infinity;
    for (const c of children.get(o.ref.uid) ?? []) v = Math.min(v, first(c));
    firstAt.set(o.ref.uid, v);
    return v;
  };
  const drafts: LaneDraft[] = [];
  const visited = new Set<string>();
  const visit = (o: ObjectDraft, depth: number): void => {
    if (visited.has(o.ref.uid)) return;
    visited.add(o.ref.uid);
    drafts.push({ o, depth, critical: o.hops.some((h) => criticalIds.has(h.id)) });
    const kids = [...(children.get(o.ref.uid) ?? [])].sort((a, b) => first(a) - first(b) || a.ref.name.localeCompare(b.ref.name));
    for (const k of kids) visit(k, depth + 1);
  };
  visit(objects.get(targetUid)!, 0);
  for (const o of objects.values()) visit(o, 1);
  return drafts;
}

export function buildWaterfallView(s: WaterfallSource, options: WaterfallOptions = {}): WaterfallView {
  const trigger = s.trigger;
  if (!trigger) return emptyView(s, 'waiting for a change');
  const hops = byTime(s.hops);
  const outcome = s.outcome ?? 'running';
  const lastHop = hops.length ? at(hops[hops.length - 1]!) : 0;
  const spanMs = Math.max(1, lastHop, outcome === 'running' && options.now !== undefined ? options.now - trigger.at : 0);
  const { objects, targetRef, unchanged } = collectObjects(s, hops);
  const path = criticalPath(hops, s.outcome);
  const criticalIds = new Set(path.map((p) => p.hop.id));
  let drafts = laneOrder(objects, targetRef.uid, criticalIds);

  const totalLanes = drafts.length;
  let hiddenLanes = 0;
  let aggregated = false;
  if (options.maxLanes !== undefined && drafts.length > options.maxLanes) {
    const fitted = fit(drafts, Math.max(1, options.maxLanes));
    drafts = fitted.drafts;
    hiddenLanes = fitted.hidden;
    aggregated = fitted.aggregated;
  }
  const labels = new Map<string, string>();
  for (const d of drafts) if (!d.members) labels.set(d.o.ref.uid, refLabel(d.o.ref));
  const lanes = drafts.map((d) => drawLane(d, spanMs, criticalIds, outcome, labels));
  const used = new Set<Phase>();
  for (const l of lanes) for (const seg of l.segments) used.add(seg.phase);
  const end = hops.find((h) => h.kind === 'converged' || h.kind === 'failed');
  const elapsed = end
    ? `${end.kind} in ${formatDuration(at(end))}`
    : outcome === 'running'
      ? `running ${formatDuration(spanMs)}`
      : `${outcome} after ${formatDuration(spanMs)}`;
  return {
    title: targetTitle(s),
    subtitle: `${trigger.kind === 'watch' ? 'watched change' : trigger.kind} · ${elapsed}`,
    outcome,
    spanMs,
    endHopMs: end ? at(end) : undefined,
    lanes,
    totalLanes,
    hiddenLanes,
    unchanged,
    aggregated,
    critical: path.map(({ hop: h, sincePreviousMs }) => ({
      hopId: h.id,
      laneId: h.object.uid,
      object: refLabel(h.object),
      kind: h.kind,
      atMs: at(h),
      sincePreviousMs,
    })),
    phases: PHASES.filter((p) => used.has(p)),
    hasMarks: lanes.some((l) => l.marks.some((m) => !m.boundary && !m.critical)),
  };
}

// ---- Character cells, for the text picture and the TUI pane -------------------------------------

export interface WaterfallCell {
  /** The phase drawn in the cell; undefined: the object did not exist then. */
  phase: Phase | undefined;
  /** A hop in the cell: `critical` (on the critical path) or `hop` (a mark that is no phase change). */
  mark: 'critical' | 'hop' | undefined;
}

export function cellGlyph(c: WaterfallCell): string {
  if (c.mark === 'critical') return CRITICAL_STYLE.glyph;
  if (c.mark === 'hop') return MARK_STYLE.glyph;
  return c.phase ? PHASE_STYLE[c.phase].glyph : ' ';
}

/** Colour of a cell; undefined for an empty one. */
export function cellColour(c: WaterfallCell): string | undefined {
  if (c.mark === 'critical') return CRITICAL_STYLE.colour;
  if (c.mark === 'hop') return MARK_STYLE.colour;
  return c.phase ? PHASE_STYLE[c.phase].colour : undefined;
}

/** Consecutive cells of one look, for renderers that colour runs. */
export function cellRuns(cells: readonly WaterfallCell[]): { text: string; colour: string | undefined; critical: boolean }[] {
  const runs: { text: string; colour: string | undefined; critical: boolean }[] = [];
  for (const c of cells) {
    const glyph = cellGlyph(c);
    const colour = cellColour(c);
    const critical = c.mark === 'critical';
    const last = runs.at(-1);
    if (last && last.colour === colour && last.critical === critical && last.text.at(-1) === glyph) last.text += glyph;
    else runs.push({ text: glyph, colour, critical });
  }
  return runs;
}

export interface WaterfallRow {
  laneId: string;
  /** `◆` when the lane is on the critical path, else a space. */
  gutter: string;
  /** Indented by depth, cut in the middle to fit, padded to the label width. */
  label: string;
  cells: WaterfallCell[];
  /** Padded or cut to the note width ('' when there is no note column). */
  note: string;
}

export interface WaterfallLayout {
  width: number;
  labelWidth: number;
  chartWidth: number;
  noteWidth: number;
  /** Columns before the chart: gutter, label, space. */
  chartOffset: number;
  rows: WaterfallRow[];
  /** Tick positions (chart columns) and their labels. */
  ticks: { col: number; label: string }[];
  /** `──┴────┴──`, chartWidth long. */
  axisLine: string;
  /** Tick labels placed under the ticks, chartWidth long. */
  axisLabels: string;
}

/** Cuts a string to `n` columns, keeping both ends (`web-7d9…-x2k`). */
export function cutMiddle(s: string, n: number): string {
  if (s.length <= n) return s;
  if (n <= 1) return s.slice(0, n);
  const head = Math.ceil((n - 1) / 2);
  return `${s.slice(0, head)}…${s.slice(s.length - (n - 1 - head))}`;
}

export function cutEnd(s: string, n: number): string {
  if (s.length <= n) return s;
  if (n <= 1) return s.slice(0, n);
  return `${s.slice(0, n - 1)}…`;
}

function padTo(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** Axis labels: `0`, `500ms`, `2s`, `2.5s`, `1m30s`. */
export function axisLabel(ms: number): string {
  if (ms === 0) return '0';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))}s`;
  const m = Math.floor(ms / 60_000);
  const sec = Math.round((ms % 60_000) / 1000);
  return sec ? `${m}m${sec}s` : `${m}m`;
}

const TICK_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000,
  7_200_000,
];

/** The smallest round step whose labels do not collide at this width. */
export function tickStep(spanMs: number, columns: number): number {
  for (const step of TICK_STEPS) {
    const widest = Math.max(axisLabel(step * Math.floor(spanMs / step)).length, axisLabel(step).length);
    if ((step / spanMs) * columns >= widest + 2) return step;
  }
  return TICK_STEPS.at(-1)!;
}

/** The column of a time on a chart `columns` wide. */
export function columnOf(ms: number, spanMs: number, columns: number): number {
  return Math.min(columns - 1, Math.max(0, Math.floor((ms / spanMs) * columns)));
}

/** The lanes as character cells, fitted to `width` columns (never wider). */
export function layoutWaterfall(view: WaterfallView, width: number): WaterfallLayout {
  width = Math.max(1, Math.floor(width));
  const labels = view.lanes.map((l) => `${'  '.repeat(l.depth)}${l.label}`);
  const longestLabel = Math.max(8, ...labels.map((l) => l.length));
  const longestNote = Math.min(16, Math.max(0, ...view.lanes.map((l) => l.note.length)));
  let labelWidth = Math.min(longestLabel, Math.max(10, Math.floor(width * 0.34)));
  let noteWidth = longestNote;
  const chartFor = (): number => width - 2 - labelWidth - (noteWidth > 0 ? noteWidth + 1 : 0);
  if (chartFor() < 24) noteWidth = 0;
  if (chartFor() < 10) labelWidth = Math.max(1, Math.min(labelWidth, width - 2 - 10));
  const chartWidth = Math.max(1, chartFor());
  const chartOffset = Math.min(width, 2 + labelWidth);
  const span = Math.max(1, view.spanMs);
  const rows: WaterfallRow[] = view.lanes.map((lane, i) => {
    const cells: WaterfallCell[] = Array.from({ length: chartWidth }, () => ({ phase: undefined, mark: undefined }));
    // Later segments win a shared cell: the phase an object reached shows over the one it left.
    for (const seg of lane.segments) {
      const from = columnOf(seg.startMs, span, chartWidth);
      const to = Math.max(from, Math.ceil((seg.endMs / span) * chartWidth) - 1);
      for (let c = from; c <= Math.min(to, chartWidth - 1); c++) cells[c]!.phase = seg.phase;
    }
    for (const m of lane.marks) {
      if (m.boundary && !m.critical) continue;
      const c = cells[columnOf(m.atMs, span, chartWidth)]!;
      if (m.critical) c.mark = 'critical';
      else if (c.mark === undefined) c.mark = 'hop';
    }
    const indent = '  '.repeat(lane.depth);
    const label =
      labels[i]!.length <= labelWidth
        ? labels[i]!
        : indent.length < labelWidth - 4
          ? indent + cutMiddle(lane.label, labelWidth - indent.length)
          : cutMiddle(lane.label, labelWidth);
    return {
      laneId: lane.id,
      gutter: lane.critical ? CRITICAL_STYLE.glyph : ' ',
      label: padTo(label, labelWidth),
      cells,
      note: noteWidth > 0 ? padTo(cutEnd(lane.note, noteWidth), noteWidth) : '',
    };
  });
  const step = tickStep(span, chartWidth);
  const ticks: { col: number; label: string }[] = [];
  for (let t = 0; t <= span; t += step) ticks.push({ col: columnOf(t, span, chartWidth), label: axisLabel(t) });
  const line = Array.from({ length: chartWidth }, () => '─');
  const under = Array.from({ length: chartWidth }, () => ' ');
  let free = 0;
  for (const t of ticks) {
    line[t.col] = '┴';
    const start = Math.max(free, Math.min(t.col, chartWidth - t.label.length));
    if (start < free || start + t.label.length > chartWidth) continue;
    for (let k = 0; k < t.label.length; k++) under[start + k] = t.label[k]!;
    free = start + t.label.length + 1;
  }
  return { width, labelWidth, chartWidth, noteWidth, chartOffset, rows, ticks, axisLine: line.join(''), axisLabels: under.join('') };
}

/** Wraps `parts` (joined by `sep`) into lines of at most `width` columns; a part too long is cut. */
export function wrapParts(parts: readonly string[], width: number, sep = '  ', indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const raw of parts) {
    const part = cutEnd(raw, Math.max(1, width));
    if (!line) line = part;
    else if (line.length + sep.length + part.length <= width) line += sep + part;
    else {
      lines.push(line);
      line = cutEnd(indent + part, width);
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** At most `max` lines: the first, then the last ones, the cut said. */
export function capLines(lines: string[], max: number, width: number): string[] {
  if (lines.length <= max) return lines;
  if (max <= 1) return [cutEnd(`${lines[0]} … (${lines.length - 1} more lines)`, width)];
  const tail = lines.slice(lines.length - (max - 1));
  return [lines[0]!, cutEnd(`… ${tail[0]!.trimStart()}`, width), ...tail.slice(1)];
}

/** Rows of a waterfall pane (src/tui/waterfall-pane.tsx) that are not lanes, by its height: the axis from 4 rows, the legend and critical path from 8. */
export function paneOverhead(height: number): { axis: boolean; legend: boolean } {
  return { axis: height >= 4, legend: height >= 8 };
}

/** How many lane rows a pane of `height` rows has: pass it as the view's maxLanes. */
export function waterfallLaneRows(height: number, header = true): number {
  const o = paneOverhead(height);
  return Math.max(0, height - (header ? 1 : 0) - (o.axis ? 2 : 0) - (o.legend ? 2 : 0));
}

/** The critical path in one line: its length and its longest waits. */
export function criticalSummary(view: WaterfallView): string {
  if (view.critical.length === 0) return view.outcome === 'running' ? 'critical path: once the rollout ends' : 'no critical path: nothing converged';
  const longest = [...view.critical].sort((a, b) => b.sincePreviousMs - a.sincePreviousMs).slice(0, 3);
  return `critical path, ${view.critical.length} hops; longest waits: ${longest.map((c) => `${c.object} ${c.kind.replace(/-/g, ' ')} +${formatDuration(c.sincePreviousMs)}`).join(', ')}`;
}

/** The legend's entries: glyph and words for each phase drawn, the critical path, other hops. */
export function legendEntries(view: WaterfallView): { glyph: string; colour: string; label: string }[] {
  return [...view.phases.map((p) => PHASE_STYLE[p]), ...(view.critical.length ? [CRITICAL_STYLE] : []), ...(view.hasMarks ? [MARK_STYLE] : [])].map((s) => ({
    glyph: s.glyph,
    colour: s.colour,
    label: s.label,
  }));
}

/** `write → ReplicaSet/web-7d9f created +80ms → … → Deployment/web converged +21.8s` as parts. */
export function criticalPathParts(view: WaterfallView): string[] {
  if (!view.critical.length) return [];
  return [
    `critical path (${view.critical.length} hops):`,
    'trigger',
    ...view.critical.map((c) => `→ ${c.object} ${c.kind.replace(/-/g, ' ')} +${formatDuration(c.sincePreviousMs)}`),
  ];
}

/** One line per group: what the group lane stands for and the spread of its members. */
export function groupLines(view: WaterfallView): string[] {
  return view.lanes
    .filter((l) => l.group)
    .map((l) => {
      const g = l.group!;
      const phases = g.phases.map((p) => `${PHASE_STYLE[p.phase].label} ${fmtStats(p)}`).join(' · ');
      return `${g.kind} ×${g.count}${g.owner ? ` of ${g.owner}` : ''}: time in phase p50/p90/max: ${phases || 'no phase ended'}`;
    });
}

export function fmtStats(s: PercentileStats): string {
  return `${formatDuration(s.p50)}/${formatDuration(s.p90)}/${formatDuration(s.max)}`;
}
