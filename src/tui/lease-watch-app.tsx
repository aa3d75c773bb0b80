/**
 * The lease-watch TUI container: owns the subscription to the model, the redraw throttle (at most
 * ~10 frames a second however fast Leases change), a 1 s tick so ages move, the keys and the
 * terminal width (re-rendered on resize). It hands plain props to LeaseWatchScreen.
 */
import { useApp, useInput, useStdin, useWindowSize } from 'ink';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { LeaseChange, LeaseWatchView } from '../view/lease-view.js';
import { LeaseWatchScreen } from './lease-watch-screen.js';
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
  /** Fixed width (tests); default the terminal's. */
  width?: number;
  /** With --metrics: the controllers' queues, shown in a pane below the leases. */
  metrics?: MetricsFeed | undefined;
}

export function LeaseWatchApp({ source, onExit, maxFps = 10, tickMs = 1_000, width, metrics }: LeaseWatchAppProps): ReactNode {
  const { exit } = useApp();
  const { columns } = useWindowSize();
  const { isRawModeSupported } = useStdin();
  const [view, setView] = useState<LeaseWatchView>(() => source.view());
  const [finished, setFinished] = useState<LeaseChange[]>(() => [...source.changeLog()]);
  const [showHelp, setShowHelp] = useState(false);
  const lastSeq = useRef(finished.at(-1)?.seq ?? 0);
  const queues = useQueuesView(metrics, {}, maxFps);

  useEffect(() => {
    const redraw = (): void => {
      setView(source.view());
      const fresh = source.changeLog().filter((c) => c.seq > lastSeq.current);
      if (fresh.length > 0) {
        lastSeq.current = fresh.at(-1)!.seq;
        setFinished((prev) => [...prev, ...fresh]);
      }
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

  useInput(
    (input, key) => {
      if (input === 'q' || (key.ctrl && input === 'c')) {
        onExit?.(input === 'q' ? 'quit' : 'interrupt');
        exit();
      } else if (input === '?') {
        setShowHelp((v) => !v);
      }
    },
    { isActive: isRawModeSupported },
  );

  return <LeaseWatchScreen view={view} finished={finished} showHelp={showHelp} width={width ?? Math.max(60, (columns || 100) - 1)} queues={queues} />;
}
