/**
 * The controllers' work queues as one-line rows (a pane of the lease-watch and trace TUIs, the whole
 * screen of `queues -o tui`): per source a summary line (or its error, wrapped over as many lines
 * as it takes: a failure is never cut short), then its busiest queues first: deepest, then most
 * adds per second, then its controllers. Absent numbers are "-". A screen gives the rows an exact
 * budget and scrolls through them. Source and queue names are the cluster's: the queue cell is
 * escaped before it is fitted to its column, a failed source's line before it is wrapped.
 */
import type { QueueRow } from '../metrics/index.js';
import { escapeTerminal } from '../util/escape.js';
import {
  CONTROLLER_COLUMNS,
  controllerCells,
  QUEUE_COLUMNS,
  queueCells,
  queueLabel,
  rateCell,
  sourceSummary,
  type QueuesSourceView,
  type QueuesView,
} from './queues-view.js';
import { fit, wrap, type Row } from './rows.js';
import { matchesFilter } from './screen-state.js';

const NUMBER_COLUMNS: { title: string; width: number }[] = [
  { title: 'DEPTH', width: 5 },
  { title: 'ADDS/S', width: 6 },
  { title: 'RETRY/S', width: 7 },
  { title: 'Q P50', width: 7 },
  { title: 'Q P99', width: 7 },
  { title: 'W P50', width: 7 },
  { title: 'W P99', width: 7 },
  { title: 'UNFIN', width: 7 },
  { title: 'LONGEST', width: 7 },
];
const INDENT = '  ';
const GAP = 1;

/** Busiest first: deepest, then most adds per second, then by name. */
export function busiestFirst(rows: readonly QueueRow[]): QueueRow[] {
  return [...rows].sort((a, b) => (b.depth ?? -1) - (a.depth ?? -1) || (b.addsPerSecond ?? -1) - (a.addsPerSecond ?? -1) || a.name.localeCompare(b.name));
}

/** A row of the pane, with what Enter shows about it. */
export interface QueuesRow extends Row {
  detail?: () => string[];
}

export interface QueuesRowsOptions {
  /** Queue rows per source; the rest are counted. */
  maxRows?: number;
  /** Keep only queues and controllers matching it (see matchesFilter). */
  filter?: string;
}

export function queuesRows(view: QueuesView, width: number, { maxRows = Infinity, filter = '' }: QueuesRowsOptions = {}): QueuesRow[] {
  const numbers = NUMBER_COLUMNS.reduce((n, c) => n + c.width + GAP, 0);
  const queueWidth = Math.max(12, width - numbers - INDENT.length - GAP);
  const out: QueuesRow[] = [];
  if (view.sources.length === 0) out.push({ key: 'none', text: 'no metrics sources', dim: true });
  for (const s of view.sources) sourceRows(s, queueWidth, width, maxRows, filter, out);
  return out;
}

function sourceRows(s: QueuesSourceView, queueWidth: number, width: number, maxRows: number, filter: string, out: QueuesRow[]): void {
  const failed = s.state === 'failed' || s.state === 'stale';
  const head = `${s.source} · ${failed ? `${s.state}: ${s.error ?? ''}` : sourceSummary(s)}`;
  const sourceDetail = (): string[] => [
    s.source,
    `state: ${s.state}`,
    ...(s.error ? [`error: ${s.error}`] : []),
    ...(failed ? [] : [sourceSummary(s)]),
    ...s.leaderElection.map((l) => `leader election ${l.name}: ${l.isLeader === null ? '-' : l.isLeader ? 'leader' : 'standby'}`),
  ];
  // Escaped before it is wrapped, so the wrapped lines are what is drawn.
  if (failed) {
    wrap(escapeTerminal(head), width).forEach((text, i) => {
      out.push({ key: `${s.source}#${i}`, text, color: 'yellow', detail: sourceDetail });
    });
  } else out.push({ key: s.source, text: head, detail: sourceDetail });
  const matching = busiestFirst(s.queues.filter((q) => matchesFilter(filter, [queueLabel(q), s.source])));
  const rows = matching.slice(0, maxRows);
  if (rows.length > 0) {
    out.push({ key: `${s.source}/header`, text: INDENT + cells(['QUEUE', ...NUMBER_COLUMNS.map((c) => c.title)], queueWidth), dim: true });
    for (const q of rows) {
      const c = queueCells(q);
      out.push({
        key: `${s.source}/q/${q.controller ?? ''}/${q.name}`,
        text: INDENT + cells(c, queueWidth),
        ...((q.depth ?? 0) > 0 ? { color: 'cyan' } : {}),
        detail: () => [`queue ${queueLabel(q)} of ${s.source}`, ...QUEUE_COLUMNS.slice(1).map((t, i) => `${t.padEnd(11)} ${c[i + 1]}`)],
      });
    }
    if (matching.length > rows.length) out.push({ key: `${s.source}/more`, text: `${INDENT}… ${matching.length - rows.length} more`, dim: true });
  }
  for (const ctl of s.controllers.filter((c) => matchesFilter(filter, [c.controller, s.source]))) {
    const [name, rate, errors, , p50, p99, workers] = controllerCells(ctl);
    // Results last, and only those that happened: what a cut line loses matters least.
    const results = Object.entries(ctl.resultsPerSecond)
      .filter(([, v]) => v !== null && v > 0)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k} ${rateCell(v)}`)
      .join(' ');
    const all = controllerCells(ctl);
    out.push({
      key: `${s.source}/c/${ctl.controller}`,
      text: `${INDENT}controller ${name}: ${rate} reconciles/s · errors ${errors}/s · p50 ${p50} p99 ${p99} · workers ${workers}${results ? ` · ${results}` : ''}`,
      detail: () => [`controller ${ctl.controller} of ${s.source}`, ...CONTROLLER_COLUMNS.slice(1).map((t, i) => `${t.padEnd(13)} ${all[i + 1]}`)],
    });
  }
}

function cells(c: readonly string[], queueWidth: number): string {
  const [queue, ...numbers] = c;
  return [fit(escapeTerminal(queue ?? ''), queueWidth, 'middle'), ...numbers.map((n, i) => fit(n, NUMBER_COLUMNS[i]!.width))].join(' '.repeat(GAP)).trimEnd();
}
