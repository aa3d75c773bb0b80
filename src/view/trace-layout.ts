/**
 * The trace TUI's layout, as plain data: for a snapshot, the screen state and the terminal's size,
 * every pane's rows and keys, their heights and windows, and the detail or help text. The screen
 * (src/tui/trace-screen.tsx) draws it; the keys move through it. Pure.
 *
 * Panes, top to bottom: the tree (the target and what it owns, live), the main pane (the timeline
 * of hops, or with `w` the waterfall), and the internals (our informers and workqueue, and the
 * controllers' queues with --metrics). The focused pane gets the rows it wants first; the others
 * keep a few. The diagnosis, built from the cluster's words, is escaped as its rows are wrapped.
 */
import { diagnosisText, type ControllerBehind, type Diagnosis } from '../diagnose/index.js';
import type { Hop, TraceSnapshot } from '../trace/index.js';
import { hopDetailLines } from './hop-detail.js';
import { helpLines, type KeyHelp } from './key-help.js';
import { queuesRows, type QueuesRow } from './queues-rows.js';
import type { QueuesView } from './queues-view.js';
import { wrapRows, type Row } from './rows.js';
import { allocateRows, filterMatcher, matchesFilter, navOf, resolveNav, type ListWindow, type ScreenState } from './screen-state.js';
import { hopFigures, hopLine, hopTitle, summarise, summaryLines, treeLines } from './trace-view.js';

export const panes = ['timeline', 'internals', 'tree'] as const;
export type Pane = (typeof panes)[number];

/** What the main pane shows. */
export type MainView = 'timeline' | 'waterfall';

const OWN_KEYS: readonly KeyHelp[] = [
  { keys: 'w', what: 'waterfall / timeline in the main pane' },
  { keys: 'd', what: 'diagnose: where the chain is stuck, from the caches now (again: refresh)' },
];

/** The detail key of the diagnosis (a detail without a pane, so no hop or row key can clash). */
export const DIAGNOSIS = 'diagnosis';

/** The diagnosis pane's content: being computed, computed, or why it could not be. */
export type DiagnosisShown =
  | { state: 'running'; why: string }
  | { state: 'done'; why: string; diagnosis: Diagnosis }
  | { state: 'failed'; why: string; error: string };

/**
 * The diagnosis as the CLI prints it, a row a line: headings bold, the verdict coloured. Its
 * strings are escaped before it becomes text, so a newline in a message cannot make a row.
 */
export function diagnosisRows(shown: DiagnosisShown): Row[] {
  if (shown.state === 'running') return [{ key: 'running', text: 'diagnosing: reading the caches, the Nodes and the leader Leases…', dim: true }];
  if (shown.state === 'failed') return [{ key: 'failed', text: `no diagnosis: ${shown.error}`, color: 'red' }];
  const d = shown.diagnosis;
  const verdictColour = d.verdict === 'broken' ? 'red' : d.verdict === 'healthy' ? 'green' : 'yellow';
  return diagnosisText(d)
    .trimEnd()
    .split('\n')
    .map((text, i) => ({ key: String(i), text, bold: !text.startsWith(' '), color: i === 0 ? verdictColour : undefined }));
}

/** Tree lines built at most: a target with 10,000 Pods must stay cheap to redraw. */
const TREE_LIMIT = 500;
const HEADER_ROWS = 2;
const FOOTER_ROWS = 1;

export function nextPane(p: Pane): Pane {
  return panes[(panes.indexOf(p) + 1) % panes.length]!;
}

export interface TraceLayout {
  /** Every line's key, per pane (the keys move through these). */
  keys: Record<Pane, readonly string[]>;
  /** The lines: the whole list for the tree and internals; for the timeline only those on screen. */
  rows: Record<Pane, Row[]>;
  /** Index of each pane's first row in its whole list. */
  first: Record<Pane, number>;
  windows: Record<Pane, ListWindow>;
  heights: Record<Pane, number>;
  /** Rows between the header and the footer. */
  body: number;
  /** The detail or help text, when one is open. */
  text: { title: string; lines: Row[] } | undefined;
  hopsShown: number;
}

function hopColour(h: Hop): string | undefined {
  if (h.kind === 'converged') return 'green';
  if (h.kind === 'failed' || h.kind === 'not-ready') return 'red';
  if (h.kind === 'deleted' || h.kind === 'terminating' || h.kind === 'suspended') return 'yellow';
  return undefined;
}

