/**
 * A set of objects applied and traced at once, as every output shows it: one entry per object in
 * apply order, and the set's figures. Pure functions over the set's members and their traces.
 */
import type { Diagnosis } from '../diagnose/index.js';
import { memberLabel, type MemberState, memberStatus, type SetMember, type TraceSnapshot } from '../trace/index.js';
import { formatDuration } from '../util/duration.js';
import { criticalPath, cutEnd } from './waterfall-view.js';

export interface SetObjectView {
  apiVersion: string;
  kind: string;
  namespace?: string | undefined;
  name: string;
  /** `deployment.apps/web` */
  object: string;
  /** The file and document it came from. */
  source: string;
  /**
   * What the apply did: created, configured, unchanged; refused by the server; not applied (a later
   * step, after a stop). With --watch: changed (by someone else), or unchanged.
   */
  apply: 'created' | 'configured' | 'unchanged' | 'changed' | 'refused' | 'not applied';
  state: MemberState;
  /** In the readiness engine's words (Current, InProgress, Failed, …); None for a kind without readiness. */
  status: string;
  /** The rule that decided, and what the status says. */
  rule?: string | undefined;
  detail?: string | undefined;
  /** From its write to its readiness. */
  readyMs?: number | undefined;
  /** Hops its trace saw (a workload's or a custom resource's). */
  hops?: number | undefined;
  message?: string | undefined;
  /** Where it is stuck, when it is not ready. */
  diagnosis?: Diagnosis | undefined;
}

export interface SetSummary {
  objects: number;
  ready: number;
  withoutReadiness: number;
  notReady: number;
  failed: number;
  refused: number;
  /** Stopped (an interrupt, --fail-fast) or never applied. */
  stopped: number;
  /** ready: every object is ready or has no readiness; failed: one failed or was refused; timeout; interrupted. */
  outcome: 'ready' | 'failed' | 'timeout' | 'interrupted';
  /** From the first write to the last object ready, when all are. */
  allReadyMs?: number | undefined;
  /** The object that took longest to be ready, and the critical path of its chain. */
  slowest?: { object: string; readyMs: number; criticalPath: string[] } | undefined;
  /** Each object not ready, with why (its diagnosis is in its entry). */
  notReadyObjects: { object: string; status: string; message?: string | undefined }[];
  /** The informers the set ran, shared by its traces: one per kind and namespace. */
  informers?: number | undefined;
}

export interface SetReport {
  summary: SetSummary;
  objects: SetObjectView[];
}

const readyMsOf = (m: SetMember): number | undefined =>
  m.readyAt !== undefined && m.appliedAt !== undefined ? Math.max(0, m.readyAt - m.appliedAt) : undefined;

export function setObjectView(m: SetMember, snap: TraceSnapshot | undefined, diagnosis: Diagnosis | undefined): SetObjectView {
  const apply =
    m.state === 'refused' ? 'refused' : m.state === 'pending' || (m.state === 'stopped' && !m.applied) ? 'not applied' : (m.applied ?? 'not applied');
  return {
    apiVersion: m.apiVersion,
    kind: m.kind,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    name: m.name,
    object: memberLabel(m),
    source: m.source,
    apply,
    state: m.state,
    status: memberStatus(m),
    ...(m.verdict ? { rule: m.verdict.rule, detail: m.verdict.detail } : {}),
    ...(readyMsOf(m) !== undefined ? { readyMs: readyMsOf(m) } : {}),
    ...(snap ? { hops: snap.hops.length } : {}),
    ...(m.message ? { message: m.message } : {}),
    ...(diagnosis ? { diagnosis } : {}),
  };
}

