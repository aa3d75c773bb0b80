/**
 * src/check: the measurements as assertions, for CI (`kubectl informer-trace check`,
 * `kubectl lease-watch check`).
 *
 * - Specs first: every check comes from flags or a YAML file as a plain CheckSpec, read and checked
 *   in full before any request; a config problem names its file, line and column.
 * - One result per limit: {name, passed, status, measured, limit, unit, message}. `measured` is null
 *   when nothing could be measured; `status` tells a limit that failed from one that could not be
 *   measured (an error, carrying its exit code).
 * - Runners reuse the machinery: rollouts the Tracer, leases the LeaseObserver behind an informer,
 *   queues src/metrics' sources, MultiScraper and computeQueueStats.
 * - Together: all checks of a run start at once and watch the same minutes; one that throws does
 *   not stop the others.
 * - Monotone limits end early: a rollout at its --max-converge, a lease once its renew age or
 *   transitions are over the limit. Waiting longer could not make them pass.
 * - Reports are renderings of one CheckReport (src/output: check-text, junit, markdown; json/yaml).
 */
export type { ConfigDefaults, ConfigProblem } from './config.js';
export { describeSpec } from './describe.js';
export type { CheckFlagValues, ManifestInputs } from './flags.js';
export { readCheckPlan, readCheckSpecs, type SpecInputs } from './specs.js';
export { formatValue, readCount, readDuration, readQueueLimit, readRate } from './limits.js';
export { LeaseWindow, runLeaseCheck } from './lease.js';
export { evaluateQueues, runQueueCheck, type SourceSamples } from './queue.js';
export { describeStuck, evaluateRollout, runRolloutCheck } from './rollout.js';
export { buildReport, exitCodeFor, runChecks, type RunChecksOptions } from './run.js';
export type { RunContext } from './context.js';
export type * from './types.js';
