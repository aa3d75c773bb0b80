/**
 * The probe through the fault proxy (tools/cluster/fault-proxy.ts), on the real control plane: a
 * freeze of every connection under it while it runs rounds; its rounds go on and converge after it,
 * the stalled watches are counted in informer_trace_probe_watch_stalls_total, and its leader-Lease
 * cache (as its Lease gauges show it) equals a fresh List of those Leases.
 * The plugin runs in-process; the API server itself is never touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { parseExposition, type MetricFamily } from '../../src/metrics/parse.js';
import { FaultProxy } from '../../tools/cluster/fault-proxy.js';
import {
  adminKube,
  cluster,
  clusterHealthy,
  createWorkloadNamespace,
  deleteNamespace,
  eventually,
  startCli,
  stderrLine,
  uniqueName,
  type LiveCli,
} from './helpers.js';

const kube = adminKube();
const ns = uniqueName('it-faults');
const stallLines = (cli: LiveCli): string[] =>
  cli
    .stderr()
    .split('\n')
    .filter((l) => /stalled|no answer/.test(l));

async function scrape(url: string): Promise<Map<string, MetricFamily>> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  return new Map(parseExposition(await res.text(), { format: 'prometheus' }).families.map((f) => [f.name, f]));
}

function total(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number {
  const f = families.get(name);
  return (f?.samples ?? []).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);
}

describe('the probe whose connections go half-open', () => {
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
