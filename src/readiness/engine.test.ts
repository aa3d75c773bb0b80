import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import type { KubeObject } from '../kube/index.js';
import { compileCel } from './cel-compile.js';
import { createReadiness as create, type ReadinessOptions } from './engine.js';
import { loadReadiness } from './index.js';
import { defaultHealthRulesPath } from './rules-path.js';
import { describeVerdict } from './types.js';

const db = (status?: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject =>
  ({ apiVersion: 'db.example/v1', kind: 'Database', metadata: { name: 'd', generation: 1 }, spec: {}, ...(status ? { status } : {}), ...extra }) as KubeObject;

const FLUX_STYLE = `
- apiVersion: db.example/v1
  kind: Database
  current: "status.phase == 'Running'"
  inProgress: "status.phase in ['Pending', 'Provisioning']"
  failed: "status.phase == 'Failed' || status.phase == 'Pending' && has(status.error)"
- apiVersion: cert-manager.io/v1
  kind: Certificate
  current: "status.conditions.exists(e, e.type == 'Ready' && e.status == 'True')"
`;

const createReadiness = (o: ReadinessOptions = {}) => create(o, compileCel);

const said = (v: { status: string; detail: string; rule: string; layer: string; source?: string | undefined }): string =>
  `${v.status}: ${describeVerdict(v as never)}`;

describe('user rules', () => {
  const engine = createReadiness({ files: [{ path: 'rules.yaml', text: FLUX_STYLE }] });

  it("decides for the kinds it names in Flux's order: inProgress, failed, current; none true is in progress", () => {
    expect(said(engine.judge(db({ phase: 'Running' })))).toBe('Current: current expression true: phase Running (rule: db.example Database, rules.yaml)');
    expect(said(engine.judge(db({ phase: 'Failed' })))).toBe('Failed: failed expression true: phase Failed (rule: db.example Database, rules.yaml)');
    // inProgress is tested before failed, as Flux tests it.
    expect(engine.judge(db({ phase: 'Pending', error: 'x' })).status).toBe('InProgress');
    expect(said(engine.judge(db({ phase: 'Odd' })))).toBe('InProgress: no expression true yet: phase Odd (rule: db.example Database, rules.yaml)');
  });

  it('keys rules by group and kind: any version of the group, not another kind', () => {
    expect(engine.judge(db({ phase: 'Running' }, { apiVersion: 'db.example/v2' })).source).toBe('rules.yaml');
    expect(engine.judge(db({ phase: 'Running' }, { kind: 'Other' })).layer).toBe('generic');
  });

  it('an observedGeneration behind is in progress before any expression, as Flux has it', () => {
    expect(said(engine.judge(db({ phase: 'Running', observedGeneration: 1 }, { metadata: { name: 'd', generation: 2 } })))).toBe(
      'InProgress: observedGeneration 1 < generation 2: phase Running (rule: db.example Database, rules.yaml)',
    );
  });

  it('decides before the library: a user rule for a kind the library knows wins', () => {
    const cert = { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'c', generation: 1 } } as KubeObject;
    const v = engine.judge(cert);
    expect(v.layer).toBe('user');
    expect(v.detail).toMatch(/^no expression true yet; not evaluated: current: .*conditions/);
  });

  it('takes the healthCheckExprs of a Kustomization, or of its spec', () => {
    for (const text of [
      `healthCheckExprs:\n  - apiVersion: db.example/v1\n    kind: Database\n    current: status.ready == true\n`,
      `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nspec:\n  healthCheckExprs:\n  - apiVersion: db.example/v1\n    kind: Database\n    current: status.ready == true\n`,
    ]) {
      expect(createReadiness({ files: [{ path: 'k.yaml', text }] }).judge(db({ ready: true })).status).toBe('Current');
    }
  });

  it('refuses a bad expression in one line naming the file, the rule, the field and the position', () => {
    const bad = `- apiVersion: db.example/v1\n  kind: Database\n  current: "status.phase == 'Running' &&"\n`;
    const load = (text: string) => () => createReadiness({ files: [{ path: 'rules.yaml', text }] });
    expect(load(bad)).toThrow(UsageError);
    expect(load(bad)).toThrow(/^rules\.yaml: rule db\.example\/v1 Database, current: not a CEL expression: 1:\d+: [^\n]+$/);
    expect(load('- apiVersion: v1\n  kind: X\n  failed: "true"\n')).toThrow('rules.yaml: rule v1 X: needs a current expression');
    expect(load('kind: X')).toThrow('rules.yaml: expected a list of rules');
  });
});

describe('--ready', () => {
  const engine = createReadiness({ ready: "status.phase == 'Running'", files: [{ path: 'rules.yaml', text: FLUX_STYLE }] });

  it('decides for the target alone, before the files; the files still decide for everything else', () => {
    expect(said(engine.judge(db({ phase: 'Provisioning' }), { target: true }))).toBe('InProgress: no expression true yet: phase Provisioning (rule: --ready)');
    expect(engine.judge(db({ phase: 'Running' }), { target: true }).rule).toBe('--ready');
    expect(engine.judge(db({ phase: 'Provisioning' })).rule).toBe('db.example Database');
    expect(() => createReadiness({ ready: 'status.phase ==' })).toThrow(/^--ready: not a CEL expression: 1:\d+/);
  });
});

