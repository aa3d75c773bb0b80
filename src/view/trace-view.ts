/**
 * The trace as every output shows it: the summary (outcome, time to converge, slowest hop), one
 * line per hop, and the tree. Pure functions over TraceSnapshot and Hop.
 */
import {
  type Hop,
  type HopFigures,
  hopFiguresOf,
  type HopKind,
  type TraceEventRef,
  type TraceOutcome,
  type TraceSnapshot,
  type TreeNode,
} from '../trace/index.js';
import { formatDuration } from '../util/duration.js';
import { criticalPath, refLabel } from './waterfall-view.js';

/**
 * The slowest hop: the longest wait on the critical path the waterfall draws (the first of
 * equals), and the step of the path it waited for. Off the path (an old Pod still terminating
 * after the rollout converged) no wait counts, however long: it did not hold convergence up.
 */
export interface SlowestHop {
  /** The hop's id (`-o json`), never shown in text. */
  id: string;
  kind: HopKind;
  /** `Pod/web-7d9f-x2k` */
  object: string;
  /** Since the step of the critical path before it, or the trigger. */
  sincePreviousMs: number;
  /** That step's hop; undefined when the wait began at the trigger. */
  previousId: string | undefined;
  previousKind: HopKind | undefined;
  previousObject: string | undefined;
}

export interface TraceSummary {
  target: string;
  trigger: string;
  outcome: TraceOutcome | 'running';
  message: string;
  /** Trigger to the end (convergence, deletion, no-rollout verdict). */
  elapsedMs: number | undefined;
  hops: number;
  slowestHop: SlowestHop | undefined;
  reconciles: number;
  targetWatchEvents: number;
  burst: TraceSnapshot['burst'];
  /** Where the children of a kind the tool does not know were looked for: `31 kinds found through discovery (12 metadata-only)`. */
  children?: string | undefined;
  /**
   * Watches of the trace's informers given up because their connection went silent (half-open, or
   * a hung API server) and opened again from their resourceVersion: InformerStats.watchStalls, summed.
   */
  watchStalls: number;
  /** The same in words, with the informers it happened to, when there were any: `1 watch stalled and resumed (pods in ns)`. */
  stalls?: string | undefined;
  /** What the Events bounds cut, in one line, when they cut any (TraceSnapshot.eventsNotRead). */
  eventsNotRead?: string | undefined;
}

export function summarise(s: TraceSnapshot, now: number): TraceSummary {
  const { end } = hopFigures(s);
  const elapsed = s.trigger ? (end ? end.observedAt - s.trigger.at : s.outcome ? undefined : now - s.trigger.at) : undefined;
  const lastHop = s.hops.at(-1);
  return {
    target: `${s.target.kind}/${s.target.name}${s.target.namespace ? ` in ${s.target.namespace}` : ''}`,
    trigger: s.trigger ? s.trigger.wrote || 'watched a change made by someone else' : 'waiting for a change',
    outcome: s.outcome ?? 'running',
    message: s.endMessage ?? '',
    elapsedMs: elapsed ?? (s.outcome && lastHop && s.trigger ? lastHop.observedAt - s.trigger.at : undefined),
    hops: s.hops.length,
    slowestHop: slowestHop(s),
    reconciles: s.reconciles,
    targetWatchEvents: s.targetWatchEvents,
    burst: s.burst,
    ...(s.discoveredChildren ? { children: discoveredText(s.discoveredChildren) } : {}),
    watchStalls: s.informers.reduce((n, i) => n + i.watchStalls, 0),
    ...stallsText(s.informers),
    ...(s.eventsNotRead ? { eventsNotRead: s.eventsNotRead } : {}),
  };
}

/**
 * The slowest hop of the snapshot (see SlowestHop); none while the trace has no critical path yet
 * (running, before its end hop). The TUI asks at every frame: kept per figures object, which the
 * tracer replaces only when a hop is placed.
 */
export function slowestHop(s: Pick<TraceSnapshot, 'hops' | 'figures' | 'outcome'>): SlowestHop | undefined {
  const kept = s.figures ? slowestKept.get(s.figures) : undefined;
  if (kept && kept.outcome === s.outcome) return kept.slowest;
  const path = criticalPath(s.hops, s.outcome);
  let at = -1;
  for (let i = 0; i < path.length; i++) if (at < 0 || path[i]!.sincePreviousMs > path[at]!.sincePreviousMs) at = i;
  const step = path[at];
  const previous = path[at - 1]?.hop;
  const slowest: SlowestHop | undefined = step && {
    id: step.hop.id,
    kind: step.hop.kind,
    object: refLabel(step.hop.object),
    sincePreviousMs: step.sincePreviousMs,
    previousId: previous?.id,
    previousKind: previous?.kind,
    previousObject: previous && refLabel(previous.object),
  };
  if (s.figures) slowestKept.set(s.figures, { outcome: s.outcome, slowest });
  return slowest;
}

const slowestKept = new WeakMap<HopFigures, { outcome: TraceSnapshot['outcome']; slowest: SlowestHop | undefined }>();

/** `Pod/web-7d9f-x2k ready (+4.29s after Pod/web-7d9f-x2k initialized)`: hops named as the timeline names them. */
export function slowestHopText(h: SlowestHop): string {
  const after = h.previousKind !== undefined && h.previousObject !== undefined ? `${h.previousObject} ${hopKindTitle(h.previousKind)}` : 'the trigger';
  return `${h.object} ${hopKindTitle(h.kind)} (+${formatDuration(h.sincePreviousMs)} after ${after})`;
}

