/**
 * `kubectl informer-trace top` (and `kubectl lease-watch top`): controller health on one screen.
 * Per component, its leader Lease (holder, renew age, transitions, last failover and its gap), the
 * replica that leads, and that process's work queues, with one word for its state; unhealthy first.
 * The rule behind the word is in src/view/top-view.ts.
 *
 * Sources are found without flags (src/metrics/discover-targets.ts says how, and which endpoints
 * are trusted without certificate verification); --metrics adds one, or replaces what was found for
 * a component with COMPONENT=SPEC; --explain-discovery prints how each was found.
 *
 * Outputs, all from the same model: the TUI on a terminal; -o table (the default otherwise) and
 * -o json|yaml print one snapshot after two scrapes (rates need two; over --for when given);
 * -o ndjson prints one snapshot per scrape round and one more on every Lease holder change
 * (`trigger` says which), until --for or Ctrl+C.
 *
 * Failures stay local: Leases that cannot be listed, a discovery step refused, a source that
 * answers HTML, 403 or nothing, an unknown --controller: one line each on stderr, and the rest is
 * shown. Exit code 3 only when neither Leases nor any metrics source could be read; 1 when no
 * component matches --controller; 2 for bad flags (nothing sent).
 *
 * Holder identities, replica errors and discovery's findings are the cluster's: the table and every
 * line on stderr are escaped (src/util/escape.ts); json, yaml and ndjson print them exactly.
 */
import { Command } from 'commander';
import { addConnectionFlags, connectionFlags } from '../cli/connection-flags.js';
import { collectItems, controllerNameFlag, mergedOptions, positiveDurationFlag, syncTimeoutFlag } from '../cli/options.js';
import { say, type CommandIO } from '../cli/io.js';
import { chooseOutput, outputOption } from '../cli/output-format.js';
import { addMetricsFlags, metricsFailureReporter, planMetrics, type MetricsFlagValues } from '../cli/metrics-flags.js';
import { ExitCode } from '../exit-codes.js';
import { connect, type Kube } from '../kube/index.js';
import { parseUserSpec } from '../metrics/index.js';
import { escapeTerminalDeep } from '../util/escape.js';
import { candidatesNote } from '../view/lease-view.js';
import { startTopSession, type TopSession } from '../live/index.js';
import { explainDiscovery, type TopComponent, type TopView } from '../view/top-view.js';
import { TOP_SINKS, type TopOutput } from './top-sinks.js';

interface TopOptions extends MetricsFlagValues {
  output?: TopOutput;
  for?: string;
  interval: string;
  controller: string[];
  explainDiscovery?: boolean;
  all?: boolean;
  syncTimeout: string;
}

interface Plan {
  mode: TopOutput;
  intervalMs: number;
  forMs: number;
  syncTimeoutMs: number;
  controllers: string[];
}

export function createTopCommand(io: CommandIO, setExitCode: (code: ExitCode) => void): Command {
  const cmd = new Command('top')
    .description("Controller health on one screen: each component's leader Lease, the replica that leads, and its work queues, unhealthy first.")
    .helpOption('-h, --help', 'show help')
    .addOption(
      outputOption(
        TOP_SINKS,
        'output: tui (default on a terminal), table (default otherwise), json or yaml (one snapshot), ndjson (a snapshot per scrape and per Lease change)',
      ),
    )
    .option(
      '--controller <names>',
      'only these components (Lease or component names, comma-separated, repeatable), e.g. kube-controller-manager',
      collectItems,
      [],
    )
    .option('--explain-discovery', 'print how each metrics source was found (on stderr)')
    .option('-a, --all', 'with -o table: list idle queues too')
    .option('--for <duration>', 'end by itself after this long; a json/yaml snapshot then covers the whole time')
    .option('--interval <duration>', 'time between scrapes; rates are measured over it', '2s')
    .option('--sync-timeout <duration>', 'how long to wait for the Lease list', '30s');
  addMetricsFlags(cmd, 'add a metrics source, or COMPONENT=SPEC to replace what was found for a component');
  addConnectionFlags(cmd);
  cmd.addHelpText(
    'after',
    [
      '',
      'Found without flags: the API server; Services in kube-system labelled app.kubernetes.io/name (or k8s-app) =',
      'kube-controller-manager / kube-scheduler, through their EndpointSlices; kubeadm static Pods; Pods with a port',
      'named metrics / https-metrics / http-metrics or prometheus.io/scrape annotations; the Pods a Lease holder names.',
      '',
      'States, worst first: no leader, unreachable, stuck, retrying, backlog, ok.',
      '',
      'Examples:',
      '  kubectl informer-trace top',
      '  kubectl informer-trace top -o json --controller kube-controller-manager',
      '  kubectl informer-trace top -o ndjson --for 2m',
      '  kubectl informer-trace top --metrics my-operator=svc/shop/operator-metrics:8443 --explain-discovery',
    ].join('\n'),
  );
  cmd.action(async (_local: TopOptions, command: Command) => {
    const opts = mergedOptions<TopOptions>(command);
    const plan = validate(opts, io);
    const kube = connect(connectionFlags(opts));
    setExitCode(await runTop(kube, plan, opts, io));
  });
  return cmd;
}

