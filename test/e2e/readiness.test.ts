/**
 * The readiness engine against a real operator nobody here wrote: KubeRay's, built from its
 * published Go module and run as a process against the real control plane. A RayJob it refuses is
 * failed — not converged — in the trace, `diagnose` and `check`; a suspended RayCluster is shown
 * Suspended and the trace goes on through the pause to convergence once it is resumed (as a queue
 * such as Kueue resumes it); `diagnose` and `check --apply` honour `--health-rules` and the config
 * folder's file; `health` over the live namespace and over `kubectl get -o yaml` agree.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import type { HealthRow } from '../../src/commands/health.js';
import type { Diagnosis } from '../../src/diagnose/types.js';
import type { KubeObject } from '../../src/kube/index.js';
import type { Hop } from '../../src/trace/index.js';
import { adminKube, cluster, eventually, ndjsonHops, runCli, startCli, uniqueName } from './helpers.js';
import { startKubeRay } from './kuberay.js';
import { tearDownOperator, type StartedOperator } from './operators.js';

const kube = adminKube();
const dir = mkdtempSync(join(tmpdir(), 'it-readiness-'));
const ns = uniqueName('it-ready');
const started: StartedOperator = { ops: undefined, crds: [] };

const cpu = (n: string): Record<string, unknown> => ({ limits: { cpu: n, memory: '1Gi' }, requests: { cpu: n, memory: '1Gi' } });
const rayClusterSpec = (workers: number): Record<string, unknown> => ({
  rayVersion: '2.46.0',
  headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0', resources: cpu('1') }] } } },
  workerGroupSpecs: [
    {
      groupName: 'workers',
      replicas: workers,
      minReplicas: workers,
      maxReplicas: workers + 1,
      rayStartParams: {},
      template: { spec: { containers: [{ name: 'ray-worker', image: 'rayproject/ray:2.46.0', resources: cpu('1') }] } },
    },
  ],
});
const rayCluster = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'ray.io/v1',
  kind: 'RayCluster',
  metadata: { name, namespace: ns },
  spec: { ...rayClusterSpec(1), ...extra },
});
// KubeRay refuses it (shutdownAfterJobFinishes false with a TTL): jobDeploymentStatus ValidationFailed.
const refusedJob = (name: string): Record<string, unknown> => ({
  apiVersion: 'ray.io/v1',
  kind: 'RayJob',
  metadata: { name, namespace: ns },
  spec: { entrypoint: 'python -c "print(1)"', shutdownAfterJobFinishes: false, ttlSecondsAfterFinished: 10, rayClusterSpec: rayClusterSpec(1) },
});

function manifestFile(name: string, obj: Record<string, unknown>): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(obj));
  return file;
}

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(createInformerTraceProgram, [...args, '--kubeconfig', cluster().kubeconfigPath], {
    env: { CI: 'true', XDG_CONFIG_HOME: join(dir, 'no-config'), ...env },
  });

/** A rules file whose RayCluster rule nothing meets: only the user's rule can make a check fail on a RayCluster KubeRay made ready. */
const NEVER = `- apiVersion: ray.io/v1\n  kind: RayCluster\n  current: "has(status.state) && status.state == 'never'"\n`;

beforeAll(async () => {
  Object.assign(started, await startKubeRay(kube, ns, 1));
});

afterAll(async () => {
  await tearDownOperator(kube, ns, started);
  rmSync(dir, { recursive: true, force: true });
});

