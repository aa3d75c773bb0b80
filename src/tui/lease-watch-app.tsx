/**
 * The lease-watch TUI container: owns the subscription to the model, the redraw throttle (at most
 * ~10 frames a second however fast Leases change), a 1 s tick so ages move, the screen state and
 * the keys (src/tui/keymap.ts), and the terminal size (re-rendered on resize). It hands plain props
 * to LeaseWatchScreen.
 */
import { useApp, useInput, useStdin, useWindowSize } from 'ink';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { LeaseChange, LeaseWatchView } from '../view/lease-view.js';
import { initialScreen, reduceScreen, type Press, type ScreenState } from '../view/screen-state.js';
import { pressesOf } from './keymap.js';
import { leaseLayout, LeaseWatchScreen, type LeasePane } from './lease-watch-screen.js';
import { Throttle } from './throttle.js';
import { useQueuesView, type MetricsFeed } from './use-queues-view.js';

/** What the container reads: LeaseWatchModel satisfies it; tests pass a stub. */
export interface LeaseViewSource {
  view(): LeaseWatchView;
  changeLog(): readonly LeaseChange[];
  onUpdate(listener: () => void): () => void;
}

export type ExitReason = 'quit' | 'interrupt';

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
  const { exit } = useApp();
  const size = useWindowSize();
  const { isRawModeSupported } = useStdin();
  const [view, setView] = useState<LeaseWatchView>(() => source.view());
  const [changes, setChanges] = useState<readonly LeaseChange[]>(() => [...source.changeLog()]);
  const [state, setState] = useState(() => initialScreen<LeasePane>('leases', ['changes']));
  const queues = useQueuesView(metrics, {}, maxFps);
  const w = width ?? size.columns;
  const h = height ?? size.rows;

  useEffect(() => {
    const redraw = (): void => {
      setView(source.view());
      setChanges([...source.changeLog()]);
    };
    const throttle = new Throttle(redraw, Math.max(1, Math.round(1000 / maxFps)));
    const unsubscribe = source.onUpdate(() => throttle.request());
    const tick = setInterval(() => throttle.request(), tickMs);
    return () => {
      unsubscribe();
      clearInterval(tick);
      throttle.stop();
    };
  }, [source, maxFps, tickMs]);

  const props = { view, changes, state, width: w, height: h, queues };
  const current = useRef({ props, state });
  current.current = { props, state };

  const handle = (press: Press): void => {
    const s = current.current.state;
    if (press.action === 'interrupt' || (press.action === 'quit' && !s.editing)) {
      onExit?.(press.action === 'quit' ? 'quit' : 'interrupt');
      exit();
      return;
    }
    const l = leaseLayout({ ...current.current.props, state: s });
    const next: ScreenState<LeasePane> = reduceScreen(s, press, {
      panes: l.panes,
      keys: l.rows[s.pane].map((r) => r.key),
      height: Math.max(1, l.listHeights[s.pane]),
      textLines: l.text?.lines.length ?? 0,
      textHeight: Math.max(1, l.body - 1),
      openable: s.pane === 'leases' || s.pane === 'changes' || (s.pane === 'queues' && Boolean(l.rows.queues[l.windows.queues.index]?.detail)),
    });
    current.current.state = next;
    setState(next);
  };
  useInput(
    (input, key) => {
      for (const p of pressesOf(input, key)) handle(p);
    },
    { isActive: isRawModeSupported },
  );

  return <LeaseWatchScreen {...props} />;
}
