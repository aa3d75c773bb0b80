/**
 * The `top` TUI: one line per component (state, Lease holder, renew age, transitions, last
 * failover, replicas, depth and retries with their sparklines), its busy queues under it; Enter
 * opens the selected line in detail: the component's Lease history and replicas, or the selected
 * queue's series and latencies beside its component's Lease. Keys are the shared key map
 * (src/tui/keymap.ts), the state is the shared screen model (src/view/screen-state.ts); `a`
 * shows idle queues too. The screen is sized to the terminal. Holder identities, queue names and
 * errors are the cluster's: the cells are escaped before they are fitted to their columns, the rest
 * by frame.tsx (src/util/escape.ts).
 */
import { Box, Text, useApp, useInput, useStdin, useWindowSize } from 'ink';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { CommandIO } from '../cli/io.js';
import { formatDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { describeChange, type LeaseChange } from '../view/lease-view.js';
import { initialScreen, matchesFilter, navOf, reduceScreen, resolveNav, type ScreenState } from '../view/screen-state.js';
import { queueLabel } from '../view/queues-view.js';
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
} from '../view/top-view.js';
import { fit, Footer, Line, PaneTitle, Rows, Screen, TextPane, type Row } from './frame.js';
import { helpLines, pressesOf, type KeyHelp } from './keymap.js';
import { mountTui } from './mount.js';
import { Throttle } from './throttle.js';

/** What the container reads: TopModel satisfies it; tests pass a stub. */
export interface TopSource {
  view(): TopView;
  onUpdate(listener: () => void): () => void;
  leaseChanges(): readonly LeaseChange[];
}

export interface TopAppProps {
  source: TopSource;
  /** Only these components (--controller); empty for all. */
  controllers?: readonly string[];
  onExit?: (reason: 'quit' | 'interrupt') => void;
  maxFps?: number;
  tickMs?: number;
  /** Fixed size (tests); default the terminal's. */
  width?: number;
  height?: number;
}

const OWN_KEYS: readonly KeyHelp[] = [{ keys: 'a', what: 'show / hide idle queues' }];

const STATE_COLOR: Record<ComponentState | TopQueue['state'], string | undefined> = {
  'no leader': 'red',
  unreachable: 'red',
  stuck: 'red',
  retrying: 'yellow',
  backlog: 'yellow',
  ok: 'green',
  idle: undefined,
};

