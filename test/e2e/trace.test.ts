/**
 * kubectl informer-trace against the real control plane: each trigger on a Deployment of its own,
 * a StatefulSet and a DaemonSet restart, a burst, a Job and a deletion traced with --watch, a
 * Deployment created by --apply and one created by kubectl while --watch waits for it, and bad
 * input. Each test makes the objects it traces, so any one of them runs alone.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { readerNamespace } from '../../tools/cluster/launcher.js';
import type { KubeObject } from '../../src/kube/index.js';
import type { Hop } from '../../src/trace/index.js';
import { parseDuration } from '../../src/util/duration.js';
import type { TraceSummary } from '../../src/view/trace-view.js';
import {
  adminKube,
  cluster,
  createDeployment,
  createWorkloadNamespace,
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

interface TraceJson {
  summary: TraceSummary;
  trigger: { kind: string; wrote: string; at: number; resourceVersion: string; generation: number; writes: number };
  hops: Hop[];
  outcome: string;
  burst?: { writes: number; watchEvents: number; reconciles: number };
}

const kube = adminKube();
const ns = uniqueName('it-trace');
const manifests = mkdtempSync(join(tmpdir(), 'it-trace-'));
const run = promisify(execFile);

async function createReadyDeployment(namespace: string, name: string, replicas: number, extra: Record<string, unknown> = {}): Promise<void> {
  await createDeployment(kube, namespace, name, replicas, { metadata: extra });
  await deploymentAvailable(kube, namespace, name, replicas);
}

function writeManifest(name: string, replicas: number): string {
  const file = join(manifests, `${name}.yaml`);
  writeFileSync(file, JSON.stringify(deploymentManifest(name, replicas, { metadata: { namespace: ns } })));
  return file;
}

const traceArgs = ['-n', ns, '--kubeconfig', cluster().kubeconfigPath];

async function trace(args: string[]): Promise<{ code: number; json: TraceJson; stderr: string }> {
  const r = await runCli(createInformerTraceProgram, [...args, '-n', ns, '--kubeconfig', cluster().kubeconfigPath, '-o', 'json', '--timeout', '150s']);
  expect(r.stderr).not.toMatch(/^error/m);
  return { code: r.code, json: JSON.parse(r.stdout) as TraceJson, stderr: r.stderr };
}

/** Every hop's latencies are non-negative and its observed time follows the trigger. */
function expectSaneTimes(t: TraceJson): void {
  for (const h of t.hops) {
    expect(h.sinceTriggerMs, h.id).toBeGreaterThanOrEqual(0);
    expect(h.sincePreviousMs, h.id).toBeGreaterThanOrEqual(0);
    expect(h.reconciledAt, h.id).toBeGreaterThanOrEqual(h.observedAt);
    // Server times have second precision and come from the same machine's clock: the server
    // recorded it no later than we received it (allow the rounding), and not before the trigger.
    if (h.serverTime && h.kind !== 'terminating') {
      const server = Date.parse(h.serverTime);
      expect(server, `${h.id} server time ${h.serverTime}`).toBeLessThanOrEqual(h.observedAt + 1000);
      expect(server, `${h.id} server time ${h.serverTime}`).toBeGreaterThanOrEqual(Math.floor(t.trigger.at / 1000) * 1000 - 1000);
    }
  }
}

function at(t: TraceJson, kind: string, objectKind?: string, name?: string): Hop {
  const h = t.hops.find((x) => x.kind === kind && (!objectKind || x.object.kind === objectKind) && (!name || x.object.name === name));
  if (!h) throw new Error(`no ${kind} hop${objectKind ? ` on ${objectKind}` : ''}${name ? `/${name}` : ''}; hops: ${t.hops.map((x) => x.id).join(', ')}`);
  return h;
}

/**
 * The hops are listed in the order our informers received them, and each Event appears once under
 * a hop (no Event uid and no Event text twice).
 */
