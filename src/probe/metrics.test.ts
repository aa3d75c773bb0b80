import { afterEach, describe, expect, it } from 'vitest';
import { parseExposition } from '../metrics/parse.js';
import { syntheticRollout, TRIGGER_AT } from '../../tools/testing/synthetic-trace.js';
import type { TraceSnapshot } from '../trace/tracer.js';
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
    m.recordInformers([{ name: 'deployments.apps', lists: 2, watches: 3, watchStalls: 1 } as never]);
    m.watchStalled('leases.coordination.k8s.io in kube-system');
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
    expect(value('reflector_watches_total', { name: 'deployments.apps' })).toBe(3);
    expect(value('informer_trace_probe_watch_stalls_total', { name: 'deployments.apps' })).toBe(1);
    expect(value('informer_trace_probe_watch_stalls_total', { name: 'leases.coordination.k8s.io in kube-system' })).toBe(1);
    expect(value('workqueue_adds_total', { name: 'informer-trace' })).toBe(1);
    expect(exp.families.find((f) => f.name === 'informer_trace_probe_hop_seconds')?.type).toBe('histogram');
  });

  it('counts a trace outcome as a round: no-rollout converged, deleted failed, interrupted not at all', () => {
    expect(roundOutcome('no-rollout')).toBe('converged');
    expect(roundOutcome('deleted')).toBe('failed');
    expect(roundOutcome('interrupted')).toBeUndefined();
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
