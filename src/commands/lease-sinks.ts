/**
 * Where `kubectl lease-watch` goes, one sink per output format, chosen once: whether it streams
 * from before the sync, whether its screen says the warnings and notes stderr would, whether it
 * runs on without --watch or --for, and what it does once the Leases have synced.
 *
 * table: a snapshot, then (--watch, --for) a line per holder change; json: one snapshot (with --for,
 * taken when it elapses); ndjson: an object per holder change as it happens; tui: the screen
 * (src/tui/lease-watch-app.tsx).
 */
import { realClock } from '../clock.js';
import { colorEnabled, type CommandIO } from '../cli/io.js';
import { ExitCode } from '../exit-codes.js';
import type { MetricsPoller } from '../metrics/index.js';
import { ndjsonWriter, renderStructured } from '../output/format.js';
import { renderChangeLine, renderLeaseTables } from '../output/lease-table.js';
import { whenAborted } from '../util/abort.js';
import { formatDuration } from '../util/duration.js';
import type { LeaseChange } from '../view/lease-view.js';
import type { LeaseWatchModel } from '../live/index.js';

/** What a sink runs with once the Leases have synced. */
export interface LeaseRun {
  model: LeaseWatchModel;
  io: CommandIO;
  signal: AbortSignal;
  forMs: number;
  /** Runs on after the snapshot: --watch or --for given, or a sink that streams. */
  keepRunning: boolean;
  poller: MetricsPoller | undefined;
  setExitCode: (code: ExitCode) => void;
}

export interface LeaseSink {
  /** Called before the sync, so no change between the sync and the first line is missed; returns the unsubscribe. */
  subscribe(model: LeaseWatchModel, io: CommandIO): (() => void) | undefined;
  /** The screen says the informers' warnings and the candidates' note; stderr does not, once synced. */
  readonly onScreen: boolean;
  /** Runs until --for or Ctrl+C without --watch, the metrics polled on their schedule (not once before). */
  readonly streams: boolean;
  /** Prints one snapshot, so --watch does not apply. */
  readonly oneSnapshot: boolean;
  run(r: LeaseRun): Promise<void>;
}

/** Resolves after `ms` (never, when 0) or when the signal aborts. */
function until(ms: number, signal: AbortSignal): Promise<void> {
  return ms > 0 ? realClock.sleep(ms, signal) : whenAborted(signal);
}

const none = (): undefined => undefined;

const tuiSink: LeaseSink = {
  subscribe: none,
  onScreen: true,
  streams: true,
  oneSnapshot: false,
  async run({ model, io, signal, forMs, poller, setExitCode }) {
    if (forMs > 0) io.stderr.write(`watching for ${formatDuration(forMs)}…\n`);
    // Loaded only for -o tui: ink and React are most of the startup time otherwise.
    const { runLeaseWatchTui } = await import('../tui/lease-watch-app.js');
    const reason = await runLeaseWatchTui(model, io, { signal, forMs, metrics: poller });
    if (reason === 'interrupt' && !io.signal.aborted) setExitCode(ExitCode.Interrupted);
  },
};

const tableSink: LeaseSink = {
  subscribe: none,
  onScreen: false,
  streams: false,
  oneSnapshot: false,
  async run({ model, io, signal, forMs, keepRunning }) {
    const color = colorEnabled(io);
    io.stdout.write(renderLeaseTables(model.view(), { color }));
    if (!keepRunning) return;
    io.stderr.write(forMs > 0 ? `watching for ${formatDuration(forMs)}…\n` : 'watching; Ctrl+C to stop\n');
    const off = model.onChange((c: LeaseChange) => io.stdout.write(renderChangeLine(c, { color })));
    try {
      await until(forMs, signal);
    } finally {
      off();
    }
  },
};

const jsonSink: LeaseSink = {
  subscribe: none,
  onScreen: false,
  streams: false,
  oneSnapshot: true,
  async run({ model, io, signal, forMs }) {
    if (forMs > 0) {
      io.stderr.write(`watching for ${formatDuration(forMs)}…\n`);
      await until(forMs, signal);
    }
    io.stdout.write(renderStructured(model.view(), 'json'));
  },
};

const ndjsonSink: LeaseSink = {
  // Streams from the start, so no change between sync and printing can be missed.
  subscribe: (model, io) => model.onChange(ndjsonWriter(io.stdout)),
  onScreen: false,
  streams: true,
  oneSnapshot: false,
  async run({ io, signal, forMs }) {
    io.stderr.write(forMs > 0 ? `streaming holder changes for ${formatDuration(forMs)}…\n` : 'streaming holder changes; Ctrl+C to stop\n');
    await until(forMs, signal);
  },
};

/** One sink per -o format; the flag's choices are its keys, in this order. */
export const LEASE_SINKS = { tui: tuiSink, table: tableSink, json: jsonSink, ndjson: ndjsonSink } satisfies Record<string, LeaseSink>;

export type LeaseOutput = keyof typeof LEASE_SINKS;