/** The set's figures, from its members in apply order and the traces of those traced. */
export function summariseSet(
  members: readonly SetMember[],
  snaps: ReadonlyMap<SetMember, TraceSnapshot>,
  firstWriteAt: number | undefined,
  interrupted: boolean,
): SetSummary {
  const count = (...states: MemberState[]): number => members.filter((m) => states.includes(m.state)).length;
  const ready = count('ready');
  const withoutReadiness = count('no-readiness');
  const failed = count('failed');
  const refused = count('refused');
  const notReady = count('not-ready', 'applied');
  const stopped = count('stopped', 'pending');
  // An empty set is a watch whose selector found nothing and saw nothing created: nothing became ready.
  const outcome = failed + refused > 0 ? 'failed' : interrupted || stopped > 0 ? 'interrupted' : notReady > 0 || members.length === 0 ? 'timeout' : 'ready';
  let slowest: SetMember | undefined;
  for (const m of members) if ((readyMsOf(m) ?? 0) > (slowest ? readyMsOf(slowest)! : 0)) slowest = m;
  // Over the objects written or changed: one a watch found unchanged was ready before it began.
  const lastReady = Math.max(...members.map((m) => (m.appliedAt !== undefined ? (m.readyAt ?? -Infinity) : -Infinity)));
  const snap = slowest ? snaps.get(slowest) : undefined;
  return {
    objects: members.length,
    ready,
    withoutReadiness,
    notReady,
    failed,
    refused,
    stopped,
    outcome,
    ...(outcome === 'ready' && firstWriteAt !== undefined && Number.isFinite(lastReady) ? { allReadyMs: Math.max(0, lastReady - firstWriteAt) } : {}),
    ...(slowest
      ? {
          slowest: {
            object: memberLabel(slowest),
            readyMs: readyMsOf(slowest)!,
            criticalPath: snap
              ? criticalPath(snap.hops, snap.outcome).map(
                  ({ hop, sincePreviousMs }) => `${hop.object.kind}/${hop.object.name} ${hop.kind} +${formatDuration(sincePreviousMs)}`,
                )
              : [],
          },
        }
      : {}),
    notReadyObjects: members
      .filter((m) => !['ready', 'no-readiness'].includes(m.state))
      .map((m) => ({ object: memberLabel(m), status: memberStatus(m), ...(m.message ? { message: m.message } : {}) })),
  };
}

/** The summary in lines, as the text output and the TUI's footer say it. */
export function setSummaryLines(s: SetSummary): string[] {
  const parts = [
    `${s.ready} ready`,
    s.withoutReadiness ? `${s.withoutReadiness} without readiness` : '',
    s.notReady ? `${s.notReady} not ready` : '',
    s.failed ? `${s.failed} failed` : '',
    s.refused ? `${s.refused} refused` : '',
    s.stopped ? `${s.stopped} stopped` : '',
  ].filter(Boolean);
  if (s.objects === 0) return ['0 objects: none was found, and none was created before the timeout'];
  const lines = [
    `${s.objects} object${s.objects === 1 ? '' : 's'}: ${parts.join(', ')}${s.allReadyMs !== undefined ? `; all ready in ${formatDuration(s.allReadyMs)}` : ''}`,
  ];
  if (s.slowest) {
    lines.push(
      `slowest: ${s.slowest.object} ready in ${formatDuration(s.slowest.readyMs)}${s.slowest.criticalPath.length ? ` (critical path: ${s.slowest.criticalPath.join(' → ')})` : ''}`,
    );
  }
  for (const n of s.notReadyObjects) lines.push(`not ready: ${n.object} ${n.status}${n.message ? `: ${n.message}` : ''}`);
  return lines;
}

/** The order of the TUI's list: as applied, or the slowest first (ready or not, the longest since its write). */
export type SetOrder = 'apply' | 'slowest';

/** One line of the TUI's list of objects (a Row of the TUI's frame). */
export interface SetRow {
  key: string;
  text: string;
  color?: string | undefined;
  dim?: boolean | undefined;
}

const STATE_WORD: Record<MemberState, { word: string; color?: string; dim?: boolean }> = {
  pending: { word: 'pending', dim: true },
  applied: { word: 'waiting', color: 'cyan' },
  ready: { word: 'ready', color: 'green' },
  'no-readiness': { word: 'applied', dim: true },
  failed: { word: 'FAILED', color: 'red' },
  'not-ready': { word: 'NOT READY', color: 'yellow' },
  refused: { word: 'REFUSED', color: 'red' },
  stopped: { word: 'stopped', color: 'yellow' },
};

