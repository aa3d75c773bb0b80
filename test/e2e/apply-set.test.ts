/**
 * A change of many objects, applied and traced in one command against the real control plane:
 * a folder of a Namespace, config, a Service and Deployments (one of which cannot be scheduled),
 * applied in an order that works and each followed to its readiness over shared informers; the
 * same as CI assertions with `check`; and an operator nobody here wrote (Argo Rollouts), set up
 * from its own module's CRD manifests, with its custom resources, applied and traced to ready.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import type { KubeObject } from '../../src/kube/index.js';
import type { SetReport } from '../../src/view/set-view.js';
import { startArgoRollouts } from './argo-rollouts.js';
import {
  adminKube,
  cluster,
  deleteNamespace,
  deploymentAvailable,
  deploymentManifest,
  eventually,
  ndjsonLines,
  runCli,
  startCli,
  stderrLine,
  uniqueName,
} from './helpers.js';
import { tearDownOperator, type StartedOperator } from './operators.js';
import { closeTerminals, Terminal, tmuxInstalled } from './terminal.js';

const kube = adminKube();
const dir = mkdtempSync(join(tmpdir(), 'it-set-'));
const cliEnv = { CI: 'true', XDG_CONFIG_HOME: join(dir, 'no-config') };
const kubeconfig = ['--kubeconfig', cluster().kubeconfigPath];

/** Writes `objects` as one multi-document YAML file (JSON is YAML) into `folder`. */
function writeObjects(folder: string, file: string, objects: Record<string, unknown>[]): string {
  mkdirSync(folder, { recursive: true });
  const path = join(folder, file);
  writeFileSync(path, objects.map((o) => JSON.stringify(o)).join('\n---\n'));
  return path;
}

const inNs = (ns: string, obj: Record<string, unknown>): Record<string, unknown> => ({
  ...obj,
  metadata: { ...(obj.metadata as Record<string, unknown>), namespace: ns },
});

const deployment = (ns: string, name: string, replicas: number, cpu?: string): Record<string, unknown> =>
  inNs(ns, deploymentManifest(name, replicas, cpu ? { cpu } : {}));

async function exists(path: string): Promise<boolean> {
  return kube.client.json(path).then(
    () => true,
    () => false,
  );
}

