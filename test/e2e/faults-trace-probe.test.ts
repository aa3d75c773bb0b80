/**
 * A trace and the probe through the fault proxy (tools/cluster/fault-proxy.ts), on the real control
 * plane:
 * - `informer-trace deploy/NAME --watch -o json`: once it watches, every connection under it is
 *   frozen half-open; a scale made straight against the API server after the freeze is seen, and
 *   nothing of it is lost: the trace ends converged only once each of its informers has replaced its
 *   silent watch (within 60 s, from its resourceVersion) and caught up, so the ReplicaSet's scale and
 *   the new Pod's creation and readiness are all hops. Each stall is said once on stderr, in one
 *   line, and the summary counts them ("N watches stalled and resumed").
 * - `informer-trace probe`: a freeze while it runs rounds; its rounds go on and converge after it,
 *   the stalled watches are counted in informer_trace_probe_watch_stalls_total, and its leader-Lease
 *   cache (as its Lease gauges show it) equals a fresh List of those Leases.
 * The plugins run in-process; the API server itself is never touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import type { KubeObject } from '../../src/kube/index.js';
import { parseExposition, type MetricFamily } from '../../src/metrics/parse.js';
import { FaultProxy } from '../../tools/cluster/fault-proxy.js';
import {
  adminKube,
  cluster,
  clusterHealthy,
  createDeployment,
  createWorkloadNamespace,
  deleteNamespace,
  deploymentAvailable,
  eventually,
  startCli,
  stderrLine,
  uniqueName,
  type LiveCli,
} from './helpers.js';

const kube = adminKube();
const ns = uniqueName('it-faults');
/** A stall as the trace says it on stderr: the watch open but silent, or its request never answered. */
const STALL_LINE =
  /^warning: .*watch (stalled: nothing arrived for [\d.]+s, and the server did not end it at its \d+s timeout|stalled: the connection did not answer a ping within [\d.]+s|request got no answer within [\d.]+s) \(a half-open connection or a hung API server\); watching again from resourceVersion "\d+" on a new connection$/;

const stallLines = (cli: LiveCli): string[] =>
  cli
    .stderr()
    .split('\n')
    .filter((l) => /stalled|no answer/.test(l));

interface TraceJson {
  outcome: string;
  endMessage: string;
  trigger: { kind: string };
  hops: { kind: string; object: { kind: string; name: string } }[];
  informers: { description: string; watchStalls: number }[];
  summary: { watchStalls: number; stalls?: string };
}

async function podNames(): Promise<Set<string>> {
  const list = await kube.client.json<{ items: KubeObject[] }>(`/api/v1/namespaces/${ns}/pods`);
  return new Set(list.items.filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name ?? ''));
}

async function scrape(url: string): Promise<Map<string, MetricFamily>> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  return new Map(parseExposition(await res.text(), { format: 'prometheus' }).families.map((f) => [f.name, f]));
}

function total(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number {
  const f = families.get(name);
  return (f?.samples ?? []).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);
}

