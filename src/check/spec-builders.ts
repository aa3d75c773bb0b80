/**
 * A check spec of each kind as flags and config files both make it: its default name, window,
 * timeout and sample spacing. The readers (flags.ts, config.ts) only read and check what the user
 * wrote; what a check is made of is decided here, once.
 */
import type { LeaseCheckSpec, MetricsAccess, QueueCheckSpec, QueueLimit, RolloutCheckSpec, SetCheckSpec, SpecOrigin } from './types.js';

export const DEFAULT_WINDOW_MS = 60_000;
export const DEFAULT_ROLLOUT_TIMEOUT_MS = 5 * 60_000;

/** Default scrape spacing for the highest depth: a sixth of the window, between 1 s and 10 s. */
export function defaultSampleInterval(windowMs: number): number {
  return Math.min(10_000, Math.max(1_000, Math.floor(windowMs / 6)));
}

/** A rollout check: named after its target unless named, timing out after maxConverge unless told. */
export function rolloutSpec(
  fields: Omit<RolloutCheckSpec, 'kind' | 'name' | 'timeoutMs'> & { name?: string | undefined; timeoutMs?: number | undefined },
): RolloutCheckSpec {
  const { target, namespace, maxConvergeMs } = fields;
  return {
    kind: 'rollout',
    name: fields.name ?? `rollout ${target}${namespace ? ` in ${namespace}` : ''}`,
    target,
    namespace,
    trigger: fields.trigger,
    maxConvergeMs,
    maxHopMs: fields.maxHopMs,
    timeoutMs: fields.timeoutMs ?? maxConvergeMs ?? DEFAULT_ROLLOUT_TIMEOUT_MS,
    origin: fields.origin,
  };
}

/** A set check: named after its files (or its selector), timing out after maxConverge unless told. */
export function setSpec(fields: Omit<SetCheckSpec, 'kind' | 'name' | 'timeoutMs'> & { timeoutMs?: number | undefined }): SetCheckSpec {
  const what = fields.select ? `-l ${fields.select.labelSelector}` : fields.files.map((f) => (f === '-' ? 'stdin' : f)).join(', ');
  return {
    kind: 'set',
    name: `${fields.watch ? 'watch' : 'apply'} ${what}${fields.namespace ? ` in ${fields.namespace}` : ''}`,
    files: fields.files,
    objects: fields.objects,
    namespace: fields.namespace,
    maxConvergeMs: fields.maxConvergeMs,
    timeoutMs: fields.timeoutMs ?? fields.maxConvergeMs ?? DEFAULT_ROLLOUT_TIMEOUT_MS,
    ...(fields.watch ? { watch: true } : {}),
    ...(fields.select ? { select: fields.select } : {}),
    origin: fields.origin,
  };
}

/** A lease check: in the lease's own namespace when it names one, else in `namespace`. */
export function leaseSpec(fields: {
  name?: string | undefined;
  lease: { namespace: string | undefined; name: string };
  namespace: string | undefined;
  maxRenewAgeMs: number | undefined;
  maxTransitions: number | undefined;
  windowMs?: number | undefined;
  origin: SpecOrigin;
}): LeaseCheckSpec {
  const namespace = fields.lease.namespace ?? fields.namespace;
  return {
    kind: 'lease',
    name: fields.name ?? `lease ${namespace ? `${namespace}/` : ''}${fields.lease.name}`,
    namespace,
    lease: fields.lease.name,
    maxRenewAgeMs: fields.maxRenewAgeMs,
    maxTransitions: fields.maxTransitions,
    windowMs: fields.windowMs ?? DEFAULT_WINDOW_MS,
    origin: fields.origin,
  };
}

/** A queue check over every source in `metrics`. */
export function queueSpec(fields: {
  name?: string | undefined;
  metrics: readonly string[];
  access: MetricsAccess;
  maxDepth: QueueLimit[];
  maxRetryRate: QueueLimit[];
  windowMs?: number | undefined;
  sampleIntervalMs?: number | undefined;
  origin: SpecOrigin;
}): QueueCheckSpec {
  const windowMs = fields.windowMs ?? DEFAULT_WINDOW_MS;
  return {
    kind: 'queue',
    name: fields.name ?? `queues of ${fields.metrics.join(', ')}`,
    metrics: [...fields.metrics],
    access: fields.access,
    maxDepth: fields.maxDepth,
    maxRetryRate: fields.maxRetryRate,
    windowMs,
    sampleIntervalMs: fields.sampleIntervalMs ?? defaultSampleInterval(windowMs),
    origin: fields.origin,
  };
}