describe('--apply -f DIR: a release of plain objects', () => {
  const ns = uniqueName('it-set');
  const app = join(dir, 'app');

  beforeAll(() => {
    // Written out of order on purpose: the Namespace and the config last.
    writeObjects(app, 'a-workloads.yaml', [deployment(ns, 'web', 2), deployment(ns, 'api', 1), deployment(ns, 'stuck', 1, '1000')]);
    writeObjects(app, 'b-service.yaml', [
      inNs(ns, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }),
    ]);
    writeObjects(app, 'c-config.yaml', [
      inNs(ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, data: { mode: 'fast' } }),
      inNs(ns, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'web-token' }, stringData: { token: 'not-for-your-eyes' } }),
    ]);
    writeObjects(app, 'd-namespace.yaml', [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }]);
  });

  afterAll(async () => {
    await deleteNamespace(kube, ns);
  });

  it('applies every object in an order that works, traces each to its readiness, and names the one that cannot be scheduled with its broken link', async () => {
    const r = await runCli(createInformerTraceProgram, ['--apply', '-f', app, '--timeout', '25s', '-o', 'json', ...kubeconfig], { env: cliEnv });
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as SetReport;
    // The Namespace first, then config, the Service, the workloads.
    expect(report.objects.map((o) => o.object)).toEqual([
      `namespace/${ns}`,
      'configmap/web-config',
      'secret/web-token',
      'service/web',
      'deployment.apps/web',
      'deployment.apps/api',
      'deployment.apps/stuck',
    ]);
    expect(report.objects.every((o) => o.apply === 'created')).toBe(true);
    const byName = new Map(report.objects.map((o) => [o.object, o]));
    for (const ready of ['deployment.apps/web', 'deployment.apps/api']) {
      expect(byName.get(ready)).toMatchObject({ state: 'ready', status: 'Current', rule: 'apps Deployment' });
      expect(byName.get(ready)!.readyMs).toBeGreaterThan(0);
      expect(byName.get(ready)!.hops).toBeGreaterThan(3);
    }
    expect(byName.get(`namespace/${ns}`)).toMatchObject({ state: 'ready', status: 'Current' });
    expect(byName.get('configmap/web-config')).toMatchObject({ state: 'no-readiness', status: 'None' });
    const stuck = byName.get('deployment.apps/stuck')!;
    expect(stuck).toMatchObject({ state: 'not-ready', status: 'InProgress' });
    expect(stuck.diagnosis).toMatchObject({ verdict: 'broken', link: 'scheduled' });
    expect(report.summary).toMatchObject({ objects: 7, ready: 3, withoutReadiness: 3, notReady: 1, outcome: 'timeout' });
    expect(report.summary.notReadyObjects.map((n) => n.object)).toEqual(['deployment.apps/stuck']);
    // One informer per kind and namespace, however many objects: the three Deployments share theirs.
    expect(report.summary.informers).toBeLessThanOrEqual(9);
    // A Secret's data is never printed.
    expect(r.stdout).not.toContain('not-for-your-eyes');
    expect(r.stdout).not.toContain(Buffer.from('not-for-your-eyes').toString('base64'));
  });

  it('says each object once as applied (unchanged the second time), each hop with its object, and a table at the end', async () => {
    rmSync(join(app, 'a-workloads.yaml'));
    writeObjects(app, 'a-workloads.yaml', [deployment(ns, 'web', 2), deployment(ns, 'api', 2)]);
    const r = await runCli(createInformerTraceProgram, ['--apply', '-f', app, '--timeout', '60s', '-o', 'table', ...kubeconfig], { env: cliEnv });
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => l === 'deployment.apps/web unchanged')).toHaveLength(1);
    expect(lines.filter((l) => l === 'deployment.apps/api configured')).toHaveLength(1);
    // The api Deployment's scale-up, hop by hop, each line naming its object.
    expect(lines.some((l) => /^ {2}deployment\.apps\/api .*Pod\/api-\S+ +ready/.test(l))).toBe(true);
    expect(r.stdout).toMatch(/^OBJECT +NAMESPACE +APPLY +STATUS +READY IN +RULE$/m);
    expect(r.stdout).toMatch(/^6 objects: 3 ready, 3 without readiness; all ready in /m);
  });

  it('check --apply -f DIR writes one JUnit test case per object and fails with the diagnosis of the one that does not converge', async () => {
    writeObjects(app, 'e-stuck.yaml', [deployment(ns, 'stuck', 1, '1000')]);
    const junit = join(dir, 'set.xml');
    const r = await runCli(createInformerTraceProgram, ['check', '--apply', '-f', app, '--max-converge', '20s', '--junit', junit, ...kubeconfig], {
      env: cliEnv,
    });
    expect(r.code).toBe(1);
    const xml = readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(7);
    expect(xml).toMatch(/<testcase [^>]*name="[^"]*deployment\.apps\/web ready"[^>]*>\s*<system-out>/);
    expect(xml).toMatch(/<testcase [^>]*name="[^"]*deployment\.apps\/stuck ready"[^>]*>\s*<failure [^>]*broken at &quot;scheduled&quot;/);
    expect(`${r.stdout}${r.stderr}`).toMatch(/^FAIL .*deployment\.apps\/stuck ready/m);
  });

  it('stops before the first write at a file that does not parse or an object without a name, naming the file and the document', async () => {
    const bad = join(dir, 'bad');
    const fresh = uniqueName('it-set-none');
    writeObjects(bad, 'a.yaml', [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: fresh } }]);
    writeFileSync(join(bad, 'b.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {}\n');
    const r = await runCli(createInformerTraceProgram, ['--apply', '-f', bad, ...kubeconfig], { env: cliEnv });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`error: ${join(bad, 'b.yaml')}: document 2: the object has no metadata.name`);
    writeFileSync(join(bad, 'b.yaml'), 'apiVersion: v1\nkind: [unclosed\n');
    const r2 = await runCli(createInformerTraceProgram, ['--apply', '-f', bad, ...kubeconfig], { env: cliEnv });
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(new RegExp(`^error: ${join(bad, 'b.yaml')}: document 1: not valid YAML or JSON`));
    expect(await exists(`/api/v1/namespaces/${fresh}`)).toBe(false);
  });

  it('names an object the server refuses with its reason and goes on; --fail-fast stops there instead', async () => {
    const refusing = join(dir, 'refusing');
    writeObjects(refusing, 'all.yaml', [
      inNs(ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_A_Name' }, data: {} }),
      deployment(ns, 'after', 1),
    ]);
    const r = await runCli(createInformerTraceProgram, ['--apply', '-f', refusing, '--timeout', '45s', '-o', 'ndjson', ...kubeconfig], { env: cliEnv });
    expect(r.code).toBe(1);
    const lines = ndjsonLines<{ type: string; object?: { name: string }; message?: string; state?: string }>(r.stdout);
    const refused = lines.find((l) => l.type === 'refused');
    expect(refused?.object?.name).toBe('Not_A_Name');
    expect(refused?.message).toMatch(/Invalid value: "Not_A_Name"/);
    expect(lines.find((l) => l.type === 'settled' && l.object?.name === 'after')?.state).toBe('ready');
    // Every hop carries its object.
    const hops = lines.filter((l) => l.type === 'hop');
    expect(hops.length).toBeGreaterThan(0);
    expect(hops.every((h) => h.object?.name === 'after')).toBe(true);

    rmSync(refusing, { recursive: true });
    writeObjects(refusing, 'all.yaml', [
      inNs(ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_A_Name' }, data: {} }),
      deployment(ns, 'never', 1),
    ]);
    const ff = await runCli(createInformerTraceProgram, ['--apply', '-f', refusing, '--fail-fast', '-o', 'json', ...kubeconfig], { env: cliEnv });
    expect(ff.code).toBe(1);
    const report = JSON.parse(ff.stdout) as SetReport;
    expect(report.objects.find((o) => o.name === 'never')).toMatchObject({ apply: 'not applied' });
    expect(await exists(`/apis/apps/v1/namespaces/${ns}/deployments/never`)).toBe(false);
  });
  it('--watch -f traces the next change someone else makes to the objects, one created then included, and judges the rest as they stand', async () => {
    rmSync(join(app, 'e-stuck.yaml'), { force: true });
    writeObjects(app, 'f-later.yaml', [deployment(ns, 'later', 1)]);
    const run = startCli(createInformerTraceProgram, ['--watch', '-f', app, '--timeout', '90s', '--settle', '2s', '-o', 'ndjson', ...kubeconfig], {
      env: cliEnv,
    });
    await stderrLine(run, /^watching 7 objects for a change/);
    // What another tool's upgrade does: the web Deployment's template changes, and a new Deployment appears.
    await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments/web`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: JSON.stringify({ spec: { template: { metadata: { annotations: { 'example.com/release': '2' } } } } }),
    });
    await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments`, { method: 'POST', body: deployment(ns, 'later', 1) });
    const r = await run.done;
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const lines = ndjsonLines<{ type: string; object?: { kind: string; name: string }; state?: string }>(r.stdout);
    expect(
      lines
        .filter((l) => l.type === 'changed')
        .map((l) => l.object?.name)
        .sort(),
    ).toEqual(['later', 'web']);
    // Nothing was written by the watch: no apply.
    expect(lines.some((l) => l.type === 'applied')).toBe(false);
    const settled = new Map(lines.filter((l) => l.type === 'settled').map((l) => [`${l.object?.kind}/${l.object?.name}`, l.state]));
    expect(settled.get('Deployment/web')).toBe('ready');
    expect(settled.get('Deployment/later')).toBe('ready');
    expect(settled.get('Deployment/api')).toBe('ready');
    // Each changed Deployment's rollout, hop by hop, with its object.
    expect(lines.some((l) => l.type === 'hop' && l.object?.name === 'later')).toBe(true);
    const summary = lines.at(-1) as unknown as { summary: SetReport['summary']; objects: SetReport['objects'] };
    expect(summary.summary.outcome).toBe('ready');
    expect(summary.objects.find((o) => o.object === 'deployment.apps/api')?.apply).toBe('unchanged');
    expect(summary.objects.find((o) => o.object === 'deployment.apps/web')?.apply).toBe('changed');
  });

  /** A Deployment of the release `shop`: its Pods carry the release's label too, as a chart's do. */
  const release = (name: string, cpu?: string): Record<string, unknown> => {
    const d = deployment(ns, name, 1, cpu) as { metadata: Record<string, unknown>; spec: { template: { metadata: { labels: Record<string, string> } } } };
    d.metadata.labels = { [INSTANCE]: 'shop' };
    d.spec.template.metadata.labels = { ...d.spec.template.metadata.labels, [INSTANCE]: 'shop' };
    return d;
  };
  const INSTANCE = 'app.kubernetes.io/instance';
  const post = (path: string, body: Record<string, unknown>): Promise<unknown> => kube.client.json(`${path}`, { method: 'POST', body });
  const upgrade = (name: string, revision: string): Promise<unknown> =>
    kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments/${name}`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: JSON.stringify({ spec: { template: { metadata: { annotations: { 'example.com/release': revision } } } } }),
    });

  it('--watch -l traces the next change to the objects a release label selects, those it creates from their creation, and leaves their ReplicaSets and Pods to their chains', async () => {
    await post(`/apis/apps/v1/namespaces/${ns}/deployments`, release('shop-web'));
    await deploymentAvailable(kube, ns, 'shop-web', 1);
    const run = startCli(
      createInformerTraceProgram,
      ['--watch', '-l', `${INSTANCE}=shop`, '-n', ns, '--timeout', '90s', '--settle', '2s', '-o', 'ndjson', ...kubeconfig],
      {
        env: cliEnv,
      },
    );
    await stderrLine(run, /^watching 1 object \(the .*deployments.* selected by -l app\.kubernetes\.io\/instance=shop in \S+\) for a change/);
    // Another tool's upgrade of the release: one Deployment's template changes, a Deployment and a Service appear; an object outside it changes too.
    await upgrade('shop-web', '2');
    await upgrade('web', '3');
    await post(`/apis/apps/v1/namespaces/${ns}/deployments`, release('shop-api'));
    await post(`/api/v1/namespaces/${ns}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'shop-api', labels: { [INSTANCE]: 'shop' } },
      spec: { selector: { app: 'shop-api' }, ports: [{ port: 80 }] },
    });
    const r = await run.done;
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    type Line = { type: string; object?: { kind: string; name: string }; apply?: string; state?: string; hop?: { kind: string; object: { kind: string } } };
    const lines = ndjsonLines<Line>(r.stdout);
    const changed = new Map(lines.filter((l) => l.type === 'changed').map((l) => [`${l.object?.kind}/${l.object?.name}`, l.apply]));
    expect(changed).toEqual(
      new Map([
        ['Deployment/shop-web', 'changed'],
        ['Deployment/shop-api', 'created'],
        ['Service/shop-api', 'created'],
      ]),
    );
    const summary = lines.at(-1) as unknown as { summary: SetReport['summary']; objects: SetReport['objects'] };
    // Only what the label selects and no controller owns: not web, not the ReplicaSets and Pods that carry the label.
    expect(summary.objects.map((o) => o.object).sort()).toEqual(['deployment.apps/shop-api', 'deployment.apps/shop-web', 'service/shop-api']);
    expect(summary.summary.outcome).toBe('ready');
    // The created Deployment is traced from its creation: its own creation and its ReplicaSet's are hops of its chain.
    const apiHops = lines.filter((l) => l.type === 'hop' && l.object?.name === 'shop-api');
    expect(apiHops.some((l) => l.hop?.kind === 'created' && l.hop.object.kind === 'Deployment')).toBe(true);
    expect(apiHops.some((l) => l.hop?.kind === 'created' && l.hop.object.kind === 'ReplicaSet')).toBe(true);
    expect(apiHops.at(-1)?.hop?.kind).toBe('converged');
  });

  it('check --watch -l checks the objects of a release another tool deploys, one JUnit test case each, and fails when none is selected', async () => {
    const junit = join(dir, 'watch.xml');
    const run = startCli(
      createInformerTraceProgram,
      ['check', '--watch', '-l', `${INSTANCE}=shop`, '--kinds', 'deploy,svc', '-n', ns, '--max-converge', '15s', '--junit', junit, ...kubeconfig],
      {
        env: cliEnv,
      },
    );
    await stderrLine(run, /^ {2}watch -l app\.kubernetes\.io\/instance=shop in .*: watch the objects .* selects among deploy, svc; each ready ≤ 15\.0s/);
    // The two Deployments and the Service the first test left.
    await stderrLine(run, /: watching 3 objects \(the deployments, services selected by -l app\.kubernetes\.io\/instance=shop in \S+\) for a change$/);
    await upgrade('shop-web', '3');
    await post(`/apis/apps/v1/namespaces/${ns}/deployments`, release('shop-stuck', '1000'));
    const r = await run.done;
    expect(r.code).toBe(1);
    const xml = readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml).toMatch(/<testcase [^>]*name="[^"]*deployment\.apps\/shop-web ready"[^>]*>\s*<system-out>[^<]*changed; ready in /);
    expect(xml).toMatch(/<testcase [^>]*name="[^"]*deployment\.apps\/shop-stuck ready"[^>]*>\s*<failure [^>]*broken at &quot;scheduled&quot;/);
    expect(xml).toMatch(/<testcase [^>]*name="[^"]*service\/shop-api ready"[^>]*>\s*<system-out>/);

    const none = await runCli(createInformerTraceProgram, ['check', '--watch', '-l', `${INSTANCE}=nothing`, '-n', ns, '--max-converge', '2s', ...kubeconfig], {
      env: cliEnv,
    });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^FAIL .*-l app\.kubernetes\.io\/instance=nothing ready.*no object was selected, and none was created before the timeout/m);
  });
});

