/**
 * Mounts the lease-watch TUI on the command's streams and resolves when it ends: q (quit),
 * Ctrl+C or the signal (interrupt), or --for elapsing (done).
 */
import { render } from 'ink';
import type { CommandIO } from '../cli/io.js';
import { LeaseWatchApp, type ExitReason, type LeaseViewSource } from './lease-watch-app.js';
import type { MetricsFeed } from './use-queues-view.js';

export interface TuiOptions {
  signal: AbortSignal;
  /** End by itself after this long (ms); 0 = until q or Ctrl+C. */
  forMs: number;
  /** With --metrics: the poller, for the queues pane. */
  metrics?: MetricsFeed | undefined;
}

export async function runLeaseWatchTui(source: LeaseViewSource, io: CommandIO, options: TuiOptions): Promise<ExitReason | 'done'> {
  let reason: ExitReason | 'done' = 'done';
  const instance = render(<LeaseWatchApp source={source} onExit={(r) => (reason = r)} metrics={options.metrics} />, {
    stdout: io.stdout,
    stderr: io.stderr,
    ...(io.stdin ? { stdin: io.stdin } : {}),
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: 10,
  });
  const onAbort = (): void => {
    reason = 'interrupt';
    instance.unmount();
  };
  options.signal.addEventListener('abort', onAbort, { once: true });
  const timer = options.forMs > 0 ? setTimeout(() => instance.unmount(), options.forMs) : undefined;
  try {
    await instance.waitUntilExit();
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
    instance.cleanup();
  }
  return reason;
}
