import { describe, expect, it } from 'vitest';
import { connect, type ResourceInfo } from '../kube/index.js';
import { parseExposition } from '../metrics/parse.js';
import { ProbeMetrics } from './metrics.js';
import { Probe } from './probe.js';

const DEPLOYMENTS: ResourceInfo = {
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
  shortNames: ['deploy'],
  singularName: 'deployment',
  verbs: ['get', 'list', 'watch', 'create', 'patch'],
};

describe('Probe', () => {
  it('counts a round the API server could not answer as failed, goes on with the next, and stops promptly when told to', async () => {
    // Nothing listens on port 1: every request is refused, as while the API server restarts.
    const kube = connect({ server: 'http://127.0.0.1:1', namespace: 'probe' });
    const metrics = new ProbeMetrics();
    const lines: string[] = [];
    const probe = new Probe({
      kube,
      target: { info: DEPLOYMENTS, namespace: 'probe', name: 'canary' },
      canary: { namespace: 'probe', name: 'canary', image: 'pause', replicas: 1 },
      mode: { kind: 'restart' },
      intervalMs: 20,
      timeoutMs: 1_000,
      syncTimeoutMs: 1_000,
      shutdownGraceMs: 1_000,
      maxRounds: 3,
      metrics,
      log: (l) => lines.push(l),
    });
    await probe.run(new AbortController().signal);
    const failed = lines.filter((l) => /^round \d: failed: the API server at http:\/\/127\.0\.0\.1:1 is unreachable \(ECONNREFUSED\)$/.test(l));
    expect(failed, lines.join('\n')).toHaveLength(3);
    const exp = parseExposition(await metrics.render(), { format: 'prometheus' });
    expect(exp.families.find((f) => f.name === 'informer_trace_probe_rounds_total')?.samples.find((s) => s.labels.outcome === 'failed')?.value).toBe(3);
    expect(probe.ready).toBe(false);

    // Stopped while it waits for the next round: it ends without waiting for the interval.
    const slow = new Probe({ ...probeOptions(kube, metrics, lines), intervalMs: 60_000 });
    const stop = new AbortController();
    const started = Date.now();
    const running = slow.run(stop.signal);
    await new Promise((r) => setTimeout(r, 200));
    stop.abort();
    await running;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(lines.some((l) => l.startsWith('stopping: the round in progress has'))).toBe(true);
  });
});

function probeOptions(kube: ReturnType<typeof connect>, metrics: ProbeMetrics, lines: string[]) {
  return {
    kube,
    target: { info: DEPLOYMENTS, namespace: 'probe', name: 'canary' },
    mode: { kind: 'restart' } as const,
    intervalMs: 20,
    timeoutMs: 1_000,
    syncTimeoutMs: 1_000,
    shutdownGraceMs: 1_000,
    metrics,
    log: (l: string) => lines.push(l),
  };
}
