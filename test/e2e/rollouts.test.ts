/**
 * Argo Rollouts' controller (plain client-go, built from its published Go module) run as two
 * replicas against the real control plane. A canary whose step pauses for a duration is Suspended
 * while the controller holds it, and the trace goes on to convergence when the controller ends the
 * pause by itself; a canary aborted in its pause is failed, not converged — its stable Pods keep
 * `Available` True — in the trace and in `diagnose`. The controller behind the chain: its client-go
 * queue (`workqueue_*{name="Rollouts"}`, no controller label) joined by name from the replica that
 * leads, with its own reconcile histogram of the traced Rollout.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import type { ControllerBehind, Diagnosis } from '../../src/diagnose/types.js';
import type { KubeObject } from '../../src/kube/index.js';
import type { Hop } from '../../src/trace/index.js';
import { ROLLOUTS_LEASE, startArgoRollouts } from './argo-rollouts.js';
import { adminKube, cluster, eventually, ndjsonHops, runCli, startCli, uniqueName } from './helpers.js';
import { tearDownOperator, type StartedOperator } from './operators.js';

const kube = adminKube();
const dir = mkdtempSync(join(tmpdir(), 'it-rollouts-'));
const ns = uniqueName('it-rollouts');
const started: StartedOperator = { ops: undefined, crds: [] };

type Step = { setWeight: number } | { pause: { duration?: string } };

/** A canary Rollout of `replicas` Pods (kwok runs them; the image is never pulled) at `version`. */
const rollout = (name: string, version: number, steps: Step[]): Record<string, unknown> => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  metadata: { name, namespace: ns },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: `registry.invalid/app:${version}` }] } },
    strategy: { canary: { steps } },
  },
});

const path = (name: string): string => `/apis/argoproj.io/v1alpha1/namespaces/${ns}/rollouts/${name}`;

function manifestFile(name: string, obj: Record<string, unknown>): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(obj));
  return file;
}

const cliEnv = { CI: 'true', XDG_CONFIG_HOME: join(dir, 'no-config') };

/** The argv of a command that applies the Rollout at `version` (`--apply -f FILE -n NS --timeout T -o FORMAT`), then `extra`. */
const applyArgs = (name: string, version: number, steps: Step[], timeout: string, output: string, extra: string[] = []): string[] => [
  '--apply',
  '-f',
  manifestFile(`${name}-v${version}`, rollout(name, version, steps)),
  '-n',
  ns,
  '--timeout',
  timeout,
  '-o',
  output,
  ...extra,
  '--kubeconfig',
  cluster().kubeconfigPath,
];

/**
 * Applies the Rollout's first version, which a canary takes without steps, through the trace (so
 * that every later version is applied by the same field manager), and waits until it is Healthy.
 */
async function healthyRollout(name: string, steps: Step[]): Promise<void> {
  const r = await runCli(createInformerTraceProgram, applyArgs(name, 1, steps, '90s', 'json'), { env: cliEnv });
  expect(r.stderr).not.toMatch(/^error/m);
  expect(r.code).toBe(0);
  expect(((await kube.client.json<KubeObject>(path(name))).status as { phase?: string } | undefined)?.phase).toBe('Healthy');
}

/** Traces `--apply` of the Rollout's next version as NDJSON, in the background. */
function traceUpdate(name: string, version: number, steps: Step[], timeout: string) {
  const run = startCli(createInformerTraceProgram, applyArgs(name, version, steps, timeout, 'ndjson'), { env: cliEnv });
  const hops = (): Hop[] => ndjsonHops(run.stdout());
  return { run, hops };
}

const RULE = /\(rule: argoproj\.io Rollout, library\/argoproj\.io\.yaml\)$/;

// The first run builds the controller from the module proxy: minutes on 2 cores with empty Go caches.
beforeAll(async () => {
  Object.assign(started, await startArgoRollouts(kube, ns, 2));
}, 1_200_000);

afterAll(async () => {
  await tearDownOperator(kube, ns, started);
  rmSync(dir, { recursive: true, force: true });
});