describe('--apply -f DIR: an operator nobody here wrote, from its own manifests, with its custom resources', () => {
  const ns = uniqueName('it-set-argo');
  const started: StartedOperator & { crdFiles?: string[] } = { ops: undefined, crds: [] };
  const release = join(dir, 'release');

  // The first run builds the controller from the module proxy: minutes on 2 cores with empty Go caches.
  beforeAll(async () => {
    Object.assign(started, await startArgoRollouts(kube, ns, 1));
  }, 1_200_000);

  afterAll(async () => {
    await tearDownOperator(kube, ns, started);
  });

  it("applies the module's CRDs and two Rollouts with their Service, waits for each definition, and traces each Rollout to Healthy", async () => {
    // The module's own CRD manifests, as a release would ship them beside its resources.
    mkdirSync(join(release, 'crds'), { recursive: true });
    for (const f of started.crdFiles ?? []) copyFileSync(f, join(release, 'crds', basename(f)));
    const rollout = (name: string): Record<string, unknown> =>
      inNs(ns, {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1' }] } },
          strategy: { canary: { steps: [{ setWeight: 50 }] } },
        },
      });
    writeObjects(release, 'app.yaml', [
      rollout('front'),
      rollout('back'),
      inNs(ns, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'front' }, spec: { selector: { app: 'front' }, ports: [{ port: 80 }] } }),
    ]);
    const r = await runCli(createInformerTraceProgram, ['--apply', '-f', release, '-R', '--timeout', '120s', '-o', 'ndjson', ...kubeconfig], { env: cliEnv });
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const lines = ndjsonLines<{ type: string; object?: { kind: string; name: string }; state?: string; rule?: string; hop?: { kind: string } }>(r.stdout);
    const settled = lines.filter((l) => l.type === 'settled');
    // The five definitions, Established, before any Rollout was applied.
    const crds = settled.filter((l) => l.object?.kind === 'CustomResourceDefinition');
    expect(crds).toHaveLength(5);
    expect(crds.every((l) => l.state === 'ready')).toBe(true);
    const firstRollout = lines.findIndex((l) => l.type === 'applied' && l.object?.kind === 'Rollout');
    expect(lines.findLastIndex((l) => l.type === 'settled' && l.object?.kind === 'CustomResourceDefinition')).toBeLessThan(firstRollout);
    for (const name of ['front', 'back']) {
      expect(settled.find((l) => l.object?.kind === 'Rollout' && l.object.name === name)).toMatchObject({ state: 'ready', rule: 'argoproj.io Rollout' });
      // Its chain: the operator's ReplicaSet and Pods, each hop naming the Rollout it belongs to.
      expect(lines.some((l) => l.type === 'hop' && l.object?.name === name && l.hop?.kind === 'ready')).toBe(true);
    }
    const summary = lines.at(-1) as unknown as { type: string; summary: SetReport['summary'] };
    expect(summary.summary).toMatchObject({ objects: 8, outcome: 'ready' });
    for (const name of ['front', 'back']) {
      const phase = await eventually(`Rollout ${name} Healthy`, async () => {
        const obj = await kube.client.json<KubeObject>(`/apis/argoproj.io/v1alpha1/namespaces/${ns}/rollouts/${name}`);
        return (obj.status as { phase?: string } | undefined)?.phase;
      });
      expect(phase).toBe('Healthy');
    }
  });
});

