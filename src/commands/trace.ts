/**
 * `kubectl informer-trace TYPE/NAME`: trace the reconcile chain from a change to Pod status.
 * Read-only unless a trigger flag asks for a write (--annotate, --restart, --scale, --burst); without
 * one it watches for a change someone else makes.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { durationFlag } from '../cli/duration-flag.js';
import { connectionFlags } from '../cli/connection-flags.js';
import { interactive, type CommandIO } from '../cli/io.js';
import { requireFolderOf } from '../cli/output-file.js';
import { listItems } from '../cli/options.js';
import { addMetricsFlags, planMetrics, type MetricsFlagValues, type MetricsPlan } from '../cli/metrics-flags.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { DEFAULT_GRACE_MS, readControllerBehind, type ControllerBehind, type Diagnosis } from '../diagnose/index.js';
import { connect, groupResource, type Kube, type KubeObject, type ResourceInfo } from '../kube/index.js';
import { resolveOtlpTarget, type OtlpTarget } from '../output/otlp-target.js';
import { SVG_MAX_LANES, waterfallSvg } from '../output/svg.js';
import { chainFromCaches, diagnoseChainWithController } from '../diagnose/chain.js';
import { manifestNamespace, parseManifest, resolveManifest } from '../trace/manifest.js';
import { TraceSession } from '../trace/session.js';
import { isCustomResource } from '../trace/child-discovery.js';
import { DEFAULT_COALESCE_MS, type TraceSnapshot, type TraceTarget } from '../trace/tracer.js';
import type { HealthRules } from '../trace/health-rules.js';
import { defaultHealthRulesPath } from '../trace/health-rules-path.js';
import type { TriggerRequest } from '../trace/triggers.js';
import type { TraceOutcome } from '../trace/types.js';
import type { DiagnosisFeed, PushedDiagnosis } from '../tui/trace-app.js';
import { formatDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { summarise } from '../view/trace-view.js';
import { buildWaterfallView } from '../view/waterfall-view.js';
import { traceMetrics, type TraceMetrics } from './trace-metrics.js';
import { traceSink, type TraceOutput } from './trace-sinks.js';

/** How long the look-up of the operator behind a custom resource may take at the end of a trace. */
const CONTROLLER_LOOKUP_MS = 5_000;

export interface TraceOptions extends MetricsFlagValues {
  namespace?: string;
  annotate?: string;
  restart?: boolean;
  scale?: string;
  burst?: string;
  apply?: boolean;
  filename?: string;
  watch?: boolean;
  timeout: string;
  output?: TraceOutput;
  svg?: string;
  exitOnConverge?: boolean;
  coalesce: string;
  settle: string;
  children?: string;
  ready?: string;
  healthRules?: string;
  syncTimeout: string;
  metricsInterval?: string;
  otlpEndpoint?: string;
  stall?: string;
}

export function addTraceOptions(cmd: Command): Command {
  addMetricsFlags(cmd, "scrape controllers' workqueue metrics: a queues pane in the TUI, and the controller queue's adds after a --burst");
  return cmd
    .option('--metrics-interval <duration>', 'how often --metrics sources are scraped for the TUI', '2s')
    .option('--annotate <key=value>', 'write: set an annotation on the target (metadata only; no rollout follows)')
    .option('--restart', 'write: restart the rollout as `kubectl rollout restart` does (pod-template annotation)')
    .option('--scale <replicas>', 'write: set spec.replicas')
    .option('--burst <n>', 'write: N rapid annotations, to show how the workqueue collapses them')
    .option('--apply', 'write: apply the manifest of -f server-side, as `kubectl apply --server-side` does (the target may not exist yet)')
    .option('-f, --filename <file>', 'the manifest for --apply: one object, YAML or JSON; - reads stdin')
    .option('-w, --watch', 'no write: trace the next change someone else makes (the default without a trigger)')
    .option('--timeout <duration>', 'how long to wait for convergence before giving up (exit 1)', '2m')
    .addOption(
      new Option(
        '-o, --output <format>',
        'output: tui on a terminal, else table; json/yaml print the finished trace, ndjson streams events, waterfall draws it',
      ).choices(['tui', 'table', 'json', 'yaml', 'ndjson', 'waterfall']),
    )
    .option('--svg <file>', 'when the trace ends, also write its waterfall to FILE as a self-contained SVG')
    .option('--coalesce <duration>', 'events for the target within this window collapse into one reconcile', `${DEFAULT_COALESCE_MS}ms`)
    .option('--settle <duration>', 'after a metadata-only change, how long to watch for a rollout before saying none follows', '3s')
    .option(
      '--children <kinds>',
      'child resource types to follow, comma-separated, instead of those found through discovery for kinds the tool does not know (CRDs)',
    )
    .option('--ready <expr>', 'the target is converged when this CEL expression over it is true (e.g. "status.phase == \'Running\'")')
    .option(
      '--health-rules <file>',
      "readiness rules per apiVersion and kind, as CEL expressions in the shape of Flux's healthCheckExprs (default: $XDG_CONFIG_HOME/informer-trace/health-rules.yaml when it exists)",
    )
    .option('--sync-timeout <duration>', 'how long to wait for the informer caches to sync', '60s')
    .option(
      '--stall <duration>',
      'when no new hop arrives for this long before the trace ends, print a diagnosis of where the chain is stuck (on screen in the TUI; one is given at a timeout either way)',
    )
    .option('--exit-on-converge', 'tui: leave the screen when the trace ends (converged, failed, timed out) instead of waiting for q')
    .option(
      '--otlp-endpoint <url>',
      'also export the finished trace as OpenTelemetry spans over OTLP/HTTP to this base URL (/v1/traces is added); OTEL_EXPORTER_OTLP_ENDPOINT works too',
    );
}

