/**
 * `kubectl informer-trace TYPE/NAME`: trace the reconcile chain from a change to Pod status.
 * Read-only unless a trigger flag asks for a write (--annotate, --restart, --scale, --burst); without
 * one it watches for a change someone else makes.
 */
import type { Command } from 'commander';
import { connectionFlags } from '../cli/connection-flags.js';
import { chooseOutput, outputOption } from '../cli/output-format.js';
import { readStdin, say, type CommandIO } from '../cli/io.js';
import { isFolder, readObjectFiles, requireApplicable, type SourcedObject } from '../cli/object-files.js';
import { addMetricsFlags, planMetrics, type MetricsFlagValues, type MetricsPlan } from '../cli/metrics-flags.js';
import { addReadinessFlags, readinessFromFlags, type ReadinessFlagValues } from '../cli/readiness-flags.js';
import {
  collectItems,
  durationFlag,
  listItems,
  positiveDurationFlag,
  requireFolderOf,
  syncTimeoutFlag,
  watchSelectorFlag,
  wholeNumberFlag,
} from '../cli/options.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { connect, groupResource, type ConnectionFlags, type Kube, type KubeObject, type ResourceInfo } from '../kube/index.js';
import { resolveOtlpTarget } from '../output/otlp-target.js';
import {
  DEFAULT_COALESCE_MS,
  isCustomResource,
  manifestNamespace,
  resolveManifest,
  selection,
  type TraceOutcome,
  TraceSession,
  type TraceTarget,
  type TriggerRequest,
} from '../trace/index.js';
import { formatDuration } from '../util/duration.js';
import { summarise } from '../view/trace-view.js';
import { TraceDiagnoses } from './trace-diagnosis.js';
import { operatorTraceMetrics, traceMetrics } from './trace-metrics.js';
import { runTraceSet, type SetOutput, type SetPlan } from './trace-set.js';
import { TRACE_SINKS, traceArtifacts, traceSink, type TraceArtifacts, type TraceOutput } from './trace-sinks.js';

export interface TraceOptions extends MetricsFlagValues, ReadinessFlagValues {
  namespace?: string;
  annotate?: string;
  restart?: boolean;
  scale?: string;
  burst?: string;
  apply?: boolean;
  filename?: string[];
  recursive?: boolean;
  failFast?: boolean;
  watch?: boolean;
  selector?: string;
  timeout: string;
  output?: TraceOutput;
  svg?: string;
  exitOnConverge?: boolean;
  coalesce: string;
  settle: string;
  children?: string;
  syncTimeout: string;
  metricsInterval?: string;
  otlpEndpoint?: string;
  stall?: string;
}

