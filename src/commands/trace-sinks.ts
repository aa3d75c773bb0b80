/**
 * Where a trace goes, one sink per output format: what it prints once the informers have synced,
 * whether it says the write it made, what it does with a diagnosis while the trace runs (a stall),
 * and what it prints at the end. runTrace picks one and never asks which format it has.
 *
 * table: the tree, then a line per hop as hops arrive (in time order), then the summary;
 * json/yaml: one document at the end; ndjson: an event per line as they come, a diagnosis line
 * on a stall, a summary line at the end; waterfall: the waterfall at the end; tui: the screen
 * (src/tui/trace-app.tsx), and the summary on stderr once it is gone.
 */
import type { CommandIO } from '../cli/io.js';
import { colorEnabled } from '../cli/io.js';
import { controllerBehindLine, diagnosisText, type ControllerBehind, type Diagnosis } from '../diagnose/index.js';
import { ndjsonWriter, renderStructured } from '../output/format.js';
import { TimeOrderedTraceText, traceSummaryText, treeText } from '../output/trace-text.js';
import { waterfallText, waterfallTextSize } from '../output/waterfall-text.js';
import type { TraceSession } from '../trace/session.js';
import type { TraceSnapshot } from '../trace/tracer.js';
import { formatDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { summaryLines, type TraceSummary } from '../view/trace-view.js';
import { buildWaterfallView } from '../view/waterfall-view.js';

export type TraceOutput = 'tui' | 'table' | 'json' | 'yaml' | 'ndjson' | 'waterfall';

/** What the trace ended with. */
export interface TraceEnd {
  snap: TraceSnapshot;
  summary: TraceSummary;
  /** Where it is stuck, when it did not converge. */
  stuck: Diagnosis | undefined;
  /** For a custom resource: the operator behind it. */
  controller: ControllerBehind | undefined;
  now: number;
}

export interface TraceSink {
  /** Whether the line saying what the trigger wrote goes to stderr (not where it would break the format). */
  readonly saysWrite: boolean;
  /** Once the informers have synced, before the trigger. */
  started(session: TraceSession): void;
  /** A diagnosis made because no hop arrived for `stalledMs` (the TUI shows its own). */
  stalled(d: Diagnosis, stalledMs: number): void;
  end(e: TraceEnd): void;
  close(): void;
}

const controllerLine = (e: TraceEnd): string => (e.controller ? `${controllerBehindLine(e.controller, e.now)}\n` : '');

export function traceSink(output: TraceOutput, io: CommandIO, coalesceMs: number): TraceSink {
  // diagnosisText escapes what it prints.
  const logStall = (d: Diagnosis, stalledMs: number): void => void io.stderr.write(`no new hop for ${formatDuration(stalledMs)}:\n${diagnosisText(d)}`);
  const noop = (): void => undefined;
  switch (output) {
    case 'table': {
      let text: TimeOrderedTraceText | undefined;
      return {
        saysWrite: false,
        started(session) {
          io.stdout.write(`${treeText(session.snapshot())}\n\n`);
          text = new TimeOrderedTraceText({ clock: session.clock, coalesceMs, hops: () => session.hops(), write: (line) => void io.stdout.write(`${line}\n`) });
          session.subscribe((ev) => text!.push(ev));
        },
        stalled: logStall,
        end: (e) => void io.stdout.write(`\n${traceSummaryText(e.snap)}${controllerLine(e)}${e.stuck ? `\n${diagnosisText(e.stuck)}` : ''}`),
        close: () => text?.close(),
      };
    }
    case 'ndjson': {
      const line = ndjsonWriter(io.stdout);
      return {
        saysWrite: false,
        started: (session) => void session.subscribe(line),
        stalled: (d, stalledMs) => line({ type: 'diagnosis', stalledMs, diagnosis: d }),
        end: (e) =>
          line({ type: 'summary', summary: e.summary, ...(e.controller ? { controller: e.controller } : {}), ...(e.stuck ? { diagnosis: e.stuck } : {}) }),
        close: noop,
      };
    }
    case 'json':
    case 'yaml':
      return {
        saysWrite: true,
        started: noop,
        stalled: logStall,
        end: (e) =>
          void io.stdout.write(
            renderStructured(
              { summary: e.summary, ...e.snap, ...(e.controller ? { controller: e.controller } : {}), ...(e.stuck ? { diagnosis: e.stuck } : {}) },
              output,
            ),
          ),
        close: noop,
      };
    case 'waterfall':
      return {
        saysWrite: true,
        started: noop,
        stalled: logStall,
        end(e) {
          const size = waterfallTextSize(
            io.stdout.isTTY ? { columns: io.stdout.columns, rows: (io.stdout as { rows?: number }).rows } : undefined,
            io.env.COLUMNS,
          );
          io.stdout.write(waterfallText(buildWaterfallView(e.snap, { maxLanes: size.maxLanes }), { width: size.width, color: colorEnabled(io) }));
          io.stderr.write(`${controllerLine(e)}${e.stuck ? diagnosisText(e.stuck) : ''}`);
        },
        close: noop,
      };
    case 'tui':
      // The TUI's screen is gone by the end (it ran on the alternate screen): the summary, once, a line each.
      return {
        saysWrite: true,
        started: noop,
        stalled: noop,
        end: (e) =>
          void io.stderr.write(
            `${summaryLines(e.summary)
              .map((l) => escapeTerminal(l))
              .join('\n')}\n${controllerLine(e)}${e.stuck ? diagnosisText(e.stuck) : ''}`,
          ),
        close: noop,
      };
  }
}
