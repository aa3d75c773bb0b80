/**
 * Checks from the command line: `--restart deploy/web --max-converge 60s`, `--lease
 * kube-system/kube-controller-manager --max-renew-age 20s`, `--metrics … --max-depth deployment=10`.
 * Every flag is read before anything is sent; a limit without its subject, or a subject without a
 * limit that makes it a check, is a UsageError that says which flag is missing.
 */
import { UsageError } from '../errors.js';
import { parseMetricsSpec } from '../metrics/index.js';
import { readCount, readDuration, readQueueLimit, readRate } from './limits.js';
import type { CheckSpec, LeaseCheckSpec, MetricsAccess, QueueCheckSpec, RolloutCheckSpec, RolloutTrigger } from './types.js';

export const DEFAULT_WINDOW_MS = 60_000;
export const DEFAULT_ROLLOUT_TIMEOUT_MS = 5 * 60_000;

export interface CheckFlagValues {
  restart?: string[];
  scale?: string[];
  maxConverge?: string;
  maxHop?: string;
  timeout?: string;
  lease?: string[];
  maxRenewAge?: string;
  maxTransitions?: string;
  window?: string;
  metrics?: string[];
  maxDepth?: string[];
  maxRetryRate?: string[];
  sampleInterval?: string;
}

function flag<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${name}: ${(err as Error).message}`);
  }
}

/** `deploy/web`, with the namespace optional in front: `demo/deploy/web` is not accepted, -n is. */
export function readTarget(text: string): string {
  const t = text.trim();
  const parts = t.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw new Error(`"${text}" is not TYPE/NAME (e.g. deploy/web, sts/db)`);
  return t;
}

/** `deploy/web=5`. */
export function readScale(text: string): { target: string; replicas: number } {
  const eq = text.lastIndexOf('=');
  if (eq === -1) throw new Error(`"${text}" is not TYPE/NAME=REPLICAS (e.g. deploy/web=5)`);
  return { target: readTarget(text.slice(0, eq)), replicas: readCount(text.slice(eq + 1)) };
}

/** NAMESPACE/NAME, or NAME in the -n namespace. */
export function readLease(text: string): { namespace: string | undefined; name: string } {
  const parts = text.trim().split('/');
  const dns = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
  if (parts.length === 1 && dns.test(parts[0]!)) return { namespace: undefined, name: parts[0]! };
  if (parts.length === 2 && dns.test(parts[0]!) && dns.test(parts[1]!)) return { namespace: parts[0], name: parts[1]! };
  throw new Error(`"${text}" is not a Lease: write NAMESPACE/NAME (e.g. kube-system/kube-controller-manager), or NAME with -n`);
}

/** Default scrape spacing for the highest depth: a sixth of the window, between 1 s and 10 s. */
export function defaultSampleInterval(windowMs: number): number {
  return Math.min(10_000, Math.max(1_000, Math.floor(windowMs / 6)));
}

export function rolloutName(target: string, namespace: string | undefined): string {
  return `rollout ${target}${namespace ? ` in ${namespace}` : ''}`;
}

/** A rollout check as flags and config files both make it: named after its target unless named, timing out after maxConverge unless told. */
export function rolloutSpec(
  fields: Omit<RolloutCheckSpec, 'kind' | 'name' | 'timeoutMs'> & { name?: string | undefined; timeoutMs?: number | undefined },
): RolloutCheckSpec {
  const { target, namespace, maxConvergeMs } = fields;
  return {
    kind: 'rollout',
    name: fields.name ?? rolloutName(target, namespace),
    target,
    namespace,
    trigger: fields.trigger,
    maxConvergeMs,
    maxHopMs: fields.maxHopMs,
    timeoutMs: fields.timeoutMs ?? maxConvergeMs ?? DEFAULT_ROLLOUT_TIMEOUT_MS,
    origin: fields.origin,
  };
}

export function leaseName(namespace: string | undefined, name: string): string {
  return `lease ${namespace ? `${namespace}/` : ''}${name}`;
}

export function queueName(metrics: readonly string[]): string {
  return `queues of ${metrics.join(', ')}`;
}

/** The checks the flags ask for; [] when they ask for none (a --config may). */
export function specsFromFlags(opts: CheckFlagValues, namespace: string | undefined, access: MetricsAccess): CheckSpec[] {
  const origin = { source: 'flags' };
  const specs: CheckSpec[] = [];
  const restarts = opts.restart ?? [];
  const scales = opts.scale ?? [];
  const leases = opts.lease ?? [];
  const metrics = opts.metrics ?? [];
  const maxDepth = (opts.maxDepth ?? []).map((t) => flag('--max-depth', () => readQueueLimit(t, readCount)));
  const maxRetryRate = (opts.maxRetryRate ?? []).map((t) => flag('--max-retry-rate', () => readQueueLimit(t, readRate)));
  const maxConvergeMs = opts.maxConverge === undefined ? undefined : flag('--max-converge', () => readDuration(opts.maxConverge!));
  const maxHopMs = opts.maxHop === undefined ? undefined : flag('--max-hop', () => readDuration(opts.maxHop!));
  const timeoutMs = opts.timeout === undefined ? undefined : flag('--timeout', () => readDuration(opts.timeout!));
  const maxRenewAgeMs = opts.maxRenewAge === undefined ? undefined : flag('--max-renew-age', () => readDuration(opts.maxRenewAge!));
  const maxTransitions = opts.maxTransitions === undefined ? undefined : flag('--max-transitions', () => readCount(opts.maxTransitions!));
  const windowMs = opts.window === undefined ? undefined : flag('--window', () => readDuration(opts.window!));
  const sampleIntervalMs = opts.sampleInterval === undefined ? undefined : flag('--sample-interval', () => readDuration(opts.sampleInterval!));

  const rollouts = restarts.length + scales.length > 0;
  if (!rollouts) {
    for (const [set, name] of [[maxConvergeMs, '--max-converge'], [maxHopMs, '--max-hop'], [timeoutMs, '--timeout']] as const) {
      if (set !== undefined) throw new UsageError(`${name} applies to a rollout check: give --restart TYPE/NAME or --scale TYPE/NAME=N`);
    }
  }
  if (leases.length === 0) {
    for (const [set, name] of [[maxRenewAgeMs, '--max-renew-age'], [maxTransitions, '--max-transitions']] as const) {
      if (set !== undefined) throw new UsageError(`${name} applies to a lease check: give --lease NAMESPACE/NAME`);
    }
  }
  if (metrics.length === 0) {
    for (const [set, name] of [[maxDepth.length || undefined, '--max-depth'], [maxRetryRate.length || undefined, '--max-retry-rate'], [sampleIntervalMs, '--sample-interval']] as const) {
      if (set !== undefined) throw new UsageError(`${name} applies to a queue check: give --metrics SOURCE`);
    }
  }
  if (windowMs !== undefined && leases.length === 0 && metrics.length === 0) {
    throw new UsageError('--window applies to lease and queue checks: give --lease or --metrics');
  }

  const triggers: { target: string; trigger: RolloutTrigger }[] = [
    ...restarts.map((t) => ({ target: flag('--restart', () => readTarget(t)), trigger: { kind: 'restart' } as RolloutTrigger })),
    ...scales.map((t) => {
      const s = flag('--scale', () => readScale(t));
      return { target: s.target, trigger: { kind: 'scale', replicas: s.replicas } as RolloutTrigger };
    }),
  ];
  for (const { target, trigger } of triggers) {
    specs.push(rolloutSpec({ target, namespace, trigger, maxConvergeMs, maxHopMs, timeoutMs, origin }));
  }

  if (leases.length > 0 && maxRenewAgeMs === undefined && maxTransitions === undefined) {
    throw new UsageError('a lease check needs a limit: --max-renew-age DURATION and/or --max-transitions N', { hint: 'e.g. --lease kube-system/kube-controller-manager --max-renew-age 20s --max-transitions 2 --window 5m' });
  }
  for (const text of leases) {
    const l = flag('--lease', () => readLease(text));
    const ns = l.namespace ?? namespace;
    const spec: LeaseCheckSpec = { kind: 'lease', name: leaseName(ns, l.name), namespace: ns, lease: l.name, maxRenewAgeMs, maxTransitions, windowMs: windowMs ?? DEFAULT_WINDOW_MS, origin };
    specs.push(spec);
  }

  if (metrics.length > 0) {
    for (const m of metrics) parseMetricsSpec(m);
    if (maxDepth.length === 0 && maxRetryRate.length === 0) {
      throw new UsageError('a queue check needs a limit: --max-depth [QUEUE=]N and/or --max-retry-rate [QUEUE=]RATE', { hint: 'e.g. --metrics https://127.0.0.1:10257/metrics --max-depth deployment=10 --max-retry-rate 1/s --window 60s' });
    }
    const w = windowMs ?? DEFAULT_WINDOW_MS;
    const spec: QueueCheckSpec = {
      kind: 'queue',
      name: queueName(metrics),
      metrics: [...metrics],
      access,
      maxDepth,
      maxRetryRate,
      windowMs: w,
      sampleIntervalMs: sampleIntervalMs ?? defaultSampleInterval(w),
      origin,
    };
    specs.push(spec);
  }
  return specs;
}
