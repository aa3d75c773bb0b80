import type { Clock } from '../clock.js';
import type { MetricsAccess } from '../metrics/index.js';
import type { Readiness } from '../readiness/index.js';
import type { TraceSnapshot } from '../trace/index.js';

/** What every check runner gets from the command: when to stop, where progress goes, how long to wait for a sync, what time it is. */
export interface RunContext {
  /** Aborts on SIGINT / SIGTERM. */
  signal: AbortSignal;
  /** A progress line for stderr; the caller prefixes the check's name. */
  log: (line: string) => void;
  syncTimeoutMs: number;
  /** The command's readiness engine (--ready, --health-rules, the config folder's file, the library). */
  readiness: Readiness;
  /** Every wait and every timestamp of a check; a fake one in unit tests. */
  clock: Clock;
  /** The command's --metrics and --metrics-* flags: a rollout check of a custom resource reads its operator's queue from them (none given: from its replicas found through its Lease) when it does not converge. */
  operatorMetrics?: { sources: readonly string[]; access: MetricsAccess } | undefined;
  /** With --artifacts DIR: writes this check's files there (a rollout's waterfall SVG); returns the path. */
  artifacts?: { waterfall(snapshot: TraceSnapshot): string } | undefined;
}