describe('readiness against KubeRay', () => {
  it('a RayJob KubeRay refuses is failed, not converged: the trace ends failed, diagnose says broken, check fails', async () => {
    const traced = await cli(['--apply', '-f', manifestFile('refused', refusedJob('refused')), '-n', ns, '--timeout', '90s', '-o', 'json']);
    expect(traced.stderr).not.toMatch(/^error/m);
    expect(traced.code).toBe(1);
    const t = JSON.parse(traced.stdout) as { outcome: string; hops: Hop[] };
    expect(t.outcome).toBe('failed');
    const end = t.hops.at(-1)!;
    expect(end.kind).toBe('failed');
    expect(end.detail).toMatch(/ValidationFailed.*\(rule: ray\.io RayJob, library\/ray\.io\.yaml\)$/);
    expect(t.hops.some((h) => h.kind === 'converged')).toBe(false);

    const d = await cli(['diagnose', 'rayjob/refused', '-n', ns, '-o', 'json']);
    expect(d.code).toBe(1);
    const diagnosis = (JSON.parse(d.stdout) as { diagnosis: Diagnosis }).diagnosis;
    expect(diagnosis.verdict).toBe('broken');
    expect(diagnosis.summary).toMatch(/^RayJob\/refused: failed: .*ValidationFailed.*\(rule: ray\.io RayJob, library\/ray\.io\.yaml\)$/);

    const c = await cli(['check', '--apply', '-f', manifestFile('refused-2', refusedJob('refused-2')), '-n', ns, '--timeout', '90s', '-o', 'json']);
    expect(c.code).toBe(1);
    const report = JSON.parse(c.stdout) as { checks: { results: { status: string; message: string }[] }[] };
    expect(report.checks[0]!.results[0]).toMatchObject({ status: 'failed' });
    expect(report.checks[0]!.results[0]!.message).toMatch(/^the rollout failed: .*ValidationFailed/);
  });

  it('a suspended RayCluster is shown Suspended, and the trace goes on through the pause to convergence once it is resumed', async () => {
    const file = manifestFile('paused', rayCluster('paused', { suspend: true }));
    const run = startCli(
      createInformerTraceProgram,
      ['--apply', '-f', file, '-n', ns, '--timeout', '150s', '-o', 'ndjson', '--kubeconfig', cluster().kubeconfigPath],
      {
        env: { CI: 'true', XDG_CONFIG_HOME: join(dir, 'no-config') },
      },
    );
    const hops = (): Hop[] => ndjsonHops(run.stdout());
    const suspended = await eventually('the suspended hop', async () => hops().find((h) => h.kind === 'suspended' && h.object.kind === 'RayCluster'), 90_000);
    expect(suspended.detail).toMatch(/^suspended expression true.*\(rule: ray\.io RayCluster, library\/ray\.io\.yaml\)$/);
    // Still going: the pause does not end the trace.
    expect(hops().some((h) => h.kind === 'converged' || h.kind === 'failed')).toBe(false);
    // Resumed, as a queue admitting the workload would.
    await kube.client.json(`/apis/ray.io/v1/namespaces/${ns}/rayclusters/paused`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: JSON.stringify({ spec: { suspend: false } }),
    });
    const r = await run.done;
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const all = hops();
    const at = (kind: string): number => all.findIndex((h) => h.kind === kind && h.object.kind === 'RayCluster');
    expect(at('suspended')).toBeGreaterThanOrEqual(0);
    expect(at('converged')).toBeGreaterThan(at('suspended'));
    expect(all.some((h) => h.kind === 'ready' && h.object.kind === 'Pod')).toBe(true);
  });

  it("diagnose and check --apply honour --health-rules, and the config folder's file when it exists", async () => {
    const rules = join(dir, 'never.yaml');
    writeFileSync(rules, NEVER);
    const xdg = join(dir, 'xdg');
    mkdirSync(join(xdg, 'informer-trace'), { recursive: true });
    writeFileSync(join(xdg, 'informer-trace', 'health-rules.yaml'), NEVER);

    // Without rules of the user's, the library's rule finds it ready.
    const plain = await cli(['check', '--apply', '-f', manifestFile('ruled', rayCluster('ruled')), '-n', ns, '--timeout', '120s', '-o', 'json']);
    expect(plain.code).toBe(0);
    const d0 = await cli(['diagnose', 'raycluster/ruled', '-n', ns, '-o', 'json']);
    expect(d0.code).toBe(0);
    expect((JSON.parse(d0.stdout) as { diagnosis: Diagnosis }).diagnosis.summary).toMatch(/\(rule: ray\.io RayCluster, library\/ray\.io\.yaml\)/);
    // diagnose counts "not ready for" from the status's last transition: past the 1 s grace below.
    await eventually('the RayCluster to have been provisioned for more than 2 s', async () => {
      const rc = await kube.client.json<KubeObject>(`/apis/ray.io/v1/namespaces/${ns}/rayclusters/ruled`);
      const provisioned = ((rc.status as { conditions?: { type: string; lastTransitionTime?: string }[] } | undefined)?.conditions ?? []).find(
        (c) => c.type === 'RayClusterProvisioned',
      );
      return provisioned?.lastTransitionTime !== undefined && Date.now() - Date.parse(provisioned.lastTransitionTime) > 2_000;
    });

    for (const [how, extra, env, source] of [
      ['--health-rules', ['--health-rules', rules], {}, rules],
      ['the config folder', [], { XDG_CONFIG_HOME: xdg }, join(xdg, 'informer-trace', 'health-rules.yaml')],
    ] as const) {
      const d = await cli(['diagnose', 'raycluster/ruled', '-n', ns, '--grace', '1s', '-o', 'json', ...extra], env);
      expect(d.code, how).toBe(1);
      const summary = (JSON.parse(d.stdout) as { diagnosis: Diagnosis }).diagnosis.summary;
      expect(summary, how).toContain(`(rule: ray.io RayCluster, ${source})`);
      const c = await cli(
        [
          'check',
          '--apply',
          '-f',
          manifestFile(`ruled-${how.length}`, rayCluster(`ruled-${how.length}`)),
          '-n',
          ns,
          '--timeout',
          '45s',
          '-o',
          'json',
          ...extra,
        ],
        env,
      );
      expect(c.code, how).toBe(1);
      expect((JSON.parse(c.stdout) as { checks: { results: { message: string }[] }[] }).checks[0]!.results[0]!.message, how).toMatch(/^not converged within/);
    }
  });

  it('health over the live namespace and over kubectl get -o yaml of it agree, object by object', async () => {
    const live = await cli(['health', 'rayclusters', '-n', ns, '-o', 'json']);
    expect(live.stderr).toBe('');
    const rows = JSON.parse(live.stdout) as HealthRow[];
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(live.code).toBe(rows.every((r) => r.status === 'Current') ? 0 : 1);
    const yaml = execFileSync(join(cluster().binDir, 'kubectl'), ['--kubeconfig', cluster().kubeconfigPath, 'get', 'rayclusters', '-n', ns, '-o', 'yaml'], {
      encoding: 'utf8',
    });
    const file = join(dir, 'got.yaml');
    writeFileSync(file, yaml);
    const offline = await cli(['health', '-f', file, '-o', 'json']);
    const fromFile = JSON.parse(offline.stdout) as HealthRow[];
    const key = (r: HealthRow): string => `${r.kind}/${r.namespace}/${r.name}`;
    const liveBy = new Map(rows.map((r) => [key(r), r]));
    expect(fromFile.map(key).sort()).toEqual([...liveBy.keys()].sort());
    for (const r of fromFile)
      expect({ status: r.status, rule: r.rule }, key(r)).toEqual({ status: liveBy.get(key(r))!.status, rule: liveBy.get(key(r))!.rule });
    // The refused RayJobs too, through the table.
    const jobs = await cli(['health', 'rayjobs', '-n', ns]);
    expect(jobs.code).toBe(1);
    expect(jobs.stdout).toMatch(/^ray\.io\/v1\s+RayJob\s+\S+\s+refused\s+Failed\s+ray\.io RayJob\s+library\/ray\.io\.yaml\s+/m);
    expect(parse(yaml)).toBeTruthy();
  });
});
