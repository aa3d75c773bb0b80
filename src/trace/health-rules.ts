/**
 * Readiness the user defines, as CEL expressions over the object, in the shape Flux's
 * Kustomization `spec.healthCheckExprs` uses, so a Flux user can bring theirs:
 *
 *   - apiVersion: example.com/v1
 *     kind: Widget
 *     current: status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')
 *     failed: status.phase == 'Failed'
 *     inProgress: status.phase == 'Pending'
 *
 * Contract:
 * - Each expression sees the object's top-level fields (apiVersion, kind, metadata, spec, status)
 *   as variables, as Flux's do.
 * - Every expression is compiled when the rules are read; one that does not parse is a UsageError
 *   (exit 2) of one line naming where it came from, the rule, the field and the line:column.
 * - An object of the rule's apiVersion and kind is `failed` if that expression is true, else
 *   `current` if that one is, else in progress. An expression that cannot be evaluated on the
 *   object (a field not there yet) counts as false, and its error is kept in the detail.
 * - `--ready EXPR` is one `current` expression for the traced object.
 */
import { existsSync, readFileSync } from 'node:fs';
import { celEnv, isCelError, parse as parseCel, plan } from '@bufbuild/cel';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../errors.js';
import type { KubeObject } from '../kube/index.js';
import type { Convergence } from './facts.js';
import { defaultHealthRulesPath } from './health-rules-path.js';

type Compiled = (obj: KubeObject) => { value: boolean; error?: string };

interface Rule {
  /** `example.com/v1 Widget` or `--ready`: how the hop names the rule. */
  name: string;
  apiVersion: string | undefined;
  kind: string | undefined;
  current?: Compiled | undefined;
  inProgress?: Compiled | undefined;
  failed?: Compiled | undefined;
}

export interface HealthRules {
  /** The user's verdict on `obj`, when a rule is for its apiVersion and kind; undefined otherwise. */
  readinessOf(obj: KubeObject): Convergence | undefined;
}

const FIELDS = ['current', 'inProgress', 'failed'] as const;

function compile(expr: string, where: string): Compiled {
  let evaluate: ReturnType<typeof plan>;
  try {
    evaluate = plan(celEnv(), parseCel(expr));
  } catch (err) {
    const message = (err as Error).message.replace(/^<input>:/, '').split('\n')[0] ?? '';
    throw new UsageError(`${where}: not a CEL expression: ${message}`, { hint: `the expression: ${expr}` });
  }
  return (obj) => {
    const r = evaluate({
      apiVersion: obj.apiVersion ?? '',
      kind: obj.kind ?? '',
      metadata: obj.metadata,
      spec: (obj.spec ?? {}) as object,
      status: (obj.status ?? {}) as object,
    } as never);
    if (isCelError(r)) return { value: false, error: r.message };
    return { value: r === true };
  };
}

/** Rules from a YAML or JSON document (a list, or `{ healthCheckExprs: [...] }`); `source` names it in errors. */
export function parseHealthRules(text: string, source: string): HealthRules {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new UsageError(`${source}: not YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const list = Array.isArray(doc) ? doc : (doc as { healthCheckExprs?: unknown } | null)?.healthCheckExprs;
  if (!Array.isArray(list)) throw new UsageError(`${source}: expected a list of rules (apiVersion, kind, current, inProgress, failed)`);
  const rules = list.map((entry: unknown, i): Rule => {
    const e = (entry ?? {}) as Record<string, unknown>;
    if (typeof e.apiVersion !== 'string' || typeof e.kind !== 'string') throw new UsageError(`${source}: rule ${i + 1}: needs apiVersion and kind`);
    const name = `${e.apiVersion} ${e.kind}`;
    const rule: Rule = { name: `health rule ${name}`, apiVersion: e.apiVersion, kind: e.kind };
    for (const f of FIELDS) {
      if (e[f] === undefined) continue;
      if (typeof e[f] !== 'string') throw new UsageError(`${source}: rule ${name}: ${f} must be a CEL expression (a string)`);
      rule[f] = compile(e[f], `${source}: rule ${name}, ${f}`);
    }
    if (!rule.current) throw new UsageError(`${source}: rule ${name}: needs a current expression`);
    return rule;
  });
  return rulesOf(rules);
}

/** `--ready EXPR`: the traced object is current when EXPR is true. */
export function readyExpression(expr: string): HealthRules {
  return rulesOf([{ name: '--ready', apiVersion: undefined, kind: undefined, current: compile(expr, '--ready') }]);
}

/**
 * The rules a trace uses: `--ready`, else `--health-rules FILE`, else the config folder's file
 * when it exists; undefined when none is given.
 */
export function loadHealthRules(o: { ready?: string | undefined; file?: string | undefined; env: NodeJS.ProcessEnv }): HealthRules | undefined {
  if (o.ready !== undefined) return readyExpression(o.ready);
  const file = o.file ?? defaultHealthRulesPath(o.env);
  if (o.file === undefined && !existsSync(file)) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--health-rules ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  return parseHealthRules(text, file);
}

function rulesOf(rules: Rule[]): HealthRules {
  return {
    readinessOf(obj) {
      const rule = rules.find((r) => (r.apiVersion === undefined || r.apiVersion === obj.apiVersion) && (r.kind === undefined || r.kind === obj.kind));
      if (!rule) return undefined;
      const errors: string[] = [];
      const test = (f: (typeof FIELDS)[number]): boolean => {
        const r = rule[f]?.(obj);
        if (r?.error) errors.push(`${f}: ${r.error}`);
        return r?.value === true;
      };
      const why = (said: string): string => `${said} (rule: ${rule.name})${errors.length ? `; not evaluated: ${errors.join('; ')}` : ''}`;
      if (test('failed')) return { done: true, failed: true, detail: why('failed expression true') };
      if (test('current')) return { done: true, detail: why('current expression true') };
      return { done: false, detail: why(test('inProgress') ? 'inProgress expression true' : 'no expression true yet') };
    },
  };
}
