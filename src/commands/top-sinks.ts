/**
 * Where `kubectl informer-trace top` goes, one sink per output format, chosen once: whether its
 * screen says what stderr would, and how it runs once the session has started.
 *
 * table, json, yaml: one snapshot after two scrapes (rates need two; over --for when given); ndjson:
 * a snapshot per scrape round and one more on every Lease holder change (`trigger` says which),
 * until --for or Ctrl+C; tui: the screen (src/tui/top-app.tsx), then the last snapshot as a table.
 */
import type { CommandIO } from '../cli/io.js';
import { realClock } from '../clock.js';
import type { TopSession } from '../live/index.js';
import { ndjsonWriter, renderStructured, type StructuredFormat } from '../output/format.js';
import { renderTopTable } from '../output/top-table.js';
import { formatDuration } from '../util/duration.js';
import type { LeaseChange } from '../view/lease-view.js';
import type { TopView } from '../view/top-view.js';

/** What a sink runs with. */
export interface TopRun {
  session: Pick<TopSession, 'model' | 'poller'>;
  io: CommandIO;
  signal: AbortSignal;
  /** Stops the scrapes (the screen has gone). */
  stop: () => void;
  /** Keeps the components --controller names. */
  filter: (v: TopView) => TopView;
  forMs: number;
  intervalMs: number;
  controllers: string[];
  /** -a: idle queues too. */
  all: boolean;
}

export interface TopSink {
  /** The screen says the candidates' note; stderr does not. */
  readonly onScreen: boolean;
  run(r: TopRun): Promise<void>;
}

const tuiSink: TopSink = {
  onScreen: true,
  async run({ session: { model, poller }, io, signal, stop, filter, forMs, controllers }) {
    const { runTopTui } = await import('../tui/top-app.js');
    const running = poller.run(signal);
    await runTopTui(model, io, { signal: io.signal, forMs, controllers });
    stop();
    await running;
    // The screen is gone with the alternate buffer; the last snapshot stays readable.
    io.stdout.write(renderTopTable(filter(model.view()), false));
  },
};

const ndjsonSink: TopSink = {
  onScreen: false,
  async run({ session: { model, poller }, io, signal, filter, forMs, intervalMs }) {
    const deadline = forMs > 0 ? realClock.now() + forMs : Infinity;
    const ndjsonLine = ndjsonWriter(io.stdout);
    const line = (trigger: string, change: LeaseChange | null): void => ndjsonLine({ trigger, change, ...filter(model.view()) });
    const off = model.onLeaseChange((c) => line('lease', c));
    io.stderr.write(forMs > 0 ? `streaming for ${formatDuration(forMs)}…\n` : 'streaming; Ctrl+C to stop\n');
    try {
      let roundStart = realClock.now();
      while (!signal.aborted && realClock.now() < deadline) {
        await poller.pollOnce(signal);
        if (signal.aborted) break;
        line('scrape', null);
        const next = Math.min(roundStart + intervalMs, deadline);
        await realClock.sleep(Math.max(0, next - realClock.now()), signal);
        roundStart = realClock.now();
      }
    } finally {
      off();
    }
  },
};

/** One snapshot: a baseline scrape, then one after --interval (or --for), so rates exist. */
const snapshotSink = (render: (view: TopView, all: boolean) => string): TopSink => ({
  onScreen: false,
  async run({ session: { model, poller }, io, signal, filter, forMs, intervalMs, all }) {
    const started = realClock.now();
    await poller.pollOnce(signal);
    const wait = forMs > 0 ? forMs : intervalMs;
    io.stderr.write(`measuring for ${formatDuration(wait)}…\n`);
    await realClock.sleep(Math.max(0, started + wait - realClock.now()), signal);
    if (!signal.aborted) await poller.pollOnce(signal);
    io.stdout.write(render(filter(model.view()), all));
  },
});

const structured = (format: StructuredFormat): TopSink => snapshotSink((view) => renderStructured(view, format));

/** One sink per -o format; the flag's choices are its keys, in this order. */
export const TOP_SINKS = {
  tui: tuiSink,
  table: snapshotSink(renderTopTable),
  json: structured('json'),
  yaml: structured('yaml'),
  ndjson: ndjsonSink,
} satisfies Record<string, TopSink>;

export type TopOutput = keyof typeof TOP_SINKS;
