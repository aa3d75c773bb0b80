/**
 * The built-in library of readiness rules (library/*.yaml). A file `<group>.yaml` holds the rules of
 * its API group and of the groups below it (`*.<group>`, a provider family); `core.yaml` the core
 * group. A file is read the first time a kind of its groups is judged, and each expression compiled
 * on its first use: a trace of built-in kinds reads none of them.
 */
import type { KubeObject } from '../kube/index.js';
import { type CelRule, type CompiledRules, type Compiler, compileRules, parseRuleFile, specificity } from './cel-rules.js';
import { libraryFiles } from './library-files.js';
import type { Verdict } from './types.js';

/** The files whose rules may name `group`: its own, and those of the groups it lies below. */
export function filesForGroup(names: readonly string[], group: string): string[] {
  if (group === '') return names.filter((n) => n === 'core.yaml');
  return names.filter((n) => {
    const g = n.slice(0, -'.yaml'.length);
    return g !== 'core' && (group === g || group.endsWith(`.${g}`));
  });
}

/** The library as one rule set to the engine: a match among the files of the object's group. */
export function createLibrary(compiler: () => Compiler | undefined, files: Record<string, string> = libraryFiles()): CompiledRules {
  const names = Object.keys(files);
  const parsed = new Map<string, CompiledRules>();
  const owner = new Map<CelRule, CompiledRules>();
  const fileRules = (name: string): CompiledRules => {
    let c = parsed.get(name);
    if (!c) {
      const source = `library/${name}`;
      c = compileRules(parseRuleFile(files[name]!, source, 'library'), compiler);
      for (const r of c.set.rules) {
        r.source = source;
        owner.set(r, c);
      }
      parsed.set(name, c);
    }
    return c;
  };
  const byKey = new Map<string, CelRule | null>();
  return {
    set: { layer: 'library', source: 'library', rules: [] },
    match(group, kind) {
      const key = `${group}/${kind}`;
      let best = byKey.get(key);
      if (best === undefined) {
        best = null;
        for (const name of filesForGroup(names, group)) {
          const r = fileRules(name).match(group, kind);
          if (r && (!best || specificity(r) > specificity(best))) best = r;
        }
        byKey.set(key, best);
      }
      return best ?? undefined;
    },
    evaluate(rule: CelRule, obj: KubeObject): Verdict {
      return owner.get(rule)!.evaluate(rule, obj);
    },
    compileAll() {
      for (const name of names) fileRules(name).compileAll();
    },
  };
}