describe('a trace and the probe whose connections go half-open', () => {
  let proxy: FaultProxy;
  let kubeconfig: string;

  beforeAll(async () => {
    proxy = await FaultProxy.start(cluster().server);
    kubeconfig = proxy.kubeconfig(cluster().kubeconfigPath);
    await createWorkloadNamespace(kube, ns);
  });

  afterAll(async () => {
    proxy?.thaw();
    await proxy?.close();
    await deleteNamespace(kube, ns);
    await clusterHealthy(kube, [ns]);
  });

  it('trace --watch: a scale made after its watches froze half-open is seen whole; it converges once its informers caught up, each stall said once and counted', async () => {
    await createDeployment(kube, ns, 'web', 1);
    await deploymentAvailable(kube, ns, 'web', 1);
    const before = await podNames();
    const cli = startCli(createInformerTraceProgram, ['deploy/web', '--watch', '-n', ns, '--kubeconfig', kubeconfig, '-o', 'json', '--timeout', '180s']);
    try {
      await stderrLine(cli, /^watching Deployment\/web for a change/);
      expect(proxy.connections().filter((c) => !c.closed).length).toBeGreaterThanOrEqual(1);
      proxy.freeze();
      const frozenAt = Date.now();
      await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments/web`, {
        method: 'PATCH',
        contentType: 'application/merge-patch+json',
        body: { spec: { replicas: 2 } },
      });
      const r = await cli.done;
      expect(r.code, r.stderr).toBe(0);
      const t = JSON.parse(r.stdout) as TraceJson;
      expect(t.trigger.kind).toBe('watch');
      expect(t.outcome, r.stderr).toBe('converged');
      expect(t.endMessage).not.toMatch(/caught up/);
      // Every watch of the chain was frozen: the scale could only arrive on the ones opened again,
      // within 60 s of their requests (made before the freeze), so the whole trace well within 75 s.
      expect(Date.now() - frozenAt).toBeLessThan(75_000);

      // Nothing lost: the scale, the ReplicaSet's, and the new Pod's creation and readiness.
      const hops = t.hops.map((h) => `${h.kind} ${h.object.kind}/${h.object.name}`);
      expect(hops, r.stderr).toContain('spec-changed Deployment/web');
      expect(
        hops.some((h) => /^scaled ReplicaSet\/web-/.test(h)),
        hops.join('\n'),
      ).toBe(true);
      const added = [...(await podNames())].filter((n) => !before.has(n));
      expect(added).toHaveLength(1);
      expect(hops, hops.join('\n')).toContain(`created Pod/${added[0]}`);
      expect(hops, hops.join('\n')).toContain(`ready Pod/${added[0]}`);
      expect(hops).toContain('converged Deployment/web');

      // Each stall said once, in one line, and counted: by informer, and in the summary's words.
      const stalls = stallLines(cli);
      for (const l of stalls) expect(l).toMatch(STALL_LINE);
      const counted = t.informers.reduce((n, i) => n + i.watchStalls, 0);
      expect(counted, r.stderr).toBeGreaterThanOrEqual(3);
      expect(stalls).toHaveLength(counted);
      expect(t.summary.watchStalls).toBe(counted);
      expect(t.summary.stalls).toMatch(new RegExp(`^${counted} watches stalled and resumed \\(.*pods in ${ns}`));
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    } finally {
      proxy.thaw();
      await cli.done;
    }
    await deploymentAvailable(kube, ns, 'web', 2);
  }, 300_000);

  it('probe: after a half-open freeze its rounds go on and converge, the stalls are counted, its Lease cache equals a fresh List', async () => {
    const stop = new AbortController();
    const cli = startCli(
      createInformerTraceProgram,
      ['probe', '-n', ns, '--kubeconfig', kubeconfig, '--listen', '127.0.0.1:0', '--interval', '2s', '--timeout', '120s', '--shutdown-grace', '1s'],
      { signal: stop.signal },
    );
    try {
      const url = /serving \/metrics, \/healthz and \/readyz on (http:\/\/\S+)/.exec(await stderrLine(cli, /serving \/metrics/, 30_000))![1]!;
      const converged = async (): Promise<number> => total(await scrape(url), 'informer_trace_probe_rounds_total', { outcome: 'converged' });
      await eventually('a converged round', async () => (await converged()) >= 1, 120_000, 200);

      proxy.freeze();
      const stalled = await eventually(
        'a stalled watch counted',
        async () => {
          const n = total(await scrape(url), 'informer_trace_probe_watch_stalls_total');
          return n > 0 ? n : undefined;
        },
        120_000,
        500,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\nprobe stderr:\n${cli.stderr()}`);
      });
      expect(stalled).toBeGreaterThanOrEqual(1);
      proxy.thaw();
      const after = await converged();
      await eventually('two more converged rounds after the freeze', async () => (await converged()) >= after + 2, 180_000, 500).catch((err: Error) => {
        throw new Error(`${err.message}\nprobe stderr:\n${cli.stderr()}`);
      });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);

      // Its leader-Lease cache equals a fresh List: the same Leases, with the same transitions.
      const families = await scrape(url);
      const gauges = families.get('informer_trace_probe_lease_transitions')?.samples ?? [];
      expect(gauges.length).toBeGreaterThanOrEqual(1);
      for (const g of gauges) {
        const lease = await kube.client.json<{ spec?: { leaseTransitions?: number } }>(
          `/apis/coordination.k8s.io/v1/namespaces/${g.labels.namespace}/leases/${g.labels.name}`,
        );
        expect(g.value, `${g.labels.namespace}/${g.labels.name}`).toBe(lease.spec?.leaseTransitions ?? 0);
      }
      for (const l of stallLines(cli)) expect(l).toMatch(/stalled|no answer/);
      expect(cli.stderr()).not.toMatch(/at .*\.js:\d+/);
    } finally {
      proxy.thaw();
      stop.abort();
      await cli.done;
    }
  }, 420_000);
});
