/**
 * The `top` TUI container: owns the subscription to the source (useLive: at most `maxFps` redraws a
 * second, a tick for ages), the screen (useScreen), `a` (idle queues shown or not) and the terminal
 * size; TopScreen (top-screen.tsx) draws the layout of src/view/top-layout.ts.
 */
import { useState, type ReactNode } from 'react';
import type { CommandIO } from '../cli/io.js';
import type { LeaseChange } from '../view/lease-view.js';
import { initialScreen } from '../view/screen-state.js';
import { topLayout, type TopPane } from '../view/top-layout.js';
import type { TopView } from '../view/top-view.js';
import type { ExitReason } from './keymap.js';
import { useLive, useSize } from './live.js';
import { runTui } from './mount.js';
import { TopScreen } from './top-screen.js';
import { useScreen } from './use-screen.js';

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
  onExit?: (reason: ExitReason) => void;
  maxFps?: number;
  tickMs?: number;
  /** Fixed size (tests); default the terminal's. */
  width?: number;
  height?: number;
}

export function TopApp({ source, controllers = [], onExit, maxFps = 10, tickMs = 1_000, width, height }: TopAppProps): ReactNode {
  const size = useSize(width, height);
  const filterView = (v: TopView): TopView =>
    controllers.length === 0 ? v : { ...v, components: v.components.filter((c) => controllers.some((n) => n === c.name || n === c.key)) };
  const view = useLive(
    source,
    (listener) => source.onUpdate(listener),
    () => filterView(source.view()),
    { maxFps, tickMs },
  );
  const [showIdle, setShowIdle] = useState(false);

  const input = { view, changes: source.leaseChanges(), showIdle, ...size };
  const screen = useScreen({
    initial: () => initialScreen<TopPane>('components'),
    layout: (state) => topLayout({ ...input, state }),
    focus: (_s, l) => ({ panes: ['components'], keys: l.keys, height: l.listHeight, openable: true }),
    own: (press, s) => {
      if (press.action !== 'toggleIdle' || s.editing) return false;
      setShowIdle((v) => !v);
      return true;
    },
    onExit,
    extra: { a: 'toggleIdle' },
  });

  return <TopScreen {...input} state={screen.state} layout={screen.layout} />;
}

export async function runTopTui(
  source: TopSource,
  io: CommandIO,
  options: { signal: AbortSignal; forMs: number; controllers: readonly string[] },
): Promise<'quit' | 'interrupt' | 'done'> {
  const how = await runTui((onExit) => <TopApp source={source} controllers={options.controllers} onExit={onExit} />, io, {
    signal: options.signal,
    endAfterMs: options.forMs,
  });
  return how === 'ended' ? 'done' : how;
}
