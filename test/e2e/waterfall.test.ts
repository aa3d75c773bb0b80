/**
 * The waterfall of a real rollout: `kubectl informer-trace deploy/web --restart -o waterfall --svg
 * FILE` against the local control plane, and `check --artifacts DIR`. One lane per object of the
 * chain (the Deployment, both ReplicaSets, every old and new Pod), in the text and in the SVG, and
 * a critical path that ends at convergence.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import type { KubeObject } from '../../src/kube/index.js';
import { allElements, parseXml, textContent } from '../../tools/testing/xml.js';
import { adminKube, cluster, createWorkloadNamespace, deleteNamespace, deploymentAvailable, runCli, uniqueName } from './helpers.js';

const kube = adminKube();
const ns = uniqueName('it-waterfall');
const dir = mkdtempSync(join(tmpdir(), 'it-waterfall-'));

async function createReadyDeployment(name: string, replicas: number): Promise<void> {
  await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments`, {
    method: 'POST',
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'registry.invalid/app:1' }] } },
      },
    },
  });
  await deploymentAvailable(kube, ns, name, replicas);
}

async function list(resource: string, app: string): Promise<KubeObject[]> {
  const path = resource === 'pods' ? `/api/v1/namespaces/${ns}/pods` : `/apis/apps/v1/namespaces/${ns}/${resource}`;
  const l = await kube.client.json<{ items: KubeObject[] }>(`${path}?labelSelector=app%3D${app}`);
  return l.items.filter((o) => !o.metadata.deletionTimestamp);
}

const uids = (objs: KubeObject[]): string[] => objs.map((o) => o.metadata.uid!).sort();

describe('the waterfall of a real rollout', () => {
  beforeAll(async () => {
    await createWorkloadNamespace(kube, ns);
  });
  afterAll(async () => {
    await deleteNamespace(kube, ns);
    rmSync(dir, { recursive: true, force: true });
  });

  it('--restart -o waterfall --svg: one lane per ReplicaSet and Pod of the chain, and a critical path ending at converged', async () => {
    await createReadyDeployment('web', 3);
    const [dep] = await kube.client
      .json<{ items: KubeObject[] }>(`/apis/apps/v1/namespaces/${ns}/deployments?fieldSelector=metadata.name%3Dweb`)
      .then((l) => l.items);
    const oldRs = await list('replicasets', 'web');
    const oldPods = await list('pods', 'web');
    expect(oldRs).toHaveLength(1);
    expect(oldPods).toHaveLength(3);
    const svgFile = join(dir, 'web.svg');

    const r = await runCli(
      createInformerTraceProgram,
      ['deployment/web', '--restart', '-n', ns, '--kubeconfig', cluster().kubeconfigPath, '-o', 'waterfall', '--svg', svgFile, '--timeout', '150s'],
      { env: { COLUMNS: '140' } },
    );
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`wrote the waterfall SVG to ${svgFile}`);

    const newRs = (await list('replicasets', 'web')).filter((rs) => rs.metadata.uid !== oldRs[0]!.metadata.uid);
    const newPods = await list('pods', 'web');
    expect(newRs).toHaveLength(1);
    expect(newPods).toHaveLength(3);

    // The text: fits 140 columns; one row per object of the chain, under its owner.
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(140);
    expect(lines[0]).toMatch(new RegExp(`^Deployment/web in ${ns} · restart · converged in \\d`));
    const axis = lines.findIndex((l) => /^ +┴/.test(l));
    // After the one-column gutter: the label, indented two spaces per level of the owner chain.
    const rows = lines.slice(1, axis).map((l) => /^.((?: {2})*[A-Za-z]+\/\S+)/.exec(l)?.[1] ?? l);
    const expected = [
      'Deployment/web',
      `  ReplicaSet/${newRs[0]!.metadata.name}`,
      ...newPods.map((p) => `    Pod/${p.metadata.name}`),
      `  ReplicaSet/${oldRs[0]!.metadata.name}`,
      ...oldPods.map((p) => `    Pod/${p.metadata.name}`),
    ];
    expect([...rows].sort()).toEqual([...expected].sort());
    expect(rows[0]).toBe('Deployment/web');
    expect(rows[1]).toBe(`  ReplicaSet/${newRs[0]!.metadata.name}`);
    expect(lines[0]).not.toContain('grouped');
    // New Pods went through their phases; the old ones were deleted.
    for (const p of newPods) expect(lines.find((l) => l.includes(`Pod/${p.metadata.name}`))).toMatch(/█.* ready \S+$/);
    for (const p of oldPods) expect(lines.find((l) => l.includes(`Pod/${p.metadata.name}`))).toMatch(/ deleted$/);
    const text = lines.join('\n');
    expect(text).toMatch(/critical path \(\d+ hops\): trigger → Deployment\/web target modified/);
    expect(text).toMatch(/→ Deployment\/web converged \+\S+$/m);

    // The SVG: well-formed, the same lanes by uid, the critical path's last diamond at converged.
    const svg = readFileSync(svgFile, 'utf8');
    const root = parseXml(svg);
    expect(root.name).toBe('svg');
    const all = allElements(root);
    const lanes = all.filter((e) => e.name === 'g' && e.attributes.class === 'lane').map((e) => e.attributes['data-lane']!);
    expect(lanes[0]).toBe(dep!.metadata.uid);
    expect([...lanes].sort()).toEqual([dep!.metadata.uid!, ...uids(newRs), ...uids(oldRs), ...uids(newPods), ...uids(oldPods)].sort());
    const critical = all.filter((e) => e.attributes.class === 'critical-hop').map(textContent);
    expect(critical.length).toBeGreaterThan(3);
    expect(critical.at(-1)).toMatch(/^Deployment\/web converged \+\S+ \(critical path\)$/);
    expect(critical.some((c) => c.startsWith(`ReplicaSet/${newRs[0]!.metadata.name} created`))).toBe(true);
    expect(critical.some((c) => /^Pod\/\S+ ready /.test(c) && newPods.some((p) => c.startsWith(`Pod/${p.metadata.name} `)))).toBe(true);
  });

  it('check --artifacts DIR: one SVG per rollout check, named after it, listed in the output', async () => {
    await createReadyDeployment('api', 2);
    const artifacts = join(dir, 'artifacts');
    const r = await runCli(createInformerTraceProgram, [
      'check',
      '--restart',
      'deploy/api',
      '-n',
      ns,
      '--kubeconfig',
      cluster().kubeconfigPath,
      '--max-converge',
      '150s',
      '--artifacts',
      artifacts,
      '-o',
      'json',
    ]);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const files = readdirSync(artifacts);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^rollout-deploy-api-in-it-waterfall-[-a-z0-9]+\.svg$/);
    const file = join(artifacts, files[0]!);
    expect(r.stderr).toContain(file);
    const report = JSON.parse(r.stdout) as { checks: { name: string; artifacts?: string[] }[] };
    expect(report.checks[0]!.artifacts).toEqual([file]);
    const root = parseXml(readFileSync(file, 'utf8'));
    const lanes = allElements(root).filter((e) => e.name === 'g' && e.attributes.class === 'lane');
    // The Deployment, two ReplicaSets and at least the two new Pods.
    expect(lanes.length).toBeGreaterThanOrEqual(5);
    expect(existsSync(file)).toBe(true);
  });

  it('bad paths are refused with one line before any request', async () => {
    // The target does not exist: a command that went to the cluster would say so and exit 1.
    const missing = join(dir, 'no-such-folder', 'web.svg');
    const r = await runCli(createInformerTraceProgram, [
      'deployment/never-made',
      '--restart',
      '-n',
      ns,
      '--kubeconfig',
      cluster().kubeconfigPath,
      '--svg',
      missing,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`error: --svg ${missing}: the folder ${join(dir, 'no-such-folder')} does not exist`);
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const c = await runCli(createInformerTraceProgram, [
      'check',
      '--restart',
      'deploy/never-made',
      '-n',
      ns,
      '--kubeconfig',
      cluster().kubeconfigPath,
      '--artifacts',
      file,
    ]);
    expect(c.code).toBe(2);
    expect(c.stderr.trim()).toBe(`error: --artifacts ${file}: not a folder`);
  });
});
