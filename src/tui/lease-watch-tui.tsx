/**
 * Mounts the lease-watch TUI on the command's streams and resolves when it ends: q (quit),
 * Ctrl+C or the signal (interrupt), or --for elapsing (done).
 */
import type { CommandIO } from '../cli/io.js';
import { mountTui } from './mount.js';
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
  const app = <LeaseWatchApp source={source} onExit={(r) => (reason = r)} metrics={options.metrics} />;
  const how = await mountTui(app, io, { signal: options.signal, endAfterMs: options.forMs });
  return how === 'interrupt' ? 'interrupt' : reason;
}
