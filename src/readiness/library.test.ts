/** Every example of every library file, judged by the engine: the verdict each example says it has. */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { KubeObject } from '../kube/index.js';
import { compileCel } from './cel-compile.js';
import { createReadiness } from './engine.js';
import { parseRuleFile, compileRules } from './cel-rules.js';
import { isRuleFile, libraryFiles } from './library-files.js';
import { groupOf, type ReadinessStatus } from './types.js';

const dir = fileURLToPath(new URL('./library/', import.meta.url));
const STATUSES: ReadinessStatus[] = ['Current', 'InProgress', 'Failed', 'Suspended', 'Terminating', 'Unknown'];

interface Example {
  status: ReadinessStatus;
  why: string;
  object: KubeObject;
}

const engine = createReadiness({}, compileCel);
const ruleFiles = Object.keys(libraryFiles());

describe('the readiness library', () => {
  it('has rule files, each with its examples beside it, and no examples without rules', () => {
    expect(ruleFiles.length).toBeGreaterThan(20);
    const names = readdirSync(dir);
    for (const f of ruleFiles) expect(names, `${f} has no examples file`).toContain(f.replace(/\.yaml$/, '.examples.yaml'));
    for (const n of names.filter((x) => !isRuleFile(x))) expect(ruleFiles, `${n} has no rules file`).toContain(n.replace(/\.examples\.yaml$/, '.yaml'));
  });

  for (const file of ruleFiles) {
    describe(file, () => {
      const text = readFileSync(`${dir}${file}`, 'utf8');
      const set = parseRuleFile(text, `library/${file}`, 'library');
      const examples = parse(readFileSync(`${dir}${file.replace(/\.yaml$/, '.examples.yaml')}`, 'utf8')) as Example[];

      it('holds rules of its own group, or of the groups below it, and nothing else (so it is read only for those)', () => {
        const own = file === 'core.yaml' ? '' : file.slice(0, -'.yaml'.length);
        for (const r of set.rules) expect(r.group === own || r.group.endsWith(`.${own}`), `${r.apiVersion} ${r.kind} in ${file}`).toBe(true);
      });

      it('compiles every expression', () => {
        expect(() => compileRules(set, () => compileCel).compileAll()).not.toThrow();
      });

      it('has examples of every status each rule can give, each decided by its own rule', () => {
        for (const rule of set.rules) {
          const mine = examples.filter(
            (e) =>
              set.rules.length === 1 ||
              compileRules({ ...set, rules: [rule] }, () => compileCel).match(groupOf(e.object.apiVersion), e.object.kind ?? '') !== undefined,
          );
          const given = new Set(mine.map((e) => e.status));
          expect(given.has('Current'), `${rule.apiVersion} ${rule.kind}: no Current example`).toBe(true);
          // A kind that is what it is once it exists (current: "true") has no InProgress to show.
          if (rule.expressions.current?.trim() !== 'true') expect(given.has('InProgress'), `${rule.apiVersion} ${rule.kind}: no InProgress example`).toBe(true);
          if (rule.expressions.failed) expect(given.has('Failed'), `${rule.apiVersion} ${rule.kind}: a failed expression but no Failed example`).toBe(true);
          if (rule.expressions.suspended)
            expect(given.has('Suspended'), `${rule.apiVersion} ${rule.kind}: a suspended expression but no Suspended example`).toBe(true);
        }
      });

      it.each(examples.map((e, i) => [`${i + 1}: ${e.object?.kind} ${e.status} — ${e.why}`, e] as const))('%s', (_, e) => {
        expect(STATUSES).toContain(e.status);
        expect(e.why.length).toBeGreaterThan(10);
        const v = engine.judge(e.object);
        expect(v.source, `decided by ${v.rule} (${v.layer})`).toBe(`library/${file}`);
        expect(`${v.status}: ${v.detail}`).toMatch(new RegExp(`^${e.status}:`));
      });
    });
  }
});
