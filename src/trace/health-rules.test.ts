import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import type { KubeObject } from '../kube/index.js';
import { defaultHealthRulesPath } from './health-rules-path.js';
import { loadHealthRules, parseHealthRules, readyExpression } from './health-rules.js';

const db = (status?: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'db.example/v1', kind: 'Database', metadata: { name: 'd', generation: 1 }, spec: {}, ...(status ? { status } : {}) }) as KubeObject;

const FLUX_STYLE = `
- apiVersion: db.example/v1
  kind: Database
  current: "status.phase == 'Running'"
  inProgress: "status.phase in ['Pending', 'Provisioning']"
  failed: "status.phase == 'Failed'"
- apiVersion: cert-manager.io/v1
  kind: Certificate
  current: "status.conditions.exists(e, e.type == 'Ready' && e.status == 'True')"
`;

describe('health rules', () => {
  const rules = parseHealthRules(FLUX_STYLE, 'rules.yaml');

  it('decides for the kinds it names: failed first, then current, else in progress', () => {
    expect(rules.readinessOf(db({ phase: 'Running' }))).toEqual({ done: true, detail: 'current expression true (rule: health rule db.example/v1 Database)' });
    expect(rules.readinessOf(db({ phase: 'Failed' }))).toEqual({
      done: true,
      failed: true,
      detail: 'failed expression true (rule: health rule db.example/v1 Database)',
    });
    expect(rules.readinessOf(db({ phase: 'Pending' }))).toEqual({
      done: false,
      detail: 'inProgress expression true (rule: health rule db.example/v1 Database)',
    });
    expect(rules.readinessOf(db({ phase: 'Odd' }))).toEqual({ done: false, detail: 'no expression true yet (rule: health rule db.example/v1 Database)' });
  });

  it('says nothing of other kinds, and counts an expression over a field not there yet as false', () => {
    expect(rules.readinessOf({ ...db(), kind: 'Other' })).toBeUndefined();
    expect(rules.readinessOf({ ...db(), apiVersion: 'db.example/v2' })).toBeUndefined();
    const r = rules.readinessOf({ apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'c' } } as KubeObject);
    expect(r?.done).toBe(false);
    expect(r?.detail).toMatch(/^no expression true yet \(rule: health rule cert-manager\.io\/v1 Certificate\); not evaluated: current: .*conditions/);
  });

  it('takes the healthCheckExprs field of a Kustomization-like document too', () => {
    const k = parseHealthRules(`healthCheckExprs:\n  - apiVersion: db.example/v1\n    kind: Database\n    current: status.ready == true\n`, 'k.yaml');
    expect(k.readinessOf(db({ ready: true }))?.done).toBe(true);
  });

  it('refuses a bad expression in one line naming the file, the rule, the field and the position', () => {
    const bad = `- apiVersion: db.example/v1\n  kind: Database\n  current: "status.phase == 'Running' &&"\n`;
    expect(() => parseHealthRules(bad, 'rules.yaml')).toThrow(UsageError);
    try {
      parseHealthRules(bad, 'rules.yaml');
    } catch (err) {
      expect((err as Error).message).toMatch(/^rules\.yaml: rule db\.example\/v1 Database, current: not a CEL expression: 1:\d+: .+$/);
      expect((err as Error).message).not.toContain('\n');
    }
    expect(() => parseHealthRules('- apiVersion: v1\n  kind: X\n  failed: "true"\n', 'r.yaml')).toThrow('r.yaml: rule v1 X: needs a current expression');
    expect(() => parseHealthRules('kind: X', 'r.yaml')).toThrow('r.yaml: expected a list of rules');
  });

  it('--ready is one current expression for the traced object', () => {
    const ready = readyExpression("status.phase == 'Running'");
    expect(ready.readinessOf(db({ phase: 'Running' }))).toEqual({ done: true, detail: 'current expression true (rule: --ready)' });
    expect(ready.readinessOf(db({ phase: 'Pending' }))?.done).toBe(false);
    expect(() => readyExpression('status.phase ==')).toThrow(/^--ready: not a CEL expression: 1:\d+/);
  });

  it('reads the config folder file when it exists, and a named file that does not is an error', () => {
    const home = mkdtempSync(join(tmpdir(), 'rules-'));
    const env = { XDG_CONFIG_HOME: home };
    expect(defaultHealthRulesPath(env)).toBe(join(home, 'informer-trace', 'health-rules.yaml'));
    expect(loadHealthRules({ env })).toBeUndefined();
    expect(() => loadHealthRules({ file: join(home, 'nope.yaml'), env })).toThrow(`--health-rules ${join(home, 'nope.yaml')}: no such file`);
    const file = join(home, 'mine.yaml');
    writeFileSync(file, FLUX_STYLE);
    expect(loadHealthRules({ file, env })?.readinessOf(db({ phase: 'Running' }))?.done).toBe(true);
  });
});
