/**
 * `kubectl informer-trace queues`: the controllers' work queues from their Prometheus metrics:
 * depth, adds/s, retries/s, queue and work time p50/p99, unfinished work and the longest running
 * processor per queue; reconcile and error rates per controller-runtime controller.
 *
 * Sources come from --metrics (see src/cli/metrics-flags.ts); without it, the API server and the
 * control-plane pods found in kube-system. Rates need two scrapes, so every output starts with one
 * scrape that is not shown: -o table prints a table every --interval (once with --once), -o json
 * and -o yaml print one snapshot (rates over --interval, or over --for when given), -o ndjson (or
 * -o json --watch) one line per interval, -o tui a live screen. Every mode ends by itself with
 * --for.
 *
 * A source that fails (HTML, 401/403, timeout, TLS) gets a one-line error on stderr while the
 * others go on. Exit code: 0 when at least one source answered its last scrape, 3 when none did
 * (the same code as an unreachable cluster: nothing could be measured), 2 for bad input.
 *
 * No workqueue of this tool runs here, so only the controllers' queues are shown; the trace
 * command shows its own workqueue beside them.
 *
 * Source names and what a source answered are the cluster's: the table and every line on stderr
 * are escaped (src/util/escape.ts); json, yaml and ndjson print them exactly.
 */
import { Command } from 'commander';
import { collectItems, mergedOptions, positiveDurationFlag } from '../cli/options.js';
import { addConnectionFlags, connectionFlags } from '../cli/connection-flags.js';
import { say, type CommandIO } from '../cli/io.js';
import { chooseOutput, outputOption } from '../cli/output-format.js';
import { addMetricsFlags, metricsFailureReporter, planMetrics, type MetricsFlagValues, type MetricsPlan } from '../cli/metrics-flags.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { connect, type Kube } from '../kube/index.js';
import { discoverControlPlane, MetricsPoller, MultiScraper, QUEUE_STATS_FAMILIES, scrapeSources, type MetricsSnapshot } from '../metrics/index.js';
import { formatDuration } from '../util/duration.js';
import type { QueuesFilter } from '../view/queues-view.js';
import { realClock } from '../clock.js';
import { QUEUES_SINKS, type QueuesOutput } from './queues-sinks.js';

interface QueuesOptions extends MetricsFlagValues {
  output?: QueuesOutput;
  watch?: boolean;
  once?: boolean;
  for?: string;
  interval: string;
  queue: string[];
  all?: boolean;
}

interface Plan {
  metrics: MetricsPlan;
  mode: QueuesOutput;
  /** One snapshot (json, yaml, table --once) or one per interval. */
  stream: boolean;
  intervalMs: number;
  forMs: number;
  filter: QueuesFilter;
}

export function createQueuesCommand(io: CommandIO, setExitCode: (code: ExitCode) => void): Command {
  const cmd = new Command('queues')
    .description("Show controllers' work queues from their Prometheus metrics: depth, adds and retries per second, queue and work time, stuck work.")
    .helpOption('-h, --help', 'show help')
    .addOption(
      outputOption(QUEUES_SINKS, 'output: tui (default on a terminal), table (default otherwise), json or yaml (one snapshot), ndjson (one line per interval)'),
    )
    .option('-w, --watch', 'with -o json: one line per interval (ndjson)')
    .option('--once', 'with -o table: print one table (after two scrapes, so rates exist) and end')
    .option('--for <duration>', 'end by itself after this long (e.g. 30s); a single snapshot then covers the whole time')
    .option('--interval <duration>', 'time between scrapes; rates are measured over it', '2s')
    .option(
      '--queue <names>',
      'only these queues or controllers (comma-separated, repeatable; * matches anything), e.g. deployment,replicaset',
      collectItems,
      [],
    )
    .option('-a, --all', 'include queues that never took an item (hidden from the table by default; json has them all)');
  addMetricsFlags(cmd, 'scrape workqueue metrics from a component');
  addConnectionFlags(cmd);
  cmd.addHelpText(
    'after',
    [
      '',
      'Without --metrics: the API server and the control-plane pods in kube-system (kube-controller-manager, kube-scheduler).',
      '',
      'Examples:',
      '  kubectl informer-trace queues --metrics https://127.0.0.1:10257/metrics --metrics-insecure-skip-tls-verify --metrics-token "$TOKEN"',
      '  kubectl informer-trace queues --metrics svc/my-operator/metrics:8443 --queue deployment,replicaset -o table --once',
      '  kubectl informer-trace queues --metrics apiserver -o json --for 30s      # rates over the 30 s',
      '  kubectl informer-trace queues --metrics pod/kube-system/kube-controller-manager-node1:10257 -o ndjson --for 2m',
    ].join('\n'),
  );
  cmd.action(async (_local: QueuesOptions, command: Command) => {
    // Connection flags may stand before the subcommand's name too.
    const opts = mergedOptions<QueuesOptions>(command);
    const plan = validate(opts, io);
    const kube = plan.metrics.needsCluster ? connect(connectionFlags(opts)) : undefined;
    setExitCode(await runQueues(kube, plan, opts, io));
  });
  return cmd;
}