/** An --apply is planned with its file; the manifest is read when the command runs. */
type PlannedTrigger = Exclude<TriggerRequest, { kind: 'apply' }> | { kind: 'apply'; file: string };

interface Plan {
  trigger: PlannedTrigger;
  timeoutMs: number;
  coalesceMs: number;
  settleMs: number;
  syncTimeoutMs: number;
  metrics: MetricsPlan;
  metricsIntervalMs: number;
  stallMs: number | undefined;
}

const duration = durationFlag;

function positiveInt(flag: string, v: string, min: number): number {
  if (!/^\d+$/.test(v) || Number(v) < min) throw new UsageError(`${flag} must be a whole number ≥ ${min} (got "${v}")`);
  return Number(v);
}

export function planTrace(opts: TraceOptions): Plan {
  const chosen = [
    opts.annotate !== undefined && '--annotate',
    opts.restart && '--restart',
    opts.scale !== undefined && '--scale',
    opts.burst !== undefined && '--burst',
    opts.apply && '--apply',
    opts.watch && '--watch',
  ].filter(Boolean);
  if (chosen.length > 1) throw new UsageError(`choose one trigger; got ${chosen.join(' and ')}`);
  if (opts.apply && opts.filename === undefined) throw new UsageError('--apply needs the manifest: -f FILE, or -f - for stdin');
  if (!opts.apply && opts.filename !== undefined) throw new UsageError('-f gives the manifest of --apply; add --apply to apply it');
  let trigger: PlannedTrigger = { kind: 'watch' };
  if (opts.annotate !== undefined) {
    const eq = opts.annotate.indexOf('=');
    if (eq <= 0) throw new UsageError(`--annotate "${opts.annotate}" is not KEY=VALUE`, { hint: 'e.g. --annotate example.com/touched=now' });
    const key = opts.annotate.slice(0, eq);
    if (!/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(key))
      throw new UsageError(`--annotate: "${key}" is not a valid annotation key`);
    trigger = { kind: 'annotate', key, value: opts.annotate.slice(eq + 1) };
  } else if (opts.restart) trigger = { kind: 'restart' };
  else if (opts.scale !== undefined) trigger = { kind: 'scale', replicas: positiveInt('--scale', opts.scale, 0) };
  else if (opts.burst !== undefined) trigger = { kind: 'burst', count: positiveInt('--burst', opts.burst, 2) };
  else if (opts.apply) trigger = { kind: 'apply', file: opts.filename! };
  return {
    trigger,
    timeoutMs: duration('--timeout', opts.timeout),
    coalesceMs: duration('--coalesce', opts.coalesce),
    settleMs: duration('--settle', opts.settle),
    syncTimeoutMs: duration('--sync-timeout', opts.syncTimeout) || 60_000,
    metrics: planMetrics(opts),
    metricsIntervalMs: metricsInterval(opts.metricsInterval),
    stallMs: stallFlag(opts.stall),
  };
}

function stallFlag(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const ms = duration('--stall', v);
  if (ms <= 0) throw new UsageError('--stall must be a positive duration, e.g. 20s');
  return ms;
}

function metricsInterval(v: string | undefined): number {
  const ms = v === undefined ? 2_000 : duration('--metrics-interval', v);
  if (ms <= 0) throw new UsageError('--metrics-interval must be a positive duration, e.g. 2s');
  return ms;
}

