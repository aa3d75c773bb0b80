/**
 * `kubectl informer-trace queues -o tui`: the container owns the metrics subscription (through
 * useQueuesView), the screen state, the keys (src/tui/keymap.ts, plus `a` for idle queues) and the
 * terminal size; QueuesScreen (queues-screen.tsx) draws, sized to the terminal (see mount.tsx for
 * the screen model). Enter on a queue, a controller or a source shows all of its numbers. The last
 * snapshot is printed once, as `-o table` prints it, when the screen is left.
 */
import { useRef, useState, type ReactNode } from 'react';
import type { CommandIO } from '../cli/io.js';
import { renderQueuesTable } from '../output/queues-table.js';
import { buildQueuesView } from '../view/queues-view.js';
import { initialScreen, navOf, reduceScreen, resolveNav, type Press } from '../view/screen-state.js';
import { useKeys, type ExitReason } from './keymap.js';
import { useSize } from './live.js';
import { mountTui } from './mount.js';
import { queuesLayout, type QueuesPaneKey } from '../view/queues-layout.js';
import { QueuesScreen } from './queues-screen.js';
import { useQueuesView, type MetricsFeed } from './use-queues-view.js';

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
  const [state, setState] = useState(() => initialScreen<QueuesPaneKey>('queues'));
  const view = useQueuesView(feed, { names, includeIdle: idle });
  const props = { view, idle, state, ...size };
  const layout = queuesLayout(props);
  const current = useRef({ layout, state });
  current.current = { layout, state };
  const handle = (press: Press): void => {
    const { layout: l, state: s } = current.current;
    if (press.action === 'toggleIdle' && !s.editing) {
      setIdle((v) => !v);
      return;
    }
    const keys = l.rows.map((r) => r.key);
    const win = resolveNav(navOf(s, 'queues'), keys, l.listHeight);
    const next = reduceScreen(s, press, {
      panes: ['queues'],
      keys,
      height: l.listHeight,
      textLines: l.text?.lines.length ?? 0,
      textHeight: l.listHeight,
      openable: Boolean(l.rows[win.index]?.detail),
    });
    current.current.state = next;
    setState(next);
  };
  useKeys(handle, { editing: () => current.current.state.editing, onExit, extra: { a: 'toggleIdle' } });
  return <QueuesScreen {...props} layout={layout} />;
}

export async function runQueuesTui(
  feed: MetricsFeed,
  io: CommandIO,
  options: { signal: AbortSignal; forMs: number; names: readonly string[]; includeIdle: boolean },
): Promise<'quit' | 'interrupt' | 'done'> {
  let reason: 'quit' | 'interrupt' | 'done' = 'done';
  const app = <QueuesApp feed={feed} names={options.names} includeIdle={options.includeIdle} onExit={(r) => (reason = r)} />;
  const how = await mountTui(app, io, { signal: options.signal, endAfterMs: options.forMs });
  io.stdout.write(renderQueuesTable(buildQueuesView(feed.latest(), { names: options.names, includeIdle: options.includeIdle })));
  return how === 'interrupt' ? 'interrupt' : reason;
}