/** Everything TraceScreen draws and the keys need, for a terminal of `width` × `height`. Pure. */
export function traceLayout(
  snapshot: TraceSnapshot,
  state: ScreenState<Pane>,
  width: number,
  height: number,
  queues: QueuesView | undefined,
  diagnosis?: DiagnosisShown,
  controller?: { behind: ControllerBehind; at: number },
): TraceLayout {
  const body = Math.max(0, height - HEADER_ROWS - FOOTER_ROWS);
  const f = state.filter;
  // By object or hop kind: `pod ready`, `web-abc`, `scaled`.
  const match = filterMatcher(f);
  const hops = f ? snapshot.hops.filter((h) => match([`${h.object.kind}/${h.object.name}`, h.kind, hopTitle(h)])) : snapshot.hops;
  // Unfiltered, the figures over all the hops are the ones the tracer keeps.
  const figures = hopFigures(f ? { hops } : snapshot);
  // The object column as wide as the longest name shown (at most the text output's 34), so a
  // narrow terminal keeps room for what happened.
  const objectWidth = Math.max(10, Math.min(34, figures.longestObject));
  const built = treeLines(snapshot.tree, TREE_LIMIT);
  const tree: Row[] = built.lines
    .filter((l) => matchesFilter(f, [l.label, l.status]))
    .map((l) => ({
      key: l.label,
      text: `${'  '.repeat(l.depth)}${l.label} ${l.status}${l.node ? ` ${l.node}` : ''}${l.restarts ? ` restarts ${l.restarts}` : ''}`,
      color: l.deleting ? 'yellow' : l.ready ? undefined : 'cyan',
    }));
  if (built.hidden > 0) tree.push({ key: 'more', text: `… ${built.hidden} more`, dim: true });
  const internals: QueuesRow[] = [];
  for (const i of snapshot.informers) {
    internals.push({
      key: `informer/${i.name}`,
      text: `${i.description}: ${i.objects} objects · +${i.events.ADDED} ~${i.events.MODIFIED} -${i.events.DELETED} · ${i.bookmarks} bookmarks · ${i.relists} relists · ${i.watchRestarts} watch restarts${i.watchStalls ? ` (${i.watchStalls} stalled)` : ''} · backlog ${i.backlog}`,
    });
  }
  const q = snapshot.queue;
  if (q)
    internals.push({
      key: 'workqueue',
      text: `workqueue ${q.name}: depth ${q.depth} · adds ${q.adds} · retries ${q.retries} · reconciles ${snapshot.reconciles}`,
    });
  const burst = snapshot.burst ? summaryLines(summarise(snapshot, 0)).find((l) => l.startsWith('burst')) : undefined;
  if (burst) internals.push({ key: 'burst', text: burst });
  if (queues) internals.push({ key: 'queues', text: 'Controller queues', bold: true }, ...queuesRows(queues, width, { filter: f }));

  const keys: Record<Pane, readonly string[]> = { timeline: figures.ids, tree: tree.map((r) => r.key), internals: internals.map((r) => r.key) };
  const heights = allocateRows(
    body,
    [
      // A pane without the focus keeps a share of a tall terminal, not only its minimum.
      { key: 'tree', want: tree.length + 1, min: Math.max(4, Math.floor(body / 4)) },
      { key: 'timeline', want: hops.length + 1, min: 6, fill: true },
      { key: 'internals', want: internals.length + 1, min: Math.max(3, Math.floor(body / 6)) },
    ],
    state.pane,
  );
  const windows = Object.fromEntries(panes.map((p) => [p, resolveNav(navOf(state, p), keys[p], Math.max(1, heights[p] - 1))])) as Record<Pane, ListWindow>;
  // Only the hops on screen become lines: a 1,000-replica rollout has thousands of them.
  const top = windows.timeline.top;
  const timeline: Row[] = hops
    .slice(top, top + Math.max(0, heights.timeline - 1))
    .map((h) => ({ key: h.id, text: hopLine(h, objectWidth), color: hopColour(h) }));
  const rows: Record<Pane, Row[]> = { timeline, tree, internals };

  let text: TraceLayout['text'];
  if (state.help) {
    text = {
      title: 'Keys',
      lines: [
        ...helpLines(OWN_KEYS),
        '',
        'tree: the target and what it owns, live; Enter filters the timeline to the object',
        'timeline: the hops since the trigger, in time order; Enter opens one',
        'internals: our informers and workqueue; with --metrics the controllers\u2019 queues',
      ].map((t, i) => ({ key: String(i), text: t })),
    };
  } else if (state.detail === DIAGNOSIS && state.detailPane === undefined) {
    text = diagnosis
      ? { title: `Diagnosis · ${diagnosis.why}`, lines: diagnosisRows(diagnosis) }
      : { title: 'Diagnosis', lines: [{ key: '0', text: 'no diagnosis yet' }] };
  } else if (state.detail !== undefined) {
    if (state.detailPane === 'internals') {
      const row = internals.find((r) => r.key === state.detail);
      text = { title: 'Detail', lines: (row?.detail?.() ?? [row?.text ?? 'no longer shown']).map((t, i) => ({ key: String(i), text: t })) };
    } else {
      const hop = snapshot.hops.find((h) => h.id === state.detail);
      text = {
        title: 'Hop',
        lines: hop
          ? hopDetailLines(hop, snapshot, controller).map((l, i) => ({ key: String(i), text: l.text, bold: l.heading }))
          : [{ key: '0', text: 'the hop is gone' }],
      };
    }
  }
  return {
    keys,
    rows,
    first: { timeline: top, tree: 0, internals: 0 },
    windows,
    heights,
    body,
    text: text && { ...text, lines: wrapRows(text.lines, width) },
    hopsShown: hops.length,
  };
}
