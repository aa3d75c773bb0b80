/**
 * src/readiness: whether an object is ready, in progress, failed or suspended — the one judgement
 * every trace, diagnosis, tree, CI check, probe and `health` stands on.
 *
 * Contract:
 * - One engine per command (createReadiness / loadReadiness), built from the shared flags and handed
 *   to everything that judges; nothing judges around it.
 * - Keyed by API group and kind, never by kind alone: a custom resource named `Job` is not a Job.
 * - Consulted in one order: Terminating, `--ready` (the target only), the user's files, the library
 *   (CEL data, library/<group>.yaml, in Flux's healthCheckExprs shape), the built-in workloads, kinds
 *   without readiness, the generic rules. The verdict names the rule that decided and its file.
 * - Never Current when the object's own status says it is failing, aborted, degraded or not ready.
 * - Pure: no I/O after it is built (the rules files are read once, by loadReadiness), no clock.
 */
import type { ReadinessOptions } from './engine.js';
import type { Readiness } from './types.js';

export type { ReadinessOptions } from './engine.js';

/**
 * The engine for these rules. Loaded on first use: the CEL evaluator it compiles rules with is a
 * large module that commands which judge nothing (lease-watch, queues, top, cache) never load.
 */
export async function createReadiness(o: ReadinessOptions = {}): Promise<Readiness> {
  return (await import('./engine.js')).createReadiness(o);
}

/** The engine a command's flags ask for (engine.ts, loadReadiness): `--ready`, the rules files given and the config folder's file. */
export async function loadReadiness(o: { ready?: string | undefined; files?: readonly string[]; env: NodeJS.ProcessEnv }): Promise<Readiness> {
  return (await import('./engine.js')).loadReadiness(o);
}
export { defaultHealthRulesPath } from './rules-path.js';
export { conditionOf, conditionsOf, generationOf, managedFieldsTime, phaseOf, saidOf, statusWordsOf, type Condition } from './status-fields.js';
export { isPositiveCondition } from './generic.js';
export { isBuiltinWorkload } from './builtin.js';
export { describeVerdict, groupOf, isSettled } from './types.js';
export type { Consultation, GroupKind, JudgeOptions, Readiness, ReadinessStatus, RuleLayer, Verdict } from './types.js';