interface Entry {
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
    for (const h of l.history) {
      out.push(
        `  ${h.firstSeenAt.slice(11, 19)} ${h.holder}${h.previousHolder ? ` after ${h.previousHolder}` : ''}${h.failoverGapMs !== null ? `, gap ${formatDuration(h.failoverGapMs)}` : ''}${h.endedAt ? ` → ${h.endReason} ${h.endedAt.slice(11, 19)}` : ' (holds it)'}${h.heldAtStart ? ' (held when we started)' : ''}`,
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

export function TopApp({ source, controllers = [], onExit, maxFps = 10, tickMs = 1_000, width, height }: TopAppProps): ReactNode {
  const { exit } = useApp();
  const size = useWindowSize();
  const { isRawModeSupported } = useStdin();
  const filterView = (v: TopView): TopView =>
    controllers.length === 0 ? v : { ...v, components: v.components.filter((c) => controllers.some((n) => n === c.name || n === c.key)) };
  const [view, setView] = useState<TopView>(() => filterView(source.view()));
  const [screen, setScreen] = useState<ScreenState<'components'>>(() => initialScreen('components'));
  const [showIdle, setShowIdle] = useState(false);

  // biome-ignore lint/correctness/useExhaustiveDependencies: filterView is rebuilt each render from `controllers`, which is in the list
  useEffect(() => {
    const throttle = new Throttle(() => setView(filterView(source.view())), Math.max(1, Math.round(1000 / maxFps)));
    const off = source.onUpdate(() => throttle.request());
    const tick = setInterval(() => throttle.request(), tickMs);
    return () => {
      off();
      clearInterval(tick);
      throttle.stop();
    };
    // filterView depends only on `controllers`, keyed by its names.
  }, [source, maxFps, tickMs, controllers.join(',')]);

  const W = width ?? size.columns ?? 100;
  const H = height ?? size.rows ?? 30;
  const lines = linesOf(view, showIdle, screen.filter);
  const keys = lines.map((l) => l.key);
  const errors = [...(view.leaseError ? [`leases: ${view.leaseError}`] : []), ...view.discoveryErrors.map((e) => `discovery: ${e}`)];
  const errorRows = Math.min(2, errors.length);
  // The header, the column row, the footer and the errors take their rows; the list the rest.
  const body = Math.max(2, H - 2 - errorRows);
  const listHeight = Math.max(1, body - 3);
  const opened = screen.detail !== undefined ? lines.find((l) => l.key === screen.detail) : undefined;
  const text = screen.help
    ? helpLines(OWN_KEYS)
    : screen.detail !== undefined
      ? opened
        ? detailLines(opened, source.leaseChanges())
        : ['no longer shown']
      : undefined;
  const current = useRef({ keys, listHeight, textLines: text?.length ?? 0, textHeight: Math.max(1, body - 1), screen });
  current.current = { keys, listHeight, textLines: text?.length ?? 0, textHeight: Math.max(1, body - 1), screen };

  useInput(
    (input, key) => {
      // Keys typed together arrive in one read: each is a press of its own, applied in order.
      for (const press of pressesOf(input, key, { a: 'toggleIdle' })) {
        const c = current.current;
        if (press.action === 'interrupt' || (press.action === 'quit' && !c.screen.editing)) {
          onExit?.(press.action === 'quit' ? 'quit' : 'interrupt');
          exit();
          return;
        }
        if (press.action === 'toggleIdle' && !c.screen.editing) {
          setShowIdle((v) => !v);
          continue;
        }
        c.screen = reduceScreen(c.screen, press, {
          panes: ['components'],
          keys: c.keys,
          height: c.listHeight,
          textLines: c.textLines,
          textHeight: c.textHeight,
          openable: true,
        });
        setScreen(c.screen);
      }
    },
    { isActive: isRawModeSupported },
  );

  const bad = view.components.filter((c) => c.state !== 'ok').length;
  const header = `top · ${view.at.slice(11, 19)} UTC · ${view.components.length} component${view.components.length === 1 ? '' : 's'}${bad ? `, ${bad} not ok` : ''}${view.intervalMs ? ` · every ${formatDuration(view.intervalMs)}` : ''}`;
  // Dropped first when narrow: sparklines, then the less needed numbers.
  const cw = columns(
    COMPONENT_COLUMNS,
    lines.filter((l) => !l.queue).map((l) => l.cells),
    W,
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
    W,
    0,
    34,
    [10, 9, 7, 6, 8, 13, 5],
    reconcile,
  );
  const rows: Row[] = lines.map((l) => {
    const state = l.queue ? l.queue.state : l.component.state;
    return { key: l.key, text: row(l.cells, l.queue ? qw : cw, W), bold: !l.queue, color: STATE_COLOR[state], dim: state === 'idle' };
  });
  const win = resolveNav(navOf(screen, 'components'), keys, listHeight);
  return (
    <Screen width={W} height={H}>
      <Box width={W} height={1} flexShrink={0}>
        <Text wrap="truncate-end" bold>
          {escapeTerminal(header)}
        </Text>
      </Box>
      {text ? (
        <TextPane
          title={screen.help ? 'Keys' : 'Detail'}
          lines={text.map((t, i) => ({ key: String(i), text: t }))}
          top={screen.textTop}
          height={body}
          width={W}
        />
      ) : (
        <Box flexDirection="column" width={W} height={body} flexShrink={0}>
          <PaneTitle title={`Controllers · ${view.components.length}`} right={showIdle ? 'idle queues shown' : undefined} focused width={W} />
          <Line
            row={{
              key: 'head',
              text: row(
                COMPONENT_COLUMNS.map((c) => c.toUpperCase()),
                cw,
                W,
              ),
              dim: true,
            }}
            width={W}
          />
          <Line
            row={{
              key: 'qhead',
              text: row(
                TOP_QUEUE_COLUMNS.map((c) => c.toUpperCase()),
                qw,
                W,
              ),
              dim: true,
            }}
            width={W}
          />
          <Rows
            rows={rows}
            window={win}
            height={listHeight}
            width={W}
            focused
            emptyText={view.components.length === 0 ? 'no components found yet' : `nothing matches "${screen.filter}"`}
          />
        </Box>
      )}
      {errors.slice(0, errorRows).map((e, i) => (
        <Line key={`e${i}`} row={{ key: `e${i}`, text: e, color: 'red' }} width={W} />
      ))}
      <Footer state={screen} hints="↑/↓ select · Enter detail · a idle queues · / filter · ? keys · q quit" width={W} />
    </Screen>
  );
}

export async function runTopTui(
  source: TopSource,
  io: CommandIO,
  options: { signal: AbortSignal; forMs: number; controllers: readonly string[] },
): Promise<'quit' | 'interrupt' | 'done'> {
  let reason: 'quit' | 'interrupt' | 'done' = 'done';
  const app = <TopApp source={source} controllers={options.controllers} onExit={(r) => (reason = r)} />;
  const how = await mountTui(app, io, { signal: options.signal, endAfterMs: options.forMs });
  return how === 'interrupt' ? 'interrupt' : reason;
}
