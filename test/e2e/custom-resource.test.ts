/**
 * kubectl informer-trace on a custom resource against the real control plane, with no flag naming
 * its children: a CRD made by the test, a controller played by the test (it writes the status
 * through the status subresource under its own field manager and creates a ConfigMap and a
 * Deployment the resource owns; kube-controller-manager and kwok do the rest), and a resource no
 * controller ever writes status for. The CRD and the namespace are removed afterwards.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import type { KubeObject } from '../../src/kube/index.js';
import type { ControllerBehind, Diagnosis } from '../../src/diagnose/types.js';
import type { Hop } from '../../src/trace/index.js';
import type { TraceSummary } from '../../src/view/trace-view.js';
import {
  adminKube,
  cluster,
  createCrd,
  ndjsonLines,
  createWorkloadNamespace,
  deleteCrd,
  deleteNamespace,
  deploymentAvailable,
  deploymentManifest,
  eventually,
  runCli,
  startCli,
  uniqueName,
} from './helpers.js';

interface TraceJson {
  controller?: ControllerBehind;
  summary: TraceSummary;
  hops: Hop[];
  outcome: string;
  diagnosis?: Diagnosis;
}

const kube = adminKube();
const ns = uniqueName('it-cr');
const group = `${uniqueName('g')}.informer-trace.test`;
const crdName = `gizmos.${group}`;
const dir = mkdtempSync(join(tmpdir(), 'it-cr-'));
const CONTROLLER = 'gizmo-controller';

const gizmoPath = (name: string, sub = ''): string => `/apis/${group}/v1/namespaces/${ns}/gizmos/${name}${sub}`;

function gizmoFile(name: string, size: number): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name, namespace: ns }, spec: { size } }));
  return file;
}

/** Writes the status as a controller does: the status subresource, its own field manager. */
async function writeStatus(name: string, status: Record<string, unknown>): Promise<void> {
  await kube.client.json(gizmoPath(name, '/status'), {
    method: 'PATCH',
    contentType: 'application/merge-patch+json',
    query: { fieldManager: CONTROLLER },
    body: { status },
  });
}

const condition = (type: string, status: string, reason: string, generation: number): Record<string, unknown> => ({
  type,
  status,
  reason,
  message: `${type} ${status}`,
  observedGeneration: generation,
  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
});

beforeAll(async () => {
  await createCrd(kube, group, { kind: 'Gizmo', plural: 'gizmos' });
  await createWorkloadNamespace(kube, ns);
});

afterAll(async () => {
  await deleteNamespace(kube, ns);
  await deleteCrd(kube, crdName);
  rmSync(dir, { recursive: true, force: true });
});

