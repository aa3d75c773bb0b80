/**
 * `kubectl lease-watch [LEASE]`: leader-election Leases, their holders, renewals and failovers;
 * node heartbeat Leases summarised apart; leader_election_master_status beside a lease when a
 * metrics source is given.
 *
 * With coordinated leader election (the API server serves coordination.k8s.io LeaseCandidates), each
 * Lease also shows its candidates (identity, binary and emulation version, strategy, ping and renew
 * times) and why its holder holds or what it waits for; a 403 on them is said once
 * ("candidates: not permitted") and the Leases are shown as before.
 *
 * Mode split: the ink TUI only on a terminal (stdout a TTY, not CI) without -o; otherwise
 * -o table (a snapshot after the cache syncs; with --watch or --for, then one line per change),
 * -o json (a snapshot; with --for, taken when it elapses) or -o ndjson (one object per holder
 * change as it happens). Every mode ends by itself with --for; all end on SIGINT/SIGTERM.
 */
import { Command } from 'commander';
import { LEASES } from '../kube/index.js';
import { collect, durationFlag, positiveDurationFlag, requireOneNamespaceScope, syncTimeoutFlag } from '../cli/options.js';
import { addConnectionFlags, connectionFlags } from '../cli/connection-flags.js';
import { say, sayInformerWarnings, type CommandIO } from '../cli/io.js';
import { chooseOutput, outputOption } from '../cli/output-format.js';
import { CheckFailedError, UsageError } from '../errors.js';
import type { ExitCode } from '../exit-codes.js';
import { runUntilSynced, SharedIndexInformer, waitForCacheSync, type InformerEvent } from '../informer/index.js';
import { ApiError, connect, namespaceExists, ResourceListerWatcher, type Kube } from '../kube/index.js';
import { createSources, MetricsPoller, MultiScraper, parseMetricsSpec, QUEUE_STATS_FAMILIES, type MetricsSnapshot } from '../metrics/index.js';
import { formatDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { closest } from '../util/suggest.js';
import { version } from '../version.js';
import type { MetricsSourceInput } from '../view/lease-view.js';
import { candidatesNote } from '../view/lease-view.js';
import { LeaseWatchModel, watchLeaseCandidates } from '../live/index.js';
import { createCheckCommand } from './check.js';
import { LEASE_SINKS, type LeaseOutput } from './lease-sinks.js';
import { createTopCommand } from './top.js';

interface LeaseWatchOptions {
  namespace?: string;
  allNamespaces?: boolean;
  selector?: string;
  output?: LeaseOutput;
  watch?: boolean;
  for?: string;
  since?: string;
  metrics: string[];
  metricsInsecureSkipTlsVerify?: boolean;
  insecureSkipTlsVerify?: boolean;
  metricsInterval: string;
  syncTimeout: string;
}

interface Plan {
  lease: { namespace: string | undefined; name: string } | undefined;
  mode: LeaseOutput;
  forMs: number;
  sinceMs: number | null;
  syncTimeoutMs: number;
  metricsIntervalMs: number;
}

export function createLeaseWatchProgram(io: CommandIO, setExitCode: (code: ExitCode) => void): Command {
  const program = new Command('kubectl lease-watch')
    .description('Watch coordination.k8s.io Leases: leader ownership, renewals, transitions and failovers.')
    .version(version, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .argument('[lease]', 'one Lease: NAMESPACE/NAME, or NAME in the -n namespace (default: every Lease)')
    .option('-A, --all-namespaces', 'watch Leases in every namespace (the default without -n)')
    .option('-l, --selector <selector>', 'label selector for the Leases, e.g. app=web')
    .addOption(outputOption(LEASE_SINKS, 'output: tui (default on a terminal), table (default otherwise), json, ndjson (one object per holder change)'))
    .option('-w, --watch', 'with -o table: after the snapshot, print a line for each holder change')
    .option('--for <duration>', 'end by itself after this long once the cache has synced (e.g. 30s, 2m)')
    .option('--since <duration>', 'show only the holder history of the last DURATION (e.g. 10m)')
    .option(
      '--metrics <spec>',
      'scrape leader_election_master_status from a component (repeatable): apiserver, pod/NS/NAME[:PORT], svc/NS/NAME[:PORT], https://HOST:PORT/metrics',
      collect,
      [],
    )
    .option(
      '--metrics-insecure-skip-tls-verify',
      'do not check the certificates of https:// metrics endpoints (components serve self-signed ones); --insecure-skip-tls-verify covers them too',
    )
    .option('--metrics-interval <duration>', 'how often metrics are scraped', '2s')
    .option('--sync-timeout <duration>', 'how long to wait for the cache to sync', '60s')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  kubectl lease-watch                                   # every Lease, TUI on a terminal',
        '  kubectl lease-watch -n kube-system -o table -w        # snapshot, then one line per holder change',
        '  kubectl lease-watch kube-system/kube-controller-manager -o ndjson --for 2m',
        '  kubectl lease-watch -n kube-node-lease -o json        # node heartbeats, stale ones first',
        '  kubectl lease-watch -n kube-system --metrics https://127.0.0.1:10257/metrics --metrics-insecure-skip-tls-verify',
        '  kubectl lease-watch check --lease kube-system/kube-controller-manager --max-renew-age 20s --max-transitions 2 --window 5m',
      ].join('\n'),
    );
  addConnectionFlags(program);
  program.action(async (leaseArg: string | undefined, opts: LeaseWatchOptions) => {
    const plan = validate(leaseArg, opts, io);
    const kube = connect(connectionFlags(opts));
    await watchLeases(kube, plan, opts, io, setExitCode);
  });
  // Options after `check` are its own (it has its own -o and --metrics).
  program.enablePositionalOptions();
  program.addCommand(createCheckCommand(io, setExitCode, 'lease-watch'));
  program.addCommand(createTopCommand(io, setExitCode));
  return program;
}