function expectOrderedAndEventsOnce(t: TraceJson): void {
  for (let i = 1; i < t.hops.length; i++)
    expect(t.hops[i]!.observedAt, `${t.hops[i]!.id} after ${t.hops[i - 1]!.id}`).toBeGreaterThanOrEqual(t.hops[i - 1]!.observedAt);
  for (const h of t.hops) {
    const uids = h.events.map((e) => e.uid);
    expect(uids.every(Boolean), h.id).toBe(true);
    expect(new Set(uids).size, `${h.id} Event uids`).toBe(uids.length);
    const texts = h.events.map((e) => `${e.reason}: ${e.note}`);
    expect(new Set(texts).size, `${h.id} Event texts ${texts.join(' | ')}`).toBe(texts.length);
  }
}

/** Each Pod's hops in causal order: created ≤ scheduled ≤ initialized ≤ containers-ready ≤ ready. */
function expectPodChains(t: TraceJson, podNames: string[]): void {
  for (const pod of podNames) {
    const order = ['created', 'scheduled', 'initialized', 'containers-ready', 'ready'].map((k) => at(t, k, 'Pod', pod).observedAt);
    for (let i = 1; i < order.length; i++) expect(order[i]!).toBeGreaterThanOrEqual(order[i - 1]!);
  }
}

