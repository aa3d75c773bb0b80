/**
 * `kubectl informer-trace health -f` in-process: objects in files judged without a cluster (a
 * kubeconfig that does not exist proves no request is sent), every format, the exit codes, and
 * bad input in one line.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli, type CliResult } from '../../tools/testing/cli.js';
import { controlsIn, HOSTILE } from '../../tools/testing/hostile.js';
import type { HealthRow } from './health.js';
import { createInformerTraceProgram } from './informer-trace.js';

const dir = mkdtempSync(join(tmpdir(), 'health-'));
const NO_CLUSTER = ['--kubeconfig', '/nonexistent/kubeconfig'];

function run(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCli(createInformerTraceProgram, ['health', ...argv, ...NO_CLUSTER], { CI: 'true', XDG_CONFIG_HOME: join(dir, 'no-config'), ...env });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const READY_DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, generation: 2}
spec: {replicas: 2}
status: {observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2, conditions: [{type: Progressing, status: "True", reason: NewReplicaSetAvailable}]}
`;
const ABORTED_ROLLOUT = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: canary, namespace: shop, generation: 3}
spec: {replicas: 2}
status:
  observedGeneration: "3"
  phase: Degraded
  message: "RolloutAborted: Rollout aborted update to revision 3"
  abort: true
  conditions: [{type: Available, status: "True", reason: AvailableReason}]
`;
// A template's object, as `helm template` prints it: no namespace, no status.
const TEMPLATE = `apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web-tls}
spec: {secretName: web-tls, issuerRef: {name: letsencrypt}}
`;

describe('health -f', () => {
  it('judges every object of a multi-document file in input order, Lists expanded; exit 1 when one is not Current', async () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n${[READY_DEPLOYMENT, TEMPLATE].map((d) => `- ${d.trim().replace(/\n/g, '\n  ')}`).join('\n')}\n`;
    const path = file('set.yaml', `${ABORTED_ROLLOUT}---\n# nothing here\n---\n${list}`);
    const r = await run(['-f', path, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const rows = JSON.parse(r.stdout) as HealthRow[];
    expect(rows.map((x) => `${x.kind}/${x.name} ${x.status} ${x.rule} ${x.rulesFile}`)).toEqual([
      'Rollout/canary Failed argoproj.io Rollout library/argoproj.io.yaml',
      'Deployment/web Current apps Deployment null',
      'Certificate/web-tls InProgress cert-manager.io Certificate library/cert-manager.io.yaml',
    ]);
    expect(rows[2]).toMatchObject({ namespace: null, source: `${path}: document 3` });
    expect(rows[0]!.detail).toContain('RolloutAborted');
  });

  it('exit 0 when every object is Current; a table by default, yaml on request', async () => {
    const path = file('ready.json', JSON.stringify(parse(READY_DEPLOYMENT)));
    const table = await run(['-f', path]);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^APIVERSION\s+KIND\s+NAMESPACE\s+NAME\s+STATUS\s+RULE\s+RULES FILE\s+DETAIL$/);
    expect(table.stdout).toMatch(/^apps\/v1\s+Deployment\s+shop\s+web\s+Current\s+apps Deployment\s+2 updated, 2 ready/m);
    const yaml = await run(['-f', path, '-o', 'yaml']);
    expect((parse(yaml.stdout) as HealthRow[])[0]!.status).toBe('Current');
  });

  it('reads a folder as kubectl apply -f does, its subfolders with -R', async () => {
    const folder = join(dir, 'release');
    mkdirSync(join(folder, 'sub'), { recursive: true });
    writeFileSync(join(folder, 'a.yaml'), READY_DEPLOYMENT);
    writeFileSync(join(folder, 'notes.txt'), 'not a manifest');
    writeFileSync(join(folder, 'sub', 'b.yml'), TEMPLATE);
    expect((JSON.parse((await run(['-f', folder, '-o', 'json'])).stdout) as HealthRow[]).map((x) => x.kind)).toEqual(['Deployment']);
    expect((JSON.parse((await run(['-f', folder, '-R', '-o', 'json'])).stdout) as HealthRow[]).map((x) => x.kind)).toEqual(['Deployment', 'Certificate']);
  });

  it('--explain shows every rule consulted and why each did or did not decide', async () => {
    const r = await run(['-f', file('one.yaml', TEMPLATE), '--explain']);
    expect(r.stdout).toContain('Certificate/web-tls:');
    expect(r.stdout).toMatch(/· generic terminating: no deletionTimestamp/);
    expect(r.stdout).toMatch(/→ library cert-manager\.io Certificate \(library\/cert-manager\.io\.yaml\): InProgress: /);
  });

  it("--health-rules decides before the library, and the config folder's file is read when it exists", async () => {
    const rules = file('rules.yaml', '- apiVersion: cert-manager.io/v1\n  kind: Certificate\n  current: "true"\n');
    const r = await run(['-f', file('cert.yaml', TEMPLATE), '--health-rules', rules, '-o', 'json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as HealthRow[])[0]).toMatchObject({ status: 'Current', rulesFile: rules });
    const home = join(dir, 'xdg');
    mkdirSync(join(home, 'informer-trace'), { recursive: true });
    writeFileSync(join(home, 'informer-trace', 'health-rules.yaml'), '- apiVersion: cert-manager.io/v1\n  kind: Certificate\n  current: "true"\n');
    const x = await run(['-f', join(dir, 'cert.yaml'), '-o', 'json'], { XDG_CONFIG_HOME: home });
    expect((JSON.parse(x.stdout) as HealthRow[])[0]).toMatchObject({ status: 'Current', rulesFile: join(home, 'informer-trace', 'health-rules.yaml') });
  });

  it('bad input is one line naming the file and the document, exit 2, before anything is judged', async () => {
    const cases: [string[], RegExp][] = [
      [['-f', file('bad.yaml', `${READY_DEPLOYMENT}---\nkind: [unclosed\n`)], /^error: .*bad\.yaml: document 2: not valid YAML or JSON: /],
      [['-f', file('nokind.yaml', 'apiVersion: v1\nmetadata: {name: x}\n')], /^error: .*nokind\.yaml: document 1: the object has no kind\n$/],
      [['-f', file('scalar.yaml', 'just words\n')], /^error: .*scalar\.yaml: document 1: not a Kubernetes object\n$/],
      [['-f', join(dir, 'missing.yaml')], /^error: -f .*missing\.yaml: no such file or folder\n$/],
      [
        ['-f', file('r.yaml', TEMPLATE), '--health-rules', file('badrules.yaml', '- apiVersion: x/v1\n  kind: Y\n  current: "a &&"\n')],
        /^error: .*badrules\.yaml: rule x\/v1 Y, current: not a CEL expression: /,
      ],
      [[], /^error: nothing to judge\n/],
      [['-f', file('two.yaml', TEMPLATE), 'deploy/web'], /^error: give objects either with -f or as TYPE\[\/NAME\], not both\n$/],
    ];
    for (const [argv, pattern] of cases) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(pattern);
    }
  });

  it('a file that holds no object is not "all ready": exit 1, said on stderr', async () => {
    const r = await run(['-f', file('empty.yaml', '# nothing yet\n---\n'), '-o', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stderr).toBe('no objects found: nothing to judge\n');
  });

  it("escapes the cluster's strings in the table", async () => {
    const hostile = `apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: x}\nstatus: {phase: Failed, message: ${JSON.stringify(HOSTILE)}}\n`;
    for (const extra of [[], ['--explain']]) {
      const r = await run(['-f', file('hostile.yaml', hostile), ...extra]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('Failed');
      expect(controlsIn(r.stdout)).toEqual([]);
    }
  });
});
