/**
 * The trace as every output shows it: the summary (outcome, time to converge, slowest hop), one
 * line per hop, and the tree. Pure functions over TraceSnapshot and Hop (hopFigures keeps what it
 * computed per version of the hop list).
 */
import type { TraceSnapshot, TreeNode } from '../trace/tracer.js';
import type { Hop, TraceEventRef, TraceOutcome } from '../trace/types.js';
import { formatDuration } from '../util/duration.js';

export interface TraceSummary {
  target: string;
  trigger: string;
  outcome: TraceOutcome | 'running';
  message: string;
  /** Trigger to the end (convergence, deletion, no-rollout verdict). */
  elapsedMs: number | undefined;
  hops: number;
  slowestHop: { id: string; kind: string; object: string; sincePreviousMs: number; previousId: string | undefined } | undefined;
  reconciles: number;
  targetWatchEvents: number;
  burst: TraceSnapshot['burst'];
}

export function summarise(s: TraceSnapshot, now: number): TraceSummary {
  const { end, slowest: slow } = hopFigures(s);
  const elapsed = s.trigger ? (end ? end.observedAt - s.trigger.at : s.outcome ? undefined : now - s.trigger.at) : undefined;
  const lastHop = s.hops.at(-1);
  return {
    target: `${s.target.kind}/${s.target.name}${s.target.namespace ? ` in ${s.target.namespace}` : ''}`,
    trigger: s.trigger ? (s.trigger.wrote || 'watched a change made by someone else') : 'waiting for a change',
    outcome: s.outcome ?? 'running',
    message: s.endMessage ?? '',
    elapsedMs: elapsed ?? (s.outcome && lastHop && s.trigger ? lastHop.observedAt - s.trigger.at : undefined),
    hops: s.hops.length,
    slowestHop: slow ? { id: slow.id, kind: slow.kind, object: `${slow.object.kind}/${slow.object.name}`, sincePreviousMs: slow.sincePreviousMs, previousId: slow.previousId } : undefined,
    reconciles: s.reconciles,
    targetWatchEvents: s.targetWatchEvents,
    burst: s.burst,
  };
}

/** What a screen reads from all the hops; see hopFigures. */
export interface HopFigures {
  /** The first converged or failed hop. */
  end: Hop | undefined;
  /** The slowest hop on the way to `end` (old Pods still terminating afterwards do not count). */
  slowest: Hop | undefined;
  /** The longest `Kind/name` among the hops. */
  longestObject: number;
  /** Every hop's id, in order. */
  ids: string[];
}

const figuresKept = new WeakMap<readonly Hop[], { version: number; figures: HopFigures }>();

/**
 * One pass over the hops for the figures every frame of a screen needs. A 1,000-replica rollout
 * has thousands of hops and the TUI draws ten frames a second, so the figures are kept per hop
 * list until its version (TraceSnapshot.hopsVersion) moves; a list without one (the hops a filter
 * left) is passed over each time.
 */
export function hopFigures(s: Pick<TraceSnapshot, 'hops' | 'hopsVersion'>): HopFigures {
  const kept = s.hopsVersion === undefined ? undefined : figuresKept.get(s.hops);
  if (kept && kept.version === s.hopsVersion) return kept.figures;
  const end = s.hops.find((h) => h.kind === 'converged' || h.kind === 'failed');
  let slowest: Hop | undefined;
  let longestObject = 0;
  const ids = new Array<string>(s.hops.length);
  for (let i = 0; i < s.hops.length; i++) {
    const h = s.hops[i]!;
    ids[i] = h.id;
    longestObject = Math.max(longestObject, h.object.kind.length + 1 + h.object.name.length);
    if (end && h.observedAt > end.observedAt) continue;
    if (!slowest || h.sincePreviousMs > slowest.sincePreviousMs) slowest = h;
  }
  const figures = { end, slowest, longestObject, ids };
  if (s.hopsVersion !== undefined) figuresKept.set(s.hops, { version: s.hopsVersion, figures });
  return figures;
}

export function hopTitle(h: Hop): string {
  return h.kind === 'target-modified' ? 'MODIFIED seen by our informer' : h.kind.replace(/-/g, ' ');
}

/** `+1.23s (+120ms)  ReplicaSet/web-7d9f  created  3 replicas  [server 12:00:01 creationTimestamp]  ScalingReplicaSet: …` */
export function hopLine(h: Hop, objectWidth = 34): string {
  const server = h.serverTime ? `  [server ${h.serverTime.replace(/^\d{4}-\d\d-\d\dT/, '')} ${h.serverTimeSource ?? ''}]` : '';
  const events = h.events.length ? `  ${h.events.map(eventText).join('; ')}` : '';
  const early = h.seenBeforeCause ? '  (seen before its cause)' : '';
  return `${pad(`+${formatDuration(h.sinceTriggerMs)}`, 9)} ${pad(`(+${formatDuration(h.sincePreviousMs)})`, 10)} ${pad(`${h.object.kind}/${h.object.name}`, objectWidth)} ${hopTitle(h)}${early}${h.detail ? `  ${h.detail}` : ''}${server}${events}`;
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
      lines.push({ depth, label: `${n.ref.kind}/${n.ref.name}`, status: n.status, ready: n.ready, deleting: n.deleting, node: n.node, restarts: n.restarts, creationTimestamp: n.creationTimestamp });
    }
    for (const c of n.children) walk(c, depth + 1);
  };
  if (root) walk(root, 0);
  return { lines, hidden };
}

export function summaryLines(sum: TraceSummary): string[] {
  const out = [`${sum.target}: ${sum.outcome}${sum.message ? ` — ${sum.message}` : ''}`];
  if (sum.burst) {
    out.push(`burst: ${sum.burst.writes} writes → ${sum.burst.watchEvents} watch events → ${sum.burst.reconciles} reconciles of our workqueue${sum.burst.controllerQueueAdds !== undefined ? `; the controller's "${sum.burst.controllerQueue}" queue: ${sum.burst.controllerQueueAdds} adds` : ''}`);
  }
  if (sum.elapsedMs !== undefined) out.push(`time to ${sum.outcome === 'converged' ? 'converge' : 'end'}: ${formatDuration(sum.elapsedMs)}`);
  if (sum.slowestHop) out.push(`slowest hop: ${sum.slowestHop.object} ${sum.slowestHop.kind} (+${formatDuration(sum.slowestHop.sincePreviousMs)}${sum.slowestHop.previousId ? ` after ${sum.slowestHop.previousId.split('/')[0]}` : ' after the trigger'})`);
  return out;
}
