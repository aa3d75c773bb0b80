/**
 * `kubectl informer-trace queues -o tui`: the container owns the metrics subscription (through
 * useQueuesView), the screen (useScreen, plus `a` for idle queues) and the terminal size;
 * QueuesScreen (queues-screen.tsx) draws the layout of src/view/queues-layout.ts, sized to the
 * terminal (see mount.tsx for the screen model). Enter on a queue, a controller or a source shows
 * all of its numbers. The last snapshot is printed once, as `-o table` prints it, when the screen
 * is left.
 */
import { useState, type ReactNode } from 'react';
import type { CommandIO } from '../cli/io.js';
import { renderQueuesTable } from '../output/queues-table.js';
import { queuesLayout, type QueuesPaneKey } from '../view/queues-layout.js';
import { buildQueuesView } from '../view/queues-view.js';
import { initialScreen, navOf, resolveNav } from '../view/screen-state.js';
import type { ExitReason } from './keymap.js';
import { useSize } from './live.js';
import { runTui } from './mount.js';
import { QueuesScreen } from './queues-screen.js';
import { useQueuesView, type MetricsFeed } from './use-queues-view.js';
import { useScreen } from './use-screen.js';

export interface QueuesAppProps {
  feed: MetricsFeed;
  names: readonly string[];
  includeIdle: boolean;
  onExit?: (reason: ExitReason) => void;
  /** Fixed size (tests); default the terminal's. */
  width?: number;
  height?: number;
}

export function QueuesApp({ feed, names, includeIdle, onExit, width, height }: QueuesAppProps): ReactNode {
  const size = useSize(width, height);
  const [idle, setIdle] = useState(includeIdle);
  const view = useQueuesView(feed, { names, includeIdle: idle });
  const input = { view, idle, ...size };
  const screen = useScreen({
    initial: () => initialScreen<QueuesPaneKey>('queues'),
    layout: (state) => queuesLayout({ ...input, state }),
    focus: (s, l) => {
      const keys = l.rows.map((r) => r.key);
      const win = resolveNav(navOf(s, 'queues'), keys, l.listHeight);
      return { panes: ['queues'], keys, height: l.listHeight, openable: Boolean(l.rows[win.index]?.detail) };
    },
    own: (press, s) => {
      if (press.action !== 'toggleIdle' || s.editing) return false;
      setIdle((v) => !v);
      return true;
    },
    onExit,
    extra: { a: 'toggleIdle' },
  });
  return <QueuesScreen {...input} state={screen.state} layout={screen.layout} />;
}

export async function runQueuesTui(
  feed: MetricsFeed,
  io: CommandIO,
  options: { signal: AbortSignal; forMs: number; names: readonly string[]; includeIdle: boolean },
): Promise<'quit' | 'interrupt' | 'done'> {
  const how = await runTui((onExit) => <QueuesApp feed={feed} names={options.names} includeIdle={options.includeIdle} onExit={onExit} />, io, {
    signal: options.signal,
    endAfterMs: options.forMs,
  });
  io.stdout.write(renderQueuesTable(buildQueuesView(feed.latest(), { names: options.names, includeIdle: options.includeIdle })));
  return how === 'ended' ? 'done' : how;
}
