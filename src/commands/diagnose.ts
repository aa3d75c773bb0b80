/**
 * `kubectl informer-trace diagnose TYPE/NAME`: where the target's reconcile chain is stuck, without
 * any write. The trace's informers sync for the target, its descendants and the namespace's Events
 * (no trigger is fired); the Nodes its Pods are on and the controllers' leader Leases are read once;
 * src/diagnose names the first broken link. Exit 0 healthy, 1 a broken link, 3 could not tell.
 */
import { Command } from 'commander';
import { addConnectionFlags, connectionFlags } from '../cli/connection-flags.js';
import { durationFlag, listItems, mergedOptions, syncTimeoutFlag } from '../cli/options.js';
import { addReadinessFlags, readinessFromFlags, type ReadinessFlagValues } from '../cli/readiness-flags.js';
import { sayInformerWarnings, type CommandIO } from '../cli/io.js';
import { chooseOutput, outputOption } from '../cli/output-format.js';
import { addMetricsFlags, planMetrics, type MetricsFlagValues } from '../cli/metrics-flags.js';
import { chainFromCaches, DEFAULT_GRACE_MS, diagnoseChain, type Diagnosis, diagnosisText, findOperatorMetrics, type Seen } from '../diagnose/index.js';
import { ExitCode } from '../exit-codes.js';
import { connect, isForbidden, ResourceListerWatcher, toCliError, type Kube, type ResourceInfo } from '../kube/index.js';
import { MetricsPoller, MultiScraper, scrapeSources, type MetricsSnapshot, type QueueRow, type TimedScrape } from '../metrics/index.js';
import { renderStructured, type StructuredFormat } from '../output/format.js';
import { isCustomResource, TraceSession } from '../trace/index.js';
import { formatDuration } from '../util/duration.js';
import { splitTarget } from './trace.js';

interface DiagnoseOptions extends MetricsFlagValues, ReadinessFlagValues {
  output: DiagnoseOutput;
  grace: string;
  children?: string;
  syncTimeout: string;
}

/** One sink per -o format: what it prints of the diagnosis. The flag's choices are its keys, in this order. */
const structured =
  (format: StructuredFormat) =>
  (diagnosis: Diagnosis): string =>
    renderStructured({ diagnosis }, format);
const DIAGNOSE_SINKS = { text: diagnosisText, json: structured('json'), yaml: structured('yaml') } satisfies Record<string, (d: Diagnosis) => string>;

type DiagnoseOutput = keyof typeof DIAGNOSE_SINKS;

export const diagnosisExitCode: Record<Diagnosis['verdict'], ExitCode> = {
  healthy: ExitCode.Ok,
  broken: ExitCode.CheckFailed,
  unknown: ExitCode.Cluster,
};

