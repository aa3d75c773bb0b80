/**
 * `kubectl informer-trace top` against the real local control plane, with no flags: the launcher
 * publishes kube-controller-manager and kube-scheduler as kube-prometheus expects (Services and
 * EndpointSlices in kube-system), so their Leases are joined with their queues; a killed
 * kube-controller-manager leader shows as "no leader" until the second instance takes over, and
 * then as the failover with its gap; a controller-runtime manager (test/fixtures/cr-manager, built
 * from the Go module proxy) with two replicas shows its Lease, its leader and its queue, retrying
 * while its reconciler fails; bad input and refused rights give one line each.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ComponentName } from '../../tools/cluster/launcher.js';
import { repoRoot } from '../../tools/root.js';
import { freePorts } from '../../tools/cluster/ports.js';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { createLeaseWatchProgram } from '../../src/commands/lease-watch.js';
import { ApiLeaseClient } from '../../src/kube/index.js';
import { DEFAULT_RETRY_PERIOD_MS, JITTER_FACTOR } from '../../src/lease/leader-elector.js';
import type { LeaseChange } from '../../src/view/lease-view.js';
import type { TopComponent, TopView } from '../../src/view/top-view.js';
import {
  adminKube,
  cluster,
  clusterHealthy,
  componentHolding,
  createNamespace,
  firstControllerManagerLeads,
  publishedInstanceLeads,
  createWorkloadNamespace,
  deleteNamespace,
  eventually,
  runCli,
  startCli,
  stderrLine,
  uniqueName,
} from './helpers.js';

type Line = TopView & { trigger: 'scrape' | 'lease'; change: LeaseChange | null };

function lines(text: string): Line[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);
}

const kcmOf = (v: TopView): TopComponent | undefined => v.components.find((c) => c.key === 'kube-system/kube-controller-manager');

describe('kubectl informer-trace top on the real control plane', () => {
  const c = cluster();
  const kubeconfig = c.kubeconfigPath;

  it('without flags: the kube-controller-manager and kube-scheduler Leases with their queues, and the API server', async () => {
    await publishedInstanceLeads('kube-controller-manager');
    await publishedInstanceLeads('kube-scheduler');
    const r = await runCli(createInformerTraceProgram, ['top', '-o', 'json', '--interval', '2s', '--explain-discovery', '--kubeconfig', kubeconfig]);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    const view = JSON.parse(r.stdout) as TopView;
    const kcm = kcmOf(view)!;
    expect(kcm, r.stdout).toBeDefined();
    expect(kcm.lease!.holder).toMatch(/_[0-9a-f-]{36}$/);
    expect(['valid', 'expiring']).toContain(kcm.lease!.state);
    expect(kcm.state).not.toBe('no leader');
    expect(kcm.state).not.toBe('unreachable');
    // The leader is the instance on the published loopback port, found through its EndpointSlice.
    expect(kcm.leader).toBe(c.metricsUrl('kube-controller-manager'));
    const replica = kcm.replicas.find((x) => x.source === kcm.leader)!;
    expect(replica).toMatchObject({ role: 'leader', roleBecause: 'leader_election_master_status 1', state: 'ok' });
    expect(replica.foundBy[0]).toMatch(
      /^EndpointSlice kube-system\/kube-controller-manager-1 of Service kube-system\/kube-controller-manager \(app\.kubernetes\.io\/name=kube-controller-manager\), port https-metrics; loopback on a local cluster/,
    );
    for (const q of ['deployment', 'replicaset', 'namespace', 'garbage_collector_graph_changes']) expect(kcm.queues.map((x) => x.name)).toContain(q);
    expect(replica.windowSeconds).toBeGreaterThan(1);
    const deployment = kcm.queues.find((q) => q.name === 'deployment')!;
    expect(deployment.addsPerSecond).not.toBeNull();
    expect(deployment.depthSeries.length).toBeGreaterThanOrEqual(1);

    const sched = view.components.find((x) => x.key === 'kube-system/kube-scheduler')!;
    expect(sched.lease!.holder).not.toBeNull();
    expect(sched.leader).toBe(c.metricsUrl('kube-scheduler'));
    expect(sched.queues.length).toBeGreaterThan(0);

    const api = view.components.find((x) => x.name === 'kube-apiserver')!;
    expect(api.lease).toBeNull();
    expect(api.replicas[0]).toMatchObject({ source: 'apiserver', state: 'ok' });
    expect(api.queues.length).toBeGreaterThan(0);
    // Worst first.
    const order = ['no leader', 'unreachable', 'stuck', 'retrying', 'backlog', 'ok'];
    const ranks = view.components.map((x) => order.indexOf(x.state));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    // --explain-discovery: how each source was found.
    expect(r.stderr).toContain(
      `${c.metricsUrl('kube-scheduler')} (kube-scheduler)\n  found: EndpointSlice kube-system/kube-scheduler-1 of Service kube-system/kube-scheduler`,
    );
    expect(r.stderr).toContain('apiserver (kube-apiserver)\n  found: the API server of the kubeconfig');
  });

  it('bad input: an unknown --controller, an unreachable and a non-Prometheus source, no rights: one line each, the rest shown', async () => {
    const unknown = await runCli(createInformerTraceProgram, [
      'top',
      '-o',
      'json',
      '--controller',
      'kube-scheduler,no-such-thing',
      '--metrics',
      'https://127.0.0.1:1/metrics',
      '--metrics',
      `nothing=https://127.0.0.1:${c.ports.apiserver}/version`,
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(unknown.code).toBe(0);
    const errs = unknown.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errs.some((l) => /^error: --controller no-such-thing: no such component \(found: .*kube-controller-manager.*\)$/.test(l))).toBe(true);
    expect(errs.some((l) => l.startsWith('error: metrics https://127.0.0.1:1/metrics: cannot reach https://127.0.0.1:1/metrics: connection refused'))).toBe(
      true,
    );
    expect(errs.some((l) => l.startsWith(`error: metrics https://127.0.0.1:${c.ports.apiserver}/version (nothing): `))).toBe(true);
    expect(errs).toHaveLength(3);
    const view = JSON.parse(unknown.stdout) as TopView;
    expect(view.components.map((x) => x.name)).toEqual(['kube-scheduler']);
    expect(view.components[0]!.queues.length).toBeGreaterThan(0);

    const none = await runCli(createInformerTraceProgram, ['top', '-o', 'json', '--controller', 'no-such-thing', '--kubeconfig', kubeconfig]);
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stdout).components).toEqual([]);

    const refused = await runCli(createLeaseWatchProgram, ['top', '-o', 'json', '--kubeconfig', c.noAccessKubeconfig]);
    expect(refused.code).toBe(3);
    const lines = refused.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toMatch(/^error: leases: .*forbidden.*\(showing the queues without them\)$/i);
    expect(lines.some((l) => /^error: discovery: Pods in all namespaces: .*forbidden/i.test(l))).toBe(true);
    expect(lines.some((l) => /^error: metrics apiserver \(kube-apiserver\): 403 Forbidden/.test(l))).toBe(true);
    expect(lines.at(-1)).toBe('error: neither the Leases nor any metrics source could be read');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    const v = JSON.parse(refused.stdout) as TopView;
    expect(v.leaseError).toMatch(/forbidden/i);
    expect(v.components.find((x) => x.name === 'kube-apiserver')!.state).toBe('unreachable');
  });

  it('a Pod found by its `metrics` port that neither the proxy nor a direct request reaches: why for each route, the rest shown', async () => {
    const kube = adminKube();
    const ns = uniqueName('top-pod');
    await createWorkloadNamespace(kube, ns);
    try {
      // kwok runs it with an address nothing listens on (no container runtime).
      await kube.client.json(`/api/v1/namespaces/${ns}/pods`, {
        method: 'POST',
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'exporter', labels: { 'app.kubernetes.io/name': 'fake-exporter' } },
          spec: { containers: [{ name: 'c', image: 'example.invalid/exporter', ports: [{ name: 'metrics', containerPort: 9100 }] }] },
        },
      });
      const ip = await eventually('the Pod running with an address', async () => {
        const p = await kube.client.json<{ status?: { phase?: string; podIP?: string } }>(`/api/v1/namespaces/${ns}/pods/exporter`);
        return p.status?.phase === 'Running' ? p.status.podIP : undefined;
      });
      const r = await runCli(createInformerTraceProgram, [
        'top',
        '-o',
        'json',
        '--interval',
        '1s',
        '--metrics-timeout',
        '2s',
        '--explain-discovery',
        '--kubeconfig',
        kubeconfig,
      ]);
      expect(r.code).toBe(0);
      const source = `pod/${ns}/exporter:9100`;
      expect(r.stderr).toContain(`${source} (fake-exporter)\n  found: Pod ${ns}/exporter: container c port metrics 9100`);
      const errs = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(errs).toHaveLength(1);
      expect(errs[0]).toContain(`error: metrics ${source} (fake-exporter): through the API server's proxy (${source}): `);
      expect(errs[0]).toContain(`; directly (https://${ip}:9100/metrics): `);
      const view = JSON.parse(r.stdout) as TopView;
      const pod = view.components.find((x) => x.name === 'fake-exporter')!;
      expect(pod).toMatchObject({ state: 'unreachable', lease: null });
      expect(pod.replicas[0]!.foundBy).toEqual([`Pod ${ns}/exporter: container c port metrics 9100`]);
      // The control plane is shown all the same.
      expect(kcmOf(view)!.queues.length).toBeGreaterThan(0);
    } finally {
      await deleteNamespace(kube, ns);
    }
  });

  it('the kube-controller-manager leader killed: "no leader", then the failover to the second instance with its gap', async () => {
    const leases = new ApiLeaseClient(adminKube().client);
    await c.startSecondControllerManager();
    let victim: ComponentName | undefined;
    try {
      const before = await leases.get('kube-system', 'kube-controller-manager');
      const oldHolder = before?.spec?.holderIdentity ?? '';
      victim = componentHolding(oldHolder);
      expect(victim, `no kube-controller-manager log says "${oldHolder} became leader"`).toBeDefined();
      const victimUrl = c.metricsUrl(victim as 'kube-controller-manager' | 'kube-controller-manager-2');
      const otherUrl = c.metricsUrl(victim === 'kube-controller-manager' ? 'kube-controller-manager-2' : 'kube-controller-manager');

      // Long enough for up to 30 s of finding both instances, then the Lease's 15 s to run out and
      // the other instance to acquire, on a loaded machine.
      const live = startCli(createInformerTraceProgram, [
        'top',
        '-o',
        'ndjson',
        '--interval',
        '1s',
        '--for',
        '60s',
        '--controller',
        'kube-controller-manager',
        '--kubeconfig',
        kubeconfig,
      ]);
      // Both instances found (the second through its own EndpointSlice), the victim leading.
      await eventually(
        'both replicas, the victim leading',
        async () => {
          const last = lines(live.stdout()).at(-1);
          const k = last && kcmOf(last);
          return k !== undefined && k.replicas.length === 2 && k.leader === victimUrl && k.replicas.every((x) => x.state === 'ok');
        },
        30_000,
        100,
      );
      await c.killComponent(victim!);
      const r = await live.done;
      expect(r.code).toBe(0);
      const all = lines(r.stdout).filter((l) => kcmOf(l));
      const afterIndex = all.findIndex((l) => kcmOf(l)!.lease!.holder !== oldHolder && kcmOf(l)!.leader === otherUrl);
      expect(afterIndex, r.stdout.slice(-3000)).toBeGreaterThan(-1);
      const after = all[afterIndex]!;
      const k = kcmOf(after)!;
      const noLeader = all.slice(0, afterIndex).findIndex((l) => kcmOf(l)!.state === 'no leader');
      if (noLeader >= 0) {
        const expiredLine = all[noLeader]!;
        expect(kcmOf(expiredLine)!.lease!.holder).toBe(oldHolder);
        expect(kcmOf(expiredLine)!.leader).toBeNull();
        expect(kcmOf(expiredLine)!.reasons[0]).toMatch(new RegExp(`^Lease kube-system/kube-controller-manager: ${oldHolder} expired`));
      } else {
        // The new holder judges the expiry from its own sighting of the last renew, which on a
        // loaded machine can come a little before ours: then it acquires before we judge the old
        // holder expired, there is no "no leader" stretch, and the failover has no gap.
        expect(k.lease!.lastFailover!.gapMs).toBe(0);
      }
      expect(k.state).not.toBe('no leader');
      expect(k.lease!.transitions).toBe((before?.spec?.leaseTransitions ?? 0) + 1);
      expect(k.lease!.lastFailover).toMatchObject({ from: oldHolder, to: k.lease!.holder });
      // The gap: from the expiry we judged to the new holder's first sighting, two jittered retry
      // periods at most (it sees the last renew up to one retry late, and acquires up to one after).
      expect(k.lease!.lastFailover!.gapMs!).toBeGreaterThanOrEqual(0);
      expect(k.lease!.lastFailover!.gapMs!).toBeLessThan(2 * DEFAULT_RETRY_PERIOD_MS * (1 + JITTER_FACTOR) + 2_000);
      // The killed instance is unreachable now, and a standby: it no longer decides the state.
      expect(k.replicas.find((x) => x.source === victimUrl)).toMatchObject({ role: 'standby' });
      expect(['stale', 'failed']).toContain(k.replicas.find((x) => x.source === victimUrl)!.state);
      // By the end, the new leader's controllers run and their queues are shown.
      const final = kcmOf(all.at(-1)!)!;
      expect(final.leader).toBe(otherUrl);
      expect(final.queues.map((q) => q.name)).toContain('deployment');
      // The holder change came as its own line too.
      expect(all.some((l) => l.trigger === 'lease' && l.change?.type === 'acquired' && l.change.holder === k.lease!.holder)).toBe(true);
    } finally {
      // Leave the first instance leading, the second stopped (its EndpointSlice goes with it).
      await firstControllerManagerLeads(victim);
      await clusterHealthy(adminKube());
    }
    const slices = await adminKube().client.json<{ items: { metadata: { name: string } }[] }>(
      '/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkube-controller-manager',
    );
    expect(slices.items.map((s) => s.metadata.name)).toEqual(['kube-controller-manager-1']);
  });
});

describe('a controller-runtime manager with two replicas', () => {
  const c = cluster();
  const kubeconfig = c.kubeconfigPath;
  let binary = '';

  beforeAll(async () => {
    // Built once into the cache (minutes the first time), then found there.
    const { stdout } = await promisify(execFile)('bash', [join(repoRoot, 'test', 'fixtures', 'cr-manager', 'build.sh')], { maxBuffer: 1 << 20 });
    binary = stdout.trim().split('\n').pop()!;
  }, 600_000);

  it('appears with its Lease, the replica that leads and its queue; "retrying" while its reconciler fails', async () => {
    const kube = adminKube();
    const ns = uniqueName('cr-demo');
    await createNamespace(kube, ns);
    const ports = await freePorts(2);
    const urls = ports.map((p) => `http://127.0.0.1:${p}/metrics`);
    const procs: ChildProcess[] = ports.map((p) =>
      spawn(binary, ['--kubeconfig', kubeconfig, '--namespace', ns, '--lease', 'cr-demo-lock', '--metrics-bind-address', `127.0.0.1:${p}`], {
        stdio: 'ignore',
      }),
    );
    try {
      const holder = await eventually(
        'a replica to hold the Lease',
        async () =>
          (
            await kube.client
              .json<{ spec?: { holderIdentity?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/cr-demo-lock`)
              .catch(() => undefined)
          )?.spec?.holderIdentity,
        60_000,
      );
      // Both metrics endpoints up before measuring.
      await eventually(
        'both metrics endpoints',
        async () =>
          (
            await Promise.all(
              urls.map((u) =>
                fetch(u).then(
                  (r) => r.ok,
                  () => false,
                ),
              ),
            )
          ).every(Boolean),
        30_000,
      );
      const live = startCli(createInformerTraceProgram, [
        'top',
        '-o',
        'json',
        '--for',
        '6s',
        '--controller',
        'cr-demo-lock',
        ...urls.flatMap((u) => ['--metrics', `cr-demo-lock=${u}`]),
        '--kubeconfig',
        kubeconfig,
      ]);
      // After the baseline scrape: a ConfigMap the reconciler fails on, retried with backoff.
      await stderrLine(live, /^measuring for/);
      await kube.client.json(`/api/v1/namespaces/${ns}/configmaps`, {
        method: 'POST',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fails', labels: { 'cr-demo.informer-trace.dev/fail': 'true' } } },
      });
      const r = await live.done;
      expect(r.stderr).not.toContain('error');
      expect(r.code).toBe(0);
      const view = JSON.parse(r.stdout) as TopView;
      expect(view.components).toHaveLength(1);
      const k = view.components[0]!;
      expect(k.key).toBe(`${ns}/cr-demo-lock`);
      expect(k.lease!.holder).toBe(holder);
      expect(k.state).toBe('retrying');
      expect(urls).toContain(k.leader);
      expect(k.replicas.find((x) => x.source === k.leader)).toMatchObject({ role: 'leader', roleBecause: 'leader_election_master_status 1', state: 'ok' });
      expect(k.replicas.find((x) => x.source !== k.leader)).toMatchObject({ role: 'standby', state: 'ok' });
      const queue = k.queues.find((q) => q.name === 'configmap')!;
      expect(queue).toMatchObject({ controller: 'configmap', state: 'retrying' });
      expect(queue.retriesPerSecond!).toBeGreaterThan(0);
      expect(k.controllers.find((x) => x.controller === 'configmap')!.errorsPerSecond!).toBeGreaterThan(0);
      expect(k.reasons.some((x) => x.startsWith('queue configmap: ') && x.endsWith(' retries/s'))).toBe(true);
    } finally {
      for (const p of procs) p.kill('SIGTERM');
      await deleteNamespace(kube, ns);
    }
  });
});

describe('check --controller on the real control plane', () => {
  const kubeconfig = cluster().kubeconfigPath;

  it('kube-controller-manager has a leader throughout and its queues stay within the limits; an unknown name fails naming the close one', async () => {
    const r = await runCli(createInformerTraceProgram, [
      'check',
      '--controller',
      'kube-controller-manager',
      '--max-depth',
      '1000',
      '--max-retry-rate',
      '1000/s',
      '--window',
      '4s',
      '-o',
      'json',
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { checks: { kind: string; name: string; results: { name: string; status: string; measured: number | null }[] }[] };
    expect(report.checks.map((c) => [c.kind, c.name])).toEqual([['controller', 'controller kube-controller-manager']]);
    expect(report.checks[0]!.results.map((x) => [x.name, x.status])).toEqual([
      ['time without a leader', 'passed'],
      ['depth', 'passed'],
      ['retry rate', 'passed'],
    ]);
    expect(report.checks[0]!.results[0]!.measured).toBe(0);

    const typo = await runCli(createInformerTraceProgram, [
      'check',
      '--controller',
      'kube-controller-manger',
      '--max-depth',
      '10',
      '--window',
      '2s',
      '-o',
      'json',
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(typo.code).toBe(1);
    const failed = (JSON.parse(typo.stdout) as typeof report).checks[0]!.results;
    expect(failed.every((x) => x.status === 'failed')).toBe(true);
    expect(JSON.stringify(failed)).toContain('did you mean \\"kube-controller-manager\\"?');
  });
});