const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const LEASE_TYPE_NAMES = new Set(['lease', 'leases', 'lease.coordination.k8s.io', 'leases.coordination.k8s.io']);

/** NAME, NAMESPACE/NAME, or kubectl's lease/NAME. */
export function parseLeaseArg(arg: string): { namespace: string | undefined; name: string } {
  const parts = arg.split('/');
  let namespace: string | undefined;
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2 && LEASE_TYPE_NAMES.has(parts[0]!.toLowerCase())) name = parts[1]!;
  else if (parts.length === 2) [namespace, name] = parts as [string, string];
  else throw new UsageError(`"${arg}" is not a Lease`, { hint: 'write NAMESPACE/NAME (e.g. kube-system/kube-controller-manager), or NAME with -n NAMESPACE' });
  if (namespace !== undefined && !DNS_LABEL.test(namespace))
    throw new UsageError(`"${namespace}" in "${arg}" is not a namespace name`, { hint: 'write NAMESPACE/NAME, e.g. kube-system/kube-controller-manager' });
  if (!DNS_SUBDOMAIN.test(name))
    throw new UsageError(`"${name}" is not a Lease name`, { hint: 'Lease names are lower-case DNS names, e.g. kube-controller-manager' });
  return { namespace, name };
}

/** Every flag checked before any request is sent. */
function validate(leaseArg: string | undefined, opts: LeaseWatchOptions, io: CommandIO): Plan {
  requireOneNamespaceScope(opts);
  const lease = leaseArg === undefined ? undefined : parseLeaseArg(leaseArg);
  if (lease && opts.allNamespaces) throw new UsageError('a Lease name and --all-namespaces cannot be used together');
  if (lease?.namespace && opts.namespace && lease.namespace !== opts.namespace) {
    throw new UsageError(`the Lease ${lease.namespace}/${lease.name} is not in namespace ${opts.namespace} (-n)`, {
      hint: 'drop -n, or the namespace in the Lease argument',
    });
  }
  if (lease && opts.selector) throw new UsageError('a Lease name and --selector cannot be used together');
  const duration = durationFlag;
  const mode = chooseOutput(LEASE_SINKS, opts.output, 'table', io);
  if (opts.watch && LEASE_SINKS[mode].oneSnapshot)
    throw new UsageError(`--watch does not apply to -o ${mode}, which prints one snapshot`, {
      hint: 'use -o ndjson to stream holder changes, or -o table --watch',
    });
  const sinceMs = positiveDurationFlag('--since', opts.since, '10m') ?? null;
  for (const spec of opts.metrics) parseMetricsSpec(spec);
  const metricsIntervalMs =
    opts.metrics.length > 0 ? positiveDurationFlag('--metrics-interval', opts.metricsInterval, '2s') : duration('--metrics-interval', opts.metricsInterval);
  return {
    lease,
    mode,
    forMs: duration('--for', opts.for),
    sinceMs,
    syncTimeoutMs: syncTimeoutFlag(opts.syncTimeout),
    metricsIntervalMs,
  };
}

