/**
 * `kubectl informer-trace probe`: a continuous probe, meant to run in the cluster as a Deployment.
 * Every --interval it restarts (or scales) its canary Deployment, traces the reconcile chain to
 * convergence, and publishes what it measured: Prometheus metrics on --listen and, with an OTLP
 * endpoint, one OpenTelemetry trace per round. SIGTERM lets the round in progress finish (up to
 * --shutdown-grace) and exits 0. Its log lines (stderr, read with kubectl logs) say what the
 * cluster answered: each is escaped as one line (src/util/escape.ts).
 */
import { Command, Option } from 'commander';
import { addConnectionFlags, connectionFlags } from '../cli/connection-flags.js';
import { addReadinessFlags, readinessFromFlags, type ReadinessFlagValues } from '../cli/readiness-flags.js';
import { durationFlag, mergedOptions, positiveDurationFlag, wholeNumberFlag } from '../cli/options.js';
import { say, type CommandIO } from '../cli/io.js';
import type { SetExitCode } from '../cli/run.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { connect, type Kube } from '../kube/index.js';
import { DEFAULT_CANARY_IMAGE, DEFAULT_CANARY_NAME } from '../probe/canary.js';
import { parseListen, serveProbe, type ListenAddress } from '../probe/server.js';
import { parseTarget } from '../util/target.js';

interface ProbeFlags extends ReadinessFlagValues {
  target?: string;
  canaryName: string;
  canaryImage: string;
  replicas: string;
  mode: 'restart' | 'scale';
  sizes: string;
  interval: string;
  timeout: string;
  syncTimeout: string;
  shutdownGrace: string;
  rounds?: string;
  listen: string;
  otlpEndpoint?: string;
  clusterName?: string;
}

export function createProbeCommand(io: CommandIO, setExitCode: SetExitCode): Command {
  const cmd = new Command('probe')
    .description(
      'writes only its canary: every --interval, restart (or scale) a canary Deployment, trace the reconcile chain to convergence, and serve the latencies as Prometheus metrics and OpenTelemetry traces; runs until SIGTERM',
    )
    .option('--target <TYPE/NAME>', 'probe this existing Deployment instead of the canary (it is written each round, never created or deleted)')
    .option('--canary-name <name>', 'name of the canary Deployment the probe creates when missing, in -n', DEFAULT_CANARY_NAME)
    .option('--canary-image <image>', "the canary's container image", DEFAULT_CANARY_IMAGE)
    .option('--replicas <n>', 'replicas of the canary when it is created', '1')
    .addOption(
      new Option('--mode <mode>', 'each round restarts the rollout, or scales between the two --sizes').choices(['restart', 'scale']).default('restart'),
    )
    .option('--sizes <a,b>', 'the two replica counts of --mode scale', '1,2')
    .option('--interval <duration>', 'time from the start of one round to the start of the next', '1m')
    .option('--timeout <duration>', 'how long a round waits for convergence before it counts as timed out', '5m')
    .option('--sync-timeout <duration>', "how long to wait for a round's informer caches to sync", '60s')
    .option('--shutdown-grace <duration>', 'on SIGTERM, how long the round in progress may go on before it is abandoned', '20s')
    .option('--rounds <n>', 'stop after this many rounds (default: run until stopped)')
    .option('--listen <host:port>', 'serve /metrics, /healthz and /readyz here', ':8080')
    .option(
      '--otlp-endpoint <url>',
      'export each round as an OpenTelemetry trace over OTLP/HTTP to this base URL (/v1/traces is added); default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or $OTEL_EXPORTER_OTLP_ENDPOINT',
    )
    .option('--cluster-name <name>', "the k8s.cluster.name resource attribute of exported traces (default: the kubeconfig context's name)")
    .addHelpText(
      'after',
      [
        '',
        'In a pod with no kubeconfig it connects with its service account (see deploy/probe/).',
        '',
        'Examples:',
        '  kubectl informer-trace probe -n informer-trace-probe --interval 30s',
        '  kubectl informer-trace probe -n shop --target deploy/web --mode scale --sizes 2,3 --otlp-endpoint http://jaeger-collector:4318',
        '',
      ].join('\n'),
    );
  addReadinessFlags(cmd);
  addConnectionFlags(cmd);
  cmd.action(async (_o: unknown, command: Command) => {
    await runProbe(mergedOptions<ProbeFlags & Record<string, unknown>>(command), io);
    setExitCode(ExitCode.Ok, { stopIsNormal: true });
  });
  return cmd;
}

interface ProbePlan {
  intervalMs: number;
  timeoutMs: number;
  syncTimeoutMs: number;
  shutdownGraceMs: number;
  maxRounds: number;
  replicas: number;
  listen: ListenAddress;
  /** --sizes, for --mode scale. */
  sizes: [number, number];
}