export function addTraceOptions(cmd: Command): Command {
  addMetricsFlags(cmd, "scrape controllers' workqueue metrics: a queues pane in the TUI, and the controller queue's adds after a --burst");
  addReadinessFlags(cmd);
  return cmd
    .option('--metrics-interval <duration>', 'how often --metrics sources are scraped for the TUI', '2s')
    .option('--annotate <key=value>', 'write: set an annotation on the target (metadata only; no rollout follows)')
    .option('--restart', 'write: restart the rollout as `kubectl rollout restart` does (pod-template annotation)')
    .option('--scale <replicas>', 'write: set spec.replicas')
    .option('--burst <n>', 'write: N rapid annotations, to show how the workqueue collapses them')
    .option(
      '--apply',
      'write: apply the objects of -f server-side, as `kubectl apply --server-side` does, and trace each to its readiness (one object: its chain; several: every chain at once)',
    )
    .option(
      '-f, --filename <file>',
      'the objects for --apply: a file, a folder of them, or - for stdin; YAML (several documents), JSON or a List (repeatable, or comma-separated)',
      collectItems,
      [],
    )
    .option('-R, --recursive', "-f: read a folder's subfolders too")
    .option('--fail-fast', 'several objects: end as soon as one fails or is refused, instead of waiting for the others')
    .option('-w, --watch', 'no write: trace the next change someone else makes (the default without a trigger)')
    .option(
      '-l, --selector <selector>',
      '--watch: the objects with these labels (e.g. app.kubernetes.io/instance=shop) among the kinds of `kubectl get all`, or of TYPE[,TYPE…]; objects the change creates join',
    )
    .option('--timeout <duration>', 'how long to wait for convergence before giving up (exit 1)', '2m')
    .addOption(
      outputOption(TRACE_SINKS, 'output: tui on a terminal, else table; json/yaml print the finished trace, ndjson streams events, waterfall draws it'),
    )
    .option('--svg <file>', 'when the trace ends, also write its waterfall to FILE as a self-contained SVG')
    .option('--coalesce <duration>', 'events for the target within this window collapse into one reconcile', `${DEFAULT_COALESCE_MS}ms`)
    .option('--settle <duration>', 'after a metadata-only change, how long to watch for a rollout before saying none follows', '3s')
    .option(
      '--children <kinds>',
      'child resource types to follow, comma-separated, instead of those found through discovery for kinds the tool does not know (CRDs)',
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
type PlannedTrigger =
  | Exclude<TriggerRequest, { kind: 'apply' | 'watch' }>
  | { kind: 'apply'; files: string[]; recursive: boolean }
  /** Without files: the object named on the command line; with them (--watch -f), those objects; with a selector (--watch -l), those it selects. */
  | { kind: 'watch'; files?: string[]; recursive?: boolean; selector?: string };

/** Every flag of the trace, parsed and checked before any request is sent. */
interface Plan extends TraceArtifacts {
  trigger: PlannedTrigger;
  output: TraceOutput;
  connection: ConnectionFlags;
  timeoutMs: number;
  coalesceMs: number;
  settleMs: number;
  syncTimeoutMs: number;
  metrics: MetricsPlan;
  metricsIntervalMs: number;
  stallMs: number | undefined;
  /** --children, as written; resolved through discovery. */
  children: string[];
  /** --ready and --health-rules: the readiness engine is built from them. */
  health: ReadinessFlagValues;
  /** Only an explicit --watch waits for a target to be created: without a trigger flag, a name that does not exist is more likely a typo, said at once. */
  waitForTarget: boolean;
  exitOnEnd: boolean;
  /** Several objects: end at the first that fails. */
  failFast: boolean;
}

function plannedTrigger(opts: TraceOptions): PlannedTrigger {
  const chosen = [
    opts.annotate !== undefined && '--annotate',
    opts.restart && '--restart',
    opts.scale !== undefined && '--scale',
    opts.burst !== undefined && '--burst',
    opts.apply && '--apply',
    opts.watch && '--watch',
  ].filter(Boolean);
  if (chosen.length > 1) throw new UsageError(`choose one trigger; got ${chosen.join(' and ')}`);
  const files = opts.filename ?? [];
  if (opts.apply && files.length === 0) throw new UsageError('--apply needs the objects: -f FILE or -f DIR (repeatable), or -f - for stdin');
  if (!opts.apply && !opts.watch && files.length > 0)
    throw new UsageError('-f gives the objects of --apply (or of --watch); add --apply to apply them, or --watch to trace the next change to them');
  if (files.length === 0 && opts.recursive) throw new UsageError('-R reads the folders of -f; it goes with --apply -f or --watch -f');
  if (opts.selector !== undefined) {
    if (!opts.watch) throw new UsageError('-l picks the objects of --watch; add --watch to trace the next change to the objects it selects');
    return { kind: 'watch', selector: watchSelectorFlag(opts.selector, files) };
  }
  if (opts.annotate !== undefined) {
    const eq = opts.annotate.indexOf('=');
    if (eq <= 0) throw new UsageError(`--annotate "${opts.annotate}" is not KEY=VALUE`, { hint: 'e.g. --annotate example.com/touched=now' });
    const key = opts.annotate.slice(0, eq);
    if (!/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(key))
      throw new UsageError(`--annotate: "${key}" is not a valid annotation key`);
    return { kind: 'annotate', key, value: opts.annotate.slice(eq + 1) };
  }
  if (opts.restart) return { kind: 'restart' };
  if (opts.scale !== undefined) return { kind: 'scale', replicas: wholeNumberFlag('--scale', opts.scale, 0) };
  if (opts.burst !== undefined) return { kind: 'burst', count: wholeNumberFlag('--burst', opts.burst, 2) };
  if (opts.apply) return { kind: 'apply', files, recursive: opts.recursive === true };
  if (files.length > 0) return { kind: 'watch', files, recursive: opts.recursive === true };
  return { kind: 'watch' };
}

export function planTrace(opts: TraceOptions, io: Pick<CommandIO, 'stdout' | 'env'>): Plan {
  const checked = {
    trigger: plannedTrigger(opts),
    timeoutMs: durationFlag('--timeout', opts.timeout),
    coalesceMs: durationFlag('--coalesce', opts.coalesce),
    settleMs: durationFlag('--settle', opts.settle),
    syncTimeoutMs: syncTimeoutFlag(opts.syncTimeout),
    metrics: planMetrics(opts),
    metricsIntervalMs: positiveDurationFlag('--metrics-interval', opts.metricsInterval, '2s') ?? 2_000,
    stallMs: positiveDurationFlag('--stall', opts.stall, '20s'),
  };
  if (opts.svg !== undefined) requireFolderOf('--svg', opts.svg);
  return {
    ...checked,
    output: chooseOutput(TRACE_SINKS, opts.output, 'table', io),
    connection: connectionFlags(opts),
    svg: opts.svg,
    otlp: resolveOtlpTarget(opts.otlpEndpoint, io.env),
    children: listItems(opts.children),
    health: { ready: opts.ready, healthRules: opts.healthRules },
    waitForTarget: opts.watch === true,
    exitOnEnd: opts.exitOnConverge === true,
    failFast: opts.failFast === true,
  };
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

const exitFor: Record<TraceOutcome, ExitCode> = {
  converged: ExitCode.Ok,
  'no-rollout': ExitCode.Ok,
  deleted: ExitCode.Ok,
  timeout: ExitCode.CheckFailed,
  failed: ExitCode.CheckFailed,
  interrupted: ExitCode.Interrupted,
};

/**
 * The objects of --apply, every file read and checked before anything is written: each needs a
 * name (one line naming the file and the document otherwise).
 */
async function readApplyObjects(io: CommandIO, files: string[], recursive: boolean): Promise<SourcedObject[]> {
  const stdin = files.includes('-') ? await readStdin(io) : undefined;
  return requireApplicable(readObjectFiles(files, { recursive, stdin }), files);
}

/** A set (several objects, or a folder, which may hold more another day) is traced object by object at once. */
function isSet(files: string[], objects: SourcedObject[]): boolean {
  return objects.length > 1 || files.some(isFolder);
}

interface ResolvedTarget {
  info: ResourceInfo;
  namespace: string | undefined;
  name: string;
  trigger: TriggerRequest;
}

/** The target named on the command line, or by the manifest of --apply (which must agree with it). */
async function resolveTarget(
  kube: Kube,
  first: string | undefined,
  second: string | undefined,
  planned: PlannedTrigger,
  namespaceFlag: string | undefined,
  object: SourcedObject | undefined,
): Promise<ResolvedTarget> {
  const named = first === undefined ? undefined : splitTarget(first, second);
  if (planned.kind !== 'apply') {
    if (!named) throw new UsageError('name the object to trace: TYPE/NAME', { hint: 'e.g. kubectl informer-trace deploy/web --restart' });
    const info = await kube.discovery.resolve(named.type);
    return { info, namespace: info.namespaced ? kube.connection.namespace : undefined, name: named.name, trigger: planned };
  }
  const { obj: manifest, file: source } = object!;
  manifestNamespace(manifest, source, undefined, namespaceFlag);
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
  const plan = planTrace(opts, io);
  const t = plan.trigger;
  const withFiles = t.kind === 'apply' || t.kind === 'watch' ? t : undefined;
  const files = withFiles?.files;
  const objects = files ? await readApplyObjects(io, files, withFiles?.recursive === true) : undefined;
  if (t.kind === 'watch' && t.selector !== undefined) {
    setExitCode(await traceSelection(io, plan, t.selector, first, second));
    return;
  }
  // A set: several objects to apply, or any to watch (--watch -f).
  if (files && objects && (t.kind === 'watch' || isSet(files, objects))) {
    setExitCode(await traceSet(io, plan, objects, first, t.kind === 'watch'));
    return;
  }
  if (plan.failFast) throw new UsageError('--fail-fast ends a set of objects at the first that fails; it goes with --apply -f of several objects');
  const readiness = await readinessFromFlags(plan.health, io.env);
  const kube = connect(plan.connection);
  const { info, namespace, name, trigger } = await resolveTarget(kube, first, second, plan.trigger, plan.connection.namespace, objects?.[0]);
  const extraChildren: ResourceInfo[] = [];
  for (const k of plan.children) extraChildren.push(await kube.discovery.resolve(k));
  // One line each; the cluster's words in it (an informer's warning, an error's message) escaped.
  const log = (line: string): void => say(io, line);
  const sink = traceSink(plan.output, io, plan.coalesceMs);
  const target: TraceTarget = { info, namespace, name };
  const session = new TraceSession({
    kube,
    target,
    extraChildren,
    readiness,
    coalesceMs: plan.coalesceMs,
    settleMs: plan.settleMs,
    trigger,
    waitForTarget: plan.waitForTarget,
    timeoutMs: plan.timeoutMs,
    syncTimeoutMs: plan.syncTimeoutMs,
    signal: io.signal,
    onInformerEvent: (e, phase) => {
      if ((e.level === 'warning' || e.level === 'error') && (phase === 'sync' || sink.logsWhileRunning)) log(`${e.level}: ${e.message}`);
    },
  });
  try {
    const started = session.start();
    // Without --metrics, a custom resource's operator is looked for from its Lease (what was tried
    // is said in its controller line), as soon as the target's own informer synced: while the
    // children's list, not after them.
    const lookForOperator = plan.metrics.specs.length === 0 && isCustomResource(info);
    const operatorOf = (obj: KubeObject): ReturnType<typeof operatorTraceMetrics> =>
      operatorTraceMetrics(kube, obj, plan.metrics.access, plan.metricsIntervalMs, log, session.signal);
    const early = lookForOperator ? session.targetWhenSynced(started).then((obj) => (obj ? operatorOf(obj) : undefined)) : undefined;
    // Awaited below; when start() fails first, its failure is the one reported.
    early?.catch(() => {});
    await started;
    sink.started(session);
    // A target made after its informer synced (a watch waiting for it) is looked for now.
    const late = session.tracer.targetObject();
    const { metrics, why: noMetrics } =
      plan.metrics.specs.length > 0
        ? { metrics: traceMetrics(kube, plan.metrics, plan.metricsIntervalMs, log), why: undefined }
        : ((await early) ?? (lookForOperator && late ? await operatorOf(late) : { metrics: undefined, why: undefined }));
    await metrics?.baseline(session.signal);
    if (plan.trigger.kind === 'watch') {
      const wait = `(timeout ${formatDuration(plan.timeoutMs)})…`;
      log(
        session.targetExists() ? `watching ${info.kind}/${name} for a change ${wait}` : `waiting for ${info.kind.toLowerCase()}/${name} to be created ${wait}`,
      );
    }
    const fired = await session.fire();
    if (fired && sink.saysWrite) log(`wrote: ${fired.wrote} (resourceVersion ${fired.resourceVersion})`);
    const diagnoses = new TraceDiagnoses({
      kube,
      session,
      target,
      metrics,
      noMetrics,
      timeoutMs: plan.timeoutMs,
      stallMs: plan.stallMs,
      settleMs: plan.settleMs,
      log,
    });
    diagnoses.watch(sink);

    const left = await sink.run(session, { metrics, diagnoses: diagnoses.feed, exitOnEnd: plan.exitOnEnd });
    if (left !== 'ended') session.stop('interrupted', left === 'quit' ? 'quit' : 'interrupted');
    await session.finish();
    if (metrics && plan.metrics.specs.length > 0 && plan.trigger.kind === 'burst' && !session.signal.aborted)
      await metrics.afterBurst(session.tracer, info, session.signal);
    const snap = session.snapshot();
    const { stuck, controller } = await diagnoses.atEnd(snap.outcome, io.signal?.aborted === true);
    sink.end({ snap, summary: summarise(snap, Date.now()), stuck, controller, now: Date.now() });
    const outcome = snap.outcome ?? 'interrupted';
    if (outcome === 'timeout') log(`timed out after ${formatDuration(plan.timeoutMs)} with ${snap.hops.length} hops seen`);
    setExitCode(await traceArtifacts(plan, snap, session.endedAt ?? Date.now(), kube, io.env, exitFor[outcome], log));
  } finally {
    sink.close();
    session.close();
  }
}

const SET_OUTPUTS: readonly SetOutput[] = ['tui', 'table', 'json', 'yaml', 'ndjson'];

/** --apply of several objects: each applied in order and traced to its readiness, all at once. */
async function traceSet(io: CommandIO, plan: Plan, objects: SourcedObject[], first: string | undefined, watch: boolean): Promise<ExitCode> {
  if (first !== undefined) throw new UsageError(`-f holds ${objects.length} objects and every one is traced; leave out ${first}`);
  const output = setOutput(plan, `a set of ${objects.length} objects`);
  for (const o of objects) manifestNamespace(o.obj, `${o.file}: document ${o.document}`, undefined, plan.connection.namespace);
  const readiness = await readinessFromFlags(plan.health, io.env);
  const kube = connect(plan.connection);
  const inputs = objects.map((o) => ({ obj: o.obj, source: `${o.file}: document ${o.document}` }));
  return runTraceSet(io, kube, readiness, inputs, setPlan(plan, output, { watch }));
}

/** --watch -l: the objects the labels select among TYPE[,TYPE…] (the kinds of `kubectl get all` without it), traced through their next change. */
async function traceSelection(io: CommandIO, plan: Plan, labelSelector: string, first: string | undefined, second: string | undefined): Promise<ExitCode> {
  if (second !== undefined || first?.includes('/'))
    throw new UsageError('-l selects the objects to watch; give their kinds as TYPE[,TYPE…] (e.g. deploy,svc), not a NAME');
  const output = setOutput(plan, 'the objects of a selector');
  const readiness = await readinessFromFlags(plan.health, io.env);
  const kube = connect(plan.connection);
  const select = await selection(kube, labelSelector, first !== undefined ? listItems(first) : []);
  return runTraceSet(io, kube, readiness, [], setPlan(plan, output, { watch: true, select }));
}

/** The output of a set: a set has no single trace to draw as a waterfall. */
function setOutput(plan: Plan, what: string): SetOutput {
  if (!(SET_OUTPUTS as readonly string[]).includes(plan.output))
    throw new UsageError(`-o ${plan.output} draws one trace; ${what} is shown as tui, table, json, yaml or ndjson`, {
      hint: 'the TUI opens the waterfall of each object with Enter, then w',
    });
  return plan.output as SetOutput;
}

function setPlan(plan: Plan, output: SetOutput, how: Pick<SetPlan, 'watch' | 'select'>): SetPlan {
  return {
    output,
    exitOnEnd: plan.exitOnEnd,
    timeoutMs: plan.timeoutMs,
    syncTimeoutMs: plan.syncTimeoutMs,
    coalesceMs: plan.coalesceMs,
    settleMs: plan.settleMs,
    failFast: plan.failFast,
    ...how,
  };
}
