/**
 * Readiness rules as CEL expressions per API group and kind, in the shape of Flux's Kustomization
 * `spec.healthCheckExprs` (`current`, `inProgress`, `failed`), plus one field of ours, `suspended`.
 * The user's rules files and the built-in library (library/*.yaml) are both read here.
 *
 * Contract:
 * - Each expression sees the object's top-level fields as variables (`apiVersion`, `kind`,
 *   `metadata`, `spec`, `status`; a missing `spec` or `status` is `{}`), with CEL's standard
 *   functions and the strings extension, as Flux's do.
 * - A rule is keyed by the group of its `apiVersion` (the version is not compared, as Flux keys its
 *   readers by group and kind) and its kind. A group `*.example.com` matches every group ending in
 *   `.example.com`, `*` any group; a kind `*` any kind. The most specific rule decides: an exact
 *   group before a wildcard one (the longer suffix first), an exact kind before `*`.
 * - Evaluated as Flux evaluates: an `observedGeneration` (a number or a numeric string) that is not
 *   `metadata.generation` is InProgress; then `inProgress`, `failed`, `current`, the first true one
 *   decides; none true is InProgress. `suspended`, when given, is tested first.
 * - An expression that cannot be evaluated on the object (a field it does not have yet) counts as
 *   false, and the error is kept in the detail.
 * - Every expression of a user's file is compiled when the file is read: one that does not parse is
 *   a UsageError (exit 2) of one line naming the file, the rule, the field and the line:column.
 */
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../errors.js';
import type { KubeObject } from '../kube/index.js';
import { summarize } from './generic.js';
import { generationOf, managedFieldsTime } from './status-fields.js';
import type { ReadinessStatus, RuleLayer, Verdict } from './types.js';

const FIELDS = ['suspended', 'inProgress', 'failed', 'current'] as const;
type Field = (typeof FIELDS)[number];

/** An expression compiled: its value on an object, false with the error when it cannot be evaluated. */
export type Compiled = (obj: KubeObject) => { value: boolean; error?: string };

/**
 * Compiles one expression; `where` names it in the error (a UsageError of one line). The CEL
 * evaluator is a large module: cel-compile.ts holds it, loaded only when a rule needs it.
 */
export type Compiler = (expr: string, where: string) => Compiled;

/** A rule as written: the expressions are compiled on first use (the library) or at once (a user's file). */
export interface CelRule {
  apiVersion: string;
  kind: string;
  /** `cert-manager.io Certificate`: how a verdict names the rule. */
  name: string;
  group: string;
  expressions: Partial<Record<Field, string>>;
  /** The file it came from, when a set gathers several. */
  source?: string;
}

export interface CelRuleSet {
  layer: RuleLayer;
  /** The file the rules came from. */
  source: string;
  rules: CelRule[];
}