/** Every flag checked before any request is sent (but --otlp-endpoint and the readiness flags, read where they are used). */
function planProbe(opts: ProbeFlags): ProbePlan {
  const intervalMs = positiveDurationFlag('--interval', opts.interval);
  const timeoutMs = positiveDurationFlag('--timeout', opts.timeout);
  const syncTimeoutMs = positiveDurationFlag('--sync-timeout', opts.syncTimeout);
  const shutdownGraceMs = durationFlag('--shutdown-grace', opts.shutdownGrace);
  const maxRounds = opts.rounds === undefined ? 0 : wholeNumberFlag('--rounds', opts.rounds, 1);
  const replicas = wholeNumberFlag('--replicas', opts.replicas, 1);
  const listen = parseListen(opts.listen);
  if (opts.mode !== 'restart' && opts.mode !== 'scale') throw new UsageError(`--mode ${String(opts.mode)}: choose restart or scale`);
  const sizes = opts.sizes.split(',').map((s) => s.trim());
  if (sizes.length !== 2) throw new UsageError(`--sizes "${opts.sizes}" is not two replica counts A,B`, { hint: 'e.g. --sizes 1,2' });
  const [a, b] = sizes.map((s) => wholeNumberFlag('--sizes', s, 0)) as [number, number];
  if (opts.mode === 'scale' && a === b) throw new UsageError(`--sizes ${opts.sizes}: the two sizes must differ`);
  return { intervalMs, timeoutMs, syncTimeoutMs, shutdownGraceMs, maxRounds, replicas, listen, sizes: [a, b] };
}

/** The name of the Deployment the probe writes: --target's, which must be a Deployment, or the canary's. */
async function probedDeployment(kube: Kube, opts: ProbeFlags): Promise<string> {
  if (opts.target === undefined) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(opts.canaryName) || opts.canaryName.length > 63)
      throw new UsageError(`--canary-name "${opts.canaryName}" is not a valid Deployment name`);
    return opts.canaryName;
  }
  let t: { type: string; name: string };
  try {
    t = parseTarget(opts.target);
  } catch (err) {
    throw new UsageError(`--target ${(err as Error).message}`);
  }
  const info = await kube.discovery.resolve(t.type);
  if (info.group !== 'apps' || info.resource !== 'deployments')
    throw new UsageError(`--target ${opts.target}: the probe restarts or scales a Deployment, not ${info.kind}`);
  return t.name;
}

/** Runs rounds until stopped (or --rounds), serving what they measured. */
async function runProbe(opts: ProbeFlags, io: CommandIO): Promise<void> {
  // Loaded when the probe runs, not for every command: OpenTelemetry and prom-client take longer
  // to load than a one-shot command takes to run.
  const [{ resolveOtlpTarget, TraceSpanExporter }, { ProbeMetrics }, { Probe }] = await Promise.all([
    import('../output/otlp.js'),
    import('../probe/metrics.js'),
    import('../probe/probe.js'),
  ]);
  const plan = planProbe(opts);
  const [a, b] = plan.sizes;
  const otlp = resolveOtlpTarget(opts.otlpEndpoint, io.env);
  const readiness = await readinessFromFlags(opts, io.env);

  const kube = connect(connectionFlags(opts));
  const namespace = kube.connection.namespace;
  const name = await probedDeployment(kube, opts);
  const info = await kube.discovery.resolve('deployments.apps');
  const log = (line: string): void => say(io, `${new Date().toISOString()} ${line}`);

  const metrics = new ProbeMetrics();
  const exporter = otlp
    ? TraceSpanExporter.otlpOfObject(
        otlp,
        kube,
        { kind: 'Deployment', namespace, name },
        { serviceName: 'informer-trace-probe', env: io.env, clusterName: opts.clusterName },
      )
    : undefined;
  const probe = new Probe({
    kube,
    target: { info, namespace, name },
    canary: opts.target === undefined ? { namespace, name, image: opts.canaryImage, replicas: plan.replicas } : undefined,
    mode: opts.mode === 'scale' ? { kind: 'scale', sizes: [a, b] } : { kind: 'restart' },
    intervalMs: plan.intervalMs,
    timeoutMs: plan.timeoutMs,
    syncTimeoutMs: plan.syncTimeoutMs,
    readiness,
    shutdownGraceMs: plan.shutdownGraceMs,
    maxRounds: plan.maxRounds,
    metrics,
    exporter,
    log,
  });
  const server = await serveProbe(plan.listen, metrics, probe);
  log(`serving /metrics, /healthz and /readyz on ${server.url}`);
  log(
    `probing Deployment/${name} in ${namespace} (${opts.target === undefined ? 'canary' : 'existing target'}) every ${opts.interval} by ${opts.mode === 'scale' ? `scaling between ${a} and ${b}` : 'restarting it'}` +
      `${otlp ? `; traces to ${otlp.url}` : ''}; connected to ${kube.connection.server} (${kube.connection.source})`,
  );
  try {
    await probe.run(io.signal);
  } finally {
    await exporter?.shutdown();
    await server.close();
  }
  log(`stopped after ${probe.rounds} round${probe.rounds === 1 ? '' : 's'}`);
}
