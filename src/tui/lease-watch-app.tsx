/**
 * The lease-watch TUI container: owns the subscription to the model (useLive: at most ~10 frames a
 * second however fast Leases change, a 1 s tick so ages move), the screen (useScreen) and the
 * terminal size (re-rendered on resize). LeaseWatchScreen (lease-watch-screen.tsx) draws the layout
 * of src/view/lease-layout.ts.
 *
 * runLeaseWatchTui mounts it on the command's streams and resolves when it ends: q (quit), Ctrl+C
 * or the signal (interrupt), or --for elapsing (done). The screen is gone then (see mount.tsx), so
 * what was seen is summarised once on stdout: the leader leases and their holders, and the holder
 * changes, each line escaped (src/util/escape.ts): names and holders are the cluster's.
 */
import type { ReactNode } from 'react';
import type { CommandIO } from '../cli/io.js';
import { escapeTerminal } from '../util/escape.js';
import { leaseLayout, type LeasePane } from '../view/lease-layout.js';
import { clockTime, describeChange, leaseKey, type LeaseChange, type LeaseWatchView } from '../view/lease-view.js';
import { initialScreen } from '../view/screen-state.js';
import type { ExitReason } from './keymap.js';
import { LeaseWatchScreen } from './lease-watch-screen.js';
import { useLive, useSize } from './live.js';
import { runTui } from './mount.js';
import { useQueuesView, type MetricsFeed } from './use-queues-view.js';
import { useScreen } from './use-screen.js';

export type { ExitReason };

/** What the container reads: LeaseWatchModel satisfies it; tests pass a stub. */
export interface LeaseViewSource {
  view(): LeaseWatchView;
  changeLog(): readonly LeaseChange[];
  onUpdate(listener: () => void): () => void;
}

export interface LeaseWatchAppProps {
  source: LeaseViewSource;
  onExit?: (reason: ExitReason) => void;
  /** Redraw cap. Default 10 per second. */
  maxFps?: number;
  /** How often ages are refreshed without events. Default 1 s. */
  tickMs?: number;
  /** Fixed size (tests); default the terminal's. */
  width?: number;
  height?: number;
  /** With --metrics: the controllers' queues, shown in a pane below the leases. */
  metrics?: MetricsFeed | undefined;
}

export function LeaseWatchApp({ source, onExit, maxFps = 10, tickMs = 1_000, width, height, metrics }: LeaseWatchAppProps): ReactNode {
  const size = useSize(width, height);
  const { view, changes } = useLive(
    source,
    (listener) => source.onUpdate(listener),
    () => ({ view: source.view(), changes: [...source.changeLog()] as readonly LeaseChange[] }),
    { maxFps, tickMs },
  );
  const queues = useQueuesView(metrics, {}, maxFps);

  const input = { view, changes, ...size, queues };
  const screen = useScreen({
    initial: () => initialScreen<LeasePane>('leases', ['changes']),
    layout: (state) => leaseLayout({ ...input, state }),
    // A press is judged on the layout of the state the previous press of its read left.
    focus: (s) => {
      const l = leaseLayout({ ...input, state: s });
      return {
        panes: l.panes,
        keys: l.rows[s.pane].map((r) => r.key),
        height: Math.max(1, l.listHeights[s.pane]),
        textLines: l.text?.lines.length ?? 0,
        textHeight: Math.max(1, l.body - 1),
        openable: s.pane === 'leases' || s.pane === 'changes' || (s.pane === 'queues' && Boolean(l.rows.queues[l.windows.queues.index]?.detail)),
      };
    },
    onExit,
  });

  return <LeaseWatchScreen {...input} state={screen.state} layout={screen.layout} />;
}

export interface TuiOptions {
  signal: AbortSignal;
  /** End by itself after this long (ms); 0 = until q or Ctrl+C. */
  forMs: number;
  /** With --metrics: the poller, for the queues pane. */
  metrics?: MetricsFeed | undefined;
}

/** Changes listed in the summary; earlier ones are counted. */
const SUMMARY_CHANGES = 50;

export async function runLeaseWatchTui(source: LeaseViewSource, io: CommandIO, options: TuiOptions): Promise<ExitReason | 'done'> {
  const how = await runTui((onExit) => <LeaseWatchApp source={source} onExit={onExit} metrics={options.metrics} />, io, {
    signal: options.signal,
    endAfterMs: options.forMs,
  });
  io.stdout.write(summaryText(source));
  return how === 'ended' ? 'done' : how;
}

export function summaryText(source: LeaseViewSource): string {
  const view = source.view();
  const changes = source.changeLog();
  const out = [
    `lease-watch: ${view.leases.length} leader lease${view.leases.length === 1 ? '' : 's'}, ${changes.length} holder change${changes.length === 1 ? '' : 's'} seen`,
  ];
  for (const l of view.leases) out.push(`  ${leaseKey(l.namespace, l.name)}: ${l.holder ?? '<none>'} (${l.state}, ${l.transitions} transitions)`);
  if (changes.length > SUMMARY_CHANGES) out.push(`  … ${changes.length - SUMMARY_CHANGES} earlier changes`);
  for (const c of changes.slice(-SUMMARY_CHANGES)) out.push(`${clockTime(c.at)} ${describeChange(c)}`);
  return `${out.map((l) => escapeTerminal(l)).join('\n')}\n`;
}