/** `2 watches stalled and resumed (pods in ns, replicasets.apps in ns ×2)`, when any did. */
function stallsText(informers: TraceSnapshot['informers']): { stalls?: string } {
  const stalled = informers.filter((i) => i.watchStalls > 0);
  const n = stalled.reduce((sum, i) => sum + i.watchStalls, 0);
  if (n === 0) return {};
  const which = stalled.map((i) => `${i.description}${i.watchStalls > 1 ? ` ×${i.watchStalls}` : ''}`).join(', ');
  return { stalls: `${n} ${n === 1 ? 'watch' : 'watches'} stalled and resumed (${which})` };
}

function discoveredText(d: NonNullable<TraceSnapshot['discoveredChildren']>): string {
  const all = [...d.full, ...d.metadataOnly].sort();
  const refused = d.refused.length ? `; left out: ${d.refused.join(', ')}` : '';
  return `children looked for in ${all.length} kinds found through discovery (${d.metadataOnly.length} metadata-only): ${all.join(', ')}${refused}`;
}

/** The figures over the snapshot's hops: kept by the tracer, else (a filter's hops) one pass over them. */
export function hopFigures(s: Pick<TraceSnapshot, 'hops' | 'figures'>): HopFigures {
  return s.figures ?? hopFiguresOf(s.hops);
}

/** How the timeline names each kind of hop. */
const HOP_TITLES: Record<HopKind, string> = {
  created: 'created',
  terminating: 'terminating',
  'finalizer-added': 'finalizer added',
  'target-modified': 'MODIFIED seen by our informer',
  'spec-changed': 'spec changed',
  scaled: 'scaled',
  'controller-observed': 'controller observed',
  condition: 'condition',
  status: 'status',
  scheduled: 'scheduled',
  initialized: 'initialized',
  'containers-ready': 'containers ready',
  ready: 'ready',
  'not-ready': 'not ready',
  succeeded: 'succeeded',
  complete: 'complete',
  'job-failed': 'job failed',
  'scaled-down': 'scaled down',
  'finalizer-removed': 'finalizer removed',
  deleted: 'deleted',
  suspended: 'suspended',
  converged: 'converged',
  failed: 'failed',
};

export function hopKindTitle(kind: HopKind): string {
  return HOP_TITLES[kind];
}

export function hopTitle(h: Hop): string {
  return hopKindTitle(h.kind);
}

/** `+1.23s (+120ms)  ReplicaSet/web-7d9f  created  3 replicas  [server 12:00:01 creationTimestamp]  ScalingReplicaSet: …` */
/** `+1.20s`, or `-155ms` for a hop received before the trigger (the no-op apply's own MODIFIED). */
const signed = (ms: number): string => `${ms < 0 ? '' : '+'}${formatDuration(ms)}`;

export function hopLine(h: Hop, objectWidth = 34): string {
  const server = h.serverTime ? `  [server ${h.serverTime.replace(/^\d{4}-\d\d-\d\dT/, '')} ${h.serverTimeSource ?? ''}]` : '';
  const events = h.events.length ? `  ${h.events.map(eventText).join('; ')}` : '';
  const early = h.seenBeforeCause ? '  (seen before its cause)' : '';
  return `${pad(signed(h.sinceTriggerMs), 9)} ${pad(`(${signed(h.sincePreviousMs)})`, 10)} ${pad(`${h.object.kind}/${h.object.name}`, objectWidth)} ${hopTitle(h)}${early}${h.detail ? `  ${h.detail}` : ''}${server}${events}`;
}

/** `Scheduled: Successfully assigned …`; an Event that recurred carries its count once: `BackOff: … ×3`. */
export function eventText(e: TraceEventRef): string {
  return `${e.reason}: ${e.note}${e.count !== undefined && e.count > 1 ? ` ×${e.count}` : ''}`;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

export interface TreeLine {
  depth: number;
  label: string;
  status: string;
  ready: boolean;
  deleting: boolean;
  node?: string | undefined;
  restarts?: number | undefined;
  creationTimestamp?: string | undefined;
}

/** The tree flattened for display; at most `limit` lines, children past it counted. */
export function treeLines(root: TreeNode | undefined, limit = Infinity): { lines: TreeLine[]; hidden: number } {
  const lines: TreeLine[] = [];
  let hidden = 0;
  const walk = (n: TreeNode, depth: number): void => {
    if (lines.length >= limit) {
      hidden++;
    } else {
      lines.push({
        depth,
        label: `${n.ref.kind}/${n.ref.name}`,
        status: n.status,
        ready: n.ready,
        deleting: n.deleting,
        node: n.node,
        restarts: n.restarts,
        creationTimestamp: n.creationTimestamp,
      });
    }
    for (const c of n.children) walk(c, depth + 1);
  };
  if (root) walk(root, 0);
  return { lines, hidden };
}

export function summaryLines(sum: TraceSummary): string[] {
  const out = [`${sum.target}: ${sum.outcome}${sum.message ? ` — ${sum.message}` : ''}`];
  if (sum.burst) {
    out.push(
      `burst: ${sum.burst.writes} writes → ${sum.burst.watchEvents} watch events → ${sum.burst.reconciles} reconciles of our workqueue${sum.burst.controllerQueueAdds !== undefined ? `; the controller's "${sum.burst.controllerQueue}" queue: ${sum.burst.controllerQueueAdds} adds` : ''}`,
    );
  }
  if (sum.elapsedMs !== undefined) out.push(`time to ${sum.outcome === 'converged' ? 'converge' : 'end'}: ${formatDuration(sum.elapsedMs)}`);
  if (sum.children) out.push(sum.children);
  if (sum.stalls) out.push(sum.stalls);
  if (sum.eventsNotRead) out.push(sum.eventsNotRead);
  if (sum.slowestHop) out.push(`slowest hop: ${slowestHopText(sum.slowestHop)}`);
  return out;
}
