import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import type { ManifestInputs } from './flags.js';
import { readCheckPlan, readCheckSpecs } from './specs.js';
import type { MetricsAccess } from './types.js';

const access: MetricsAccess = { insecureSkipTlsVerify: false, kubeconfigCredentials: false, token: undefined, timeoutMs: 5_000 };
const read = (text: string, namespace?: string) => readCheckSpecs({ flags: {}, config: { file: 'health.yaml', text }, namespace, access });

function problems(text: string): string[] {
  try {
    read(text);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message
      .split('\n')
      .slice(1)
      .map((l) => l.trim());
  }
  throw new Error('expected the config to be refused');
}

describe('check config files', () => {
  it('reads one check of each kind, with defaults, origins and names', () => {
    const specs = read(
      [
        'checks:',
        '  - kind: rollout',
        '    target: deploy/web',
        '    maxConverge: 60s',
        '    maxHop: 20s',
        '  - kind: rollout',
        '    name: db scales',
        '    target: sts/db',
        '    namespace: data',
        '    trigger: scale',
        '    replicas: 3',
        '  - kind: lease',
        '    lease: kube-system/kube-controller-manager',
        '    maxRenewAge: 20s',
        '    maxTransitions: 2',
        '    window: 5m',
        '  - kind: queue',
        '    metrics: [apiserver, "https://10.0.0.1:10257/metrics"]',
        '    insecureSkipTlsVerify: true',
        '    maxDepth: { deployment: 10, replicaset: 5 }',
        '    maxRetryRate: 1/s',
        '    window: 60s',
        '',
      ].join('\n'),
      'demo',
    );
    expect(specs).toHaveLength(4);
    expect(specs[0]).toEqual({
      kind: 'rollout',
      name: 'rollout deploy/web in demo',
      target: 'deploy/web',
      namespace: 'demo',
      trigger: { kind: 'restart' },
      maxConvergeMs: 60_000,
      maxHopMs: 20_000,
      timeoutMs: 60_000,
      origin: { source: 'health.yaml', line: 2, column: 5 },
    });
    expect(specs[1]).toMatchObject({
      name: 'db scales',
      namespace: 'data',
      trigger: { kind: 'scale', replicas: 3 },
      maxConvergeMs: undefined,
      timeoutMs: 300_000,
    });
    expect(specs[2]).toMatchObject({
      kind: 'lease',
      name: 'lease kube-system/kube-controller-manager',
      namespace: 'kube-system',
      lease: 'kube-controller-manager',
      maxRenewAgeMs: 20_000,
      maxTransitions: 2,
      windowMs: 300_000,
    });
    expect(specs[3]).toMatchObject({
      kind: 'queue',
      metrics: ['apiserver', 'https://10.0.0.1:10257/metrics'],
      access: { insecureSkipTlsVerify: true, kubeconfigCredentials: false, timeoutMs: 5_000 },
      maxDepth: [
        { queue: 'deployment', limit: 10, text: 'deployment=10' },
        { queue: 'replicaset', limit: 5, text: 'replicaset=5' },
      ],
      maxRetryRate: [{ queue: '*', limit: 1, text: '1/s' }],
      windowMs: 60_000,
      sampleIntervalMs: 10_000,
    });
  });

  it('reports every problem at once, each at its line and column, sorted', () => {
    const text = [
      'checks:', //                                     1
      '  - kind: rollout', //                           2
      '    target: web', //                             3
      '    maxConverge: 60', //                         4
      '    maxHop: soon', //                            5
      '  - kind: lease', //                             6
      '    lease: kube-system/kcm', //                  7
      '    maxRenewAge: 20s', //                        8
      '    winodw: 5m', //                              9
      '  - kind: queue', //                            10
      '    metrics: [apiserver, "ftp://x"]', //       11
      '    maxDepth: { deployment: many }', //         12
      '    maxRetryRate: 1/fortnight', //              13
      '  - kind: rollout', //                          14
      '    target: deploy/x', //                       15
      '    trigger: scale', //                         16
      '',
    ].join('\n');
    expect(problems(text)).toEqual([
      'health.yaml:3:13: checks[0].target: "web" is not TYPE/NAME (e.g. deploy/web, sts/db)',
      'health.yaml:4:18: checks[0].maxConverge: 60 has no unit: write e.g. 60s or 60ms',
      'health.yaml:5:13: checks[0].maxHop: "soon" is not a duration (e.g. 500ms, 30s, 2m, 1h)',
      'health.yaml:9:5: checks[1].winodw: unknown key for a lease check (did you mean "window"?); known: kind, name, lease, namespace, maxRenewAge, maxTransitions, window',
      'health.yaml:11:26: checks[2].metrics[1]: "ftp://x": ftp:// is not supported, only http:// and https://',
      'health.yaml:12:29: checks[2].maxDepth.deployment: "many" is not a whole number ≥ 0',
      'health.yaml:13:19: checks[2].maxRetryRate: "1/fortnight" is not a rate (e.g. 1/s, 30/m, 0.5/s)',
      'health.yaml:14:5: checks[3].replicas: missing: the replica count to scale to (trigger: scale)',
    ]);
  });

  it('says which kind a misplaced key belongs to, and what the kinds are', () => {
    expect(problems('checks:\n  - kind: lease\n    lease: a/b\n    maxRenewAge: 1s\n    maxHop: 2s\n  - kind: rolout\n    target: deploy/x\n')).toEqual([
      'health.yaml:5:5: checks[0].maxHop: unknown key for a lease check ("maxHop" belongs to rollout checks); known: kind, name, lease, namespace, maxRenewAge, maxTransitions, window',
      'health.yaml:6:11: checks[1].kind: "rolout" is not a kind of check (did you mean "rollout"?): rollout, lease or queue',
    ]);
  });

  it('needs a limit for leases and queues, and a kind for every check', () => {
    expect(problems('checks:\n  - kind: lease\n    lease: a/b\n  - kind: queue\n    metrics: apiserver\n  - target: deploy/x\n')).toEqual([
      'health.yaml:2:5: checks[0].maxRenewAge: missing: a limit: maxRenewAge and/or maxTransitions',
      'health.yaml:4:5: checks[1].maxDepth: missing: a limit: maxDepth and/or maxRetryRate',
      'health.yaml:6:5: checks[2].kind: missing: rollout, lease or queue',
    ]);
  });

  it('refuses YAML syntax errors and the wrong shape with positions', () => {
    expect(problems('checks:\n  - kind: rollout\n   target: [deploy/web\n')[0]).toMatch(/^health\.yaml:3:\d+: YAML: /);
    expect(problems('- kind: rollout\n')).toEqual(['health.yaml:1:1: expected a map with a "checks:" list']);
    expect(problems('chekcs: []\n')).toEqual([
      'health.yaml:1:1: chekcs: unknown key (did you mean "checks"?): the file holds "checks" and, optionally, "healthRules"',
      'health.yaml:1:1: checks: missing: a list of checks, each with a kind (rollout, lease or queue)',
    ]);
    expect(problems('checks: []\n')).toEqual(['health.yaml:1:9: checks: expected a non-empty list of checks']);
    expect(problems('checks:\n  - kind: lease\n    lease: a/b\n    lease: c/d\n    maxRenewAge: 1s\n')[0]).toMatch(
      /^health\.yaml:4:5: YAML: Map keys must be unique/,
    );
  });

  it('names a readiness rules file with healthRules:, relative to the config file; one that does not exist is a problem', () => {
    const dir = mkdtempSync(join(tmpdir(), 'check-config-'));
    writeFileSync(join(dir, 'rules.yaml'), '[]\n');
    const text = 'healthRules: rules.yaml\nchecks:\n  - kind: lease\n    lease: a/b\n    maxRenewAge: 1s\n';
    const plan = readCheckPlan({ flags: {}, config: { file: join(dir, 'health.yaml'), text }, namespace: undefined, access });
    expect(plan.healthRules).toBe(join(dir, 'rules.yaml'));
    expect(plan.specs).toHaveLength(1);
    expect(problems('healthRules: nope.yaml\nchecks:\n  - kind: lease\n    lease: a/b\n    maxRenewAge: 1s\n')).toEqual([
      'health.yaml:1:14: healthRules: nope.yaml: no such file',
    ]);
  });

  it('refuses two checks with the same name', () => {
    expect(problems('checks:\n  - kind: lease\n    lease: a/b\n    maxRenewAge: 1s\n  - kind: lease\n    lease: a/b\n    maxTransitions: 1\n')).toEqual([
      'health.yaml:5:5: checks[1].name: "lease a/b" is also the name of checks[0]: give one of them a different name',
    ]);
  });

  describe('trigger: apply', () => {
    const files: Record<string, string> = {
      'ci/web.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n',
      '/abs/db.yaml': 'apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: data}\n',
      'ci/list.yaml': 'apiVersion: v1\nkind: List\nmetadata: {name: l}\nitems: []\n',
    };
    const manifests: ManifestInputs = {
      readFile: (path) => {
        if (path in files) return files[path]!;
        throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      },
      namespaceFlag: undefined,
    };
    const readApply = (text: string, namespace?: string) =>
      readCheckSpecs({ flags: {}, config: { file: 'ci/health.yaml', text }, namespace, access, manifests });
    const applyProblems = (text: string): string[] => {
      try {
        readApply(text);
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as Error).message
          .split('\n')
          .slice(1)
          .map((l) => l.trim());
      }
      throw new Error('expected the config to be refused');
    };

    it('reads the manifest beside the config file (or at an absolute path); the object it holds is the target', () => {
      const specs = readApply(
        'checks:\n  - kind: rollout\n    trigger: apply\n    manifest: web.yaml\n    maxConverge: 2m\n  - kind: rollout\n    trigger: apply\n    manifest: /abs/db.yaml\n',
        'demo',
      );
      expect(specs[0]).toEqual({
        kind: 'rollout',
        name: 'rollout deployment/web in demo',
        target: 'deployment/web',
        namespace: 'demo',
        trigger: { kind: 'apply', file: 'ci/web.yaml', manifest: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } } },
        maxConvergeMs: 120_000,
        maxHopMs: undefined,
        timeoutMs: 120_000,
        origin: { source: 'ci/health.yaml', line: 2, column: 5 },
      });
      expect(specs[1]).toMatchObject({ name: 'rollout statefulset/db in data', namespace: 'data', trigger: { file: '/abs/db.yaml' } });
    });

    it('refuses a missing or unreadable manifest, a target beside it, a namespace that disagrees, and keys of other triggers', () => {
      expect(
        applyProblems(
          [
            'checks:',
            '  - kind: rollout',
            '    trigger: apply',
            '  - kind: rollout',
            '    trigger: apply',
            '    manifest: nope.yaml',
            '  - kind: rollout',
            '    trigger: apply',
            '    target: deploy/web',
            '    manifest: list.yaml',
            '  - kind: rollout',
            '    trigger: apply',
            '    namespace: demo',
            '    manifest: /abs/db.yaml',
            '    replicas: 3',
            '  - kind: rollout',
            '    target: deploy/web',
            '    manifest: web.yaml',
            '',
          ].join('\n'),
        ),
      ).toEqual([
        'ci/health.yaml:2:5: checks[0].manifest: missing: the file to apply, one object, YAML or JSON (trigger: apply)',
        'ci/health.yaml:6:15: checks[1].manifest: ci/nope.yaml: no such file',
        'ci/health.yaml:9:5: checks[2].target: trigger: apply takes its target from the manifest: drop target',
        'ci/health.yaml:10:15: checks[2].manifest: ci/list.yaml: a List; --apply traces one object',
        'ci/health.yaml:14:15: checks[3].manifest: /abs/db.yaml: the object\'s namespace "data" does not match namespace "demo"',
        'ci/health.yaml:15:5: checks[3].replicas: applies to trigger: scale',
        'ci/health.yaml:18:5: checks[4].manifest: applies to trigger: apply',
      ]);
    });
  });

  it('the header line names the file and counts the problems', () => {
    try {
      read('checks:\n  - kind: lease\n    lease: a/b\n');
      throw new Error('not refused');
    } catch (err) {
      expect((err as Error).message.split('\n')[0]).toBe('health.yaml is not a valid check config (1 problem):');
      expect((err as UsageError).hint).toBe('see docs/ci.md for the format');
    }
  });
});
