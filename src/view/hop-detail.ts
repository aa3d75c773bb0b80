/**
 * What the trace TUI shows when a hop is opened: when our informer received it (and how long after
 * the hop it follows), the server's own time and the field it was read from, the Events that
 * explain it, the owner chain up to the target, and what the object version that made the hop
 * changed. Pure: lines of text from a hop and the snapshot it belongs to.
 */
import { controllerBehindLine, type ControllerBehind } from '../diagnose/index.js';
import type { Hop, ObjectRef, TraceSnapshot, TreeNode } from '../trace/index.js';
import { formatDuration } from '../util/duration.js';
import { eventText, hopTitle } from './trace-view.js';

export interface DetailLine {
  text: string;
  /** A label line (bold). */
  heading?: boolean;
}

const name = (r: ObjectRef): string => `${r.kind}/${r.name}`;
const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 23);

/** The object's owners, nearest first, up to the target: from the live tree, else from the hops. */
export function ownerChain(hop: Hop, snapshot: Pick<TraceSnapshot, 'tree' | 'hops'>): ObjectRef[] {
  const path = snapshot.tree ? pathTo(snapshot.tree, hop.object.uid) : undefined;
  if (path && path.length > 1) return path.slice(0, -1).reverse();
  const chain: ObjectRef[] = [];
  let owner = hop.owner;
  const seen = new Set<string>([hop.object.uid]);
  while (owner && !seen.has(owner.uid)) {
    seen.add(owner.uid);
    chain.push(owner);
    const uid = owner.uid;
    owner = snapshot.hops.find((h) => h.object.uid === uid && h.owner)?.owner;
  }
  return chain;
}

function pathTo(node: TreeNode, uid: string): ObjectRef[] | undefined {
  if (node.ref.uid === uid) return [node.ref];
  for (const c of node.children) {
    const p = pathTo(c, uid);
    if (p) return [node.ref, ...p];
  }
  return undefined;
}

/**
 * `controller`: the operator behind a custom resource, when known; shown under a hop its field
 * manager wrote (its Lease and queue, as read when the detail was opened).
 */
export function hopDetailLines(hop: Hop, snapshot: Pick<TraceSnapshot, 'tree' | 'hops'>, controller?: { behind: ControllerBehind; at: number }): DetailLine[] {
  const out: DetailLine[] = [];
  const prev = hop.previousId ? snapshot.hops.find((h) => h.id === hop.previousId) : undefined;
  out.push({ text: `${name(hop.object)} ${hopTitle(hop)}${hop.detail ? `  ${hop.detail}` : ''}`, heading: true });
  out.push({ text: `received    +${formatDuration(hop.sinceTriggerMs)} after the trigger, at ${clock(hop.observedAt)} (our clock)` });
  out.push({ text: `            +${formatDuration(hop.sincePreviousMs)} after ${prev ? `${name(prev.object)} ${hopTitle(prev)}` : 'the trigger'}` });
  if (hop.seenBeforeCause) out.push({ text: '            seen before its cause: our informers delivered it ahead of the change that made it' });
  out.push({ text: `reconciled  +${formatDuration(Math.max(0, hop.reconciledAt - hop.observedAt))} later, from our cache` });
  out.push({
    text: hop.serverTime
      ? `server      ${hop.serverTime} from ${hop.serverTimeSource ?? 'the object'} (1s precision)`
      : 'server      no server time for this hop',
  });
  if (hop.writer) out.push({ text: `written by  ${hop.writer} (the newest managedFields write of this version)` });
  const behind = controller?.behind;
  if (behind?.manager && hop.writer?.split(' ')[0] === behind.manager)
    out.push({ text: `            ${controllerBehindLine(behind, controller!.at).replace(/^controller: /, '')}` });
  const owners = ownerChain(hop, snapshot);
  out.push({ text: `owners      ${owners.length ? [name(hop.object), ...owners.map(name)].join(' ← ') : 'none (the target, or not known)'}` });
  out.push({ text: '' });
  out.push({ text: `Events (${hop.events.length})`, heading: true });
  if (hop.events.length === 0) out.push({ text: '  none explain this hop' });
  for (const e of hop.events) {
    const by = [e.reportingController, e.time?.replace(/^\d{4}-\d\d-\d\dT/, '')].filter(Boolean).join(', ');
    out.push({ text: `  ${eventText(e)}${by ? `  (${by})` : ''}` });
  }
  out.push({ text: '' });
  const changes = hop.changes ?? [];
  out.push({ text: `Changed in the version that made the hop (${changes.length ? changes.length : 'first version seen'})`, heading: true });
  for (const c of changes) {
    out.push({ text: `  ${c.path}: ${c.from === undefined ? '(added) ' : `${c.from} → `}${c.to === undefined ? '(removed)' : c.to}` });
  }
  return out;
}
