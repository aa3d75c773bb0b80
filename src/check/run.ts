/**
 * Runs checks together (a rollout, a lease and queues watched over the same minutes) and gathers
 * their results into one CheckReport with its exit code:
 *
 *   130 when interrupted; else 1 when any limit failed; else the first error's code (3 for the
 *   cluster refusing or unreachable, 2 for a name only the server could reject); else 0.
 *
 * A check that throws (403, unreachable, unknown resource type) does not stop the others: its
 * limits become error results carrying the message and hint a user would read.
 */
import { realClock, type Clock } from '../clock.js';
import { CliError, formatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { toCliError, type Kube } from '../kube/index.js';
import { memberLabel, type TraceSnapshot } from '../trace/index.js';
import type { Readiness } from '../readiness/index.js';
import type { RunContext } from './context.js';
import { describeSpec } from './describe.js';
import { runControllerCheck } from './controller.js';
import { runLeaseCheck } from './lease.js';
import { queueLimitName } from './limits.js';
import { runQueueCheck } from './queue.js';
import { runRolloutCheck } from './rollout.js';
import { runSetCheck, setResultName } from './set.js';
import type { CheckReport, CheckResult, CheckRun, CheckSpec, Unit } from './types.js';

/** Writes a check's files for CI; returns the path written. */
export interface CheckArtifacts {
  writeWaterfall(checkName: string, snapshot: TraceSnapshot): string;
}

export interface RunChecksOptions {
  command: string;
  signal: AbortSignal;
  log: (line: string) => void;
  syncTimeoutMs: number;
  /** The command's readiness engine. */
  readiness: Readiness;
  /** Default: the real one. */
  clock?: Clock;
  /** The connection, made once; undefined when no check needs the cluster. */
  kube: Kube | undefined;
  /** Called as each check finishes, for progress lines. */
  onDone?: (run: CheckRun) => void;
  /** --artifacts DIR: where checks write their files (the command makes the folder). */
  artifacts?: CheckArtifacts | undefined;
  /** The command's --metrics, for the operator behind a rollout check's custom resource. */
  operatorMetrics?: RunContext['operatorMetrics'];
}

/** The limits a spec has, for error results when the check could not run at all. */
function limitsOf(spec: CheckSpec): { name: string; limit: number | null; unit: Unit }[] {
  switch (spec.kind) {
    case 'rollout':
      return [
        { name: 'time to converge', limit: spec.maxConvergeMs ?? spec.timeoutMs, unit: 'ms' },
        ...(spec.maxHopMs !== undefined ? [{ name: 'slowest hop', limit: spec.maxHopMs, unit: 'ms' as const }] : []),
      ];
    case 'set':
      if (spec.select) return [{ name: setResultName(`-l ${spec.select.labelSelector}`), limit: spec.maxConvergeMs ?? spec.timeoutMs, unit: 'ms' }];
      return spec.objects.map((o) => ({
        name: setResultName(memberLabel({ kind: o.obj.kind ?? '', name: o.obj.metadata.name ?? '', info: undefined })),
        limit: spec.maxConvergeMs ?? spec.timeoutMs,
        unit: 'ms' as const,
      }));
    case 'lease':
      return [
        ...(spec.maxRenewAgeMs !== undefined ? [{ name: 'renew age', limit: spec.maxRenewAgeMs, unit: 'ms' as const }] : []),
        ...(spec.maxTransitions !== undefined ? [{ name: 'transitions', limit: spec.maxTransitions, unit: 'count' as const }] : []),
      ];
    case 'queue':
      return [
        ...spec.maxDepth.map((l) => ({ name: queueLimitName('depth', l), limit: l.limit, unit: 'count' as const })),
        ...spec.maxRetryRate.map((l) => ({ name: queueLimitName('retry rate', l), limit: l.limit, unit: 'per-second' as const })),
      ];
    case 'controller':
      return [
        { name: 'time without a leader', limit: 0, unit: 'ms' as const },
        ...spec.maxDepth.map((l) => ({ name: queueLimitName('depth', l), limit: l.limit, unit: 'count' as const })),
        ...spec.maxRetryRate.map((l) => ({ name: queueLimitName('retry rate', l), limit: l.limit, unit: 'per-second' as const })),
      ];
  }
}

function errorResults(spec: CheckSpec, err: unknown, interrupted: boolean): CheckResult[] {
  const mapped = toCliError(err);
  const message = interrupted
    ? 'interrupted'
    : formatError(mapped, false)
        .replace(/^error: /, '')
        .replace(/\nhint: /, ' — hint: ');
  const exitCode = interrupted ? ExitCode.Interrupted : mapped instanceof CliError ? mapped.exitCode : ExitCode.Cluster;
  // A missing object is a finding about the cluster (exit 1), not an error of the check.
  const status = exitCode === ExitCode.CheckFailed ? 'failed' : 'error';
  return limitsOf(spec).map((l) => ({ ...l, passed: false, status, measured: null, message, ...(status === 'error' ? { exitCode } : {}) }));
}

async function runOne(spec: CheckSpec, options: RunChecksOptions): Promise<CheckRun> {
  const clock = options.clock ?? realClock;
  const started = clock.now();
  const artifacts: string[] = [];
  const dir = options.artifacts;
  const ctx: RunContext = {
    signal: options.signal,
    syncTimeoutMs: options.syncTimeoutMs,
    readiness: options.readiness,
    operatorMetrics: options.operatorMetrics,
    clock,
    log: (line) => options.log(`${spec.name}: ${line}`),
    artifacts: dir ? { waterfall: (snapshot) => record(artifacts, dir.writeWaterfall(spec.name, snapshot)) } : undefined,
  };
  let results: CheckResult[];
  try {
    switch (spec.kind) {
      case 'rollout':
        results = await runRolloutCheck(need(options.kube), spec, ctx);
        break;
      case 'set':
        results = await runSetCheck(need(options.kube), spec, ctx);
        break;
      case 'lease':
        results = await runLeaseCheck(need(options.kube), spec, ctx);
        break;
      case 'queue':
        results = await runQueueCheck(options.kube, spec, ctx);
        break;
      case 'controller':
        results = await runControllerCheck(need(options.kube), spec, ctx);
        break;
    }
  } catch (err) {
    results = errorResults(spec, err, options.signal.aborted);
  }
  if (options.signal.aborted) {
    results = results.map((r) =>
      r.status === 'failed' ? r : { ...r, passed: false, status: 'error', exitCode: ExitCode.Interrupted, message: `interrupted: ${r.message}` },
    );
  }
  const run: CheckRun = {
    name: spec.name,
    kind: spec.kind,
    description: describeSpec(spec),
    origin: spec.origin,
    startedAt: new Date(started).toISOString(),
    durationMs: clock.now() - started,
    results,
  };
  if (artifacts.length > 0) run.artifacts = artifacts;
  options.onDone?.(run);
  return run;
}

function record(list: string[], path: string): string {
  list.push(path);
  return path;
}

function need(kube: Kube | undefined): Kube {
  if (!kube) throw new Error('this check needs a connection to the cluster');
  return kube;
}

export function exitCodeFor(checks: readonly CheckRun[], interrupted: boolean): ExitCode {
  const results = checks.flatMap((c) => c.results);
  if (interrupted || results.some((r) => r.exitCode === ExitCode.Interrupted)) return ExitCode.Interrupted;
  if (results.some((r) => r.status === 'failed')) return ExitCode.CheckFailed;
  const error = results.find((r) => r.status === 'error');
  if (error) return error.exitCode ?? ExitCode.Cluster;
  return ExitCode.Ok;
}

export function buildReport(command: string, startedAt: number, checks: CheckRun[], interrupted: boolean, now = Date.now()): CheckReport {
  const results = checks.flatMap((c) => c.results);
  const exitCode = exitCodeFor(checks, interrupted);
  return {
    command,
    passed: exitCode === ExitCode.Ok,
    exitCode,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: now - startedAt,
    counts: {
      checks: checks.length,
      results: results.length,
      passed: results.filter((r) => r.status === 'passed').length,
      failed: results.filter((r) => r.status === 'failed').length,
      errors: results.filter((r) => r.status === 'error').length,
    },
    checks,
  };
}

/** Runs every check at once; never rejects. */
export async function runChecks(specs: readonly CheckSpec[], options: RunChecksOptions): Promise<CheckReport> {
  const clock = options.clock ?? realClock;
  const started = clock.now();
  const checks = await Promise.all(specs.map((s) => runOne(s, options)));
  return buildReport(options.command, started, checks, options.signal.aborted, clock.now());
}
