/**
 * The diagnosis as text: a verdict line, the evidence, the next commands, what could not be seen.
 * Text for a terminal: every string from the cluster in it is escaped here (src/util/escape.ts);
 * the Diagnosis itself keeps them exact for -o json.
 */
import { formatDuration } from '../util/duration.js';
import { escapeTerminalDeep } from '../util/escape.js';
import { linkTitles, type ControllerBehind, type ControllerQueue, type Diagnosis, type Evidence } from './types.js';

function objectLabel(e: Evidence): string {
  return `${e.object.kind}/${e.object.name}`;
}

/** One line of evidence: `Pod/web-1  PodScheduled=False Unschedulable: 0/2 nodes … (for 45s)`. */
export function evidenceLine(evidence: Evidence): string {
  const e = escapeTerminalDeep(evidence);
  let what: string;
  switch (e.source) {
    case 'condition':
      what = `${e.type}=${e.status}${e.reason ? ` ${e.reason}` : ''}`;
      break;
    case 'event':
      what = `Event ${e.reason}${e.count ? ` ×${e.count}` : ''}${e.reporter ? ` (${e.reporter})` : ''}`;
      break;
    case 'container':
      what = `${e.type} ${e.status}${e.reason ? ` ${e.reason}` : ''}`;
      break;
    case 'field':
      what = `${e.type ?? ''}${e.type ? ' ' : ''}${e.reason}`;
      break;
    case 'lease':
      what = `Lease ${e.reason}`;
      break;
    case 'queue':
      what = 'work queue';
      break;
  }
  const age = e.forMs !== undefined ? ` (for ${formatDuration(e.forMs)}${e.since ? `, since ${e.since}` : ''})` : '';
  return `${objectLabel(e)}  ${what}${e.message ? `: ${e.message}` : ''}${age}`;
}

export function diagnosisText(diagnosis: Diagnosis): string {
  const d = escapeTerminalDeep(diagnosis);
  const lines: string[] = [];
  const head = d.verdict === 'broken' && d.link ? `broken at "${d.link}" (${linkTitles[d.link]})` : d.verdict === 'unknown' ? 'could not tell' : 'healthy';
  lines.push(`diagnosis: ${head}`);
  lines.push(`  ${d.summary}`);
  if (d.evidence.length > 0) {
    lines.push('evidence:');
    for (const e of d.evidence) lines.push(`  ${evidenceLine(e)}`);
  }
  if (d.next.length > 0) {
    lines.push('next:');
    for (const n of d.next) lines.push(`  ${n}`);
  }
  if (d.unseen.length > 0) {
    lines.push('could not see:');
    for (const u of d.unseen) lines.push(`  ${u.what}: ${u.why}`);
  }
  lines.push(`links: ${d.links.map((l) => `${l.link} ${l.status === 'ok' ? 'ok' : l.status.toUpperCase()}`).join(' · ')}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The diagnosis on one line, for a check's failure message (JUnit, the GitHub summary):
 * `diagnosis: broken at "scheduled": …; evidence: …; next: kubectl describe pod …`.
 */
export function diagnosisBrief(diagnosis: Diagnosis, maxEvidence = 2): string {
  const d = escapeTerminalDeep(diagnosis);
  const head = d.verdict === 'broken' && d.link ? `broken at "${d.link}"` : d.verdict === 'unknown' ? 'could not tell' : 'healthy';
  const parts = [`diagnosis: ${head}: ${d.summary}`];
  if (d.evidence.length > 0)
    parts.push(
      `evidence: ${d.evidence.slice(0, maxEvidence).map(evidenceLine).join(' | ')}${d.evidence.length > maxEvidence ? ` (+${d.evidence.length - maxEvidence} more)` : ''}`,
    );
  if (d.next[0]) parts.push(`next: ${d.next[0]}`);
  if (d.unseen.length > 0) parts.push(`could not see: ${d.unseen.map((u) => `${u.what} (${u.why})`).join(', ')}`);
  return parts.join('; ');
}

/**
 * A controller's work queue during a window: `depth 0, 13 adds, 0 retries, reconciles 13 success,
 * work p99 12ms`, then the operator's own reconciles of the traced object: `, rollout_reconcile 9
 * (mean 4ms)`.
 */
export function queueActivity(q: ControllerQueue): string {
  const results = Object.entries(q.reconciles).map(([r, n]) => `${n} ${r}`);
  const work = q.workTime?.p99 != null ? `, work p99 ${formatDuration(q.workTime.p99 * 1000)}` : '';
  const own = q.objectReconciles.map((o) => `, ${o.metric} ${o.count}${o.meanSeconds !== null ? ` (mean ${formatDuration(o.meanSeconds * 1000)})` : ''}`);
  return `depth ${q.depth ?? '-'}, ${q.adds ?? '-'} adds, ${q.retries ?? '-'} retries${results.length ? `, reconciles ${results.join(', ')}` : ''}${work}${own.join('')}`;
}

/** Which replica's metrics a queue was read from, and why that one: `the leader's, http://…`; the other queues that matched. */
export function queueSource(q: ControllerQueue): string {
  const why = q.sourceIs === 'leader' ? "the leader's" : q.sourceIs === 'moved' ? 'the replica whose queue moved' : 'the only source';
  const found = q.foundBy.length ? `, found through ${q.foundBy.join(', ')}` : '';
  return `${why}, ${q.source}${found}${q.alsoMatched.length ? `; also named for the kind: ${q.alsoMatched.join(', ')}` : ''}`;
}

/**
 * The controller behind a custom resource on one line: `controller: kuberay-operator · Lease
 * ray-try/ray-operator-leader held by vm_1, renewed 2s ago · queue raycluster: 13 adds, 0 retries,
 * reconciles 13 requeue_after in 23.5s (the leader's, http://…)`, then what could not be found.
 */
export function controllerBehindLine(behind: ControllerBehind, now: number): string {
  const b = escapeTerminalDeep(behind);
  const parts = [`controller: ${b.manager ?? 'unknown (no status write names one)'}`];
  if (b.lease) {
    const renewed = b.lease.renewTime ? ` renewed ${formatDuration(Math.max(0, now - Date.parse(b.lease.renewTime)))} ago` : '';
    parts.push(
      `Lease ${b.lease.namespace}/${b.lease.name} ${b.lease.holder ? `held by ${b.lease.holder},${renewed}` : 'held by nobody'}${b.lease.transitions ? ` (${b.lease.transitions} transitions)` : ''}`,
    );
  }
  if (b.queue)
    parts.push(
      `queue ${b.queue.queue}: ${queueActivity(b.queue)}${b.queue.windowMs !== null ? ` in ${formatDuration(b.queue.windowMs)}` : ''} (${queueSource(b.queue)})`,
    );
  return `${parts.join(' · ')}${b.unseen.length ? ` (not found: ${b.unseen.join('; ')})` : ''}`;
}