describe('informer-trace on a custom resource', () => {
  it('follows the children it owns without --children, and converges by its Ready condition, not at the first status write', async () => {
    const name = 'g1';
    const cli = startCli(createInformerTraceProgram, [
      '--apply',
      '-f',
      gizmoFile(name, 1),
      '-n',
      ns,
      '--kubeconfig',
      cluster().kubeconfigPath,
      '-o',
      'json',
      '--timeout',
      '120s',
    ]);
    // The controller, played here: it sees the new resource, says it is reconciling, creates what it owns.
    const gizmo = await eventually('the gizmo to be created', () => kube.client.json<KubeObject>(gizmoPath(name)).catch(() => undefined));
    await writeStatus(name, {
      observedGeneration: 1,
      conditions: [condition('Reconciling', 'True', 'Progressing', 1), condition('Ready', 'False', 'Progressing', 1)],
    });
    const owner = { apiVersion: `${group}/v1`, kind: 'Gizmo', name, uid: gizmo.metadata.uid, controller: true, blockOwnerDeletion: true };
    await kube.client.json(`/api/v1/namespaces/${ns}/configmaps`, {
      method: 'POST',
      query: { fieldManager: CONTROLLER },
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-config`, ownerReferences: [owner] }, data: { size: '1' } },
    });
    await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments`, {
      method: 'POST',
      query: { fieldManager: CONTROLLER },
      body: deploymentManifest(name, 1, { metadata: { ownerReferences: [owner] } }),
    });
    await deploymentAvailable(kube, ns, name, 1);
    await writeStatus(name, { observedGeneration: 1, conditions: [condition('Reconciling', 'False', 'Done', 1), condition('Ready', 'True', 'Available', 1)] });
    const r = await cli.done;
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const t = JSON.parse(r.stdout) as TraceJson;
    expect(t.outcome).toBe('converged');
    const at = (pred: (h: Hop) => boolean, what: string): number => {
      const i = t.hops.findIndex(pred);
      expect(i, what).toBeGreaterThanOrEqual(0);
      return i;
    };
    const converged = at((h) => h.kind === 'converged', 'converged');
    expect(t.hops[converged]!.detail).toBe('Ready=True Available: Ready True (rule: Ready condition)');
    // Every child, found through discovery, with the Pods the Deployment's ReplicaSet made.
    at((h) => h.kind === 'created' && h.object.kind === 'ConfigMap' && h.object.name === `${name}-config`, 'ConfigMap created');
    at((h) => h.kind === 'created' && h.object.kind === 'Deployment' && h.object.name === name, 'Deployment created');
    at((h) => h.kind === 'created' && h.object.kind === 'ReplicaSet', 'ReplicaSet created');
    const podReady = at((h) => h.kind === 'ready' && h.object.kind === 'Pod', 'Pod ready');
    // The first status write (Reconciling) was not the end: the Pod became ready before it converged.
    const reconciling = at((h) => h.kind === 'condition' && h.detail?.startsWith('Reconciling True') === true, 'Reconciling condition');
    expect(reconciling).toBeLessThan(podReady);
    expect(podReady).toBeLessThan(converged);
    // Who wrote each version: our apply, then the controller's status writes.
    expect(t.hops.find((h) => h.object.kind === 'Gizmo' && h.kind === 'created')?.writer).toBe('kubectl-informer-trace');
    expect(t.hops[reconciling]!.writer).toBe(`${CONTROLLER} (status)`);
    expect(t.summary.children).toMatch(/^children looked for in \d+ kinds found through discovery \(\d+ metadata-only\): .*configmaps.*deployments\.apps/);
    expect(t.summary.children).toContain(`gizmos.${group}`);
  });

  it('does not call a resource no controller writes status for converged: it times out, diagnosed not observed', async () => {
    const name = 'g2';
    const r = await runCli(createInformerTraceProgram, [
      '--apply',
      '-f',
      gizmoFile(name, 2),
      '-n',
      ns,
      '--kubeconfig',
      cluster().kubeconfigPath,
      '-o',
      'json',
      '--timeout',
      '6s',
    ]);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(1);
    const t = JSON.parse(r.stdout) as TraceJson;
    expect(t.outcome).toBe('timeout');
    expect(t.hops.some((h) => h.kind === 'converged')).toBe(false);
    expect(t.diagnosis?.verdict).toBe('broken');
    expect(t.diagnosis?.link).toBe('controller-observed');
    expect(t.diagnosis?.summary).toMatch(
      /^Gizmo\/g2: no controller has written its status for [\d.]+s: no controller has acted on it: is its operator installed and running/,
    );
    // Said once while it waits: its readiness is unknown, and how to define it.
    expect(r.stderr).toContain(
      'note: no controller has written the status of Gizmo/g2 within 3.00s: its readiness is unknown until one does; if none ever will, say when it is ready with --ready EXPR or --health-rules FILE',
    );
    expect(t.controller).toMatchObject({ manager: null, lease: null, queue: null });
  });

  it('--ready decides instead of the built-in rules; a bad expression is one line and exit 2', async () => {
    const name = 'g3';
    const cli = startCli(createInformerTraceProgram, [
      '--apply',
      '-f',
      gizmoFile(name, 1),
      '--ready',
      "status.phase == 'Done'",
      '-n',
      ns,
      '--kubeconfig',
      cluster().kubeconfigPath,
      '-o',
      'ndjson',
      '--timeout',
      '60s',
    ]);
    const lines = (): { type: string; hop?: Hop }[] => ndjsonLines(cli.stdout());
    await eventually('the gizmo to be created', () => kube.client.json<KubeObject>(gizmoPath(name)).catch(() => undefined));
    // Ready by the built-in rules, but not by --ready yet: the trace sees it and goes on.
    await writeStatus(name, { observedGeneration: 1, phase: 'Working', conditions: [condition('Ready', 'True', 'Fine', 1)] });
    await eventually('the Ready condition hop', async () =>
      lines().some((l) => l.hop?.kind === 'condition' && l.hop.detail?.startsWith('Ready True') === true),
    );
    expect(lines().some((l) => l.type === 'end')).toBe(false);
    await writeStatus(name, { observedGeneration: 1, phase: 'Done', conditions: [condition('Ready', 'True', 'Fine', 1)] });
    const r = await cli.done;
    expect(r.code).toBe(0);
    const hops = lines().flatMap((l) => (l.hop ? [l.hop] : []));
    expect(hops.at(-1)).toMatchObject({ kind: 'converged', detail: 'current expression true: Ready=True Fine: Ready True; phase Done (rule: --ready)' });
    expect(hops.some((h) => h.kind === 'status' && h.detail === 'status.phase Working→Done')).toBe(true);

    const bad = await runCli(createInformerTraceProgram, [
      `gizmo.${group}/${name}`,
      '--ready',
      'status.phase ==',
      '-n',
      ns,
      '--kubeconfig',
      cluster().kubeconfigPath,
      '-o',
      'json',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')[0]).toMatch(/^error: --ready: not a CEL expression: 1:\d+: /);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});