/** Rules from a YAML or JSON document (a list, or `{ healthCheckExprs: [...] }`); `source` names it in errors. */
export function parseRuleFile(text: string, source: string, layer: RuleLayer): CelRuleSet {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new UsageError(`${source}: not YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const list = Array.isArray(doc) ? doc : (doc as { healthCheckExprs?: unknown; spec?: { healthCheckExprs?: unknown } } | null)?.healthCheckExprs;
  const fromSpec = (doc as { spec?: { healthCheckExprs?: unknown } } | null)?.spec?.healthCheckExprs;
  const entries = Array.isArray(list) ? list : Array.isArray(fromSpec) ? fromSpec : undefined;
  if (!entries) throw new UsageError(`${source}: expected a list of rules (apiVersion, kind, current, inProgress, failed)`);
  const rules = entries.map((entry: unknown, i): CelRule => {
    const e = (entry ?? {}) as Record<string, unknown>;
    if (typeof e.apiVersion !== 'string' || typeof e.kind !== 'string') throw new UsageError(`${source}: rule ${i + 1}: needs apiVersion and kind`);
    const slash = e.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : e.apiVersion.slice(0, slash);
    const name = `${group || 'core'} ${e.kind}`;
    const expressions: CelRule['expressions'] = {};
    for (const f of FIELDS) {
      if (e[f] === undefined) continue;
      if (typeof e[f] !== 'string') throw new UsageError(`${source}: rule ${e.apiVersion} ${e.kind}: ${f} must be a CEL expression (a string)`);
      expressions[f] = e[f];
    }
    if (!expressions.current) throw new UsageError(`${source}: rule ${e.apiVersion} ${e.kind}: needs a current expression`);
    return { apiVersion: e.apiVersion, kind: e.kind, name, group, expressions };
  });
  return { layer, source, rules };
}

/** How specific a rule's key is: higher decides first. */
export function specificity(r: CelRule): number {
  const groupScore = r.group === '*' ? 0 : r.group.startsWith('*.') ? r.group.length : 10_000;
  return groupScore * 2 + (r.kind === '*' ? 0 : 1);
}

function groupMatches(pattern: string, group: string): boolean {
  if (pattern === '*') return true;
  if (pattern.startsWith('*.')) return group.endsWith(pattern.slice(1));
  return pattern === group;
}

/** A rule set compiled, ready to judge: `match` finds the rule for a group and kind, `evaluate` applies it. */
export interface CompiledRules {
  readonly set: CelRuleSet;
  /** The rule that decides for this group and kind, if any. */
  match(group: string, kind: string): CelRule | undefined;
  /** The verdict of `rule` on `obj`. */
  evaluate(rule: CelRule, obj: KubeObject): Verdict;
  /** Compiles every expression now (a user's file at load; the library's test). */
  compileAll(): void;
}

/**
 * `set`, matched by group and kind; its expressions compiled on first use by the compiler
 * `compiler()` gives, which must have been loaded by then.
 */
export function compileRules(set: CelRuleSet, compiler: () => Compiler | undefined): CompiledRules {
  const compiled = new Map<CelRule, Partial<Record<Field, Compiled>>>();
  const byKey = new Map<string, CelRule | null>();
  const ordered = [...set.rules].sort((a, b) => specificity(b) - specificity(a));
  const compiledOf = (rule: CelRule): Partial<Record<Field, Compiled>> => {
    let c = compiled.get(rule);
    if (!c) {
      c = {};
      const compile = compiler();
      if (!compile)
        throw new Error(
          `readiness: the CEL evaluator is not loaded for ${rule.source ?? set.source} ${rule.apiVersion} ${rule.kind} (prepare the engine for its kinds first)`,
        );
      for (const f of FIELDS) {
        const expr = rule.expressions[f];
        if (expr !== undefined)
          c[f] = compile(expr, set.layer === 'ready' ? '--ready' : `${rule.source ?? set.source}: rule ${rule.apiVersion} ${rule.kind}, ${f}`);
      }
      compiled.set(rule, c);
    }
    return c;
  };
  return {
    set,
    match(group, kind) {
      const key = `${group}/${kind}`;
      let r = byKey.get(key);
      if (r === undefined) {
        r = ordered.find((x) => groupMatches(x.group, group) && (x.kind === '*' || x.kind === kind)) ?? null;
        byKey.set(key, r);
      }
      return r ?? undefined;
    },
    evaluate(rule, obj) {
      const c = compiledOf(rule);
      const errors: string[] = [];
      const base = { rule: rule.name, layer: set.layer, source: rule.source ?? set.source };
      const said = (status: ReadinessStatus, why: string): Verdict => {
        const summary = summarize(obj);
        const notEvaluated = errors.length ? `; not evaluated: ${errors.join('; ')}` : '';
        // When the status has been as it is: the transition of the condition that says most, else
        // its last write (an operator that rewrites its status every reconcile moves that one on).
        const since = summary.condition?.lastTransitionTime
          ? { serverTime: summary.condition.lastTransitionTime, serverTimeSource: `${summary.condition.type} lastTransitionTime` }
          : { serverTime: managedFieldsTime(obj, { subresource: 'status' }), serverTimeSource: 'managedFields (status)' };
        return { ...base, status, detail: `${why}${summary.text ? `: ${summary.text}` : ''}${notEvaluated}`, ...since };
      };
      const test = (f: Field): boolean => {
        const r = c[f]?.(obj);
        if (r?.error) errors.push(`${f}: ${r.error}`);
        return r?.value === true;
      };
      if (test('suspended')) return said('Suspended', 'suspended expression true');
      const gen = generationOf(obj.metadata?.generation);
      const observed = generationOf((obj.status as { observedGeneration?: unknown } | undefined)?.observedGeneration);
      if (gen !== undefined && observed !== undefined && observed !== gen)
        return said('InProgress', `observedGeneration ${observed} ${observed < gen ? '<' : '≠'} generation ${gen}`);
      if (test('inProgress')) return said('InProgress', 'inProgress expression true');
      if (test('failed')) return said('Failed', 'failed expression true');
      if (test('current')) return said('Current', 'current expression true');
      return said('InProgress', 'no expression true yet');
    },
    compileAll() {
      for (const r of set.rules) compiledOf(r);
    },
  };
}