/** How long an object took to be ready, or has waited so far. */
function waitedMs(m: SetMember, now: number): number | undefined {
  if (m.appliedAt === undefined || m.state === 'no-readiness' || m.state === 'refused') return undefined;
  const until = m.readyAt ?? m.settledAt ?? (m.state === 'applied' ? now : undefined);
  return until === undefined ? undefined : until - m.appliedAt;
}

/** `s` cut or padded to `n` columns. */
const cut = (s: string, n: number): string => cutEnd(s, n).padEnd(n);

/** The list's column heads, as wide as its rows. */
export function setHead(width: number): string {
  return cut(`${'STATUS'.padEnd(10)}${'OBJECT'.padEnd(objectWidth(width) + 1)}${'APPLY'.padEnd(11)}${'TIME'.padEnd(9)}RULE`, width);
}

const objectWidth = (width: number): number => Math.max(16, Math.min(48, Math.floor(width * 0.38)));

/** The TUI's list: a row per object, in apply order or the slowest first, filtered by `matches`. */
export function setRows(members: readonly SetMember[], now: number, order: SetOrder, width: number, matches: (fields: string[]) => boolean): SetRow[] {
  const shown = members.filter((m) => matches([memberLabel(m), m.namespace ?? '', m.state, m.verdict?.rule ?? '']));
  if (order === 'slowest') shown.sort((a, b) => (waitedMs(b, now) ?? -1) - (waitedMs(a, now) ?? -1) || a.index - b.index);
  const ow = objectWidth(width);
  return shown.map((m) => {
    const s = STATE_WORD[m.state];
    const waited = waitedMs(m, now);
    const time = waited === undefined ? '' : formatDuration(waited);
    const apply = m.state === 'refused' ? 'refused' : (m.applied ?? '');
    const rule = m.verdict ? `${m.verdict.rule}: ${m.verdict.detail}` : (m.message ?? '');
    return {
      key: String(m.index),
      text: cut(`${s.word.padEnd(10)}${cut(memberLabel(m), ow)} ${apply.padEnd(11)}${time.padEnd(9)}${rule}`, width),
      color: s.color,
      dim: s.dim,
    };
  });
}

/** The header's figures: `12 objects · 8 ready · 1 not ready · 3 waiting`. */
export function setCounts(members: readonly SetMember[]): string {
  const n = (state: MemberState): number => members.filter((m) => m.state === state).length;
  const parts = [
    `${members.length} objects`,
    `${n('ready')} ready`,
    n('no-readiness') ? `${n('no-readiness')} without readiness` : '',
    n('applied') ? `${n('applied')} waiting` : '',
    n('pending') ? `${n('pending')} pending` : '',
    n('not-ready') ? `${n('not-ready')} not ready` : '',
    n('failed') ? `${n('failed')} failed` : '',
    n('refused') ? `${n('refused')} refused` : '',
    n('stopped') ? `${n('stopped')} stopped` : '',
  ];
  return parts.filter(Boolean).join(' · ');
}

/** The detail of an object without a chain to open (a ConfigMap, a refused object). */
export function memberDetail(m: SetMember): string[] {
  return [
    `object:  ${memberLabel(m)}${m.namespace ? ` in ${m.namespace}` : ''}`,
    `from:    ${m.source}`,
    `apply:   ${m.state === 'refused' ? 'refused by the server' : (m.applied ?? 'not applied')}`,
    `status:  ${memberStatus(m)}${m.verdict ? ` (rule: ${m.verdict.rule}${m.verdict.source ? `, ${m.verdict.source}` : ''})` : ''}`,
    ...(m.verdict ? [`says:    ${m.verdict.detail}`] : []),
    ...(m.message ? [`why:     ${m.message}`] : []),
  ];
}