describe('the order of the layers', () => {
  const engine = createReadiness();

  it('an object being deleted is Terminating, whatever its status', () => {
    expect(engine.judge(db({ phase: 'Running' }, { metadata: { name: 'd', deletionTimestamp: '2026-01-01T00:00:00Z' } })).status).toBe('Terminating');
  });

  it('keys the built-in kinds by group: a custom resource named Job is not a Job', () => {
    const job = (apiVersion: string): KubeObject =>
      ({
        apiVersion,
        kind: 'Job',
        metadata: { name: 'j' },
        status: {
          conditions: [
            { type: 'Complete', status: 'True' },
            { type: 'Ready', status: 'False' },
          ],
        },
      }) as KubeObject;
    expect(engine.judge(job('batch/v1'))).toMatchObject({ status: 'Current', layer: 'builtin', rule: 'batch Job' });
    expect(engine.judge(job('example.com/v1'))).toMatchObject({ status: 'InProgress', layer: 'generic', rule: 'Ready condition' });
  });

  it('kinds without readiness are current once they exist, and have none to judge', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } as KubeObject;
    expect(engine.judge(cm)).toMatchObject({ status: 'Current', rule: 'no readiness' });
    expect(engine.hasReadiness(cm)).toBe(false);
    expect(engine.childNotReady(cm)).toBeUndefined();
  });

  it('explains every rule consulted down to the one that decided', () => {
    const { verdict, consulted } = engine.explain(db({ phase: 'Running' }));
    expect(verdict.rule).toBe('status.phase');
    expect(consulted.map((c) => `${c.layer}:${c.decided}`)).toEqual(['generic:false', 'library:false', 'builtin:false', 'generic:true']);
  });

  it('a child holds the chain while not ready, failed or suspended; not when its readiness is unknown', () => {
    expect(engine.childNotReady(db({ phase: 'Pending' }))).toBe('Database/d not ready: phase Pending');
    expect(engine.childNotReady(db({ phase: 'Failed' }))).toBe('Database/d failed: phase Failed');
    expect(engine.childNotReady(db({ replicas: 1 }))).toBeUndefined();
  });
});

describe('loadReadiness', () => {
  it('loads the CEL evaluator only when a rule needs it: prepare() before the library judges a kind it knows', async () => {
    const engine = await loadReadiness({ env: { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'rules-')) } });
    const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } } as KubeObject;
    const cert = { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'c' }, status: {} } as KubeObject;
    const certKind = { group: 'cert-manager.io', kind: 'Certificate' };
    expect(engine.judge(deploy).layer).toBe('builtin');
    expect(engine.canJudge({ group: 'apps', kind: 'Deployment' })).toBe(true);
    expect(engine.canJudge(certKind)).toBe(false);
    expect(() => engine.judge(cert)).toThrow(/the CEL evaluator is not loaded/);
    // Kinds without library rules load nothing.
    await engine.prepare([{ group: 'apps', kind: 'Deployment' }]);
    expect(engine.canJudge(certKind)).toBe(false);
    // Two callers preparing at once: both resolve with the evaluator loaded.
    await Promise.all([engine.prepare([{ group: 'apps', kind: 'Deployment' }, certKind]), engine.prepare([certKind])]);
    expect(engine.canJudge(certKind)).toBe(true);
    expect(engine.judge(cert)).toMatchObject({ status: 'InProgress', source: 'library/cert-manager.io.yaml' });
  });

  it('reads the flag file and the config folder file, both, the flag first; a named file that does not exist is an error', async () => {
    const home = mkdtempSync(join(tmpdir(), 'rules-'));
    const env = { XDG_CONFIG_HOME: home };
    expect(defaultHealthRulesPath(env)).toBe(join(home, 'informer-trace', 'health-rules.yaml'));
    expect((await loadReadiness({ env })).files).toEqual([]);
    await expect(loadReadiness({ files: [join(home, 'nope.yaml')], env })).rejects.toThrow(`--health-rules ${join(home, 'nope.yaml')}: no such file`);
    mkdirSync(join(home, 'informer-trace'));
    writeFileSync(defaultHealthRulesPath(env), FLUX_STYLE.replace("phase == 'Running'", "phase == 'Up'"));
    const mine = join(home, 'mine.yaml');
    writeFileSync(mine, FLUX_STYLE);
    const engine = await loadReadiness({ files: [mine], env, ready: 'true' });
    expect(engine.files).toEqual([mine, defaultHealthRulesPath(env)]);
    expect(engine.judge(db({ phase: 'Running' })).source).toBe(mine);
    const xdgOnly = await loadReadiness({ env });
    expect(xdgOnly.judge(db({ phase: 'Up' }))).toMatchObject({ status: 'Current', source: defaultHealthRulesPath(env) });
  });
});
