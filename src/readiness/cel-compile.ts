/**
 * The CEL evaluator, behind one function: what compiles a rule's expressions. A module of its own,
 * loaded only when a rule needs it (engine.ts): the evaluator takes longer to load, and more memory,
 * than a trace of built-in kinds needs in all.
 */
import { type CelInput, celEnv, celList, celMap, isCelError, parse as parseCel, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { UsageError } from '../errors.js';
import type { KubeObject } from '../kube/index.js';
import type { Compiled } from './cel-rules.js';

let env: ReturnType<typeof celEnv> | undefined;

/** Compiles one expression; `where` names it in the error (a UsageError of one line). */
export function compileCel(expr: string, where: string): Compiled {
  env ??= celEnv({ funcs: strings });
  let evaluate: ReturnType<typeof plan>;
  try {
    evaluate = plan(env, parseCel(expr));
  } catch (err) {
    const message = (err as Error).message.replace(/^<input>:/, '').split('\n')[0] ?? '';
    throw new UsageError(`${where}: not a CEL expression: ${message}`, { hint: `the expression: ${expr}` });
  }
  return (obj) => {
    const r = evaluate(activationOf(obj) as never);
    if (isCelError(r)) return { value: false, error: r.message };
    return { value: r === true };
  };
}

/**
 * An object's variables as CEL values, converted once and kept for as long as the object lives. The
 * evaluator converts a plain object again on every access to it (a shallow copy into a Map, and the
 * same for each nested object it reaches), which a rule of a dozen field reads over every object of
 * a large cluster pays many times; values already converted are used as they are.
 */
const activations = new WeakMap<KubeObject, Record<string, unknown>>();

function activationOf(obj: KubeObject): Record<string, unknown> {
  let a = activations.get(obj);
  if (!a) {
    a = {
      apiVersion: obj.apiVersion ?? '',
      kind: obj.kind ?? '',
      metadata: toCelDeep(obj.metadata ?? {}),
      spec: toCelDeep(obj.spec ?? {}),
      status: toCelDeep(obj.status ?? {}),
    };
    activations.set(obj, a);
  }
  return a;
}

function toCelDeep(v: unknown): CelInput {
  if (Array.isArray(v)) return celList(v.map(toCelDeep));
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
    return celMap(new Map(Object.entries(v).map(([k, x]) => [k, toCelDeep(x)])));
  return v as CelInput;
}
