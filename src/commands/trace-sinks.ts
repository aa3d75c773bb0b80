/**
 * Where a trace goes, one sink per output format: what it prints once the informers have synced,
 * whether it says the write it made, what it does with a diagnosis while the trace runs (a stall),
 * where it runs while the trace does (the TUI's screen), and what it prints at the end. runTrace
 * picks one and never asks which format it has. After the end, the files and exports the flags ask
 * for (--svg, --otlp-endpoint) are written by traceArtifacts, whatever the format.
 *
 * table: the tree, then a line per hop as hops arrive (in time order), then the summary;
 * json/yaml: one document at the end; ndjson: an event per line as they come, a diagnosis line
 * on a stall, a summary line at the end; waterfall: the waterfall at the end; tui: the screen
 * (src/tui/trace-app.tsx), and the summary on stderr once it is gone.
 */
import { writeFileSync } from 'node:fs';
import type { CommandIO } from '../cli/io.js';
import { colorEnabled } from '../cli/io.js';
import { controllerBehindLine, diagnosisText, type ControllerBehind, type Diagnosis } from '../diagnose/index.js';
import { ExitCode } from '../exit-codes.js';
import type { Kube } from '../kube/index.js';
import { ndjsonWriter, renderStructured, type StructuredFormat } from '../output/format.js';
import type { OtlpTarget } from '../output/otlp-target.js';
import { SVG_MAX_LANES, waterfallSvg } from '../output/svg.js';
import { TimeOrderedTraceText, traceSummaryText, treeText } from '../output/trace-text.js';
import { waterfallText, waterfallTextSize } from '../output/waterfall-text.js';
import type { TraceSession, TraceSnapshot } from '../trace/index.js';
import type { DiagnosisFeed } from '../tui/trace-app.js';
import { formatDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { summaryLines, type TraceSummary } from '../view/trace-view.js';
import { buildWaterfallView } from '../view/waterfall-view.js';
import type { TraceMetrics } from './trace-metrics.js';

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
  /** Whether informers' warnings go to stderr after the sync (the TUI holds stderr back; its screen shows them). */
  readonly logsWhileRunning: boolean;
  /** Once the informers have synced, before the trigger. */
  started(session: TraceSession): void;
  /** A diagnosis made because no hop arrived for `stalledMs` (the TUI shows its own). */
  stalled(d: Diagnosis, stalledMs: number): void;
  /**
   * Runs while the trace does, until it ends or the user leaves: the TUI's screen (which polls the
   * metrics for its queues pane); the other formats resolve 'ended' at once.
   */
  run(session: TraceSession, live: TraceLive): Promise<'ended' | 'quit' | 'interrupt'>;
  end(e: TraceEnd): void;
  close(): void;
}

/** What a screen shows beside the trace. */
export interface TraceLive {
  metrics: TraceMetrics | undefined;
  diagnoses: DiagnosisFeed;
  /** tui: leave the screen when the trace ends. */
  exitOnEnd: boolean;
}

const controllerLine = (e: TraceEnd): string => (e.controller ? `${controllerBehindLine(e.controller, e.now)}\n` : '');

// diagnosisText escapes what it prints.
const logStall =
  (io: CommandIO) =>
  (d: Diagnosis, stalledMs: number): void =>
    void io.stderr.write(`no new hop for ${formatDuration(stalledMs)}:\n${diagnosisText(d)}`);
const noop = (): void => undefined;
// What the formats that print to stdout share: nothing to run while the trace does, nothing to close.
const printed = (io: CommandIO) =>
  ({ logsWhileRunning: true, run: async (): Promise<'ended'> => 'ended', started: noop, stalled: logStall(io), close: noop }) as const;

type SinkFactory = (io: CommandIO, coalesceMs: number) => TraceSink;

function tableSink(io: CommandIO, coalesceMs: number): TraceSink {
  let text: TimeOrderedTraceText | undefined;
  return {
    ...printed(io),
    saysWrite: false,
    started(session) {
      io.stdout.write(`${treeText(session.snapshot())}\n\n`);
      text = new TimeOrderedTraceText({ clock: session.clock, coalesceMs, hops: () => session.hops(), write: (line) => void io.stdout.write(`${line}\n`) });
      session.subscribe((ev) => text!.push(ev));
    },
    end: (e) => void io.stdout.write(`\n${traceSummaryText(e.snap)}${controllerLine(e)}${e.stuck ? `\n${diagnosisText(e.stuck)}` : ''}`),
    close: () => text?.close(),
  };
}

