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
 * An engine with everything loaded, the CEL evaluator too: for tools and tests, which judge any
 * kind at once.
 */
export async function createReadiness(o: ReadinessOptions = {}): Promise<Readiness> {
  const engine = await import('./engine.js');
  return engine.createReadiness(o, await engine.loadCompiler());
}

/**
 * The engine a command's flags ask for: `--ready`, the rules files given (`--health-rules FILE`
 * first) and the config folder's file. Loaded on first use: the CEL evaluator only when a rule
 * needs it — at once for `--ready` and rules files, else by prepare() for a kind the library knows —
 * so that commands which judge nothing (lease-watch, queues, top, cache), and traces of built-in
 * kinds, never load it.
 */
export async function loadReadiness(o: { ready?: string | undefined; files?: readonly string[]; env: NodeJS.ProcessEnv }): Promise<Readiness> {
  const engine = await import('./engine.js');
  const files = engine.readRuleFiles(o);
  const compiler = o.ready !== undefined || files.length > 0 ? await engine.loadCompiler() : undefined;
  return engine.createReadiness({ ready: o.ready, files }, compiler);
}

export { defaultHealthRulesPath } from './rules-path.js';
export { conditionOf, conditionsOf, generationOf, managedFieldsTime, phaseOf, saidOf, statusWordsOf, type Condition } from './status-fields.js';
export { isPositiveCondition } from './generic.js';
export { groupKindOf, isBuiltinWorkload } from './builtin.js';
export { describeVerdict, groupOf, isSettled } from './types.js';
export type { Consultation, JudgeOptions, Readiness, ReadinessStatus, RuleLayer, Verdict } from './types.js';
