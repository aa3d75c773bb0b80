/**
 * kubectl informer-trace on the custom resources of operators that run as real processes against
 * the real control plane, each with two replicas electing a leader through a Lease and serving
 * Prometheus metrics: the widget operator of test/fixtures (controller-runtime; a Deployment and a
 * ConfigMap as children, Ready/Reconciling/Stalled conditions, modes that stall or fail), and
 * KubeRay's operator, built from its published Go module with the CRDs of that module (a RayCluster
 * owns its head and worker Pods and a Service directly; its status has no Ready condition).
 * No flag names the children. Namespaces, CRDs and operators are removed afterwards.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import type { ControllerBehind, Diagnosis } from '../../src/diagnose/types.js';
import type { Hop } from '../../src/trace/index.js';
import type { TraceSummary } from '../../src/view/trace-view.js';
import { adminKube, cluster, createWorkloadNamespace, deleteCrd, deleteNamespace, eventually, runCli, uniqueName } from './helpers.js';
import { KUBERAY_LEASE, startKubeRay } from './kuberay.js';
import type { Operators } from './operators.js';
import { closeTerminals, Terminal, tmuxInstalled } from './terminal.js';
import {
  deleteWidgetCrd,
  installWidgetCrd,
  startWidgetOperators,
  WIDGET_CONTROLLER,
  WIDGET_FIELD_MANAGER,
  widgetManifest,
  type WidgetOptions,
} from './widget-operator.js';

interface TraceJson {
  summary: TraceSummary;
  hops: Hop[];
  outcome: string;
  controller?: ControllerBehind;
  diagnosis?: Diagnosis;
}

const kube = adminKube();
const count = (text: string, needle: string): number => text.split(needle).length - 1;
const dir = mkdtempSync(join(tmpdir(), 'it-operators-'));

function manifestFile(name: string, obj: Record<string, unknown>): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(obj));
  return file;
}

const index = (t: TraceJson, pred: (h: Hop) => boolean, what: string): number => {
  const i = t.hops.findIndex(pred);
  expect(i, `${what} in ${t.hops.map((h) => `${h.object.kind}/${h.object.name} ${h.kind}`).join(', ')}`).toBeGreaterThanOrEqual(0);
  return i;
};

async function trace(args: string[]): Promise<{ code: number; stderr: string; t: TraceJson }> {
  const r = await runCli(createInformerTraceProgram, [...args, '--kubeconfig', cluster().kubeconfigPath, '-o', 'json']);
  expect(r.stderr).not.toMatch(/^error/m);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return { code: r.code, stderr: r.stderr, t: JSON.parse(r.stdout) as TraceJson };
}

describe('the widget operator (controller-runtime, two replicas)', () => {
  const ns = uniqueName('it-widget');
  let ops: Operators | undefined;
  const widget = (name: string, o: WidgetOptions = {}): string => manifestFile(name, widgetManifest(name, { namespace: ns, ...o }));
  const metricsFlags = (): string[] => ops!.metricsUrls.flatMap((u) => ['--metrics', u]);

  beforeAll(async () => {
    await installWidgetCrd(kube);
    await createWorkloadNamespace(kube, ns);
    // Short leader-election timings, so the Lease of a stopped operator expires within a test.
    ops = await startWidgetOperators({ namespace: ns, replicas: 2, leaseDuration: '4s', renewDeadline: '3s', retryPeriod: '1s' });
    await eventually('a widget-operator replica to lead', () => ops!.holder(kube));
  });

  afterAll(async () => {
    await ops?.stop();
    await deleteNamespace(kube, ns);
    await deleteWidgetCrd(kube);
  });

  it('follows what it owns to the Pods and converges by its Ready condition, with the operator, its Lease and its queue behind it', async () => {
    const { code, t } = await trace(['--apply', '-f', widget('w1', { replicas: 2, message: 'hello' }), '-n', ns, '--timeout', '120s', ...metricsFlags()]);
    expect(code).toBe(0);
    expect(t.outcome).toBe('converged');
    const converged = index(t, (h) => h.kind === 'converged', 'converged');
    expect(t.hops[converged]!.detail).toMatch(/^Ready=True Available: Deployment w1 has 2\/2 replicas available \(rule: Ready condition\)$/);
    index(t, (h) => h.kind === 'created' && h.object.kind === 'ConfigMap' && h.object.name === 'w1-config', 'ConfigMap created');
    index(t, (h) => h.kind === 'created' && h.object.kind === 'Deployment' && h.object.name === 'w1', 'Deployment created');
    index(t, (h) => h.kind === 'created' && h.object.kind === 'ReplicaSet', 'ReplicaSet created');
    const podsReady = t.hops.map((h, i) => (h.kind === 'ready' && h.object.kind === 'Pod' ? i : -1)).filter((i) => i >= 0);
    expect(podsReady).toHaveLength(2);
    // Its first status write (Reconciling) did not end the trace: both Pods became ready first.
    const reconciling = index(
      t,
      (h) => h.object.kind === 'Widget' && h.kind === 'condition' && h.detail?.startsWith('Reconciling True') === true,
      'Reconciling True',
    );
    expect(reconciling).toBeLessThan(podsReady[0]!);
    expect(Math.max(...podsReady)).toBeLessThan(converged);
    expect(t.hops[reconciling]!.writer).toBe(`${WIDGET_FIELD_MANAGER} (status)`);
    // The controller behind it: its field manager, the Lease its leader holds (named by its metrics), its queue over the trace.
    const holder = await ops!.holder(kube);
    expect(t.controller).toMatchObject({
      manager: WIDGET_FIELD_MANAGER,
      lease: { namespace: ns, name: 'widget-operator', holder, foundBy: 'metrics' },
      queue: { controller: WIDGET_CONTROLLER, matchedBy: 'kind' },
      unseen: [],
    });
    expect(t.controller!.queue!.adds).toBeGreaterThan(0);
    expect(t.controller!.queue!.reconciles.success).toBeGreaterThan(0);
    expect(t.controller!.queue!.source).toBe(ops!.replicas.find((r) => r.identity === holder)!.metricsUrl);
  });

  it('in a real terminal: the tree and timeline of the chain fit 80x24 and 160x45, a hop it wrote names the Lease behind it, q leaves one summary', async () => {
    if (!tmuxInstalled()) throw new Error('the TUI end-to-end tests need tmux on PATH (apt-get install -y tmux)');
    const file = widget('wt', { replicas: 2 });
    const t = Terminal.start('widget', 80, 24, ['bin/kubectl-informer_trace', 'widget/wt', '-n', ns, '--apply', '-f', file, '-o', 'tui', ...metricsFlags()]);
    try {
      const header = `Widget/wt in ${ns} · applied`;
      await t.waitFor(/^converged/m, 120_000);
      const rows = t.expectFits(header);
      expect(rows.join('\n')).toMatch(/^Widget\/wt Ready$/m);
      expect(rows.join('\n')).toMatch(/^ {2}Deployment\/wt 2\/2 ready$/m);
      t.resize(160, 45);
      await t.waitFor((screen) => screen.split('\n').some((l) => [...l].length > 100));
      t.expectFits(header);
      // The timeline follows its end: the converged hop, which the operator's status write made.
      t.keys('Enter');
      const detail = await t.waitFor(/Lease \S+\/widget-operator held by widget-operator-\d/);
      expect(detail).toContain('written by  widget-operator (status)');
      t.expectFits(header);
      t.keys('Escape');
      await t.waitFor('─ Timeline ·');
      t.keys('q');
      const history = await t.waitFor(/^EXIT 0$/m).then(() => t.history());
      expect(count(history, '─ Timeline')).toBe(0);
      expect(count(history, `Widget/wt in ${ns}: converged`)).toBe(1);
      expect(count(history, 'controller: widget-operator · Lease')).toBe(1);
    } finally {
      t.close();
      closeTerminals();
    }
  });

  it('check --apply: a Widget that becomes Ready within the limit passes; a stalled one fails with its diagnosis in the report', async () => {
    const junit = join(dir, 'widgets.xml');
    const pass = await runCli(createInformerTraceProgram, [
      'check',
      '--apply',
      '-f',
      widget('wc1'),
      '-n',
      ns,
      '--max-converge',
      '90s',
      '--kubeconfig',
      cluster().kubeconfigPath,
    ]);
    expect(pass.stderr).not.toMatch(/\n\s+at /);
    expect(pass.code).toBe(0);
    const fail = await runCli(createInformerTraceProgram, [
      'check',
      '--apply',
      '-f',
      widget('wc2', { mode: 'stall' }),
      '-n',
      ns,
      '--max-converge',
      '30s',
      '--junit',
      junit,
      '--kubeconfig',
      cluster().kubeconfigPath,
    ]);
    expect(fail.code).toBe(1);
    const report = readFileSync(junit, 'utf8');
    expect(report).toContain('<failure');
    expect(report).toMatch(/Stalled=True ManualStall: stalled on request/);
  });

  it('a Stalled condition fails the trace, exit 1, and the diagnosis gives its reason and message', async () => {
    const { code, t } = await trace(['--apply', '-f', widget('w2', { mode: 'stall' }), '-n', ns, '--timeout', '60s']);
    expect(code).toBe(1);
    expect(t.outcome).toBe('failed');
    expect(t.hops.at(-1)).toMatchObject({ kind: 'failed', detail: 'Stalled=True ManualStall: stalled on request (rule: Stalled condition)' });
    expect(t.diagnosis).toMatchObject({ verdict: 'broken', link: 'status-conditions', summary: 'Widget/w2: Stalled True: ManualStall: stalled on request' });
  });

  it('a reconcile that keeps failing times out: the diagnosis names the condition and the retries of its queue', async () => {
    const { code, t } = await trace(['--apply', '-f', widget('w3', { mode: 'fail' }), '-n', ns, '--timeout', '12s', ...metricsFlags()]);
    expect(code).toBe(1);
    expect(t.outcome).toBe('timeout');
    expect(t.hops.some((h) => h.kind === 'converged')).toBe(false);
    index(
      t,
      (h) => h.kind === 'condition' && h.detail?.startsWith('Ready False') === true && h.detail.includes('ReconcileError'),
      'Ready False ReconcileError',
    );
    expect(t.diagnosis?.verdict).toBe('broken');
    expect(t.diagnosis?.link).toBe('status-conditions');
    expect(t.diagnosis?.summary).toMatch(/^Widget\/w3: not ready for [\d.]+s: Reconciling=True ReconcileError: the reconcile fails on request/);
    const queue = t.diagnosis?.evidence.find((e) => e.source === 'queue');
    expect(queue?.reason).toBe('Retrying');
    expect(queue?.message).toMatch(/\d+ retries, reconciles (\d+ error|.*\d+ error)/);
    expect(t.controller!.queue!.reconciles.error).toBeGreaterThan(0);
    // `diagnose` says the same of it, children found without flags, with the queue beside it.
    const d = await runCli(createInformerTraceProgram, [
      'diagnose',
      'widget/w3',
      '-n',
      ns,
      '--grace',
      '5s',
      '--kubeconfig',
      cluster().kubeconfigPath,
      '-o',
      'json',
      ...metricsFlags(),
    ]);
    expect(d.code).toBe(1);
    const diagnosis = (JSON.parse(d.stdout) as { diagnosis: Diagnosis }).diagnosis;
    expect(diagnosis).toMatchObject({ verdict: 'broken', link: 'status-conditions' });
    // Its two scrapes are a second apart: the queue over that second, retries or not (the backoff has grown by now).
    expect(diagnosis.evidence.find((e) => e.source === 'queue')).toMatchObject({ object: { kind: 'WorkQueue', name: WIDGET_CONTROLLER } });
    expect(diagnosis.summary).toMatch(/^Widget\/w3: not ready for [\d.]+s: Reconciling=True ReconcileError/);
  });

  it('a Widget in a namespace the operator does not watch is not observed: its Lease (named by its metrics) is held and renewed, its queue beside it', async () => {
    const elsewhere = uniqueName('it-widget-x');
    await createWorkloadNamespace(kube, elsewhere);
    try {
      const file = manifestFile('w4', widgetManifest('w4', { namespace: elsewhere }));
      const { code, t } = await trace(['--apply', '-f', file, '-n', elsewhere, '--timeout', '10s', ...metricsFlags()]);
      expect(code).toBe(1);
      expect(t.outcome).toBe('timeout');
      expect(t.controller).toMatchObject({
        manager: null,
        lease: { namespace: ns, name: 'widget-operator', foundBy: 'metrics' },
        queue: { controller: WIDGET_CONTROLLER },
      });
      expect(t.diagnosis?.link).toBe('controller-observed');
      expect(t.diagnosis?.summary).toMatch(
        new RegExp(
          `^Widget/w4: no controller has written its status for [\\d.]+s: the holder of Lease ${ns}/widget-operator holds its Lease but has not observed it$`,
        ),
      );
      // The queue is the operator's (w3 of the test before still fails and retries in it).
      expect(t.diagnosis?.evidence.map((e) => `${e.source} ${e.source === 'queue' ? e.object.name : e.reason}`)).toEqual([
        'field GenerationNotObserved',
        'lease Renewed',
        `queue ${WIDGET_CONTROLLER}`,
      ]);
    } finally {
      await deleteNamespace(kube, elsewhere);
    }
  });

  it('with its operator stopped, a new generation is not observed: the diagnosis shows its Lease expired', async () => {
    const holder = await ops!.holder(kube);
    await ops!.stop();
    try {
      // w1 was reconciled: its status names the operator, whose Lease is found by that name.
      const { code, t } = await trace(['widget/w1', '--scale', '3', '-n', ns, '--timeout', '10s']);
      expect(code).toBe(1);
      expect(t.outcome).toBe('timeout');
      expect(t.controller).toMatchObject({
        manager: WIDGET_FIELD_MANAGER,
        lease: { namespace: ns, name: 'widget-operator', holder, foundBy: 'name' },
        queue: null,
      });
      expect(t.diagnosis?.link).toBe('controller-observed');
      expect(t.diagnosis?.summary).toMatch(
        /^Widget\/w1: observedGeneration 1 < generation 2 for [\d.]+s, and widget-operator's leader Lease is expired: no replica of it is reconciling Widgets$/,
      );
      expect(t.diagnosis?.evidence.find((e) => e.source === 'lease')).toMatchObject({
        object: { kind: 'Lease', namespace: ns, name: 'widget-operator' },
        reason: 'Expired',
      });
    } finally {
      ops = undefined;
    }
  });
});

describe('KubeRay (github.com/ray-project/kuberay/ray-operator, two replicas)', () => {
  const ns = uniqueName('it-ray');
  const LEASE = KUBERAY_LEASE;
  const MANAGER = 'kuberay-operator';
  let ops: Operators | undefined;
  let crds: string[] = [];

  beforeAll(async () => {
    ({ ops, crds } = await startKubeRay(kube, ns, 2));
  });

  afterAll(async () => {
    await ops?.stop();
    await deleteNamespace(kube, ns);
    for (const crd of crds) await deleteCrd(kube, crd);
    crds = [];
  });

  it('a new RayCluster: its Service and Pods followed, converged by the library rule for RayClusters only once every Pod is ready, the operator behind it joined', async () => {
    const cpu = (n: string): Record<string, unknown> => ({ limits: { cpu: n, memory: '1Gi' }, requests: { cpu: n, memory: '1Gi' } });
    const file = manifestFile('raycluster', {
      apiVersion: 'ray.io/v1',
      kind: 'RayCluster',
      metadata: { name: 'demo', namespace: ns },
      spec: {
        rayVersion: '2.46.0',
        headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0', resources: cpu('1') }] } } },
        workerGroupSpecs: [
          {
            groupName: 'workers',
            replicas: 2,
            minReplicas: 2,
            maxReplicas: 3,
            rayStartParams: {},
            template: { spec: { containers: [{ name: 'ray-worker', image: 'rayproject/ray:2.46.0', resources: cpu('1') }] } },
          },
        ],
      },
    });
    const { code, t } = await trace(['--apply', '-f', file, '-n', ns, '--timeout', '150s', ...ops!.metricsUrls.flatMap((u) => ['--metrics', u])]);
    expect(code).toBe(0);
    expect(t.outcome).toBe('converged');
    const converged = index(t, (h) => h.kind === 'converged', 'converged');
    expect(t.hops[converged]!.detail).toMatch(/RayClusterProvisioned=True .*\(rule: ray\.io RayCluster, library\/ray\.io\.yaml\)$/);
    index(t, (h) => h.kind === 'created' && h.object.kind === 'Service' && h.object.name === 'demo-head-svc', 'head Service created');
    const pods = new Set(t.hops.filter((h) => h.object.kind === 'Pod' && h.kind === 'created').map((h) => h.object.name));
    expect(pods.size).toBe(3);
    const lastReady = Math.max(...t.hops.map((h, i) => (h.kind === 'ready' && h.object.kind === 'Pod' ? i : -1)));
    expect(t.hops.filter((h) => h.kind === 'ready' && h.object.kind === 'Pod')).toHaveLength(3);
    expect(lastReady).toBeLessThan(converged);
    // Its first status write (provisioning) was not taken for readiness.
    const provisioning = index(
      t,
      (h) => h.object.kind === 'RayCluster' && h.kind === 'condition' && h.detail?.startsWith('RayClusterProvisioned False') === true,
      'RayClusterProvisioned False',
    );
    expect(provisioning).toBeLessThan(lastReady);
    expect(t.hops[provisioning]!.writer).toBe(`${MANAGER} (status)`);
    index(t, (h) => h.object.kind === 'RayCluster' && h.kind === 'status' && h.detail === 'status.state ready', 'status.state ready');
    const holder = await ops!.holder(kube);
    expect(t.controller).toMatchObject({
      manager: MANAGER,
      lease: { namespace: ns, name: LEASE, holder, foundBy: 'metrics' },
      queue: { controller: 'raycluster', matchedBy: 'kind' },
    });
    expect(t.controller!.queue!.adds).toBeGreaterThan(0);
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));
