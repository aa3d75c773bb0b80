/**
 * Mounts the lease-watch TUI on the command's streams and resolves when it ends: q (quit),
 * Ctrl+C or the signal (interrupt), or --for elapsing (done). The screen is gone then (see
 * mount.tsx), so what was seen is summarised once on stdout: the leader leases and their holders,
 * and the holder changes, each line escaped (src/util/escape.ts): names and holders are the
 * cluster's.
 */
import type { CommandIO } from '../cli/io.js';
import { escapeTerminal } from '../util/escape.js';
import { clockTime, describeChange, leaseKey } from '../view/lease-view.js';
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

/** Changes listed in the summary; earlier ones are counted. */
const SUMMARY_CHANGES = 50;

export async function runLeaseWatchTui(source: LeaseViewSource, io: CommandIO, options: TuiOptions): Promise<ExitReason | 'done'> {
  let reason: ExitReason | 'done' = 'done';
  const app = <LeaseWatchApp source={source} onExit={(r) => (reason = r)} metrics={options.metrics} />;
  const how = await mountTui(app, io, { signal: options.signal, endAfterMs: options.forMs });
  io.stdout.write(summaryText(source));
  return how === 'interrupt' ? 'interrupt' : reason;
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
