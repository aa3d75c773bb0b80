/**
 * Where `kubectl informer-trace queues` goes, one sink per output format, chosen once: how it runs
 * (a snapshot per interval, one snapshot, or table's either, which --once picks), what --watch
 * makes of it, and what it prints of a snapshot, or the screen it runs instead.
 *
 * table: a table per interval, stamped (one, unstamped, with --once); json/yaml: one snapshot
 * (json --watch streams as ndjson); ndjson: a line per interval; tui: the screen
 * (src/tui/queues-app.tsx).
 */
import type { CommandIO } from '../cli/io.js';
import type { MetricsPoller, MetricsSnapshot } from '../metrics/index.js';
import { ndjsonLine, renderStructured, type StructuredFormat } from '../output/format.js';
import { renderQueuesTable, renderQueuesTableAt } from '../output/queues-table.js';
import { buildQueuesView, queuesJson, type QueuesFilter } from '../view/queues-view.js';

/** What a sink prints a snapshot with. */
export interface QueuesShown {
  filter: QueuesFilter;
  /** One snapshot per interval rather than one in all. */
  stream: boolean;
  forMs: number;
}

export interface QueuesSink {
  /** A snapshot per interval, one snapshot, or either (--once: one). */
  readonly runs: 'streams' | 'once' | 'either';
  /** What --watch does: nothing (undefined), refused, or the sink streams as ndjson instead. */
  readonly watch?: 'refused' | 'ndjson';
  /** The screen, run instead of printing while the poller scrapes. */
  screen?(poller: MetricsPoller, io: CommandIO, shown: QueuesShown): Promise<void>;
  write(io: CommandIO, snap: MetricsSnapshot, shown: QueuesShown): void;
}

const json = (snap: MetricsSnapshot, shown: QueuesShown): unknown => queuesJson(snap, { names: shown.filter.names ?? [] });

const structured = (format: StructuredFormat, watch: QueuesSink['watch']): QueuesSink => ({
  runs: 'once',
  watch,
  write: (io, snap, shown) => void io.stdout.write(renderStructured(json(snap, shown), format)),
});

const tableSink: QueuesSink = {
  runs: 'either',
  write(io, snap, shown) {
    const view = buildQueuesView(snap, shown.filter);
    io.stdout.write(shown.stream ? renderQueuesTableAt(view, snap.atMs) : renderQueuesTable(view));
  },
};

const tuiSink: QueuesSink = {
  runs: 'streams',
  async screen(poller, io, shown) {
    const { runQueuesTui } = await import('../tui/queues-app.js');
    await runQueuesTui(poller, io, { signal: io.signal, forMs: shown.forMs, names: shown.filter.names ?? [], includeIdle: Boolean(shown.filter.includeIdle) });
  },
  write: () => undefined,
};

const ndjsonSink: QueuesSink = {
  runs: 'streams',
  write: (io, snap, shown) => void io.stdout.write(ndjsonLine(json(snap, shown))),
};

/** One sink per -o format; the flag's choices are its keys, in this order. */
export const QUEUES_SINKS = {
  tui: tuiSink,
  table: tableSink,
  json: structured('json', 'ndjson'),
  yaml: structured('yaml', 'refused'),
  ndjson: ndjsonSink,
} satisfies Record<string, QueuesSink>;

export type QueuesOutput = keyof typeof QUEUES_SINKS;
