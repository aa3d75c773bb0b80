import { afterEach, describe, expect, it } from 'vitest';
import { storeResourceVersionValue } from '../informer/index.js';
import { parseExposition } from '../metrics/parse.js';
import { syntheticRollout, TRIGGER_AT } from '../../tools/testing/synthetic-trace.js';
import type { TraceSnapshot } from '../trace/index.js';
import { ProbeMetrics, roundOutcome } from './metrics.js';
import { parseListen, serveProbe, type RunningServer } from './server.js';

function snapshot(): TraceSnapshot {
  const s = syntheticRollout(2);
  return {
    ...s,
    trigger: { kind: 'restart', wrote: 'restarted', at: TRIGGER_AT, writes: 1 },
    outcome: 'converged',
    endMessage: undefined,
    informers: [],
    queue: undefined,
    reconciles: 0,
    targetWatchEvents: 0,
    burst: undefined,
  };
}

describe('ProbeMetrics', () => {
  it('renders valid Prometheus text: the histograms, the rounds by outcome, the diagnosis, the Leases and the workqueue', async () => {
    const m = new ProbeMetrics();
    m.workqueue.newAddsMetric('informer-trace').inc();
    const snap = snapshot();
    m.recordRound('converged', snap);
    m.recordRound('timeout', undefined);
    m.recordDiagnosis({ verdict: 'broken', link: 'scheduled' } as never);
    m.recordDiagnosis({ verdict: 'healthy', link: null } as never);
    m.recordInformers([
      {
        name: 'deployments.apps',
        lists: 2,
        watches: 3,
        watchStalls: 1,
        group: 'apps',
        version: 'v1',
        resource: 'deployments',
        queued: 0,
        storeResourceVersion: '7',
        processingLatency: { counts: new Array(13).fill(0), sum: 0, count: 0 },
      } as never,
    ]);
    // A live informer counts as it stands at the scrape: the leader Leases', and the pool's.
    const live = {
      name: 'leases.coordination.k8s.io in kube-system',
      group: 'coordination.k8s.io',
      version: 'v1',
      resource: 'leases',
      lists: 1,
      watches: 2,
      watchStalls: 1,
      queued: 0,
      storeResourceVersion: '9',
      processingLatency: { counts: new Array(13).fill(0), sum: 0, count: 0 },
    };
    const deployments = { ...live, name: 'deployments.apps', group: 'apps', resource: 'deployments', lists: 1, watches: 4, watchStalls: 0 };
    m.setInformerSource(() => [live as never, deployments as never]);
    m.setLeaseSource(() => [{ namespace: 'kube-system', name: 'kube-scheduler', renewAgeMs: 1500, transitions: 4 } as never]);
    m.exportFailed();
    const exp = parseExposition(await m.render(), { format: 'prometheus' });
    const value = (name: string, labels: Record<string, string> = {}): number | undefined =>
      exp.families.flatMap((f) => f.samples).find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    const converged = snap.hops.find((h) => h.kind === 'converged')!;
    expect(value('informer_trace_probe_converge_seconds_count')).toBe(1);
    expect(value('informer_trace_probe_converge_seconds_sum')).toBeCloseTo((converged.observedAt - TRIGGER_AT) / 1000, 6);
    expect(value('informer_trace_probe_hop_seconds_count', { hop: 'ready' })).toBe(snap.hops.filter((h) => h.kind === 'ready').length);
    expect(value('informer_trace_probe_rounds_total', { outcome: 'converged' })).toBe(1);
    expect(value('informer_trace_probe_rounds_total', { outcome: 'timeout' })).toBe(1);
    expect(value('informer_trace_probe_rounds_total', { outcome: 'failed' })).toBe(0);
    // Only the last diagnosis is set.
    expect(value('informer_trace_probe_diagnosis', { verdict: 'healthy', link: 'none' })).toBe(1);
    expect(value('informer_trace_probe_diagnosis', { verdict: 'broken' })).toBeUndefined();
    expect(value('informer_trace_probe_lease_renew_age_seconds', { name: 'kube-scheduler' })).toBe(1.5);
    expect(value('informer_trace_probe_lease_transitions', { name: 'kube-scheduler' })).toBe(4);
    expect(value('informer_trace_probe_export_failures_total', { exporter: 'otlp' })).toBe(1);
    // The informers let go count on under their names, the live ones added: not one more per scrape.
    expect(value('reflector_lists_total', { name: 'deployments.apps' })).toBe(3);
    expect(value('reflector_watches_total', { name: 'deployments.apps' })).toBe(7);
    expect(value('informer_trace_probe_watch_stalls_total', { name: 'deployments.apps' })).toBe(1);
    expect(value('informer_trace_probe_watch_stalls_total', { name: 'leases.coordination.k8s.io in kube-system' })).toBe(1);
    expect(value('reflector_watches_total', { name: 'leases.coordination.k8s.io in kube-system' })).toBe(2);
    live.watches = 5;
    const again = parseExposition(await m.render(), { format: 'prometheus' });
    const watches = (name: string): number | undefined =>
      again.families.flatMap((f) => f.samples).find((s) => s.name === 'reflector_watches_total' && s.labels.name === name)?.value;
    expect(watches('leases.coordination.k8s.io in kube-system')).toBe(5);
    expect(watches('deployments.apps')).toBe(7);
    expect(value('workqueue_adds_total', { name: 'informer-trace' })).toBe(1);
    expect(exp.families.find((f) => f.name === 'informer_trace_probe_hop_seconds')?.type).toBe('histogram');
  });

  it('counts a trace outcome as a round: no-rollout converged, deleted failed, interrupted not at all', () => {
    expect(roundOutcome('no-rollout')).toBe('converged');
    expect(roundOutcome('deleted')).toBe('failed');
    expect(roundOutcome('interrupted')).toBeUndefined();
  });

  it("exports client-go's informer metrics under its names, labels and buckets: the informers let go count on, the live ones as they are", async () => {
    const m = new ProbeMetrics();
    const latency = { counts: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], sum: 20.0005, count: 2 };
    const round = {
      name: 'pods',
      group: '',
      version: 'v1',
      resource: 'pods',
      queued: 0,
      storeResourceVersion: '1234567890123456789',
      processingLatency: latency,
    };
    m.recordInformers([{ ...round, lists: 1, watches: 1, watchStalls: 0 } as never]);
    m.recordInformers([{ ...round, storeResourceVersion: '42', lists: 1, watches: 1, watchStalls: 0 } as never]);
    m.setInformerSource(() => [
      {
        name: 'probe-leases',
        group: 'coordination.k8s.io',
        version: 'v1',
        resource: 'leases',
        queued: 3,
        storeResourceVersion: 'not-a-number',
        processingLatency: { counts: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], sum: 0.007, count: 1 },
      } as never,
    ]);
    const text = await m.render();
    const exp = parseExposition(text, { format: 'prometheus' });
    const family = (name: string) => exp.families.find((f) => f.name === name);
    expect(family('informer_queued_items')?.type).toBe('gauge');
    expect(family('informer_store_resource_version')?.type).toBe('gauge');
    expect(family('informer_processing_latency_seconds')?.type).toBe('histogram');
    const pods = { name: 'pods', group: '', version: 'v1', resource: 'pods' };
    const value = (name: string, labels: Record<string, string>): number | undefined =>
      exp.families.flatMap((f) => f.samples).find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    // The gauge holds the last value let go; the histogram adds both.
    expect(value('informer_store_resource_version', pods)).toBe(42);
    expect(value('informer_processing_latency_seconds_count', pods)).toBe(4);
    expect(value('informer_processing_latency_seconds_sum', pods)).toBeCloseTo(40.001);
    expect(value('informer_processing_latency_seconds_bucket', { ...pods, le: '0.001' })).toBe(2);
    expect(value('informer_processing_latency_seconds_bucket', { ...pods, le: '10' })).toBe(2);
    expect(value('informer_processing_latency_seconds_bucket', { ...pods, le: '+Inf' })).toBe(4);
    const leases = { name: 'probe-leases', group: 'coordination.k8s.io', version: 'v1', resource: 'leases' };
    expect(value('informer_queued_items', leases)).toBe(3);
    expect(value('informer_store_resource_version', leases)).toBe(0);
    expect(value('informer_processing_latency_seconds_bucket', { ...leases, le: '0.005' })).toBe(0);
    expect(value('informer_processing_latency_seconds_bucket', { ...leases, le: '0.01' })).toBe(1);
    const les = family('informer_processing_latency_seconds')!
      .samples.filter((s) => s.name.endsWith('_bucket') && s.labels.name === 'pods')
      .map((s) => s.labels.le);
    expect(les).toEqual(['0.001', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf']);
  });

  it("the 15 least significant digits of a resourceVersion, as client-go reports the store's", () => {
    expect(storeResourceVersionValue('1234567890123456789')).toBe(567890123456789);
    expect(storeResourceVersionValue('105')).toBe(105);
    expect(storeResourceVersionValue('')).toBe(0);
    expect(storeResourceVersionValue('abc')).toBe(0);
  });
});

