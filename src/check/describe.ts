/** One line per check saying what it asks: "restart; converge ≤ 1m, hop ≤ 20s". */
import { formatDuration } from '../util/duration.js';
import { formatValue } from './limits.js';
import type { CheckSpec, QueueLimit } from './types.js';

function queueLimits(what: string, limits: readonly QueueLimit[], unit: 'count' | 'per-second'): string[] {
  return limits.map((l) => `${what}${l.queue === '*' ? '' : ` of ${l.queue}`} ≤ ${formatValue(l.limit, unit)}`);
}

export function describeSpec(spec: CheckSpec): string {
  switch (spec.kind) {
    case 'rollout': {
      const limits = [
        spec.maxConvergeMs !== undefined ? `converge ≤ ${formatDuration(spec.maxConvergeMs)}` : `converge within ${formatDuration(spec.timeoutMs)}`,
        ...(spec.maxHopMs !== undefined ? [`hop ≤ ${formatDuration(spec.maxHopMs)}`] : []),
      ];
      const trigger = spec.trigger.kind === 'restart' ? 'restart' : `scale to ${spec.trigger.replicas}`;
      return `${trigger}; ${limits.join(', ')}`;
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
  }
}