export function createDiagnoseCommand(io: CommandIO, setExitCode: (code: ExitCode) => void): Command {
  const cmd = new Command('diagnose')
    .description(
      "no write: where TYPE/NAME's reconcile chain is stuck — the first broken link, its evidence and the next command to run (exit 0 healthy, 1 broken, 3 could not tell)",
    )
    .argument('<target>', 'TYPE/NAME (deployment/web, deploy/web, sts/db, job/y, a CRD)')
    .argument('[name]', 'NAME, when the target is given as TYPE NAME')
    .addOption(outputOption(DIAGNOSE_SINKS, 'output format; json/yaml print { diagnosis: … }').default('text'))
    .option('--grace <duration>', 'how long a step may take before it counts as stuck rather than in progress', formatDuration(DEFAULT_GRACE_MS))
    .option('--children <kinds>', 'child resource types to follow for kinds the tool does not know (CRDs), comma-separated')
    .option('--sync-timeout <duration>', 'how long to wait for the informer caches to sync', '60s')
    .addHelpText(
      'after',
      '\nExamples:\n  kubectl informer-trace diagnose deploy/web -n demo\n  kubectl informer-trace diagnose job/migrate -n demo -o json --grace 10s\n',
    );
  addMetricsFlags(cmd, "the controllers' work queues as evidence (depth, retries)");
  addReadinessFlags(cmd);
  addConnectionFlags(cmd);
  cmd.action(async (first: string, second: string | undefined, _o: unknown, command: Command) => {
    const opts = mergedOptions<DiagnoseOptions & Record<string, unknown>>(command);
    const target = splitTarget(first, second);
    const graceMs = durationFlag('--grace', opts.grace);
    const syncTimeoutMs = syncTimeoutFlag(opts.syncTimeout);
    const sink = DIAGNOSE_SINKS[chooseOutput(DIAGNOSE_SINKS, opts.output, 'text', io)];
    const metrics = planMetrics(opts);
    const readiness = await readinessFromFlags(opts, io.env);
    const kube = connect(connectionFlags(opts));
    const info = await kube.discovery.resolve(target.type);
    const namespace = info.namespaced ? kube.connection.namespace : undefined;
    const extraChildren: ResourceInfo[] = [];
    for (const k of listItems(opts.children)) extraChildren.push(await kube.discovery.resolve(k));

    // Events we may not read are evidence not seen, not a reason to give up on the rest.
    const eventsUnseen = await eventsRefused(kube, namespace, io.signal);
    // No trigger: the session syncs the caches, the chain as it stands (a custom resource's
    // children found through discovery, as the trace finds them), and fires nothing.
    const session = new TraceSession({
      kube,
      target: { info, namespace, name: target.name },
      extraChildren,
      readiness,
      events: !eventsUnseen,
      syncTimeoutMs,
      signal: io.signal,
      onInformerEvent: (e, phase) => {
        if (phase === 'sync') sayInformerWarnings(io)(e);
      },
    });
    try {
      await session.start();
      const traced = { info, namespace, name: target.name };
      // Without --metrics, a custom resource's operator is looked for from its Lease, as the trace does.
      const found =
        metrics.specs.length === 0 && isCustomResource(info)
          ? await findOperatorMetrics(kube, chainFromCaches(session.caches(), traced).object, metrics.access, session.signal)
          : undefined;
      const sources = metrics.specs.length > 0 ? scrapeSources(opts.metrics ?? [], metrics.access, kube) : found?.found?.sources;
      const read = sources ? await readQueues(new MetricsPoller(new MultiScraper(sources)), session.signal) : undefined;
      const diagnosis = await diagnoseChain(kube, session.caches(), traced, {
        graceMs,
        eventsUnseen,
        queues: read?.queues,
        scrapes: read?.scrapes,
        foundBy: found?.found?.foundBy,
        noMetrics: found && !found.found ? found.why : undefined,
        signal: session.signal,
        readiness,
      });
      io.stdout.write(sink(diagnosis));
      setExitCode(diagnosisExitCode[diagnosis.verdict]);
    } finally {
      session.close();
    }
  });
  return cmd;
}

/** Why the namespace's Events cannot be listed (403, not served), or undefined when they can. */
async function eventsRefused(kube: Kube, namespace: string | undefined, signal: AbortSignal): Promise<string | undefined> {
  const info = await kube.discovery.resolve('events.events.k8s.io').catch(() => undefined);
  if (!info) return 'the API server does not serve events.k8s.io/v1';
  try {
    await new ResourceListerWatcher(kube.client, info, { namespace }).list({ limit: 1 }, signal);
    return undefined;
  } catch (err) {
    const e = toCliError(err, { server: kube.connection.server, user: kube.connection.userName });
    // Unreachable or unauthorised altogether: the whole command fails with it, as every command does.
    if (!isForbidden(err)) throw e;
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Two scrapes a second apart (rates need two): every answering source's queues, or why none
 * answered, and the scrapes themselves (an operator's queue over that second).
 */
async function readQueues(
  poller: MetricsPoller,
  signal: AbortSignal,
): Promise<{ queues: Seen<QueueRow[]>; scrapes: { before: Map<string, TimedScrape>; after: Map<string, TimedScrape> } }> {
  const scrapes = { before: new Map<string, TimedScrape>(), after: new Map<string, TimedScrape>() };
  const keep = (snap: MetricsSnapshot, into: Map<string, TimedScrape>): void => {
    for (const s of snap.sources) {
      const scrape = s.ok ? poller.lastScrape(s.source) : undefined;
      if (scrape) into.set(s.source, scrape);
    }
  };
  keep(await poller.pollOnce(signal), scrapes.before);
  await new Promise((r) => setTimeout(r, 1_000));
  const snap = await poller.pollOnce(signal);
  keep(snap, scrapes.after);
  const answered = snap.sources.filter((s) => s.ok && s.stats);
  if (answered.length === 0) return { queues: { seen: false, why: snap.sources.map((s) => `${s.source}: ${s.error ?? 'no answer'}`).join('; ') }, scrapes };
  return { queues: { seen: true, value: answered.flatMap((s) => s.stats!.queues) }, scrapes };
}
