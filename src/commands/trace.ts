/**
 * `kubectl informer-trace TYPE/NAME`: trace the reconcile chain from a change to Pod status.
 * Read-only unless a trigger flag asks for a write (--annotate, --restart, --scale, --burst); without
 * one it watches for a change someone else makes.
 */
import { Option, type Command } from 'commander';
import { durationFlag } from '../cli/duration-flag.js';
import { connectionFlags } from '../cli/connection-flags.js';
import { interactive, type CommandIO } from '../cli/io.js';
import { addMetricsFlags, planMetrics, type MetricsFlagValues, type MetricsPlan } from '../cli/metrics-flags.js';
import { CheckFailedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { connect, groupResource, ResourceListerWatcher, type Kube, type KubeObject, type ResourceInfo } from '../kube/index.js';
import { renderStructured } from '../output/format.js';
import { traceEventText, traceSummaryText, treeText } from '../output/trace-text.js';
import { Tracer, type TriggerRequest } from '../trace/tracer.js';
import type { TraceOutcome } from '../trace/types.js';
import { closest } from '../util/suggest.js';
import { formatDuration } from '../util/duration.js';
import { summarise } from '../view/trace-view.js';
import { runUntilSynced } from './informer-session.js';
import { traceMetrics } from './trace-metrics.js';

export interface TraceOptions extends MetricsFlagValues {
  namespace?: string;
  annotate?: string;
  restart?: boolean;
  scale?: string;
  burst?: string;
  watch?: boolean;
  timeout: string;
  output?: 'tui' | 'table' | 'json' | 'yaml' | 'ndjson';
  coalesce: string;
  settle: string;
  children?: string;
  syncTimeout: string;
  metricsInterval?: string;
}

export function addTraceOptions(cmd: Command): Command {
  addMetricsFlags(cmd, "scrape controllers' workqueue metrics: a queues pane in the TUI, and the controller queue's adds after a --burst");
  return cmd
    .option('--metrics-interval <duration>', 'how often --metrics sources are scraped for the TUI', '2s')
    .option('--annotate <key=value>', 'write: set an annotation on the target (metadata only; no rollout follows)')
    .option('--restart', 'write: restart the rollout as `kubectl rollout restart` does (pod-template annotation)')
    .option('--scale <replicas>', 'write: set spec.replicas')
    .option('--burst <n>', 'write: N rapid annotations, to show how the workqueue collapses them')
    .option('-w, --watch', 'no write: trace the next change someone else makes (the default without a trigger)')
    .option('--timeout <duration>', 'how long to wait for convergence before giving up (exit 1)', '2m')
    .addOption(new Option('-o, --output <format>', 'output: tui on a terminal, else table; json/yaml print the finished trace, ndjson streams events').choices(['tui', 'table', 'json', 'yaml', 'ndjson']))
    .option('--coalesce <duration>', 'events for the target within this window collapse into one reconcile', '50ms')
    .option('--settle <duration>', 'after a metadata-only change, how long to watch for a rollout before saying none follows', '3s')
    .option('--children <kinds>', 'child resource types to follow for kinds the tool does not know (CRDs), comma-separated')
    .option('--sync-timeout <duration>', 'how long to wait for the informer caches to sync', '60s');
}

interface Plan {
  trigger: TriggerRequest;
  timeoutMs: number;
  coalesceMs: number;
  settleMs: number;
  syncTimeoutMs: number;
  metrics: MetricsPlan;
  metricsIntervalMs: number;
}

const duration = durationFlag;

function positiveInt(flag: string, v: string, min: number): number {
  if (!/^\d+$/.test(v) || Number(v) < min) throw new UsageError(`${flag} must be a whole number ≥ ${min} (got "${v}")`);
  return Number(v);
}

export function planTrace(opts: TraceOptions): Plan {
  const chosen = [opts.annotate !== undefined && '--annotate', opts.restart && '--restart', opts.scale !== undefined && '--scale', opts.burst !== undefined && '--burst', opts.watch && '--watch'].filter(Boolean);
  if (chosen.length > 1) throw new UsageError(`choose one trigger; got ${chosen.join(' and ')}`);
  let trigger: TriggerRequest = { kind: 'watch' };
  if (opts.annotate !== undefined) {
    const eq = opts.annotate.indexOf('=');
    if (eq <= 0) throw new UsageError(`--annotate "${opts.annotate}" is not KEY=VALUE`, { hint: 'e.g. --annotate example.com/touched=now' });
    const key = opts.annotate.slice(0, eq);
    if (!/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(key)) throw new UsageError(`--annotate: "${key}" is not a valid annotation key`);
    trigger = { kind: 'annotate', key, value: opts.annotate.slice(eq + 1) };
  } else if (opts.restart) trigger = { kind: 'restart' };
  else if (opts.scale !== undefined) trigger = { kind: 'scale', replicas: positiveInt('--scale', opts.scale, 0) };
  else if (opts.burst !== undefined) trigger = { kind: 'burst', count: positiveInt('--burst', opts.burst, 2) };
  return {
    trigger,
    timeoutMs: duration('--timeout', opts.timeout),
    coalesceMs: duration('--coalesce', opts.coalesce),
    settleMs: duration('--settle', opts.settle),
    syncTimeoutMs: duration('--sync-timeout', opts.syncTimeout) || 60_000,
    metrics: planMetrics(opts),
    metricsIntervalMs: metricsInterval(opts.metricsInterval),
  };
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

async function findTarget(kube: Kube, info: ResourceInfo, namespace: string | undefined, name: string): Promise<KubeObject> {
  const lw = new ResourceListerWatcher(kube.client, info, { namespace, fieldSelector: `metadata.name=${name}` });
  const list = await lw.list({ limit: 1 });
  if (list.items[0]) return list.items[0];
  const all = await new ResourceListerWatcher(kube.client, info, { namespace }).list({ limit: 500 }).catch(() => undefined);
  const near = closest(name, (all?.items ?? []).map((o) => o.metadata.name ?? ''), 3);
  throw new CheckFailedError(`${groupResource(info)} "${name}" not found${namespace ? ` in namespace ${namespace}` : ''}`, {
    hint: near.length ? `did you mean ${near.map((n) => `"${n}"`).join(', ')}?` : `kubectl get ${groupResource(info)}${namespace ? ` -n ${namespace}` : ''} lists what there is`,
  });
}

const exitFor: Record<TraceOutcome, ExitCode> = {
  converged: ExitCode.Ok,
  'no-rollout': ExitCode.Ok,
  deleted: ExitCode.Ok,
  timeout: ExitCode.CheckFailed,
  failed: ExitCode.CheckFailed,
  interrupted: ExitCode.Interrupted,
};

export async function runTrace(io: CommandIO, first: string, second: string | undefined, opts: TraceOptions & Record<string, unknown>, setExitCode: (c: ExitCode) => void): Promise<void> {
  const plan = planTrace(opts);
  const target = splitTarget(first, second);
  const output = opts.output ?? (interactive(io) ? 'tui' : 'table');
  const kube = connect(connectionFlags(opts));
  const info = await kube.discovery.resolve(target.type);
  const namespace = info.namespaced ? kube.connection.namespace : undefined;
  await findTarget(kube, info, namespace, target.name);
  const extraChildren: ResourceInfo[] = [];
  for (const k of (opts.children ?? '').split(',').map((s) => s.trim()).filter(Boolean)) extraChildren.push(await kube.discovery.resolve(k));

  const tracer = new Tracer({ kube, target: { info, namespace, name: target.name }, extraChildren, coalesceMs: plan.coalesceMs, settleMs: plan.settleMs });
  await tracer.addEventsInformer();
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  io.signal.addEventListener('abort', stop, { once: true });
  const log = (line: string): void => void io.stderr.write(`${line}\n`);
  try {
    await tracer.start(controller.signal, (informers) =>
      runUntilSynced(kube, informers, {
        signal: controller.signal,
        timeoutMs: plan.syncTimeoutMs,
        onEvent: (e) => {
          if (e.level === 'warning' || e.level === 'error') log(`${e.level}: ${e.message}`);
        },
      }),
    );
    // Informer trouble after sync (a watch broke, a 410, the API server restarted) is said, not hidden.
    for (const inf of tracer.informers()) inf.onEvent((e) => {
      if ((e.level === 'warning' || e.level === 'error') && output !== 'tui') log(`${e.level}: ${e.message}`);
    });
    if (output === 'ndjson') tracer.subscribe((e) => void io.stdout.write(`${JSON.stringify(e)}\n`));
    if (output === 'table') {
      io.stdout.write(`${treeText(tracer.snapshot())}\n\n`);
      tracer.subscribe((e) => {
        const line = traceEventText(e);
        if (line) io.stdout.write(`${line}\n`);
      });
    }
    if (plan.trigger.kind === 'watch') log(`watching ${info.kind}/${target.name} for a change (timeout ${formatDuration(plan.timeoutMs)})…`);
    const metrics = plan.metrics.specs.length > 0 ? traceMetrics(kube, plan.metrics, opts, plan.metricsIntervalMs, log) : undefined;
    if (metrics && plan.trigger.kind === 'burst') await metrics.beforeBurst(controller.signal);
    if (metrics && output === 'tui') void metrics.poller.run(controller.signal);
    const fired = await tracer.fire(plan.trigger, controller.signal);
    if (fired && output !== 'ndjson' && output !== 'table') log(`wrote: ${fired.wrote} (resourceVersion ${fired.resourceVersion})`);

    const timer = setTimeout(() => tracer.stop('timeout', `no convergence within ${formatDuration(plan.timeoutMs)}`), plan.timeoutMs);
    const onAbort = (): void => tracer.stop('interrupted', 'interrupted');
    io.signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (output === 'tui') {
        const { runTraceTui } = await import('../tui/trace-tui.js');
        const reason = await runTraceTui(tracer, tracer.ended, io, io.signal, metrics?.poller);
        if (reason === 'quit') tracer.stop('interrupted', 'quit');
      } else {
        await tracer.ended;
      }
    } finally {
      clearTimeout(timer);
      io.signal.removeEventListener('abort', onAbort);
    }
    // Let late Events attach to their hops before the final report.
    await new Promise((r) => setTimeout(r, 200));
    if (metrics && plan.trigger.kind === 'burst' && !controller.signal.aborted) await metrics.afterBurst(tracer, info.kind, controller.signal);
    const snap = tracer.snapshot();
    const sum = summarise(snap, Date.now());
    if (output === 'json' || output === 'yaml') io.stdout.write(renderStructured({ summary: sum, ...snap }, output));
    else if (output === 'ndjson') io.stdout.write(`${JSON.stringify({ type: 'summary', summary: sum })}\n`);
    else if (output === 'table') io.stdout.write(`\n${traceSummaryText(snap)}`);
    else io.stderr.write(`${sum.target}: ${sum.outcome}${sum.message ? ` — ${sum.message}` : ''}\n`);
    const outcome = snap.outcome ?? 'interrupted';
    if (outcome === 'timeout') log(`timed out after ${formatDuration(plan.timeoutMs)} with ${snap.hops.length} hops seen`);
    setExitCode(exitFor[outcome]);
  } finally {
    io.signal.removeEventListener('abort', stop);
    controller.abort();
  }
}