/** Every flag checked before any request is sent. */
function validate(opts: QueuesOptions, io: CommandIO): Plan {
  const metrics = planMetrics(opts);
  const asked = chooseOutput(QUEUES_SINKS, opts.output, 'table', io);
  const { runs, watch } = QUEUES_SINKS[asked];
  if (opts.watch && opts.once) throw new UsageError('--watch and --once cannot be used together');
  if (opts.once && runs !== 'either')
    throw new UsageError(`--once applies to -o table; -o ${asked} ${runs === 'streams' ? 'streams' : 'prints one snapshot already'}`);
  if (opts.watch && watch === 'refused')
    throw new UsageError(`--watch does not apply to -o ${asked}`, { hint: 'use -o ndjson (or -o json --watch) to stream' });
  const mode = opts.watch && watch === 'ndjson' ? watch : asked;
  const sinkRuns = QUEUES_SINKS[mode].runs;
  const intervalMs = positiveDurationFlag('--interval', opts.interval, '2s');
  const forMs = positiveDurationFlag('--for', opts.for) ?? 0;
  return {
    metrics,
    mode,
    stream: sinkRuns === 'streams' || (sinkRuns === 'either' && !opts.once),
    intervalMs,
    forMs,
    filter: { names: opts.queue ?? [], includeIdle: Boolean(opts.all) },
  };
}

/** The --metrics specs, or the API server and the control-plane pods found in kube-system. */
async function sourceSpecs(kube: Kube | undefined, opts: QueuesOptions, io: CommandIO, signal: AbortSignal): Promise<string[]> {
  if ((opts.metrics ?? []).length > 0) return opts.metrics!;
  const found = await discoverControlPlane(kube!.client, { signal });
  if (found.length === 0) {
    io.stderr.write(
      'no --metrics given and no control-plane pods found in kube-system (the components do not run as pods here): scraping the API server only\n' +
        'hint: add kube-controller-manager with --metrics https://HOST:10257/metrics --metrics-insecure-skip-tls-verify\n',
    );
  } else {
    say(io, `no --metrics given: scraping the API server and ${found.map((d) => `${d.component} (${d.spec})`).join(', ')}`);
  }
  return ['apiserver', ...found.map((d) => d.spec)];
}

async function runQueues(kube: Kube | undefined, plan: Plan, opts: QueuesOptions, io: CommandIO): Promise<ExitCode> {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  io.signal.addEventListener('abort', stop, { once: true });
  const signal = controller.signal;
  const deadline = plan.forMs > 0 ? realClock.now() + plan.forMs : Infinity;
  try {
    const specs = await sourceSpecs(kube, opts, io, signal);
    const sources = scrapeSources(specs, plan.metrics.access, kube, QUEUE_STATS_FAMILIES);
    const poller = new MetricsPoller(new MultiScraper(sources), { intervalMs: plan.intervalMs });
    const reporter = sourceFailureReporter(io);
    const sink = QUEUES_SINKS[plan.mode];
    const shown = { filter: plan.filter, stream: plan.stream, forMs: plan.forMs };

    if (sink.screen) {
      const running = poller.run(signal);
      await sink.screen(poller, io, shown);
      controller.abort();
      await running;
      return exitFor(poller.latest(), io);
    }

    // The first scrape is the baseline the rates are measured from; it is not shown. Rounds run
    // start to start, so a slow source does not stretch the interval.
    let roundStart = realClock.now();
    const first = await poller.pollOnce(signal);
    reporter(first);
    if (!plan.stream) {
      const wait = plan.forMs > 0 ? plan.forMs : plan.intervalMs;
      io.stderr.write(`measuring for ${formatDuration(wait)}…\n`);
      await realClock.sleep(Math.max(0, roundStart + wait - realClock.now()), signal);
      const snap = signal.aborted ? first : await poller.pollOnce(signal);
      if (!signal.aborted) reporter(snap);
      sink.write(io, snap, shown);
      return exitFor(snap, io);
    }

    io.stderr.write(
      plan.forMs > 0
        ? `every ${formatDuration(plan.intervalMs)} for ${formatDuration(plan.forMs)}…\n`
        : `every ${formatDuration(plan.intervalMs)}; Ctrl+C to stop\n`,
    );
    let last = first;
    let printed = 0;
    while (!signal.aborted && realClock.now() < deadline) {
      const next = Math.min(roundStart + plan.intervalMs, deadline);
      // A last round cut short by --for would measure rates over a sliver; it is left out
      // unless it covers half an interval or nothing was printed yet.
      if (next === deadline && printed > 0 && next - roundStart < plan.intervalMs / 2) {
        await realClock.sleep(Math.max(0, deadline - realClock.now()), signal);
        break;
      }
      await realClock.sleep(Math.max(0, next - realClock.now()), signal);
      if (signal.aborted) break;
      roundStart = realClock.now();
      last = await poller.pollOnce(signal);
      if (signal.aborted) break;
      reporter(last);
      sink.write(io, last, shown);
      printed++;
    }
    return exitFor(last, io);
  } finally {
    io.signal.removeEventListener('abort', stop);
    controller.abort();
  }
}

/** Says on stderr, once per change, why a source failed and when it answers again. */
function sourceFailureReporter(io: CommandIO): (snap: MetricsSnapshot) => void {
  const report = metricsFailureReporter(io);
  return (snap) => {
    for (const s of snap.sources) {
      if (!s.ok && s.error !== null) report(s.source, `${s.error}${s.hint ? ` (hint: ${s.hint})` : ''}`);
      else if (s.ok) report(s.source, undefined);
    }
  };
}

/** 0 when at least one source answered its last scrape; 3 when none did. */
function exitFor(snap: MetricsSnapshot, io: CommandIO): ExitCode {
  if (snap.sources.some((s) => s.ok)) return ExitCode.Ok;
  const n = snap.sources.length;
  io.stderr.write(`error: ${n === 1 ? 'the metrics source' : `none of the ${n} metrics sources`} answered its last scrape\n`);
  return ExitCode.Cluster;
}
