/**
 * kubectl informer-trace diagnose against the real control plane: each fault is diagnosed to its
 * link with its evidence — Pods too big for any node, a ResourceQuota, kube-controller-manager
 * stopped, a node that stops heartbeating (kwok stopped), a container never ready, an image that
 * cannot be pulled, a Job failing to its backoffLimit — and a healthy rollout is healthy. Tests that
 * break a component start it again and leave the cluster healthy.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readerNamespace } from '../../tools/cluster/launcher.js';
import { SIMULATE_ANNOTATION } from '../../tools/cluster/kwok-stages.js';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import type { Diagnosis, Evidence } from '../../src/diagnose/index.js';
import {
  adminKube,
  cluster,
  clusterHealthy,
  createDeployment,
  createWorkloadNamespace,
  deleteNamespace,
  deploymentAvailable,
  eventually,
  runCli,
  uniqueName,
} from './helpers.js';

const kube = adminKube();
const ns = uniqueName('it-diagnose');

async function deleteDeployment(namespace: string, name: string): Promise<void> {
  await kube.client
    .json(`/apis/apps/v1/namespaces/${namespace}/deployments/${name}`, { method: 'DELETE', query: { propagationPolicy: 'Foreground' } })
    .catch(() => undefined);
}

interface Run {
  code: number;
  d: Diagnosis;
  stderr: string;
}

async function diagnose(target: string, o: { namespace?: string; kubeconfig?: string; extra?: string[] } = {}): Promise<Run> {
  const r = await runCli(createInformerTraceProgram, [
    'diagnose',
    target,
    '-n',
    o.namespace ?? ns,
    '--kubeconfig',
    o.kubeconfig ?? cluster().kubeconfigPath,
    '-o',
    'json',
    '--grace',
    '5s',
    ...(o.extra ?? []),
  ]);
  if (!r.stdout.trim()) throw new Error(`diagnose printed nothing (exit ${r.code}); stderr: ${r.stderr}`);
  return { code: r.code, d: (JSON.parse(r.stdout) as { diagnosis: Diagnosis }).diagnosis, stderr: r.stderr };
}

/** Diagnoses until the verdict is a broken `link` (a fault takes a while to show), then returns it. */
async function diagnosedBrokenAt(
  target: string,
  link: Diagnosis['link'],
  timeoutMs = 90_000,
  o: { namespace?: string; until?: (d: Diagnosis) => boolean } = {},
): Promise<Run> {
  let last: Run | undefined;
  try {
    return await eventually(
      `${target} diagnosed broken at ${link}`,
      async () => {
        last = await diagnose(target, o);
        return last.d.verdict === 'broken' && last.d.link === link && (o.until?.(last.d) ?? true) ? last : undefined;
      },
      timeoutMs,
      1000,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last diagnosis: ${JSON.stringify(last?.d, null, 2)}`);
  }
}

function find(d: Diagnosis, match: Partial<Evidence> & { kind?: string }): Evidence | undefined {
  return d.evidence.find(
    (e) =>
      (!match.kind || e.object.kind === match.kind) &&
      (!match.source || e.source === match.source) &&
      (!match.type || e.type === match.type) &&
      (!match.reason || e.reason === match.reason),
  );
}

describe('kubectl informer-trace diagnose on the real control plane', () => {
  beforeAll(async () => {
    // A cluster started before the current stage set existed gets it now (kwok restarts once).
    await cluster().ensureKwokStages();
    await createWorkloadNamespace(kube, ns);
  });

  afterAll(async () => {
    await deleteNamespace(kube, ns);
  });

  afterEach(async () => {
    await clusterHealthy(kube, [ns]);
  });

  it('a healthy rollout is healthy (exit 0), in JSON and in text', async () => {
    await createDeployment(kube, ns, 'fine', 2);
    await deploymentAvailable(kube, ns, 'fine', 2);
    const { code, d } = await diagnose('deploy/fine');
    expect(d.verdict, JSON.stringify(d, null, 2)).toBe('healthy');
    expect(code).toBe(0);
    expect(d.link).toBeNull();
    expect(d.summary).toContain('converged: 2 updated, 2 ready, 2 available of 2');
    expect(d.links.every((l) => l.status === 'ok')).toBe(true);
    expect(d.unseen).toEqual([]);
    // The controller's queues, when asked for and reachable, leave nothing unseen.
    const withQueues = await diagnose('deploy/fine', {
      extra: ['--metrics', cluster().metricsUrl('kube-controller-manager'), '--metrics-insecure-skip-tls-verify'],
    });
    expect(withQueues.d.verdict, JSON.stringify(withQueues.d.unseen)).toBe('healthy');
    const text = await runCli(createInformerTraceProgram, ['diagnose', 'deployment', 'fine', '-n', ns, '--kubeconfig', cluster().kubeconfigPath]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^diagnosis: healthy\n {2}Deployment\/fine: healthy — converged/);
    await deleteDeployment(ns, 'fine');
  });

  it('Pods too big for any node: broken at scheduled, with FailedScheduling: Insufficient cpu', async () => {
    await createDeployment(kube, ns, 'huge', 1, { cpu: '100' });
    const { code, d } = await diagnosedBrokenAt('deploy/huge', 'scheduled', 60_000, {
      until: (x) => find(x, { source: 'event', reason: 'FailedScheduling' }) !== undefined,
    });
    expect(code).toBe(1);
    const cond = find(d, { kind: 'Pod', source: 'condition', type: 'PodScheduled' })!;
    expect(cond).toMatchObject({ status: 'False', reason: 'Unschedulable' });
    expect(cond.message).toMatch(/0\/2 nodes are available: 2 Insufficient cpu/);
    expect(cond.forMs).toBeGreaterThanOrEqual(0);
    expect(find(d, { source: 'event', reason: 'FailedScheduling' })!.message).toMatch(/Insufficient cpu/);
    expect(d.next[0]).toMatch(new RegExp(`^kubectl describe pod huge-[a-z0-9]+-[a-z0-9]+ -n ${ns}$`));
    await deleteDeployment(ns, 'huge');
  });

  it('a trace that stalls and times out on it, and a check that fails on it, say the same diagnosis', async () => {
    await createDeployment(kube, ns, 'stuck', 1, { cpu: '100' });
    await diagnosedBrokenAt('deploy/stuck', 'scheduled', 60_000);
    const kc = ['-n', ns, '--kubeconfig', cluster().kubeconfigPath];
    const traced = await runCli(createInformerTraceProgram, ['deploy/stuck', '--restart', '--stall', '4s', '--timeout', '15s', '-o', 'json', ...kc]);
    expect(traced.code).toBe(1);
    // The stall is said as it happens (stderr), and the finished trace carries the diagnosis at its timeout.
    expect(traced.stderr).toMatch(/no new hop for \d[\d.]*s:\ndiagnosis: broken at "scheduled"/);
    const json = JSON.parse(traced.stdout) as { outcome: string; diagnosis?: Diagnosis };
    expect(json.outcome).toBe('timeout');
    expect(json.diagnosis).toMatchObject({ verdict: 'broken', link: 'scheduled' });
    expect(find(json.diagnosis!, { kind: 'Pod', source: 'condition', type: 'PodScheduled' })!.message).toMatch(/Insufficient cpu/);

    const dir = mkdtempSync(join(tmpdir(), 'it-diagnose-'));
    const junit = join(dir, 'results.xml');
    const summary = join(dir, 'summary.md');
    let checked: Awaited<ReturnType<typeof runCli>>;
    let written: string[];
    try {
      checked = await runCli(createInformerTraceProgram, ['check', '--restart', 'deploy/stuck', '--max-converge', '15s', '--junit', junit, ...kc], {
        env: { GITHUB_STEP_SUMMARY: summary },
      });
      written = [readFileSync(junit, 'utf8'), readFileSync(summary, 'utf8')];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(checked.code).toBe(1);
    for (const text of [...written, checked.stderr]) {
      expect(text).toMatch(/diagnosis: broken at (&quot;|")scheduled(&quot;|")/);
      expect(text).toMatch(/Insufficient cpu/);
      expect(text).toMatch(/next: kubectl describe pod stuck-/);
    }
    await deleteDeployment(ns, 'stuck');
  });

  it('a ResourceQuota that forbids the new Pods: broken at children-created, FailedCreate at the ReplicaSet', async () => {
    const qns = `${ns}-quota`;
    await createWorkloadNamespace(kube, qns);
    try {
      await kube.client.json(`/api/v1/namespaces/${qns}/resourcequotas`, {
        method: 'POST',
        body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'two-pods' }, spec: { hard: { pods: '2' } } },
      });
      // The quota controller must have counted usage before admission enforces it.
      await eventually(
        'quota status',
        async () =>
          (await kube.client.json<{ status?: { hard?: { pods?: string } } }>(`/api/v1/namespaces/${qns}/resourcequotas/two-pods`)).status?.hard?.pods === '2',
      );
      await createDeployment(kube, qns, 'many', 4);
      // The ReplicaSet's ReplicaFailure condition can reach the caches before its FailedCreate Event.
      const { code, d } = await diagnosedBrokenAt('deploy/many', 'children-created', 60_000, {
        namespace: qns,
        until: (x) => find(x, { kind: 'ReplicaSet', source: 'event', reason: 'FailedCreate' }) !== undefined,
      });
      expect(code).toBe(1);
      expect(d.summary).toMatch(/ReplicaSet\/many-[a-z0-9]+ could not create 2 Pods: .*exceeded quota: two-pods/);
      const ev = find(d, { kind: 'ReplicaSet', source: 'event', reason: 'FailedCreate' })!;
      expect(ev.message).toMatch(/forbidden: exceeded quota: two-pods/);
      expect(ev.reporter).toBe('replicaset-controller');
      expect(d.next).toContain(`kubectl describe resourcequota -n ${qns}`);
    } finally {
      await deleteNamespace(kube, qns);
    }
  });

  it('kube-controller-manager stopped: generation not observed and its leader Lease expired; started again after', async () => {
    expect(cluster().pid('kube-controller-manager-2'), 'a second controller manager would take over the Lease').toBeUndefined();
    await createDeployment(kube, ns, 'orphan', 1);
    await deploymentAvailable(kube, ns, 'orphan', 1);
    await cluster().stopComponent('kube-controller-manager');
    try {
      await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments/orphan`, {
        method: 'PATCH',
        contentType: 'application/merge-patch+json',
        body: { spec: { template: { metadata: { annotations: { 'example.com/changed': 'yes' } } } } },
      });
      const { code, d } = await diagnosedBrokenAt('deploy/orphan', 'controller-observed', 90_000, {
        until: (x) => find(x, { source: 'lease' })?.reason !== 'Renewed',
      });
      expect(code).toBe(1);
      expect(find(d, { kind: 'Deployment', reason: 'GenerationNotObserved' })!.message).toBe('observedGeneration 1 < generation 2');
      const lease = find(d, { source: 'lease' })!;
      expect(lease.object).toEqual({ kind: 'Lease', namespace: 'kube-system', name: 'kube-controller-manager' });
      expect(['Expired', 'Released']).toContain(lease.reason);
      expect(d.next).toContain('kubectl get lease kube-controller-manager -n kube-system -o yaml');
      // Its metrics are unreachable too: said, and the broken link found from what was seen stands.
      const withQueues = await diagnose('deploy/orphan', {
        extra: ['--metrics', cluster().metricsUrl('kube-controller-manager'), '--metrics-insecure-skip-tls-verify'],
      });
      expect(withQueues.d.link).toBe('controller-observed');
      expect(withQueues.d.unseen).toEqual([
        { what: "the controllers' work queues (metrics)", why: expect.stringMatching(/ECONNREFUSED|refused|unreachable/i) },
      ]);
    } finally {
      await cluster().startComponentAgain('kube-controller-manager');
    }
    await deploymentAvailable(kube, ns, 'orphan', 1);
    await deleteDeployment(ns, 'orphan');
  });

  it('a node that stops heartbeating (kwok stopped): broken at containers-started, node NotReady; Pods Ready again after kwok starts', async () => {
    await createDeployment(kube, ns, 'stranded', 2);
    await deploymentAvailable(kube, ns, 'stranded', 2);
    await cluster().stopKwok();
    try {
      // The node lifecycle controller waits its grace period (50 s by default) before NotReady.
      const { code, d } = await diagnosedBrokenAt('deploy/stranded', 'containers-started', 150_000, {
        until: (x) => find(x, { kind: 'Pod', source: 'condition', type: 'Ready' }) !== undefined,
      });
      expect(code).toBe(1);
      expect(d.summary).toMatch(/node kwok-node-\d is not Ready/);
      const node = find(d, { kind: 'Node', source: 'condition', type: 'Ready' })!;
      expect(node.status).toBe('Unknown');
      expect(node.reason).toBe('NodeStatusUnknown');
      expect(node.message).toBe('Kubelet stopped posting node status.');
      expect(find(d, { kind: 'Pod', source: 'condition', type: 'Ready' })!.status).toBe('False');
      expect(d.next[0]).toMatch(/^kubectl describe node kwok-node-\d$/);
    } finally {
      await cluster().startKwok();
    }
    // A kubelet sets its Pods Ready again once its node is: so does the local cluster's stage set.
    await deploymentAvailable(kube, ns, 'stranded', 2);
    await clusterHealthy(kube, [ns]);
    const { code, d } = await diagnose('deploy/stranded');
    expect(d.verdict, JSON.stringify(d, null, 2)).toBe('healthy');
    expect(code).toBe(0);
    await deleteDeployment(ns, 'stranded');
  }, 300_000);

  it(`a container that never becomes ready (${SIMULATE_ANNOTATION}: never-ready): broken at containers-started`, async () => {
    await createDeployment(kube, ns, 'sleepy', 1, { simulate: 'never-ready' });
    // Until kwok's stage has started the container, the same link is diagnosed as "not started";
    // its Unhealthy Event may reach the caches after the Pod's status.
    const { code, d } = await diagnosedBrokenAt('deploy/sleepy', 'containers-started', 60_000, {
      until: (x) => /running but not ready/.test(x.summary) && find(x, { kind: 'Pod', source: 'event', reason: 'Unhealthy' }) !== undefined,
    });
    expect(code).toBe(1);
    expect(d.summary).toMatch(/1 container running but not ready for \d/);
    expect(find(d, { kind: 'Pod', source: 'condition', type: 'ContainersReady' })).toMatchObject({ status: 'False', reason: 'ContainersNotReady' });
    expect(find(d, { kind: 'Pod', source: 'event', reason: 'Unhealthy' })!.message).toMatch(/Readiness probe failed/);
    expect(d.next[1]).toMatch(new RegExp(`^kubectl logs sleepy-[a-z0-9]+-[a-z0-9]+ -n ${ns} -c app$`));
    await deleteDeployment(ns, 'sleepy');
  });

  it(`an image that cannot be pulled (${SIMULATE_ANNOTATION}: image-pull-error): broken at containers-started, ImagePullBackOff`, async () => {
    await createDeployment(kube, ns, 'nopull', 1, { simulate: 'image-pull-error' });
    const { code, d } = await diagnosedBrokenAt('deploy/nopull', 'containers-started', 60_000, {
      until: (x) => find(x, { source: 'container' })?.reason === 'ImagePullBackOff',
    });
    expect(code).toBe(1);
    expect(find(d, { kind: 'Pod', source: 'container' })).toMatchObject({ type: 'container app', status: 'waiting', reason: 'ImagePullBackOff' });
    expect(d.evidence.some((e) => e.source === 'event' && (e.reason === 'BackOff' || e.reason === 'Failed'))).toBe(true);
    expect(d.next[0]).toMatch(/^kubectl describe pod nopull-/);
    await deleteDeployment(ns, 'nopull');
  });

  it(`a Job whose Pods fail (${SIMULATE_ANNOTATION}: fail) until its backoffLimit: broken at status-conditions, BackoffLimitExceeded`, async () => {
    await kube.client.json(`/apis/batch/v1/namespaces/${ns}/jobs`, {
      method: 'POST',
      body: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'doomed' },
        spec: {
          backoffLimit: 1,
          template: {
            metadata: { annotations: { [SIMULATE_ANNOTATION]: 'fail' } },
            spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'registry.invalid/app:1' }] },
          },
        },
      },
    });
    const { code, d } = await diagnosedBrokenAt('job/doomed', 'status-conditions', 120_000);
    expect(code).toBe(1);
    expect(find(d, { kind: 'Job', source: 'condition', type: 'Failed' })).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded' });
    const attempt = find(d, { kind: 'Pod', source: 'container' })!;
    expect(attempt).toMatchObject({ status: 'terminated', reason: 'Error', message: expect.stringMatching(/^exited with code 1/) });
    expect(d.next[0]).toBe(`kubectl describe job doomed -n ${ns}`);
    expect(d.next[1]).toMatch(new RegExp(`^kubectl logs doomed-[a-z0-9]+ -n ${ns}$`));
    await kube.client.json(`/apis/batch/v1/namespaces/${ns}/jobs/doomed`, { method: 'DELETE', query: { propagationPolicy: 'Background' } });
  });

  it('a target that does not exist is broken at accepted (exit 1); bad input is one line and exit 2', async () => {
    const missing = await diagnose('deploy/not-there');
    expect(missing.code).toBe(1);
    expect(missing.d.link).toBe('accepted');
    expect(missing.d.next[0]).toBe(`kubectl get deployment not-there -n ${ns}`);
    const bad = await runCli(createInformerTraceProgram, ['diagnose', 'deploy', '--kubeconfig', cluster().kubeconfigPath]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')[0]).toMatch(/"deploy" names a type but no object/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const grace = await runCli(createInformerTraceProgram, ['diagnose', 'deploy/x', '--grace', 'soon', '--kubeconfig', cluster().kubeconfigPath]);
    expect(grace.code).toBe(2);
    expect(grace.stderr).toMatch(/--grace: invalid duration "soon"/);
  });

  it('a reader who may not read Leases or Nodes: never "healthy", exit 3, and says what it could not see', async () => {
    await createDeployment(kube, readerNamespace, 'readable', 1);
    try {
      await deploymentAvailable(kube, readerNamespace, 'readable', 1);
      const { code, d } = await diagnose('deploy/readable', { namespace: readerNamespace, kubeconfig: cluster().namespaceReaderKubeconfig });
      expect(d.verdict, JSON.stringify(d, null, 2)).toBe('unknown');
      expect(code).toBe(3);
      const unseen = d.unseen.map((u) => u.what);
      expect(unseen).toEqual(expect.arrayContaining(['Lease kube-system/kube-controller-manager', 'Lease kube-system/kube-scheduler', 'Nodes']));
      expect(d.unseen.find((u) => u.what === 'Nodes')!.why).toMatch(/forbidden|403/i);
    } finally {
      await deleteDeployment(readerNamespace, 'readable');
    }
  });
});

describe('the local cluster after kube-controller-manager and kwok restarts', () => {
  it('is healthy: nodes Ready, Pods Ready, leader Leases renewed', async () => {
    await clusterHealthy(kube, [ns]);
    expect(await cluster().healthy()).toBe(true);
  });
});