/** `deploy/web`, `deployments.apps/web`, or `deploy web`. */
export function splitTarget(first: string, second: string | undefined): { type: string; name: string } {
  if (first.includes('/')) {
    if (second !== undefined) throw new UsageError(`give the target as TYPE/NAME or TYPE NAME, not both ("${first} ${second}")`);
    const i = first.indexOf('/');
    const type = first.slice(0, i);
    const name = first.slice(i + 1);
    if (!type || !name || name.includes('/')) throw new UsageError(`"${first}" is not TYPE/NAME`, { hint: 'e.g. deployment/web, deploy/web, sts/db' });
    return { type, name };
  }
  if (second === undefined) throw new UsageError(`"${first}" names a type but no object`, { hint: `e.g. kubectl informer-trace ${first}/NAME` });
  return { type: first, name: second };
}

/** The finished trace as OpenTelemetry spans; a failed export is said, and does not change the exit code. */
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
  const exporter = TraceSpanExporter.otlp(target, {
    serviceName: 'kubectl-informer-trace',
    env,
    resource: {
      'k8s.cluster.name': kube.connection.contextName,
      ...(snap.target.namespace ? { 'k8s.namespace.name': snap.target.namespace } : {}),
      [`k8s.${snap.target.kind.toLowerCase()}.name`]: snap.target.name,
      'server.address': kube.connection.server,
    },
  });
  try {
    const sent = await exporter.export(snap, endedAt);
    log(`exported trace ${sent.traceId} (${sent.spans} spans) to ${target.url}`);
  } catch (err) {
    log(`warning: the trace could not be exported to ${target.url}: ${(err as Error).message}`);
  } finally {
    await exporter.shutdown();
  }
}

/** --ready, --health-rules, or the config folder's rules file; the CEL evaluator is loaded only for them. */
async function userHealthRules(opts: TraceOptions, env: NodeJS.ProcessEnv): Promise<HealthRules | undefined> {
  if (opts.ready === undefined && opts.healthRules === undefined && !existsSync(defaultHealthRulesPath(env))) return undefined;
  const { loadHealthRules } = await import('../trace/health-rules.js');
  return loadHealthRules({ ready: opts.ready, file: opts.healthRules, env });
}

const exitFor: Record<TraceOutcome, ExitCode> = {
  converged: ExitCode.Ok,
  'no-rollout': ExitCode.Ok,
  deleted: ExitCode.Ok,
  timeout: ExitCode.CheckFailed,
  failed: ExitCode.CheckFailed,
  interrupted: ExitCode.Interrupted,
};

