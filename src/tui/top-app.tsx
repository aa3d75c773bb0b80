/**
 * The `top` TUI container: owns the subscription to the source (useLive: at most `maxFps` redraws a
 * second, a tick for ages), the screen state, `a` (idle queues shown or not), the keys
 * (src/tui/keymap.ts) and the terminal size; TopScreen (top-screen.tsx) draws.
 */
import { useRef, useState, type ReactNode } from 'react';
import type { CommandIO } from '../cli/io.js';
import type { LeaseChange } from '../view/lease-view.js';
import { initialScreen, reduceScreen, type Press, type ScreenState } from '../view/screen-state.js';
import type { TopView } from '../view/top-view.js';
import { useKeys, type ExitReason } from './keymap.js';
import { useLive, useSize } from './live.js';
import { mountTui } from './mount.js';
import { topLayout, type TopPane } from '../view/top-layout.js';
import { TopScreen } from './top-screen.js';

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
  const [screen, setScreen] = useState<ScreenState<TopPane>>(() => initialScreen('components'));
  const [showIdle, setShowIdle] = useState(false);

  const props = { view, changes: source.leaseChanges(), state: screen, showIdle, ...size };
  const layout = topLayout(props);
  // Keys typed together arrive in one read: each press builds on the state the previous one left.
  const current = useRef({ layout, screen });
  current.current = { layout, screen };
  const handle = (press: Press): void => {
    const c = current.current;
    if (press.action === 'toggleIdle' && !c.screen.editing) {
      setShowIdle((v) => !v);
      return;
    }
    c.screen = reduceScreen(c.screen, press, {
      panes: ['components'],
      keys: c.layout.keys,
      height: c.layout.listHeight,
      textLines: c.layout.text?.lines.length ?? 0,
      textHeight: Math.max(1, c.layout.body - 1),
      openable: true,
    });
    setScreen(c.screen);
  };
  useKeys(handle, { editing: () => current.current.screen.editing, onExit, extra: { a: 'toggleIdle' } });

  return <TopScreen {...props} layout={layout} />;
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
