/**
 * The check model: what a check asks for (a spec, from flags or a config file) and what it found
 * (results, one per limit). Plain, serialisable data; every report (text, json, junit, markdown)
 * renders a CheckReport and nothing else.
 */
import type { ExitCode } from '../exit-codes.js';
import type { KubeObject } from '../kube/index.js';
import type { MetricsAccess } from '../metrics/index.js';

export type { MetricsAccess };

export type CheckKind = 'rollout' | 'lease' | 'queue' | 'controller' | 'set';

/** Where a check was defined, for messages that point at it. */
export interface SpecOrigin {
  /** "flags" or the config file's path. */
  source: string;
  line?: number | undefined;
  column?: number | undefined;
}

export type RolloutTrigger =
  | { kind: 'restart' }
  | { kind: 'scale'; replicas: number }
  /** Server-side apply of the manifest read from `file` (- for stdin), which names the target. */
  | { kind: 'apply'; file: string; manifest: KubeObject };

export interface RolloutCheckSpec {
  kind: 'rollout';
  name: string;
  /** TYPE/NAME as the user wrote it: deploy/web, sts/db. */
  target: string;
  /** undefined: the context's namespace. */
  namespace: string | undefined;
  trigger: RolloutTrigger;
  /** Trigger to convergence; undefined: converging within the timeout is the check. */
  maxConvergeMs: number | undefined;
  /** Longest single hop (its time after the hop it follows) up to convergence. */
  maxHopMs: number | undefined;
  /** How long to wait for convergence before giving up. */
  timeoutMs: number;
  origin: SpecOrigin;
}

/** Many objects applied at once (a folder, a chart's rendered output), each held to the limit. */
export interface SetCheckSpec {
  kind: 'set';
  name: string;
  /** The -f paths, as given. */
  files: string[];
  objects: { obj: KubeObject; source: string }[];
  /** Where an object without a namespace lands; undefined: the context's. */
  namespace: string | undefined;
  /** Each object's write to its readiness; undefined: being ready within the timeout is the check. */
  maxConvergeMs: number | undefined;
  timeoutMs: number;
  /**
   * --watch: nothing is written; the next change someone else makes to the objects (a `helm
   * upgrade` in another step) is checked: `objects`' own, or, with `select`, those of the objects
   * its labels select among its kinds (TYPE names; none: the kinds of `kubectl get all`).
   */
  watch?: boolean | undefined;
  select?: { labelSelector: string; kinds: string[] } | undefined;
  origin: SpecOrigin;
}

export interface LeaseCheckSpec {
  kind: 'lease';
  name: string;
  /** undefined: the context's namespace. */
  namespace: string | undefined;
  lease: string;
  /** Time since the record last changed (a renewal, a new holder, a release). */
  maxRenewAgeMs: number | undefined;
  /** Holder changes seen within the window. */
  maxTransitions: number | undefined;
  windowMs: number;
  origin: SpecOrigin;
}

/** A per-queue limit: `deployment=10`, or `*` for every queue. */
export interface QueueLimit {
  queue: string;
  limit: number;
  /** As written, for messages: "deployment=10", "1/s". */
  text: string;
}

export interface QueueCheckSpec {
  kind: 'queue';
  name: string;
  /** --metrics specs: apiserver, pod/NS/NAME[:PORT], svc/NS/NAME[:PORT], https://HOST:PORT/metrics. */
  metrics: string[];
  access: MetricsAccess;
  /** Highest workqueue_depth seen in any sample. */
  maxDepth: QueueLimit[];
  /** workqueue_retries_total increase per second between the first and the last scrape. */
  maxRetryRate: QueueLimit[];
  windowMs: number;
  /** Scrapes between the first and the last, for the highest depth. */
  sampleIntervalMs: number;
  origin: SpecOrigin;
}

/** A controller component as `top` joins it: its leader Lease and the leading replica's queues. */
export interface ControllerCheckSpec {
  kind: 'controller';
  name: string;
  /** A component name as `top` shows it (kube-controller-manager), a Lease name, or NAMESPACE/LEASE. */
  controller: string;
  /** Extra --metrics sources (SPEC or COMPONENT=SPEC), as for `top`. */
  metrics: string[];
  access: MetricsAccess;
  maxDepth: QueueLimit[];
  maxRetryRate: QueueLimit[];
  windowMs: number;
  origin: SpecOrigin;
}

export type CheckSpec = RolloutCheckSpec | SetCheckSpec | LeaseCheckSpec | QueueCheckSpec | ControllerCheckSpec;

export type Unit = 'ms' | 'count' | 'per-second';

/**
 * passed / failed: the limit was measured and held or did not. error: it could not be measured
 * (the cluster refused or could not be reached, a bad resource name found only on the server).
 */
export type ResultStatus = 'passed' | 'failed' | 'error';

/** One limit of one check. */
export interface CheckResult {
  /** What was measured: "time to converge", "slowest hop", "renew age", "depth of deployment". */
  name: string;
  passed: boolean;
  status: ResultStatus;
  /** null when nothing could be measured (the rollout never converged, the scrape failed). */
  measured: number | null;
  limit: number | null;
  unit: Unit;
  /** One or two sentences: what was seen, and why it failed when it did. */
  message: string;
  /** For status error: the exit code the error carries (2 usage, 3 cluster, 130 interrupted). */
  exitCode?: ExitCode | undefined;
}

/** A limit checked against what was measured. */
export function checked(name: string, measured: number | null, limit: number | null, unit: Unit, passed: boolean, message: string): CheckResult {
  return { name, passed, status: passed ? 'passed' : 'failed', measured, limit, unit, message };
}

/** A limit nothing could be measured for (the rollout never converged, no queue had the metric): failed, saying why. */
export function unmeasured(name: string, limit: number | null, unit: Unit, message: string): CheckResult {
  return { name, passed: false, status: 'failed', measured: null, limit, unit, message };
}

/** A limit that could not be checked at all (the cluster or the metrics were unreadable, an interrupt): an error with its exit code. */
export function unchecked(name: string, limit: number | null, unit: Unit, message: string, exitCode: ExitCode): CheckResult {
  return { name, passed: false, status: 'error', measured: null, limit, unit, message, exitCode };
}

export interface CheckRun {
  /** The check's name: "rollout deploy/web in demo", or the config's `name:`. */
  name: string;
  kind: CheckKind;
  /** What it was asked to do, in one line: "restart; converge ≤ 60s, hop ≤ 20s". */
  description: string;
  origin: SpecOrigin;
  startedAt: string;
  durationMs: number;
  results: CheckResult[];
  /** Files written for the check with --artifacts DIR: a rollout's waterfall SVG. */
  artifacts?: string[] | undefined;
}

export interface CheckCounts {
  checks: number;
  results: number;
  passed: number;
  failed: number;
  errors: number;
}

export interface CheckReport {
  /** The command that ran: "kubectl informer-trace check". */
  command: string;
  passed: boolean;
  exitCode: ExitCode;
  startedAt: string;
  durationMs: number;
  counts: CheckCounts;
  checks: CheckRun[];
}