function ndjsonSink(io: CommandIO): TraceSink {
  const line = ndjsonWriter(io.stdout);
  return {
    ...printed(io),
    saysWrite: false,
    started: (session) => void session.subscribe(line),
    stalled: (d, stalledMs) => line({ type: 'diagnosis', stalledMs, diagnosis: d }),
    end: (e) =>
      line({ type: 'summary', summary: e.summary, ...(e.controller ? { controller: e.controller } : {}), ...(e.stuck ? { diagnosis: e.stuck } : {}) }),
  };
}

const structuredSink =
  (format: StructuredFormat): SinkFactory =>
  (io) => ({
    ...printed(io),
    saysWrite: true,
    end: (e) =>
      void io.stdout.write(
        renderStructured(
          { summary: e.summary, ...e.snap, ...(e.controller ? { controller: e.controller } : {}), ...(e.stuck ? { diagnosis: e.stuck } : {}) },
          format,
        ),
      ),
  });

function waterfallSink(io: CommandIO): TraceSink {
  return {
    ...printed(io),
    saysWrite: true,
    end(e) {
      const size = waterfallTextSize(io.stdout.isTTY ? { columns: io.stdout.columns, rows: (io.stdout as { rows?: number }).rows } : undefined, io.env.COLUMNS);
      io.stdout.write(waterfallText(buildWaterfallView(e.snap, { maxLanes: size.maxLanes }), { width: size.width, color: colorEnabled(io) }));
      io.stderr.write(`${controllerLine(e)}${e.stuck ? diagnosisText(e.stuck) : ''}`);
    },
  };
}

/** The TUI's screen is gone by the end (it ran on the alternate screen): the summary, once, a line each. */
function tuiSink(io: CommandIO): TraceSink {
  return {
    saysWrite: true,
    logsWhileRunning: false,
    async run(session, live) {
      if (live.metrics) void live.metrics.poller.run(session.signal);
      const { runTraceTui } = await import('../tui/trace-app.js');
      return runTraceTui(session, session.ended, io, io.signal, live.metrics?.poller, { exitOnEnd: live.exitOnEnd, diagnoses: live.diagnoses });
    },
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

/** One sink per -o format; the flag's choices are its keys. */
export const TRACE_SINKS = {
  tui: tuiSink,
  table: tableSink,
  json: structuredSink('json'),
  yaml: structuredSink('yaml'),
  ndjson: ndjsonSink,
  waterfall: waterfallSink,
} satisfies Record<string, SinkFactory>;

export type TraceOutput = keyof typeof TRACE_SINKS;

export function traceSink(output: TraceOutput, io: CommandIO, coalesceMs: number): TraceSink {
  return TRACE_SINKS[output](io, coalesceMs);
}

/** The files and exports asked for beside the output. */
export interface TraceArtifacts {
  /** --svg FILE */
  svg: string | undefined;
  /** --otlp-endpoint, or OTEL_EXPORTER_OTLP_ENDPOINT */
  otlp: OtlpTarget | undefined;
}

/**
 * After the end: the trace as OpenTelemetry spans (a failed export is said and changes no exit
 * code), then the waterfall SVG (one that cannot be written turns a success into a usage error).
 * Resolves the exit code.
 */
export async function traceArtifacts(
  want: TraceArtifacts,
  snap: TraceSnapshot,
  endedAt: number,
  kube: Kube,
  env: NodeJS.ProcessEnv,
  exitCode: ExitCode,
  log: (line: string) => void,
): Promise<ExitCode> {
  if (want.otlp) await exportTrace(want.otlp, snap, endedAt, kube, env, log);
  if (want.svg === undefined) return exitCode;
  try {
    writeFileSync(want.svg, waterfallSvg(buildWaterfallView(snap, { maxLanes: SVG_MAX_LANES })));
    log(`wrote the waterfall SVG to ${want.svg}`);
    return exitCode;
  } catch (err) {
    log(`error: could not write --svg ${want.svg}: ${(err as Error).message}`);
    return exitCode === ExitCode.Ok ? ExitCode.Usage : exitCode;
  }
}

async function exportTrace(
  target: OtlpTarget,
  snap: TraceSnapshot,
  endedAt: number,
  kube: Kube,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<void> {
  // The OpenTelemetry SDK is loaded only when spans are exported.
  const { TraceSpanExporter } = await import('../output/otlp.js');
  const exporter = TraceSpanExporter.otlpOfObject(target, kube, snap.target, { serviceName: 'kubectl-informer-trace', env });
  try {
    const sent = await exporter.export(snap, endedAt);
    log(`exported trace ${sent.traceId} (${sent.spans} spans) to ${target.url}`);
  } catch (err) {
    log(`warning: the trace could not be exported to ${target.url}: ${(err as Error).message}`);
  } finally {
    await exporter.shutdown();
  }
}
