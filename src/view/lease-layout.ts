/**
 * The lease-watch TUI's layout, as plain data: for the view, the changes seen, the screen state
 * and the terminal's size, every pane's rows and keys, their heights and windows, the lease
 * table's columns, and the detail or help text. The screen (src/tui/lease-watch-screen.tsx) draws
 * it; the keys move through it. Pure.
 *
 * Panes, top to bottom: the leader-election leases (a table), the holder changes seen so far, the
 * controllers' queues with --metrics, and the heartbeat leases (node and API server identity
 * leases, summarised, stale ones listed). Holder identities and Lease names are the cluster's:
 * table cells are escaped before they are fitted to their columns.
 */
import { shortDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { helpLines } from './key-help.js';
import {
  ageOf,
  candidatesCount,
  candidatesNote,
  changeSeverity,
  clockTime,
  describeChange,
  electionLines,
  heldCell,
  leaseKey,
  masterCell,
  renewCell,
  strategyCell,
  type HeartbeatSummary,
  type LeaderLeaseRow,
  type LeaseChange,
  type LeaseWatchView,
  type Severity,
  type TenureRow,
} from './lease-view.js';
import { queuesRows, type QueuesRow } from './queues-rows.js';
import type { QueuesView } from './queues-view.js';
import { fit, textRows, wrapRows, type FrameText } from './rows.js';
import { allocateRows, matchesFilter, navOf, resolveNav, type ListWindow, type ScreenState } from './screen-state.js';

const COLOR: Record<Severity, string | undefined> = { ok: 'green', warn: 'yellow', bad: 'red', idle: undefined };

export type LeasePane = 'leases' | 'changes' | 'queues' | 'heartbeats';

export interface LeaseLayoutInput {
  view: LeaseWatchView;
  /** Changes seen so far, oldest first. */
  changes: readonly LeaseChange[];
  state: ScreenState<LeasePane>;
  width: number;
  height: number;
  /** The controllers' queues from the --metrics sources; the pane says why a source failed. */
  queues?: QueuesView | undefined;
}

export interface LeaseLayout {
  panes: LeasePane[];
  rows: Record<LeasePane, QueuesRow[]>;
  windows: Record<LeasePane, ListWindow>;
  heights: Record<LeasePane, number>;
  /** Rows of each pane's list (its height less its title, and for leases the column header). */
  listHeights: Record<LeasePane, number>;
  columns: LeaseColumn[];
  body: number;
  text: FrameText | undefined;
}

/** Everything the screen draws and the keys need, for `width` × `height`. Pure. */
export function leaseLayout(p: Omit<LeaseLayoutInput, 'height'> & { height: number }): LeaseLayout {
  const { view, changes, state, width, height, queues } = p;
  const now = Date.parse(view.at);
  const f = state.filter;
  const columns = layoutLeaseColumns(view, width);
  const leases: QueuesRow[] = view.leases
    .filter((l) => matchesFilter(f, [leaseKey(l.namespace, l.name), l.holder ?? '<none>', l.state]))
    .map((l) => ({
      key: leaseKey(l.namespace, l.name),
      text: columns
        .map((c) => fit(escapeTerminal(cellText(l, c.key, now)), c.width, c.key === 'holder' || c.key === 'lease' ? 'middle' : 'end'))
        .join(' ')
        .trimEnd(),
      color: COLOR[l.severity],
      dim: l.severity === 'idle',
    }));
  const log: QueuesRow[] = changes
    .filter((c) => matchesFilter(f, [leaseKey(c.namespace, c.name), c.holder ?? '', c.previousHolder ?? '', c.type]))
    .map((c) => ({ key: String(c.seq), text: changeLine(c, width), color: COLOR[changeSeverity(c)] }));
  const heartbeats: QueuesRow[] = [
    ...heartbeatRows('node leases', view.nodes, view.scope.namespace === 'kube-node-lease' || view.scope.name !== null, f),
    ...heartbeatRows('apiserver identity leases', view.apiservers, view.scope.name !== null, f),
    ...(queues ? [] : view.metricsErrors.map((m) => ({ key: `metrics/${m.source}`, text: `metrics ${m.source}: ${m.error}`, color: 'yellow' }))),
    ...[candidatesNote(view.candidates)].filter((n): n is string => n !== null).map((text) => ({ key: 'candidates', text, color: 'yellow' })),
  ];
  const queueRows = queues ? queuesRows(queues, width, { filter: f }) : [];
  const panes: LeasePane[] = ['leases', 'changes', ...(queues ? (['queues'] as const) : []), 'heartbeats'];
  const rows: Record<LeasePane, QueuesRow[]> = { leases, changes: log, queues: queueRows, heartbeats };
  const body = Math.max(0, height - 2);
  const extra: Record<LeasePane, number> = { leases: 2, changes: 1, queues: 1, heartbeats: 1 };
  const heights = allocateRows(
    body,
    panes.map((k) => ({ key: k, want: rows[k].length + extra[k], min: k === 'leases' ? 5 : k === 'changes' ? 4 : 3, fill: k === 'changes' })),
    state.pane,
  );
  for (const k of ['leases', 'changes', 'queues', 'heartbeats'] as const) heights[k] ??= 0;
  const listHeights = Object.fromEntries((Object.keys(heights) as LeasePane[]).map((k) => [k, Math.max(0, heights[k] - extra[k])])) as Record<
    LeasePane,
    number
  >;
  const windows = Object.fromEntries(
    (Object.keys(heights) as LeasePane[]).map((k) => [
      k,
      resolveNav(
        navOf(state, k),
        rows[k].map((r) => r.key),
        Math.max(1, listHeights[k]),
      ),
    ]),
  ) as Record<LeasePane, ListWindow>;

  let text: LeaseLayout['text'];
  if (state.help) {
    text = { title: 'Keys', lines: textRows([...helpLines([]), '', ...LEGEND]) };
  } else if (state.detail !== undefined) {
    let key = state.detail;
    if (state.detailPane === 'changes') {
      const c = changes.find((x) => String(x.seq) === state.detail);
      key = c ? leaseKey(c.namespace, c.name) : key;
    }
    const lease = view.leases.find((l) => leaseKey(l.namespace, l.name) === key);
    const lines =
      state.detailPane === 'queues'
        ? (queueRows.find((r) => r.key === state.detail)?.detail?.() ?? ['no longer shown'])
        : lease
          ? leaseDetailLines(lease, now)
          : [`${key}: not a leader-election lease (or gone)`];
    if (state.detailPane === 'changes') {
      const c = changes.find((x) => String(x.seq) === state.detail);
      if (c) lines.unshift(`${clockTime(c.at)} ${describeChange(c)}`, '');
    }
    text = { title: state.detailPane === 'queues' ? 'Queue' : 'Lease', lines: textRows(lines) };
  }
  return { panes, rows, windows, heights, listHeights, columns, body, text: text && { ...text, lines: wrapRows(text.lines, width) } };
}

function cellText(l: LeaderLeaseRow, key: LeaseColumn['key'], now: number): string {
  switch (key) {
    case 'lease':
      return leaseKey(l.namespace, l.name);
    case 'holder':
      return l.holder ?? '<none>';
    case 'state':
      return l.state;
    case 'renewed':
      return renewCell(l);
    case 'acquired':
      return l.acquireTime ? ageOf(l.acquireTime, now) : '-';
    case 'transitions':
      return String(l.transitions);
    case 'held':
      return heldCell(l);
    case 'strategy':
      return strategyCell(l);
    case 'master':
      return masterCell(l.masterStatus);
    case 'candidates':
      return candidatesCount(l);
  }
}

/** A lease in full: every field of its row, then each holder it had while we watched. */
export function leaseDetailLines(l: LeaderLeaseRow, now: number): string[] {
  const out = [
    leaseKey(l.namespace, l.name),
    `holder       ${l.holder ?? '<none>'}`,
    `state        ${l.state} · renewed ${shortDuration(l.renewAgeMs)} ago (our clock) of ${l.leaseDurationSeconds}s${l.renewTimeAgeMs !== null ? ` · renewTime ${shortDuration(l.renewTimeAgeMs)} ago (its clock)` : ''}`,
    `acquired     ${l.acquireTime ?? '-'}${l.acquireTime ? ` (${ageOf(l.acquireTime, now)} ago)` : ''}`,
    `transitions  ${l.transitions}`,
    `held         ${heldCell(l)}`,
  ];
  if (l.strategy || l.preferredHolder) out.push(`strategy     ${strategyCell(l)}`);
  if (l.masterStatus !== null) out.push(`master       ${masterCell(l.masterStatus)}`);
  // Why it holds first (one line or two); the candidates, the longest part, last.
  const election = electionLines(l);
  const list = election.findIndex((x) => x.startsWith('candidates ('));
  const why = list < 0 ? election : election.slice(0, list);
  if (why.length > 0) out.push(...why);
  out.push('', `Holders while we watched (${l.history.length})`);
  for (const h of [...l.history].reverse()) out.push(`  ${tenureText(h, now)}`);
  if (list >= 0) out.push('', ...election.slice(list));
  return out;
}

function tenureText(h: TenureRow, now: number): string {
  const ended = h.endedAt !== null;
  const held = `${h.heldAtStart ? '≥' : ''}${shortDuration(h.heldForMs)}`;
  const parts = [ended ? `held ${held}, ${h.endReason ?? 'ended'} ${shortDuration(now - Date.parse(h.endedAt!))} ago` : `holding ${held}`];
  if (h.previousHolder !== null && h.failoverGapMs !== null) {
    const after = h.previousEndReason === 'released' ? ', after a release' : '';
    parts.push(`gap ${shortDuration(h.failoverGapMs)}${after}${h.sinceLastRenewMs !== null ? ` (${shortDuration(h.sinceLastRenewMs)} since last renew)` : ''}`);
  }
  return `${ended ? '·' : '▸'} ${parts.join(' · ')} · ${h.holder}`;
}

/**
 * A change on one line. Holder identities ("host_<uuid>") are long; when the line would be cut they
 * are shortened in the middle, so that what happened (acquired after …, gap …) stays on screen.
 * Enter shows the change in full.
 */
function changeLine(c: LeaseChange, width: number): string {
  const full = `${clockTime(c.at)} ${describeChange(c)}`;
  if (full.length <= width) return full;
  let out = full;
  for (const id of [c.holder, c.previousHolder]) if (id && id.length > 21) out = out.split(id).join(fit(id, 21, 'middle'));
  return out;
}

function heartbeatRows(title: string, summary: HeartbeatSummary, listAll: boolean, filter: string): QueuesRow[] {
  if (summary.total === 0) return [];
  const rows = (listAll ? summary.leases : summary.leases.filter((r) => r.stale)).filter((r) => matchesFilter(filter, [r.name, r.namespace]));
  return [
    {
      key: title,
      text: `${title}: ${summary.total}, ${summary.staleCount ? `${summary.staleCount} stale` : 'none stale'}`,
      color: summary.staleCount ? 'red' : 'green',
    },
    ...rows.map((r) => ({
      key: `${title}/${leaseKey(r.namespace, r.name)}`,
      text: `  ${r.name} ${r.stale ? 'stale' : 'fresh'}: renewed ${shortDuration(r.renewAgeMs)} ago (renewTime ${shortDuration(r.renewTimeAgeMs)} ago), duration ${r.leaseDurationSeconds}s`,
      color: r.stale ? 'red' : undefined,
    })),
  ];
}

const LEGEND = [
  'RENEWED: time since the record last changed (our clock) / lease duration.',
  'green valid · amber renew older than half the duration · red expired (no renew within the duration)',
  'gap: time with no valid leader before a holder (from the previous holder\u2019s expiry or release).',
  'since last renew: from the previous holder\u2019s last renew we saw to the new holder (about lease duration + retry after a crash).',
  'HELD ~: from the holder\u2019s acquireTime (its clock), for a holder that held the lease before we started; ≥: at least.',
  'CAND: LeaseCandidates (coordinated leader election) that answer the election controller / all registered; Enter lists them.',
];

/**
 * Column widths for the lease table: fixed columns keep their width (a narrow terminal drops two of
 * them); the lease column keeps its whole name when it can (up to 48), and the holder (identities
 * such as "host_<uuid>" are long) gets the rest, truncated in the middle when it must be.
 */
export interface LeaseColumn {
  key: 'lease' | 'holder' | 'state' | 'renewed' | 'acquired' | 'transitions' | 'held' | 'strategy' | 'candidates' | 'master';
  title: string;
  width: number;
}

const GAP = 1;

export function layoutLeaseColumns(view: Pick<LeaseWatchView, 'leases'>, width: number): LeaseColumn[] {
  // Below 100 columns ACQUIRED and HELD give way, so that lease names stay whole (Enter shows them).
  const narrow = width < 100;
  const fixed: LeaseColumn[] = [
    { key: 'state', title: 'STATE', width: 8 },
    { key: 'renewed', title: 'RENEWED', width: 9 },
    ...(narrow ? [] : [{ key: 'acquired', title: 'ACQUIRED', width: 8 } as const]),
    { key: 'transitions', title: 'TRANS', width: 5 },
    ...(narrow ? [] : [{ key: 'held', title: 'HELD', width: 7 } as const]),
  ];
  if (view.leases.some((l) => l.masterStatus !== null)) fixed.push({ key: 'master', title: 'MASTER', width: 14 });
  const longestLease = Math.max(5, ...view.leases.map((l) => l.namespace.length + 1 + l.name.length));
  const longestHolder = Math.max(6, ...view.leases.map((l) => (l.holder ?? '<none>').length));
  // Coordinated leader election's columns only where they leave the lease its whole name (up to
  // 48) and the holder 16 columns: the detail (Enter) has them in full either way.
  const optional: LeaseColumn[] = [
    ...(view.leases.some((l) => (l.candidates?.length ?? 0) > 0) ? [{ key: 'candidates', title: 'CAND', width: 5 } as const] : []),
    ...(view.leases.some((l) => l.strategy || l.preferredHolder) ? [{ key: 'strategy', title: 'STRATEGY', width: 22 } as const] : []),
  ];
  for (const c of optional) {
    const used = fixed.reduce((n, x) => n + x.width + GAP, 0) + c.width + GAP;
    if (width - used - 2 * GAP >= Math.min(longestLease, 48) + Math.min(longestHolder, 16))
      fixed.splice(fixed.length - (fixed.at(-1)?.key === 'master' ? 1 : 0), 0, c);
  }
  const fixedWidth = fixed.reduce((n, c) => n + c.width + GAP, 0);
  const rest = Math.max(28, width - fixedWidth - 2 * GAP);
  // The lease names the row, so it keeps its whole name when it can; the holder takes the rest.
  const lease = Math.min(longestLease, rest - Math.min(longestHolder, 16), 48);
  const holder = Math.min(longestHolder, rest - lease);
  return [{ key: 'lease', title: 'LEASE', width: Math.max(5, lease) }, { key: 'holder', title: 'HOLDER', width: Math.max(6, holder) }, ...fixed];
}