describe('Argo Rollouts, traced', () => {
  it("a canary's timed pause is Suspended while the controller holds it, and the trace goes on to convergence when the controller ends it", async () => {
    const steps: Step[] = [{ setWeight: 50 }, { pause: { duration: '8s' } }];
    await healthyRollout('timed', steps);
    const { run, hops } = traceUpdate('timed', 2, steps, '120s');
    const suspended = await eventually('the suspended hop', async () => hops().find((h) => h.kind === 'suspended' && h.object.kind === 'Rollout'), 90_000);
    expect(suspended.detail).toMatch(RULE);
    // Nobody resumes it: the controller ends the pause when its duration is over.
    const r = await run.done;
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const all = hops();
    const at = (kind: string): number => all.findIndex((h) => h.kind === kind && h.object.kind === 'Rollout');
    expect(at('converged')).toBeGreaterThan(at('suspended'));
    expect(all[at('converged')]!.detail).toMatch(RULE);
    // The canary's ReplicaSet and its Pods are hops of the chain.
    expect(all.some((h) => h.object.kind === 'ReplicaSet')).toBe(true);
    expect(all.some((h) => h.kind === 'ready' && h.object.kind === 'Pod')).toBe(true);
    const now = (await kube.client.json<KubeObject>(path('timed'))).status as { phase?: string; pauseConditions?: unknown[] };
    expect(now.phase).toBe('Healthy');
    expect(now.pauseConditions ?? []).toEqual([]);
  });

  it('a canary aborted in its pause is failed, not converged, in the trace and in diagnose, though its stable Pods stay Available', async () => {
    const steps: Step[] = [{ setWeight: 50 }, { pause: {} }];
    await healthyRollout('aborted', steps);
    const { run, hops } = traceUpdate('aborted', 2, steps, '90s');
    await eventually('the suspended hop', async () => hops().find((h) => h.kind === 'suspended' && h.object.kind === 'Rollout'), 90_000);
    // What `kubectl argo rollouts abort` writes: status.abort, through the status subresource.
    await kube.client.json(`${path('aborted')}/status`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: JSON.stringify({ status: { abort: true } }),
    });
    const r = await run.done;
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(1);
    const all = hops();
    expect(all.some((h) => h.kind === 'converged')).toBe(false);
    const failed = all.find((h) => h.kind === 'failed');
    expect(failed?.object.kind).toBe('Rollout');
    expect(failed?.detail).toMatch(RULE);
    expect(all.findIndex((h) => h.kind === 'failed')).toBeGreaterThan(all.findIndex((h) => h.kind === 'suspended'));

    const status = (await kube.client.json<KubeObject>(path('aborted'))).status as { phase?: string; conditions?: { type: string; status: string }[] };
    expect(status.phase).toBe('Degraded');
    // What a generic reading would call ready: the stable Pods are still Available.
    expect(status.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');

    const d = await runCli(createInformerTraceProgram, ['diagnose', 'rollout/aborted', '-n', ns, '-o', 'json', '--kubeconfig', cluster().kubeconfigPath], {
      env: cliEnv,
    });
    expect(d.stderr).not.toMatch(/^error/m);
    expect(d.code).toBe(1);
    const diagnosis = (JSON.parse(d.stdout) as { diagnosis: Diagnosis }).diagnosis;
    expect(diagnosis.verdict).toBe('broken');
    // Its cause, not only its verdict: the condition the controller wrote when the canary was aborted.
    expect(diagnosis.summary).toMatch(/^Rollout\/aborted: .*RolloutAborted/);
  });

  it("joins the controller's client-go queue by its name, from the replica that leads, with its reconciles of the traced Rollout", async () => {
    const steps: Step[] = [{ setWeight: 50 }];
    await healthyRollout('queued', steps);
    const metrics = started.ops!.metricsUrls.flatMap((u) => ['--metrics', u]);
    const r = await runCli(createInformerTraceProgram, applyArgs('queued', 2, steps, '90s', 'json', metrics), { env: cliEnv });
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const { controller } = JSON.parse(r.stdout) as { controller?: ControllerBehind };
    expect(controller?.manager).toBe('rollouts-controller');
    expect(controller?.lease).toMatchObject({ namespace: ns, name: ROLLOUTS_LEASE });
    const q = controller?.queue;
    expect(q, JSON.stringify(controller)).toMatchObject({ queue: 'Rollouts', matchedBy: 'queue-name' });
    expect(q!.adds).toBeGreaterThan(0);
    expect(q!.workTime?.observations).toBeGreaterThan(0);
    // The replica whose queue moved is the one that holds the Lease.
    const holder = await started.ops!.holder(kube);
    const leader = started.ops!.replicas.find((x) => x.metricsUrl === q!.source);
    expect(leader, `${q!.source} among ${started.ops!.metricsUrls.join(', ')}`).toBeDefined();
    expect(leader!.identity).toBe(holder);
    expect(q!.objectReconciles.find((o) => o.metric === 'rollout_reconcile')?.count).toBeGreaterThan(0);
    expect(controller?.unseen).toEqual([]);
  });

  it('check names the controller behind a Rollout that does not converge: its Lease, and its queue over the check', async () => {
    const steps: Step[] = [{ setWeight: 50 }, { pause: {} }];
    await healthyRollout('held', steps);
    const metrics = started.ops!.metricsUrls.flatMap((u) => ['--metrics', u]);
    const r = await runCli(createInformerTraceProgram, ['check', ...applyArgs('held', 2, steps, '20s', 'json', metrics)], { env: cliEnv });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { checks: { kind?: string; results: { name: string; status: string; message: string }[] }[] };
    const converge = report.checks.flatMap((c) => c.results).find((x) => x.name === 'time to converge');
    expect(converge?.status).toBe('failed');
    // Held at a pause nobody ends: not converged, with where it is and who is behind it.
    expect(converge!.message).toMatch(/^not converged within the 20\.0s timeout/);
    expect(converge!.message).toContain(`controller: rollouts-controller · Lease ${ns}/${ROLLOUTS_LEASE} held by `);
    expect(converge!.message).toMatch(/queue Rollouts: depth \d+, [1-9]\d* adds, \d+ retries/);
  });

  it("without --metrics, finds the leader's metrics from its Lease: the holder's Pod, and a Service's EndpointSlices that name it; says what it tried when there are none", async () => {
    const steps: Step[] = [{ setWeight: 50 }];
    await healthyRollout('found', steps);
    const traced = async (version: number): Promise<ControllerBehind> => {
      const r = await runCli(createInformerTraceProgram, applyArgs('found', version, steps, '90s', 'json'), { env: cliEnv });
      expect(r.stderr).not.toMatch(/^error/m);
      expect(r.code).toBe(0);
      return (JSON.parse(r.stdout) as { controller: ControllerBehind }).controller;
    };
    // Nothing in the cluster says where its metrics are: what was tried, and the flag that helps.
    const none = await traced(2);
    expect(none.queue).toBeNull();
    expect(none.unseen.join('; ')).toMatch(
      new RegExp(`^its workqueue: no --metrics given, and none found for Lease ${ns}/${ROLLOUTS_LEASE} \\(holder .+\\): .*\\(give --metrics`),
    );

    // As a cluster would have it: the replicas run in the Pod their holder identity names (client-go
    // writes HOSTNAME_UUID, and a Pod's hostname is its name), published by a Service whose
    // EndpointSlices name that Pod. Here the replicas are processes of this machine, so the
    // endpoints are loopback names; kwok runs the Pod.
    const holder = (await started.ops!.holder(kube))!;
    const pod = holder.slice(0, holder.lastIndexOf('_'));
    await kube.client.json(`/api/v1/namespaces/${ns}/pods`, {
      method: 'POST',
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: pod, labels: { app: 'argo-rollouts' } },
        spec: { containers: [{ name: 'controller', image: 'registry.invalid/argo-rollouts:1' }] },
      },
    });
    await eventually(
      "the holder's Pod running",
      async () => (await kube.client.json<{ status?: { phase?: string } }>(`/api/v1/namespaces/${ns}/pods/${pod}`)).status?.phase === 'Running',
    );
    await kube.client.json(`/api/v1/namespaces/${ns}/services`, {
      method: 'POST',
      body: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'argo-rollouts-metrics' },
        spec: { clusterIP: 'None', ports: [{ name: 'metrics', port: 8090 }] },
      },
    });
    for (const r of started.ops!.replicas)
      await kube.client.json(`/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {
        method: 'POST',
        body: {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: {
            name: `argo-rollouts-metrics-${r.index}`,
            labels: { 'kubernetes.io/service-name': 'argo-rollouts-metrics', 'endpointslice.kubernetes.io/managed-by': 'informer-trace-e2e' },
          },
          addressType: 'FQDN',
          endpoints: [{ addresses: [`argo-rollouts-${r.index}.localhost`], conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: ns, name: pod } }],
          ports: [{ name: 'metrics', port: r.port, protocol: 'TCP' }],
        },
      });

    const found = await traced(3);
    expect(found.unseen).toEqual([]);
    const q = found.queue!;
    expect(q).toMatchObject({ queue: 'Rollouts', matchedBy: 'queue-name' });
    expect(q.adds).toBeGreaterThan(0);
    expect(q.foundBy[0]).toMatch(
      new RegExp(
        `^EndpointSlice ${ns}/argo-rollouts-metrics-\\d of Service ${ns}/argo-rollouts-metrics, port metrics: an endpoint of Pod ${pod}, which Lease ${ns}/${ROLLOUTS_LEASE}'s holder `,
      ),
    );
    // The replica it was read from is the one that leads.
    const leader = started.ops!.replicas.find((x) => q.source === `http://127.0.0.1:${x.port}/metrics`);
    expect(leader?.identity).toBe(holder);
  });
});