describe('--apply -f DIR on a terminal: 50 objects', () => {
  const ns = uniqueName('it-set-tui');
  const folder = join(dir, 'fifty');
  const count = (text: string, needle: string): number => text.split(needle).length - 1;

  beforeAll(() => {
    if (!tmuxInstalled()) throw new Error('the TUI end-to-end tests need tmux on PATH (apt-get install -y tmux)');
    const objects: Record<string, unknown>[] = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }];
    for (let i = 0; i < 24; i++) {
      const name = `web-${String(i).padStart(2, '0')}`;
      objects.push(deployment(ns, name, 1 + (i % 2)));
      objects.push(inNs(ns, { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80 }] } }));
    }
    objects.push(inNs(ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' }, data: { a: 'b' } }));
    writeObjects(folder, 'all.yaml', objects);
  });

  afterAll(async () => {
    closeTerminals();
    await deleteNamespace(kube, ns);
  });

  it('lists every object at 80x24 and 160x45, sorts, opens a chain and comes back, and leaves one summary and a clean terminal', async () => {
    const t = Terminal.start('set', 80, 24, ['bin/kubectl-informer_trace', '--apply', '-f', folder, '--timeout', '120s', '-o', 'tui']);
    const header = 'apply 50 objects';
    await t.waitFor('─ Objects · in apply order');
    expect(t.modes()).toEqual({ alternate: true, cursor: false });
    t.expectFits(header);
    // Every object settles: the header says done, and nothing waits.
    let s = await t.waitFor(/ · done/, 120_000);
    expect(s.split('\n')[0]).toMatch(/^apply 50 objects · 25 ready · 25 without readiness · \+\S+ · done/);
    t.expectFits(header);
    // The slowest first: the list's first row is a Deployment that took longest.
    t.keys('s');
    s = await t.waitFor('─ Objects · slowest first');
    const rows = s.split('\n').filter((l) => /^(ready|applied|waiting) /.test(l));
    expect(rows[0]).toMatch(/^ready +deployment\.apps\/web-\d\d /);
    // Enter opens that Deployment's chain in the trace's view; q comes back to the list.
    t.keys('Enter');
    s = await t.waitFor('─ Timeline ·');
    expect(s.split('\n')[0]).toMatch(new RegExp(`^Deployment/web-\\d\\d in ${ns}`));
    t.keys('q');
    await t.waitFor('─ Objects · slowest first');
    t.expectFits(header);

    t.resize(160, 45);
    await t.waitFor((screen) => screen.split('\n').some((l) => l.startsWith('─ Objects') && [...l].length > 100));
    expect(t.size()).toEqual({ width: 160, height: 45 });
    t.expectFits(header);
    s = t.screen().join('\n');
    // Taller: more of the 50 rows, still within the screen.
    expect(s.split('\n').filter((l) => /^(ready|applied) /.test(l)).length).toBeGreaterThan(30);
    t.resize(80, 24);
    await t.waitFor((screen) => screen.split('\n').every((l) => [...l].length <= 80) && screen.split('\n')[0]!.includes(header));
    t.expectFits(header);

    t.keys('q');
    await t.waitFor(/^EXIT \d+/m);
    expect(t.screen().join('\n')).toMatch(/^EXIT 0$/m);
    expect(t.modes()).toEqual({ alternate: false, cursor: true });
    const history = t.history();
    expect(count(history, '─ Objects')).toBe(0);
    expect(count(history, '50 objects: 25 ready, 25 without readiness; all ready in')).toBe(1);
  });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