/** Reads the manifest of --apply from its file or stdin. */
async function readManifest(io: CommandIO, file: string): Promise<{ manifest: KubeObject; source: string }> {
  if (file === '-') {
    if (!io.stdin) throw new UsageError('-f -: there is no stdin to read the manifest from');
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    return { manifest: parseManifest(Buffer.concat(chunks).toString('utf8'), 'stdin'), source: 'stdin' };
  }
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`-f ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  return { manifest: parseManifest(text, file), source: file };
}

interface ResolvedTarget {
  info: ResourceInfo;
  namespace: string | undefined;
  name: string;
  trigger: TriggerRequest;
}

/** The target named on the command line, or by the manifest of --apply (which must agree with it). */
async function resolveTarget(
  io: CommandIO,
  kube: Kube,
  first: string | undefined,
  second: string | undefined,
  planned: PlannedTrigger,
  opts: TraceOptions,
): Promise<ResolvedTarget> {
  const named = first === undefined ? undefined : splitTarget(first, second);
  if (planned.kind !== 'apply') {
    if (!named) throw new UsageError('name the object to trace: TYPE/NAME', { hint: 'e.g. kubectl informer-trace deploy/web --restart' });
    const info = await kube.discovery.resolve(named.type);
    return { info, namespace: info.namespaced ? kube.connection.namespace : undefined, name: named.name, trigger: planned };
  }
  const { manifest, source } = await readManifest(io, planned.file);
  manifestNamespace(manifest, source, undefined, opts.namespace);
  const { info, namespace, name, manifest: applied } = await resolveManifest(kube, manifest, source, kube.connection.namespace);
  if (named) {
    const given = await kube.discovery.resolve(named.type);
    if (given.group !== info.group || given.resource !== info.resource || named.name !== name) {
      throw new UsageError(`${source} holds ${groupResource(info)}/${name}, not the ${groupResource(given)}/${named.name} named on the command line`);
    }
  }
  return { info, namespace, name, trigger: { kind: 'apply', manifest: applied, source } };
}

export async function runTrace(
  io: CommandIO,
  first: string | undefined,
  second: string | undefined,
  opts: TraceOptions & Record<string, unknown>,
  setExitCode: (c: ExitCode) => void,
): Promise<void> {
  const plan = planTrace(opts);
  const output = opts.output ?? (interactive(io) ? 'tui' : 'table');
  if (opts.svg !== undefined) requireFolderOf('--svg', opts.svg);
  const otlp = resolveOtlpTarget(opts.otlpEndpoint, io.env);
  const healthRules = await userHealthRules(opts, io.env);
  const kube = connect(connectionFlags(opts));
  const { info, namespace, name, trigger } = await resolveTarget(io, kube, first, second, plan.trigger, opts);
  const extraChildren: ResourceInfo[] = [];
  for (const k of listItems(opts.children)) extraChildren.push(await kube.discovery.resolve(k));
  // One line each; the cluster's words in it (an informer's warning, an error's message) escaped.
  const log = (line: string): void => void io.stderr.write(`${escapeTerminal(line)}\n`);
  const target: TraceTarget = { info, namespace, name };
  const session = new TraceSession({
    kube,
    target,
    extraChildren,
    healthRules,
    coalesceMs: plan.coalesceMs,
    settleMs: plan.settleMs,
    trigger,
    // Only an explicit --watch waits for a target to be created: without a trigger flag, a name
    // that does not exist is more likely a typo, said at once.
    waitForTarget: opts.watch === true,
    timeoutMs: plan.timeoutMs,
    syncTimeoutMs: plan.syncTimeoutMs,
    signal: io.signal,
    onInformerEvent: (e, phase) => {
      if ((e.level === 'warning' || e.level === 'error') && (phase === 'sync' || output !== 'tui')) log(`${e.level}: ${e.message}`);
    },
  });
  const sink = traceSink(output, io, plan.coalesceMs);
  try {
    await session.start();
    sink.started(session);
    const metrics = plan.metrics.specs.length > 0 ? traceMetrics(kube, plan.metrics, opts, plan.metricsIntervalMs, log) : undefined;
    if (metrics) await metrics.baseline(session.signal);
    if (metrics && output === 'tui') void metrics.poller.run(session.signal);
    if (plan.trigger.kind === 'watch') {
      const wait = `(timeout ${formatDuration(plan.timeoutMs)})…`;
      log(
        session.targetExists() ? `watching ${info.kind}/${name} for a change ${wait}` : `waiting for ${info.kind.toLowerCase()}/${name} to be created ${wait}`,
      );
    }
    const fired = await session.fire();
    if (fired && sink.saysWrite) log(`wrote: ${fired.wrote} (resourceVersion ${fired.resourceVersion})`);
    if (isCustomResource(info)) noteUnknownReadiness(session, target, plan.settleMs, log);
    // Where the chain is stuck: on a stall (--stall), and when the trace times out or fails. A step
    // unchanged for the stall time (or half the timeout) counts as stuck.
    let diagnosis: Diagnosis | undefined;
    // With the controller behind a custom resource, which the end reuses rather than scrape and list again.
    const diagnoseFull = async () =>
      diagnoseChainWithController(kube, session.caches(), target, {
        graceMs: Math.min(DEFAULT_GRACE_MS, plan.stallMs ?? plan.timeoutMs / 2),
        scrapes: await metrics?.sinceBaseline(session.signal),
        signal: session.signal,
      });
    const diagnoseNow = async (): Promise<Diagnosis> => (await diagnoseFull()).diagnosis;
    // The TUI holds stderr back until it exits: there the diagnoses go on screen instead.
    const toScreen = new Set<(p: PushedDiagnosis) => void>();
    const diagnoses: DiagnosisFeed = {
      diagnose: diagnoseNow,
      subscribe: (fn) => (toScreen.add(fn), () => void toScreen.delete(fn)),
      controller: isCustomResource(info) ? () => controllerBehind(kube, session, target, metrics, () => undefined) : undefined,
    };
    const show = (d: Diagnosis, why: string, ended = false): void => {
      for (const fn of toScreen) fn({ diagnosis: d, why, ended });
    };
    let atEnd: Promise<Awaited<ReturnType<typeof diagnoseFull>> | undefined> | undefined;
    if (output === 'tui') {
      void session.ended.then(() => {
        const outcome = session.snapshot().outcome;
        if (outcome !== 'timeout' && outcome !== 'failed') return;
        atEnd = diagnoseFull().then(
          (d) => (show(d.diagnosis, outcome === 'timeout' ? `timed out after ${formatDuration(plan.timeoutMs)}` : 'the trace failed', true), d),
          (err: unknown) => (log(`warning: no diagnosis: ${(err as Error).message}`), undefined),
        );
      });
    }
    if (plan.stallMs !== undefined) {
      session.onStall(plan.stallMs, (stall) => {
        diagnoseNow().then(
          (d) => {
            diagnosis = d;
            show(d, `no new hop for ${formatDuration(stall.sinceMs)}`);
            sink.stalled(d, stall.sinceMs);
          },
          (err: unknown) => log(`warning: no diagnosis: ${(err as Error).message}`),
        );
      });
    }

    if (output === 'tui') {
      const { runTraceTui } = await import('../tui/trace-app.js');
      const reason = await runTraceTui(session, session.ended, io, io.signal, metrics?.poller, { exitOnEnd: opts.exitOnConverge === true, diagnoses });
      if (reason !== 'ended') session.stop('interrupted', reason === 'quit' ? 'quit' : 'interrupted');
    }
    await session.finish();
    if (metrics && plan.trigger.kind === 'burst' && !session.signal.aborted) await metrics.afterBurst(session.tracer, info.kind, session.signal);
    const snap = session.snapshot();
    if (otlp) await exportTrace(otlp, snap, session.endedAt ?? Date.now(), kube, io.env, log);
    const sum = summarise(snap, Date.now());
    // Not converged: where it is stuck now (after an interrupt, the last stall's diagnosis if any;
    // in the TUI, the one it showed at the end).
    let diagnosedAtEnd: Awaited<ReturnType<typeof diagnoseFull>> | undefined;
    if (snap.outcome === 'timeout' || snap.outcome === 'failed') {
      diagnosedAtEnd = atEnd ? await atEnd : await diagnoseFull().catch((err: unknown) => (log(`warning: no diagnosis: ${(err as Error).message}`), undefined));
      if (diagnosedAtEnd) diagnosis = diagnosedAtEnd.diagnosis;
    }
    const stuck = snap.outcome === 'timeout' || snap.outcome === 'failed' || snap.outcome === 'interrupted' ? diagnosis : undefined;
    const controller =
      isCustomResource(info) && !io.signal?.aborted
        ? diagnosedAtEnd
          ? diagnosedAtEnd.controller
          : await controllerBehind(kube, session, target, metrics, log)
        : undefined;
    sink.end({ snap, summary: sum, stuck, controller, now: Date.now() });
    const outcome = snap.outcome ?? 'interrupted';
    if (outcome === 'timeout') log(`timed out after ${formatDuration(plan.timeoutMs)} with ${snap.hops.length} hops seen`);
    let exitCode = exitFor[outcome];
    if (opts.svg !== undefined) {
      try {
        writeFileSync(opts.svg, waterfallSvg(buildWaterfallView(snap, { maxLanes: SVG_MAX_LANES })));
        log(`wrote the waterfall SVG to ${opts.svg}`);
      } catch (err) {
        log(`error: could not write --svg ${opts.svg}: ${(err as Error).message}`);
        if (exitCode === ExitCode.Ok) exitCode = ExitCode.Usage;
      }
    }
    setExitCode(exitCode);
  } finally {
    sink.close();
    session.close();
  }
}

/**
 * A custom resource whose status nobody has written within the settle time: its readiness is
 * unknown until a controller writes one, said once with how to define it, and the trace goes on.
 */
function noteUnknownReadiness(session: TraceSession, target: TraceTarget, settleMs: number, log: (line: string) => void): void {
  const timer = setTimeout(() => {
    if (session.snapshot().outcome !== undefined) return;
    const obj = chainFromCaches(session.caches(), target).object;
    if (!obj || Object.keys((obj.status ?? {}) as object).length > 0) return;
    log(
      `note: no controller has written the status of ${target.info.kind}/${target.name} within ${formatDuration(settleMs)}: its readiness is unknown until one does; if none ever will, say when it is ready with --ready EXPR or --health-rules FILE`,
    );
  }, settleMs);
  timer.unref();
  void session.ended.then(() => clearTimeout(timer));
}

/** The operator behind a custom resource at the end of its trace; a failure to find it is said, not fatal. */
async function controllerBehind(
  kube: Kube,
  session: TraceSession,
  target: TraceTarget,
  metrics: TraceMetrics | undefined,
  log: (line: string) => void,
): Promise<ControllerBehind | undefined> {
  const signal = AbortSignal.timeout(CONTROLLER_LOOKUP_MS);
  try {
    const scrapes = await metrics?.sinceBaseline(signal);
    return (await readControllerBehind(kube, target.info.kind, chainFromCaches(session.caches(), target).object, { scrapes, signal })).behind;
  } catch (err) {
    log(`warning: the controller behind ${target.info.kind}/${target.name} could not be read: ${(err as Error).message}`);
    return undefined;
  }
}
