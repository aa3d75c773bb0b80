/** One line per check saying what it asks: "restart; converge ≤ 1m, hop ≤ 20s". */
import { formatDuration } from '../util/duration.js';
import { formatValue, queueLimitName } from './limits.js';
import type { CheckSpec, QueueLimit } from './types.js';

function queueLimits(what: 'depth' | 'retry rate', limits: readonly QueueLimit[], unit: 'count' | 'per-second'): string[] {
  return limits.map((l) => `${queueLimitName(what, l)} ≤ ${formatValue(l.limit, unit)}`);
}

export function describeSpec(spec: CheckSpec): string {
  switch (spec.kind) {
    case 'rollout': {
      const limits = [
        spec.maxConvergeMs !== undefined ? `converge ≤ ${formatDuration(spec.maxConvergeMs)}` : `converge within ${formatDuration(spec.timeoutMs)}`,
        ...(spec.maxHopMs !== undefined ? [`hop ≤ ${formatDuration(spec.maxHopMs)}`] : []),
      ];
      const t = spec.trigger;
      const trigger = t.kind === 'restart' ? 'restart' : t.kind === 'scale' ? `scale to ${t.replicas}` : `apply ${t.file === '-' ? 'stdin' : t.file}`;
      return `${trigger}; ${limits.join(', ')}`;
    }
    case 'set': {
      const files = spec.files.map((f) => (f === '-' ? 'stdin' : f)).join(', ');
      const what = spec.select
        ? `watch the objects -l ${spec.select.labelSelector} selects among ${spec.select.kinds.length ? spec.select.kinds.join(', ') : 'the kinds of kubectl get all'}`
        : `${spec.watch ? 'watch' : 'apply'} ${spec.objects.length} objects from ${files}`;
      return `${what}; each ready ${spec.maxConvergeMs !== undefined ? `≤ ${formatDuration(spec.maxConvergeMs)}` : `within ${formatDuration(spec.timeoutMs)}`}`;
    }
    case 'lease': {
      const limits = [
        ...(spec.maxRenewAgeMs !== undefined ? [`renew age ≤ ${formatDuration(spec.maxRenewAgeMs)}`] : []),
        ...(spec.maxTransitions !== undefined ? [`transitions ≤ ${spec.maxTransitions}`] : []),
      ];
      return `watch ${formatDuration(spec.windowMs)}; ${limits.join(', ')}`;
    }
    case 'queue': {
      const limits = [...queueLimits('depth', spec.maxDepth, 'count'), ...queueLimits('retry rate', spec.maxRetryRate, 'per-second')];
      return `scrape over ${formatDuration(spec.windowMs)} (every ${formatDuration(spec.sampleIntervalMs)}); ${limits.join(', ')}`;
    }
    case 'controller': {
      const limits = ['a leader throughout', ...queueLimits('depth', spec.maxDepth, 'count'), ...queueLimits('retry rate', spec.maxRetryRate, 'per-second')];
      return `watch ${spec.controller} for ${formatDuration(spec.windowMs)}; ${limits.join(', ')}`;
    }
  }
}