describe('the probe server', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('parses --listen as HOST:PORT, :PORT or [v6]:PORT, and refuses anything else in one line', () => {
    expect(parseListen(':8080')).toEqual({ host: '', port: 8080 });
    expect(parseListen('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseListen('[::1]:9090')).toEqual({ host: '::1', port: 9090 });
    expect(() => parseListen('8080')).toThrow('--listen "8080" is not HOST:PORT');
    expect(() => parseListen(':99999')).toThrow(/not HOST:PORT/);
  });

  it('serves /metrics, and /healthz and /readyz from the probe state', async () => {
    const health = { healthy: true, ready: false };
    server = await serveProbe({ host: '127.0.0.1', port: 0 }, new ProbeMetrics(), health);
    const metrics = await fetch(`${server.url}/metrics`);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await metrics.text()).toContain('# TYPE informer_trace_probe_rounds_total counter');
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    health.ready = true;
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    health.healthy = false;
    expect((await fetch(`${server.url}/healthz`)).status).toBe(503);
    expect((await fetch(`${server.url}/other`)).status).toBe(404);
  });

  it('says in one line that the address is taken', async () => {
    server = await serveProbe({ host: '127.0.0.1', port: 0 }, new ProbeMetrics(), { healthy: true, ready: true });
    const port = Number(new URL(server.url).port);
    await expect(serveProbe({ host: '127.0.0.1', port }, new ProbeMetrics(), { healthy: true, ready: true })).rejects.toThrow(
      `--listen 127.0.0.1:${port}: the address is in use`,
    );
  });
});