describe('kubectl informer-trace on the real control plane', () => {
  beforeAll(async () => {
    await createWorkloadNamespace(kube, ns);
  });
  afterAll(async () => {
    await deleteNamespace(kube, ns);
    rmSync(manifests, { recursive: true, force: true });
  });

  it('--restart: the full chain from our write to convergence, in causal order', async () => {
    await createReadyDeployment(ns, 'web', 3);
    const { code, json: t } = await trace(['deployment/web', '--restart']);
    expect(code).toBe(0);
    expect(t.outcome).toBe('converged');
    expect(t.trigger.kind).toBe('restart');
    expectSaneTimes(t);
    expectOrderedAndEventsOnce(t);

    const modified = at(t, 'target-modified', 'Deployment');
    expect(modified.detail).toContain(t.trigger.resourceVersion);
    const observed = at(t, 'controller-observed', 'Deployment');
    expect(observed.detail).toBe(`observedGeneration ${t.trigger.generation}`);
    const newRs = at(t, 'created', 'ReplicaSet');
    const newPods = t.hops.filter((h) => h.kind === 'created' && h.object.kind === 'Pod' && h.owner?.uid === newRs.object.uid).map((h) => h.object.name);
    expect(newPods).toHaveLength(3);
    expectPodChains(t, newPods);
    expect(newRs.observedAt).toBeLessThanOrEqual(Math.min(...newPods.map((p) => at(t, 'created', 'Pod', p).observedAt)));
    expect(modified.observedAt).toBeLessThanOrEqual(newRs.observedAt);

    // The old ReplicaSet is scaled down to 0 and its Pods deleted.
    const oldDown = t.hops.filter((h) => h.kind === 'scaled-down' && h.object.kind === 'ReplicaSet');
    expect(oldDown.at(-1)?.detail).toMatch(/→0 replicas$/);
    const deleted = t.hops.filter((h) => h.kind === 'deleted' && h.object.kind === 'Pod');
    expect(deleted.length).toBe(3);

    // Convergence comes after every new Pod is Ready, and the summary names it.
    const converged = at(t, 'converged', 'Deployment');
    for (const p of newPods) expect(converged.observedAt).toBeGreaterThanOrEqual(at(t, 'ready', 'Pod', p).observedAt);
    expect(converged.detail).toContain('NewReplicaSetAvailable');
    expect(t.summary.elapsedMs).toBe(converged.observedAt - t.trigger.at);
    expect(t.summary.slowestHop).toBeDefined();
    // Events explain hops: the scheduler's Scheduled event is attached to a scheduled hop, and each
    // new Pod's creation carries the ReplicaSet controller's SuccessfulCreate naming that Pod only.
    expect(t.hops.some((h) => h.kind === 'scheduled' && h.events.some((e) => e.reason === 'Scheduled'))).toBe(true);
    for (const p of newPods) {
      for (const e of at(t, 'created', 'Pod', p).events) expect(e.note).toContain(p);
    }
    expect(newRs.events.filter((e) => e.reason === 'SuccessfulCreate')).toEqual([]);
  });

  it('text output: hops in time order, each Event once, either on its hop line or on one ↳ line', async () => {
    await createReadyDeployment(ns, 'text', 2);
    const r = await runCli(createInformerTraceProgram, ['deploy/text', '--restart', ...traceArgs, '-o', 'table', '--timeout', '150s']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const hopLines = lines.filter((l) => /^\+\S+\s+\(\+/.test(l));
    expect(hopLines.some((l) => /Deployment\/text\s+converged/.test(l))).toBe(true);
    // Streamed in receive order: a line only goes back in time when it says so (↑ earlier).
    let latest = -Infinity;
    for (const l of hopLines) {
      const t = parseDuration(/^\+(\S+)/.exec(l)![1]!);
      if (/↑ earlier: before \+\S+$/.test(l)) expect(t, l).toBeLessThan(latest);
      else {
        expect(t, `${l}\nprinted after a hop at +${latest}ms`).toBeGreaterThanOrEqual(latest);
        latest = t;
      }
    }
    const later = lines.filter((l) => l.trimStart().startsWith('↳ ')).map((l) => l.trim());
    expect(later.length + hopLines.filter((l) => /SuccessfulCreate|Scheduled/.test(l)).length).toBeGreaterThan(0);
    expect(new Set(later).size, later.join('\n')).toBe(later.length);
    for (const l of later) {
      const text = l.replace(/^↳ /, '').replace(/\s+\([a-z-]+\)$/, '');
      expect(
        hopLines.filter((h) => h.includes(text)),
        text,
      ).toEqual([]);
    }
    for (const h of hopLines) {
      const created = /Created pod: (\S+)/g;
      const names = [...h.matchAll(created)].map((m) => m[1]);
      expect(new Set(names).size, h).toBe(names.length);
    }
  });

  it('--annotate: the MODIFIED reaches the informer and no rollout follows', async () => {
    await createReadyDeployment(ns, 'annotated', 1);
    const { code, json: t } = await trace(['deploy/annotated', '--annotate', 'example.com/touched=yes', '--settle', '3s']);
    expect(code).toBe(0);
    expect(t.outcome).toBe('no-rollout');
    expectSaneTimes(t);
    expect(at(t, 'target-modified', 'Deployment').sinceTriggerMs).toBeLessThan(5_000);
    expect(t.hops.filter((h) => h.object.kind !== 'Deployment')).toEqual([]);
    expect(t.summary.message).toMatch(/spec unchanged.*no ReplicaSet or Pod changed.*no rollout follows/);
  });

  it('--scale: the ReplicaSet is scaled and only the new Pods are created', async () => {
    await createReadyDeployment(ns, 'scaled', 3);
    const { code, json: t } = await trace(['deploy/scaled', '--scale', '5']);
    expect(code).toBe(0);
    expect(t.outcome).toBe('converged');
    expectSaneTimes(t);
    expectOrderedAndEventsOnce(t);
    expect(t.hops.some((h) => h.kind === 'created' && h.object.kind === 'ReplicaSet')).toBe(false);
    expect(at(t, 'scaled', 'ReplicaSet').detail).toBe('3→5 replicas');
    const created = t.hops.filter((h) => h.kind === 'created' && h.object.kind === 'Pod').map((h) => h.object.name);
    expect(created).toHaveLength(2);
    expectPodChains(t, created);
  });

  it("-o yaml: each hop's object and owner written out in full, no YAML anchors or aliases", async () => {
    await createReadyDeployment(ns, 'yamled', 1);
    const r = await runCli(createInformerTraceProgram, ['deploy/yamled', '--restart', ...traceArgs, '-o', 'yaml', '--timeout', '150s']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/: [&*]a\d+$/m);
    // The ReplicaSet's created hop names the Deployment as its owner, in full.
    expect(r.stdout).toMatch(/^ {4}owner:\n {6}kind: Deployment\n {6}namespace: \S+\n {6}name: yamled\n/m);
    const t = parse(r.stdout) as TraceJson;
    expect(t.outcome).toBe('converged');
    expect(t.hops.filter((h) => h.kind === 'created' && h.object.kind === 'Pod')).toHaveLength(1);
  });

  it('--burst: N writes give N watch events and fewer reconciles', async () => {
    await createReadyDeployment(ns, 'burst', 1);
    const { code, json: t } = await trace(['deploy/burst', '--burst', '20', '--settle', '2s']);
    expect(code).toBe(0);
    expect(t.burst?.writes).toBe(20);
    expect(t.burst!.watchEvents).toBeGreaterThanOrEqual(20);
    expect(t.burst!.reconciles).toBeGreaterThan(0);
    expect(t.burst!.reconciles).toBeLessThan(t.burst!.watchEvents);
  });

  it('a StatefulSet restart: Pods are replaced one by one until the status converges', async () => {
    await kube.client.json(`/apis/apps/v1/namespaces/${ns}/statefulsets`, {
      method: 'POST',
      body: {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db' },
        spec: {
          replicas: 2,
          serviceName: 'db',
          selector: { matchLabels: { app: 'db' } },
          template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'registry.invalid/db:1' }] } },
        },
      },
    });
    await eventually(
      'db ready',
      async () => {
        const s = await kube.client.json<{ status?: { readyReplicas?: number } }>(`/apis/apps/v1/namespaces/${ns}/statefulsets/db`);
        return s.status?.readyReplicas === 2;
      },
      120_000,
    );
    const { code, json: t } = await trace(['sts/db', '--restart']);
    expect(code).toBe(0);
    expect(t.outcome).toBe('converged');
    expectSaneTimes(t);
    // A StatefulSet deletes each Pod and creates it again under the same name, highest ordinal first.
    for (const pod of ['db-1', 'db-0']) {
      const gone = at(t, 'deleted', 'Pod', pod);
      const back = t.hops.find((h) => h.kind === 'ready' && h.object.name === pod && h.observedAt >= gone.observedAt);
      expect(back, `${pod} ready again after its deletion`).toBeDefined();
    }
    expect(at(t, 'deleted', 'Pod', 'db-1').observedAt).toBeLessThan(at(t, 'deleted', 'Pod', 'db-0').observedAt);
    expect(at(t, 'converged', 'StatefulSet').observedAt).toBeGreaterThanOrEqual(Math.max(...t.hops.filter((h) => h.kind === 'ready').map((h) => h.observedAt)));
  });

  it('a DaemonSet restart: one Pod per node is replaced and the status converges', async () => {
    await kube.client.json(`/apis/apps/v1/namespaces/${ns}/daemonsets`, {
      method: 'POST',
      body: {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'agent' },
        spec: {
          selector: { matchLabels: { app: 'agent' } },
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } },
          template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'registry.invalid/agent:1' }] } },
        },
      },
    });
    const nodes = cluster().nodes.length;
    await eventually(
      'agent ready on every node',
      async () => {
        const d = await kube.client.json<{ status?: { numberReady?: number; desiredNumberScheduled?: number } }>(
          `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`,
        );
        return d.status?.desiredNumberScheduled === nodes && d.status.numberReady === nodes;
      },
      120_000,
    );
    const { code, json: t } = await trace(['ds/agent', '--restart']);
    expect(code).toBe(0);
    expect(t.outcome).toBe('converged');
    expectSaneTimes(t);
    const created = t.hops.filter((h) => h.kind === 'created' && h.object.kind === 'Pod');
    expect(created).toHaveLength(nodes);
    expectPodChains(
      t,
      created.map((h) => h.object.name),
    );
    const scheduledNodes = new Set(t.hops.filter((h) => h.kind === 'scheduled').map((h) => h.detail));
    expect(scheduledNodes.size).toBe(nodes);
    expect(t.hops.filter((h) => h.kind === 'deleted' && h.object.kind === 'Pod')).toHaveLength(nodes);
  });

  it('a Job unsuspended by someone else (--watch): Pods run to completion and the Job completes', async () => {
    await kube.client.json(`/apis/batch/v1/namespaces/${ns}/jobs`, {
      method: 'POST',
      body: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'batch' },
        spec: {
          suspend: true,
          completions: 2,
          parallelism: 2,
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.invalid/batch:1' }] } },
        },
      },
    });
    const running = startCli(createInformerTraceProgram, ['job/batch', '--watch', ...traceArgs, '-o', 'json', '--timeout', '120s']);
    // The trace has synced and taken its baseline once it says it is watching.
    await stderrLine(running, /^watching Job\/batch for a change/);
    await kube.client.json(`/apis/batch/v1/namespaces/${ns}/jobs/batch`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { spec: { suspend: false } },
    });
    const r = await running.done;
    expect(r.code).toBe(0);
    const t = JSON.parse(r.stdout) as TraceJson;
    expect(t.trigger.kind).toBe('watch');
    expect(t.outcome).toBe('converged');
    expectSaneTimes(t);
    const pods = t.hops.filter((h) => h.kind === 'created' && h.object.kind === 'Pod');
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      expect(at(t, 'scheduled', 'Pod', p.object.name).observedAt).toBeGreaterThanOrEqual(p.observedAt);
      expect(at(t, 'succeeded', 'Pod', p.object.name).observedAt).toBeGreaterThanOrEqual(p.observedAt);
    }
    const done = at(t, 'converged', 'Job');
    expect(done.detail).toBe('Complete');
    expect(at(t, 'complete', 'Job').observedAt).toBeLessThanOrEqual(done.observedAt);
  });

  it('deletion with a finalizer: deletionTimestamp set, finalizer removed, DELETED', async () => {
    await createReadyDeployment(ns, 'held', 1, { finalizers: ['example.com/hold'] });
    const running = startCli(createInformerTraceProgram, ['deploy/held', '--watch', ...traceArgs, '-o', 'ndjson', '--timeout', '60s']);
    await stderrLine(running, /^watching Deployment\/held for a change/);
    await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments/held`, { method: 'DELETE' });
    // The finalizer holds the Deployment until the trace has seen it terminating.
    await eventually('the trace to report the Deployment terminating', async () => running.stdout().includes('"kind":"terminating"'), 30_000, 50);
    await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments/held`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { metadata: { finalizers: null } },
    });
    const r = await running.done;
    expect(r.code).toBe(0);
    const events = ndjsonLines<{ type: string; hop?: Hop; outcome?: string }>(r.stdout);
    const hops = events.filter((e) => e.type === 'hop').map((e) => e.hop!);
    const target = hops.filter((h) => h.object.kind === 'Deployment');
    const kinds = target.map((h) => h.kind);
    expect(kinds).toContain('terminating');
    expect(kinds).toContain('finalizer-removed');
    expect(kinds.at(-1)).toBe('deleted');
    expect(kinds.indexOf('terminating')).toBeLessThan(kinds.indexOf('finalizer-removed'));
    expect(target.find((h) => h.kind === 'finalizer-removed')?.detail).toBe('example.com/hold');
    expect(events.find((e) => e.type === 'end')?.outcome).toBe('deleted');
  });

  it('--apply -f: creates the Deployment server-side and traces it to convergence; applying it again changes nothing', async () => {
    const file = writeManifest('applied', 2);
    const { code, json: t, stderr } = await trace(['--apply', '-f', file]);
    expect(code).toBe(0);
    expect(t.outcome).toBe('converged');
    expect(t.trigger.kind).toBe('apply');
    expect(t.trigger.wrote).toBe(`applied deployments.apps/applied in ${ns} from ${file} (server-side, field manager kubectl-informer-trace): created`);
    expect(stderr).toContain(`wrote: ${t.trigger.wrote}`);
    expectSaneTimes(t);
    expectOrderedAndEventsOnce(t);
    // The chain starts with the Deployment's creation; no "MODIFIED" hop for an object that was not there.
    expect(t.hops[0]).toMatchObject({ kind: 'created', object: { kind: 'Deployment', name: 'applied' } });
    expect(t.hops.some((h) => h.kind === 'target-modified')).toBe(false);
    const rs = at(t, 'created', 'ReplicaSet');
    const pods = t.hops.filter((h) => h.kind === 'created' && h.object.kind === 'Pod' && h.owner?.uid === rs.object.uid).map((h) => h.object.name);
    expect(pods).toHaveLength(2);
    expectPodChains(t, pods);
    expect(at(t, 'converged', 'Deployment').detail).toContain('2 updated, 2 ready, 2 available of 2');
    const live = await kube.client.json<KubeObject>(`/apis/apps/v1/namespaces/${ns}/deployments/applied`);
    expect(live.metadata.managedFields?.some((m) => m.manager === 'kubectl-informer-trace' && m.operation === 'Apply')).toBe(true);

    const again = await trace(['deploy/applied', '--apply', '-f', file]);
    expect(again.code).toBe(0);
    expect(again.json.outcome).toBe('no-rollout');
    expect(again.json.trigger.wrote).toMatch(/: unchanged$/);
    expect(again.json.summary.message).toBe('the manifest matches Deployment/applied: the apply changed nothing');
  });

  it('--watch on a Deployment that does not exist yet waits for it, then traces its creation by kubectl to convergence', async () => {
    const file = writeManifest('later', 2);
    const running = startCli(createInformerTraceProgram, ['deploy/later', '--watch', ...traceArgs, '-o', 'json', '--timeout', '150s']);
    await stderrLine(running, /^waiting for deployment\/later to be created/);
    await run(join(cluster().binDir, 'kubectl'), ['--kubeconfig', cluster().kubeconfigPath, 'apply', '-f', file]);
    const r = await running.done;
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const t = JSON.parse(r.stdout) as TraceJson;
    expect(t.trigger.kind).toBe('watch');
    expect(t.outcome).toBe('converged');
    expectSaneTimes(t);
    expectOrderedAndEventsOnce(t);
    expect(t.hops[0]).toMatchObject({ kind: 'created', object: { kind: 'Deployment', name: 'later' }, sinceTriggerMs: 0 });
    const pods = t.hops.filter((h) => h.kind === 'created' && h.object.kind === 'Pod').map((h) => h.object.name);
    expect(pods).toHaveLength(2);
    expectPodChains(t, pods);
    expect(at(t, 'converged', 'Deployment').observedAt).toBeGreaterThanOrEqual(Math.max(...pods.map((p) => at(t, 'ready', 'Pod', p).observedAt)));
  });

  describe('bad input', () => {
    it('an unknown kind: exit 2 with close names', async () => {
      const r = await runCli(createInformerTraceProgram, ['deploymnt/web', '-n', ns, '--kubeconfig', cluster().kubeconfigPath]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/does not have a resource type "deploymnt"/);
      expect(r.stderr).toMatch(/deployment/);
    });

    it('an object that does not exist: exit 1 with close names', async () => {
      await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments`, { method: 'POST', body: deploymentManifest('frontend', 1) });
      const r = await runCli(createInformerTraceProgram, ['deploy/frontnd', ...traceArgs]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/deployments\.apps "frontnd" not found in namespace/);
      expect(r.stderr).toMatch(/did you mean "frontend"/);
    });

    it('--apply with a manifest file that does not exist: exit 2, one line', async () => {
      const r = await runCli(createInformerTraceProgram, ['--apply', '-f', join(manifests, 'missing.yaml'), ...traceArgs]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/-f .*missing\.yaml: no such file/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });

    it('a trigger without the right to write: exit 3 naming what was refused, nothing written', async () => {
      const readerKube = adminKube();
      await readerKube.client
        .json(`/apis/apps/v1/namespaces/${readerNamespace}/deployments`, { method: 'POST', body: deploymentManifest('ro', 1) })
        .catch(() => undefined);
      const r = await runCli(createInformerTraceProgram, [
        'deploy/ro',
        '--restart',
        '-n',
        readerNamespace,
        '--kubeconfig',
        cluster().namespaceReaderKubeconfig,
        '-o',
        'json',
      ]);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/forbidden: user "it-ns-reader" may not patch deployments\.apps\/ro in namespace it-readonly/);
      expect(r.stderr).toMatch(/kubectl auth can-i patch deployments\.apps\/ro -n it-readonly/);
      expect(r.stdout).toBe('');
    });

    it('a timeout before convergence: exit 1 with the hops seen so far', async () => {
      await createReadyDeployment(ns, 'slow', 1);
      const r = await runCli(createInformerTraceProgram, [
        'deploy/slow',
        '--scale',
        '7',
        ...traceArgs,
        '-o',
        'json',
        '--timeout',
        '300ms',
        '--coalesce',
        '0ms',
      ]);
      expect(r.code).toBe(1);
      const t = JSON.parse(r.stdout) as TraceJson;
      expect(t.outcome).toBe('timeout');
      expect(r.stderr).toMatch(/timed out after 300ms with \d+ hops seen/);
    });
  });
});
