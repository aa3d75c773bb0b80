/**
 * The readiness engine: one per command, built from the shared flags, consulted in this order
 * (docs/readiness.md): an object being deleted is Terminating; `--ready` (the trace's target only);
 * the user's rules files (`--health-rules FILE`, then the config folder's file); the built-in
 * library; the built-in workload kinds; kinds without readiness; the generic rules.
 */
import { existsSync, readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { GroupKind, KubeObject } from '../kube/index.js';
import { builtinRule, groupKindOf, withoutReadiness } from './builtin.js';
import { type CompiledRules, type Compiler, compileRules, parseRuleFile } from './cel-rules.js';
import { genericVerdict } from './generic.js';
import { createLibrary } from './library.js';
import { defaultHealthRulesPath } from './rules-path.js';
import type { Consultation, JudgeOptions, Readiness, Verdict } from './types.js';

export interface ReadinessOptions {
  /** `--ready EXPR`: the current expression for the trace's target. */
  ready?: string | undefined;
  /** Rules files, in the order they are consulted: their path (as errors and verdicts name it) and text. */
  files?: readonly { path: string; text: string }[];
}

/** The CEL evaluator, loaded (once) when a rule needs it. */
export async function loadCompiler(): Promise<Compiler> {
  return (await import('./cel-compile.js')).compileCel;
}

/**
 * The engine. `compiler` compiles the rules' CEL: needed at once for `--ready` and rules files
 * (each expression is compiled now, so a bad one stops the command before anything is sent);
 * otherwise loaded by prepare() when a kind the library has rules for is to be judged.
 */
export function createReadiness(o: ReadinessOptions = {}, compiler?: Compiler): Readiness {
  let cel = compiler;
  let loading: Promise<Compiler> | undefined;
  if (!cel && (o.ready !== undefined || (o.files ?? []).length > 0)) throw new Error('readiness: rules to compile need the CEL evaluator');
  const celNow = (): Compiler | undefined => cel;
  const ready =
    o.ready === undefined
      ? undefined
      : compileRules(
          {
            layer: 'ready',
            source: '--ready',
            rules: [{ apiVersion: '*', kind: '*', group: '*', name: '--ready', expressions: { current: o.ready } }],
          },
          celNow,
        );
  ready?.compileAll();
  const user: CompiledRules[] = (o.files ?? []).map((f) => {
    const c = compileRules(parseRuleFile(f.text, f.path, 'user'), celNow);
    c.compileAll();
    return c;
  });

  const builtinLibrary = createLibrary(celNow);
  const layers = (target: boolean | undefined): CompiledRules[] => (target && ready ? [ready, ...user, builtinLibrary] : [...user, builtinLibrary]);

  /**
   * The verdict; with `consulted`, every rule consulted is added to it. The tracer judges on every
   * change of every object in a chain, so without it nothing is allocated beyond the verdict.
   */
  const decide = (obj: KubeObject, jo: JudgeOptions, consulted?: Consultation[]): Verdict => {
    const { group, kind } = groupKindOf(obj, jo);
    const key = (): string => `${group || 'core'} ${kind}`;
    const done = (v: Verdict): Verdict => {
      consulted?.push({ layer: v.layer, rule: v.rule, source: v.source, decided: true, why: `${v.status}: ${v.detail}` });
      return v;
    };
    if (obj.metadata?.deletionTimestamp)
      return done({ status: 'Terminating', rule: 'terminating', layer: 'generic', detail: `being deleted since ${obj.metadata.deletionTimestamp}` });
    consulted?.push({ layer: 'generic', rule: 'terminating', decided: false, why: 'no deletionTimestamp' });
    if (ready && !jo.target) consulted?.push({ layer: 'ready', rule: '--ready', source: '--ready', decided: false, why: 'decides for the trace target only' });
    for (const rules of layers(jo.target)) {
      const rule = rules.match(group, kind);
      if (rule) return done(rules.evaluate(rule, obj));
      consulted?.push({ layer: rules.set.layer, rule: '', source: rules.set.source, decided: false, why: `no rule for ${key()}` });
    }
    const builtin = builtinRule(group, kind);
    if (builtin) return done({ ...builtin(obj), rule: key(), layer: 'builtin' });
    consulted?.push({ layer: 'builtin', rule: '', decided: false, why: `no built-in rule for ${key()}` });
    if (withoutReadiness(group, kind))
      return done({ status: 'Current', rule: 'no readiness', layer: 'builtin', detail: `a ${kind} is what it is once it exists` });
    return done({ ...genericVerdict(obj), layer: 'generic' });
  };

  const explain = (obj: KubeObject, jo: JudgeOptions = {}): { verdict: Verdict; consulted: Consultation[] } => {
    const consulted: Consultation[] = [];
    return { verdict: decide(obj, jo, consulted), consulted };
  };
  const judge = (obj: KubeObject, jo: JudgeOptions = {}): Verdict => decide(obj, jo);
  const canJudge = (k: GroupKind): boolean => cel !== undefined || builtinLibrary.match(k.group, k.kind) === undefined;

  const hasReadiness = (obj: KubeObject, jo: JudgeOptions = {}): boolean => {
    const { group, kind } = groupKindOf(obj, jo);
    if (withoutReadiness(group, kind)) return false;
    if (group === '' && kind === 'Service') return (obj.spec as { type?: string } | undefined)?.type === 'LoadBalancer';
    if (group === '' && kind === 'Pod') return true;
    const s = obj.status as Record<string, unknown> | undefined;
    return s !== undefined && s !== null && Object.keys(s).length > 0;
  };

  return {
    judge,
    explain,
    hasReadiness,
    async prepare(kinds: readonly GroupKind[]) {
      if (kinds.every(canJudge)) return;
      // Callers that prepare at once share one load.
      loading ??= loadCompiler();
      cel = await loading;
    },
    canJudge,
    childNotReady(obj, jo = {}) {
      if (obj.metadata?.deletionTimestamp || !hasReadiness(obj, jo)) return undefined;
      const v = judge(obj, { ...jo, target: false });
      if (v.status === 'Current' || v.status === 'Unknown') return undefined;
      const { kind } = groupKindOf(obj, jo);
      return `${kind}/${obj.metadata?.name ?? ''} ${v.status === 'Failed' ? 'failed' : v.status === 'Suspended' ? 'suspended' : 'not ready'}: ${v.detail}`;
    },
    files: (o.files ?? []).map((f) => f.path),
  };
}

/**
 * The rules files a command's flags name (`--health-rules FILE` first) and the config folder's file
 * when it exists, after them, read. One that cannot be read is a UsageError (exit 2).
 */
export function readRuleFiles(o: { files?: readonly string[]; env: NodeJS.ProcessEnv }): { path: string; text: string }[] {
  const paths: string[] = [...(o.files ?? [])];
  const xdg = defaultHealthRulesPath(o.env);
  if (existsSync(xdg) && !paths.includes(xdg)) paths.push(xdg);
  return paths.map((path) => {
    try {
      return { path, text: readFileSync(path, 'utf8') };
    } catch (err) {
      throw new UsageError(`--health-rules ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  });
}