/** Every flag checked before any request is sent. */
function validate(opts: TopOptions, io: CommandIO): Plan {
  const user = (opts.metrics ?? []).map(parseUserSpec);
  planMetrics({ ...opts, metrics: user.map((u) => u.source) });
  const mode = chooseOutput(TOP_SINKS, opts.output, 'table', io);
  const intervalMs = positiveDurationFlag('--interval', opts.interval, '2s');
  const forMs = positiveDurationFlag('--for', opts.for) ?? 0;
  for (const c of opts.controller ?? []) controllerNameFlag(c);
  return { mode, intervalMs, forMs, syncTimeoutMs: syncTimeoutFlag(opts.syncTimeout, 30_000), controllers: opts.controller ?? [] };
}

async function runTop(kube: Kube, plan: Plan, opts: TopOptions, io: CommandIO): Promise<ExitCode> {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  io.signal.addEventListener('abort', stop, { once: true });
  const signal = controller.signal;
  const metricsPlan = planMetrics({ ...opts, metrics: (opts.metrics ?? []).map((s) => parseUserSpec(s).source) });
  let session: TopSession | undefined;
  try {
    session = await startTopSession(kube, {
      signal,
      syncTimeoutMs: plan.syncTimeoutMs,
      intervalMs: plan.intervalMs,
      userSpecs: opts.metrics ?? [],
      access: metricsPlan.access,
    });
    if (session.leaseError) say(io, `error: leases: ${session.leaseError} (showing the queues without them)`);
    for (const e of session.discoveryErrors) say(io, `error: discovery: ${e}`);
    const note = candidatesNote(session.candidates);
    const sink = TOP_SINKS[plan.mode];
    if (note && !sink.onScreen) say(io, note);
    if (opts.explainDiscovery) io.stderr.write(explainDiscovery(escapeTerminalDeep({ targets: session.targets, discoveryErrors: session.discoveryErrors })));
    const { model, poller } = session;
    const reportFailures = replicaFailureReporter(io);
    poller.subscribe(() => reportFailures(model.view()));
    const filter = controllerFilter(plan.controllers, io);
    await sink.run({
      session,
      io,
      signal,
      stop,
      filter,
      forMs: plan.forMs,
      intervalMs: plan.intervalMs,
      controllers: plan.controllers,
      all: Boolean(opts.all),
    });
    return exitFor(model.view(), filter, io);
  } finally {
    io.signal.removeEventListener('abort', stop);
    controller.abort();
    session?.close();
  }
}

/** Keeps the components --controller names (by name, Lease name or NAMESPACE/LEASE); says once which names match nothing. */
function controllerFilter(names: readonly string[], io: CommandIO): (v: TopView) => TopView {
  if (names.length === 0) return (v) => v;
  const said = new Set<string>();
  const matches = (c: TopComponent, n: string): boolean => c.name === n || c.key === n || c.lease?.name === n;
  return (v) => {
    for (const n of names) {
      if (!said.has(n) && v.components.length > 0 && !v.components.some((c) => matches(c, n))) {
        said.add(n);
        say(io, `error: --controller ${n}: no such component (found: ${[...new Set(v.components.map((c) => c.name))].join(', ')})`);
      }
    }
    return { ...v, components: v.components.filter((c) => names.some((n) => matches(c, n))) };
  };
}

/** One line per source whose failure is new or changed, and when it answers again. */
function replicaFailureReporter(io: CommandIO): (v: TopView) => void {
  const report = metricsFailureReporter(io);
  return (v) => {
    for (const c of v.components) {
      for (const r of c.replicas) {
        if (r.error && (r.state === 'failed' || r.state === 'stale')) report(r.source, r.error, c.name);
        else if (r.state === 'ok') report(r.source, undefined, c.name);
      }
    }
  };
}

/** 1 when --controller matched nothing; 3 when neither Leases nor any source could be read. */
function exitFor(view: TopView, filter: (v: TopView) => TopView, io: CommandIO): ExitCode {
  if (filter(view).components.length === 0 && view.components.length > 0) return ExitCode.CheckFailed;
  const anySource = view.components.some((c) => c.replicas.some((r) => r.state === 'ok' || r.state === 'stale'));
  if (view.leaseError !== null && !anySource) {
    io.stderr.write('error: neither the Leases nor any metrics source could be read\n');
    return ExitCode.Cluster;
  }
  return ExitCode.Ok;
}
