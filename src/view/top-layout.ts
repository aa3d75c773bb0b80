/**
 * The `top` TUI's layout, as plain data: one line per component (state, Lease holder, renew age,
 * transitions, last failover, replicas, depth and retries with their sparklines), its busy queues
 * under it (idle ones too with `showIdle`), the columns that fit the width, and the detail of a
 * line: the component's Lease history and replicas, or the selected queue's series and latencies
 * beside its component's Lease. The screen (src/tui/top-screen.tsx) draws it; the keys move
 * through it. Pure. Holder identities, queue names and errors are the cluster's: the cells are
 * escaped before they are fitted to their columns.
 */
import { formatDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { helpLines, type KeyHelp } from './key-help.js';
import { candidatesNote, describeChange, electionLines, type LeaseChange } from './lease-view.js';
import { queueLabel } from './queues-view.js';
import { fit, textRows, type FrameText, type Row } from './rows.js';
import { matchesFilter, navOf, resolveNav, type ListWindow, type ScreenState } from './screen-state.js';
import {
  COMPONENT_COLUMNS,
  componentCells,
  failoverCell,
  RECONCILE_COLUMNS,
  shownQueues,
  sparkline,
  TOP_QUEUE_COLUMNS,
  topQueueCells,
  type ComponentState,
  type TopComponent,
  type TopQueue,
  type TopView,
} from './top-view.js';

export type TopPane = 'components';

export const TOP_KEYS: readonly KeyHelp[] = [{ keys: 'a', what: 'show / hide idle queues' }];

export interface TopLayoutInput {
  view: TopView;
  /** The holder changes seen, for the detail. */
  changes: readonly LeaseChange[];
  state: ScreenState<TopPane>;
  showIdle: boolean;
  width: number;
  height: number;
}

export interface TopLayout {
  lines: Entry[];
  keys: string[];
  errors: string[];
  errorRows: number;
  body: number;
  listHeight: number;
  text: FrameText | undefined;
}

/** Everything the screen draws and the keys need, for `width` × `height`. Pure. */
export function topLayout({ view, changes, state, showIdle, height }: TopLayoutInput): TopLayout {
  const lines = linesOf(view, showIdle, state.filter);
  const candidates = candidatesNote(view.candidates);
  const errors = [
    ...(view.leaseError ? [`leases: ${view.leaseError}`] : []),
    ...view.discoveryErrors.map((e) => `discovery: ${e}`),
    ...(candidates ? [candidates] : []),
  ];
  const errorRows = Math.min(2, errors.length);
  // The header, the column row, the footer and the errors take their rows; the list the rest.
  const body = Math.max(2, height - 2 - errorRows);
  const opened = state.detail !== undefined ? lines.find((l) => l.key === state.detail) : undefined;
  const text = state.help ? helpLines(TOP_KEYS) : state.detail !== undefined ? (opened ? detailLines(opened, changes) : ['no longer shown']) : undefined;
  return {
    lines,
    keys: lines.map((l) => l.key),
    errors,
    errorRows,
    body,
    listHeight: Math.max(1, body - 3),
    text: text && { title: state.help ? 'Keys' : 'Detail', lines: textRows(text) },
  };
}

const STATE_COLOR: Record<ComponentState | TopQueue['state'], string | undefined> = {
  'no leader': 'red',
  unreachable: 'red',
  stuck: 'red',
  retrying: 'yellow',
  backlog: 'yellow',
  ok: 'green',
  idle: undefined,
};

export interface Entry {
  key: string;
  component: TopComponent;
  queue: TopQueue | null;
  cells: string[];
}

function linesOf(view: TopView, showIdle: boolean, filter: string): Entry[] {
  const out: Entry[] = [];
  for (const c of view.components) {
    const cLine: Entry = { key: c.key, component: c, queue: null, cells: componentCells(c).map((x) => escapeTerminal(x)) };
    const qs = shownQueues(c, showIdle).map(
      (q): Entry => ({ key: `${c.key}\n${queueLabel(q)}`, component: c, queue: q, cells: topQueueCells(q).map((x) => escapeTerminal(x)) }),
    );
    const keptQueues = qs.filter((l) => matchesFilter(filter, [c.name, queueLabel(l.queue!), l.queue!.state]));
    if (keptQueues.length > 0 || matchesFilter(filter, [c.name, c.state, c.lease?.holder ?? undefined])) {
      out.push(cLine);
      out.push(...(matchesFilter(filter, [c.name, c.state]) ? qs : keptQueues));
    }
  }
  return out;
}

interface Columns {
  /** Indexes of the columns shown, in order. */
  shown: number[];
  widths: number[];
  squeeze: number;
}

/**
 * Which columns fit `width`, and how wide: each as wide as its widest cell; the least needed ones
 * (`dropFirst`, in order) are left out until the rest fit with the `squeeze` column (the holder
 * identity or the queue name, cut in the middle) at `minSqueeze` or more.
 */
function columns(
  head: readonly string[],
  rows: readonly string[][],
  width: number,
  squeeze: number,
  minSqueeze: number,
  dropFirst: readonly number[],
  omit: readonly number[] = [],
): Columns {
  const natural = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const shown = head.map((_, i) => i).filter((i) => !omit.includes(i));
  const total = (): number => shown.reduce((s, i) => s + (i === squeeze ? Math.min(natural[i]!, minSqueeze) : natural[i]!) + 2, -2);
  for (const d of dropFirst) {
    if (total() <= width) break;
    if (shown.includes(d)) shown.splice(shown.indexOf(d), 1);
  }
  const widths = [...natural];
  const others = shown.reduce((s, i) => (i === squeeze ? s : s + natural[i]! + 2), 0);
  widths[squeeze] = Math.max(Math.min(natural[squeeze]!, minSqueeze), Math.min(natural[squeeze]!, width - others));
  return { shown, widths, squeeze };
}

function row(cells: readonly string[], c: Columns, width: number): string {
  return c.shown
    .map((i) => fit(cells[i] ?? '', c.widths[i]!, i === c.squeeze ? 'middle' : 'end'))
    .join('  ')
    .trimEnd()
    .slice(0, width);
}

/** The column titles of a table, as its columns are shown. */
function columnHeads(key: string, titles: readonly string[], c: Columns, width: number): Row {
  return {
    key,
    text: row(
      titles.map((t) => t.toUpperCase()),
      c,
      width,
    ),
    dim: true,
  };
}

function detailLines(line: Entry, changes: readonly LeaseChange[]): string[] {
  const c = line.component;
  const out: string[] = [];
  if (line.queue) {
    const q = line.queue;
    out.push(`queue ${queueLabel(q)} of ${c.name}: ${q.state}`);
    out.push(`  depth       ${q.depth ?? '-'}     ${sparkline(q.depthSeries, 60)}`);
    out.push(`  retries/s   ${q.retriesPerSecond === null ? '-' : q.retriesPerSecond.toFixed(2)}  ${sparkline(q.retrySeries, 60)}`);
    out.push(
      `  adds/s ${q.addsPerSecond === null ? '-' : q.addsPerSecond.toFixed(2)} · queue p50/p99 ${secs(q.queueTime.p50)}/${secs(q.queueTime.p99)} · work p50/p99 ${secs(q.workTime.p50)}/${secs(q.workTime.p99)}`,
    );
    out.push(
      `  unfinished ${secs(q.unfinishedWorkSeconds)} · longest running ${secs(q.longestRunningProcessorSeconds)} · adds total ${q.addsTotal ?? '-'} · retries total ${q.retriesTotal ?? '-'}`,
    );
    out.push('');
  }
  out.push(`${c.name}: ${c.state}`);
  for (const r of c.reasons) out.push(`  ${r}`);
  if (c.note) out.push(`  ${c.note}`);
  out.push(`  depth     ${sparkline(c.depthSeries, 60)}`);
  out.push(`  retries/s ${sparkline(c.retrySeries, 60)}`);
  for (const ctl of c.controllers) {
    out.push(
      `  controller ${ctl.controller}: ${rate(ctl.reconcilesPerSecond)} reconciles/s, ${rate(ctl.errorsPerSecond)} errors/s, workers ${ctl.activeWorkers ?? '-'}/${ctl.maxConcurrentReconciles ?? '-'}`,
    );
  }
  out.push('');
  if (c.lease) {
    const l = c.lease;
    out.push(
      `Lease ${l.namespace}/${l.name}: ${l.holder ?? '<none>'} · ${l.state} · renewed ${formatDuration(l.renewAgeMs)} ago of ${l.leaseDurationSeconds}s · ${l.transitions} transitions · last failover ${failoverCell(l)}`,
    );
    for (const e of electionLines(l)) out.push(`  ${e}`);
    for (const h of l.history) {
      out.push(
        `  ${h.firstSeenAt.slice(11, 19)} ${h.holder}${h.previousHolder ? ` after ${h.previousHolder}${h.previousEndReason === 'released' ? ' (released)' : ''}` : ''}${h.failoverGapMs !== null ? `, gap ${formatDuration(h.failoverGapMs)}` : ''}${h.endedAt ? ` → ${h.endReason} ${h.endedAt.slice(11, 19)}` : ' (holds it)'}${h.heldAtStart ? ' (held when we started)' : ''}`,
      );
    }
    for (const ch of changes.filter((x) => x.namespace === l.namespace && x.name === l.name)) out.push(`  ${ch.at.slice(11, 19)} ${describeChange(ch)}`);
  } else out.push('no leader Lease (runs without leader election, or none was matched)');
  out.push('');
  out.push('replicas:');
  for (const r of c.replicas) {
    out.push(`  ${r.source}: ${r.role ?? 'role unknown'}${r.roleBecause ? ` (${r.roleBecause})` : ''}, ${r.state}${r.error ? ` — ${r.error}` : ''}`);
    for (const f of r.foundBy) out.push(`    found: ${f}`);
  }
  return out;
}

function secs(v: number | null): string {
  return v === null ? '-' : formatDuration(v * 1000);
}

function rate(v: number | null): string {
  return v === null ? '-' : v.toFixed(2);
}

/** What the top screen draws beside its layout: the header, the column heads of both tables and a row per line. */
export interface TopRows {
  header: string;
  componentHead: Row;
  queueHead: Row;
  rows: Row[];
  window: ListWindow;
}

/** The rows of `layout` (topLayout of the same input) in `width` columns, the less needed columns dropped when narrow. */
export function topRows({ view, state }: TopLayoutInput, { lines, keys, listHeight }: TopLayout, width: number): TopRows {
  const bad = view.components.filter((c) => c.state !== 'ok').length;
  const header = `top · ${view.at.slice(11, 19)} UTC · ${view.components.length} component${view.components.length === 1 ? '' : 's'}${bad ? `, ${bad} not ok` : ''}${view.intervalMs ? ` · every ${formatDuration(view.intervalMs)}` : ''}`;
  // Dropped first when narrow: sparklines, then the less needed numbers.
  const cw = columns(
    COMPONENT_COLUMNS,
    lines.filter((l) => !l.queue).map((l) => l.cells),
    width,
    2,
    24,
    [11, 10, 6, 8, 5],
  );
  const queueLines = lines.filter((l) => l.queue);
  // controller-runtime's columns only when a queue has them.
  const reconcile = queueLines.some((l) => l.queue!.reconcile !== null) ? [] : [...RECONCILE_COLUMNS];
  const qw = columns(
    TOP_QUEUE_COLUMNS,
    queueLines.map((l) => l.cells),
    width,
    0,
    34,
    [10, 9, 7, 6, 8, 13, 5],
    reconcile,
  );
  const rows: Row[] = lines.map((l) => {
    const s = l.queue ? l.queue.state : l.component.state;
    return { key: l.key, text: row(l.cells, l.queue ? qw : cw, width), bold: !l.queue, color: STATE_COLOR[s], dim: s === 'idle' };
  });
  return {
    header,
    componentHead: columnHeads('head', COMPONENT_COLUMNS, cw, width),
    queueHead: columnHeads('qhead', TOP_QUEUE_COLUMNS, qw, width),
    rows,
    window: resolveNav(navOf(state, 'components'), keys, listHeight),
  };
}