async function watchLeases(kube: Kube, plan: Plan, opts: LeaseWatchOptions, io: CommandIO, setExitCode: (code: ExitCode) => void): Promise<void> {
  const namespace = plan.lease ? (plan.lease.namespace ?? kube.connection.namespace) : opts.allNamespaces ? undefined : opts.namespace;
  const lw = new ResourceListerWatcher(kube.client, LEASES, {
    namespace,
    labelSelector: opts.selector,
    fieldSelector: plan.lease ? `metadata.name=${plan.lease.name}` : undefined,
  });
  const informer = new SharedIndexInformer(lw);
  const model = new LeaseWatchModel({
    scope: { namespace: namespace ?? null, name: plan.lease?.name ?? null, selector: opts.selector ?? null },
    sinceMs: plan.sinceMs,
  });
  const registration = informer.addEventHandler(model.handler, { name: 'lease-watch' });
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  io.signal.addEventListener('abort', stop, { once: true });
  const sink = LEASE_SINKS[plan.mode];
  const unsubscribe = sink.subscribe(model, io);
  const quiet = sink.onScreen;
  const warn = sayInformerWarnings(io);
  const progress = (e: InformerEvent): void => {
    if (!(quiet && model.isSynced())) warn(e);
  };
  const started = Date.now();
  let offWarnings: (() => void) | undefined;
  // Beside the Leases, never instead of them: a failure here is one line, not the command's end.
  const candidates = watchLeaseCandidates(kube, model, {
    namespace,
    signal: controller.signal,
    syncTimeoutMs: plan.syncTimeoutMs,
    onEvent: progress,
  });
  candidates.catch(() => undefined);
  try {
    await runUntilSynced(kube, [informer], { signal: controller.signal, timeoutMs: plan.syncTimeoutMs, onEvent: progress });
    // After the sync too (but not over the live view): a lost or stalled watch, one line each.
    offWarnings = informer.onEvent(progress);
    // The informer has synced; wait until our handler has seen every object of the initial list.
    await waitForCacheSync(controller.signal, [() => registration.hasSynced()]);
    // Said once; the TUI says it in the view instead.
    const note = candidatesNote(await candidates);
    if (note && !sink.onScreen) say(io, note);
    model.markSynced();
    model.start();
    const stats = informer.stats();
    io.stderr.write(
      `synced ${stats.objects} lease${stats.objects === 1 ? '' : 's'} ${namespace ? `in ${namespace}` : 'in all namespaces'} in ${formatDuration(Date.now() - started)}\n`,
    );

    // No Lease in a namespace that is not there: said by its name, once.
    const missingNamespace =
      namespace && stats.objects === 0 && (await namespaceExists(kube.client, namespace, controller.signal)) === false ? namespace : undefined;
    if (plan.lease) {
      const ns = plan.lease.namespace ?? kube.connection.namespace;
      if (!model.has(ns, plan.lease.name)) throw await notFound(kube, ns, plan.lease.name, controller.signal, missingNamespace === ns);
    }
    if (missingNamespace) say(io, `note: namespace ${missingNamespace} does not exist; its Leases are shown once it is created`);

    const poller = opts.metrics.length > 0 ? metricsPoller(kube, opts, plan, model) : undefined;
    const keepRunning = sink.streams || plan.forMs > 0 || Boolean(opts.watch);
    if (poller && !sink.streams) await poller.pollOnce(controller.signal);
    if (poller && keepRunning) void poller.run(controller.signal);
    await sink.run({ model, io, signal: controller.signal, forMs: plan.forMs, keepRunning, poller, setExitCode });
  } finally {
    offWarnings?.();
    unsubscribe?.();
    io.signal.removeEventListener('abort', stop);
    controller.abort();
    model.close();
  }
}

/** "lease kube-system/x not found", with the close names in that namespace when we may list them. */
async function notFound(kube: Kube, namespace: string, name: string, signal: AbortSignal, namespaceMissing = false): Promise<CheckFailedError> {
  if (namespaceMissing) return new CheckFailedError(`lease ${namespace}/${name} not found: namespace ${namespace} does not exist`);
  let names: string[] | undefined;
  try {
    const list = await kube.client.json<{ items?: { metadata?: { name?: string } }[] }>(
      `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`,
      {
        signal,
        describe: { verb: 'list', resource: 'leases.coordination.k8s.io', namespace },
      },
    );
    // Printed in the hint: escaped as every text output is.
    names = (list.items ?? [])
      .map((i) => escapeTerminal(i.metadata?.name ?? ''))
      .filter(Boolean)
      .sort();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
  }
  let hint: string | undefined;
  if (names !== undefined) {
    const near = closest(name, names);
    if (near.length > 0) hint = `did you mean ${near.map((n) => `${namespace}/${n}`).join(', ')}?`;
    else if (names.length > 0) hint = `leases in ${namespace}: ${names.slice(0, 8).join(', ')}${names.length > 8 ? `, … (${names.length})` : ''}`;
    else hint = `namespace ${namespace} has no leases`;
  }
  return new CheckFailedError(`lease ${namespace}/${name} not found`, hint ? { hint } : {});
}

function metricsPoller(kube: Kube, opts: LeaseWatchOptions, plan: Plan, model: LeaseWatchModel): MetricsPoller {
  // --insecure-skip-tls-verify (kubectl's, for the API server) covers metrics endpoints too, as the
  // scrape errors' hint says; --metrics-insecure-skip-tls-verify only them.
  const insecure = Boolean(opts.metricsInsecureSkipTlsVerify) || Boolean(opts.insecureSkipTlsVerify);
  const sources = createSources(opts.metrics, { client: kube.client, direct: { insecureSkipTlsVerify: insecure }, families: QUEUE_STATS_FAMILIES });
  const poller = new MetricsPoller(new MultiScraper(sources), { intervalMs: plan.metricsIntervalMs });
  poller.subscribe((s) => model.setMetrics(metricsInput(s)));
  return poller;
}

export function metricsInput(snapshot: MetricsSnapshot): MetricsSourceInput[] {
  return snapshot.sources.map((s) => ({
    source: s.source,
    ok: s.ok,
    stale: s.stale,
    error: s.error === null ? null : `${s.error}${s.hint ? ` (${s.hint})` : ''}`,
    leaderElection: s.stats ? s.stats.leaderElection.map((r) => ({ name: r.name, isLeader: r.isLeader, value: r.value })) : null,
  }));
}
