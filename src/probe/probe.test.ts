import { describe, expect, it } from 'vitest';
import { connect } from '../kube/index.js';
import { parseExposition } from '../metrics/parse.js';
import { startLoopbackServer } from '../../tools/testing/http-server.js';
import { ProbeMetrics } from './metrics.js';
import { Probe } from './probe.js';
import { createReadiness } from '../readiness/index.js';
import { DEPLOYMENTS } from '../../tools/testing/set-member.js';

const readiness = await createReadiness();

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
      readiness,
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

describe('Probe setting problems', () => {
  it('says a missing namespace once, stays quiet while it lasts, fails readiness with it, and says a new problem (a 403) once when it changes', async () => {
    let refuse = false;
    let broken = false;
    const server = await startLoopbackServer((req, res) => {
      const status = (code: number, reason: string, message: string) =>
        res
          .writeHead(code, { 'content-type': 'application/json' })
          .end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message }));
      if (broken) return status(500, 'InternalError', 'etcdserver: request timed out');
      if (refuse)
        return status(
          403,
          'Forbidden',
          'deployments.apps "canary" is forbidden: User "jane" cannot get resource "deployments" in API group "apps" in the namespace "gone"',
        );
      if (req.url === '/api/v1/namespaces/gone') return status(404, 'NotFound', 'namespaces "gone" not found');
      return status(404, 'NotFound', 'deployments.apps "canary" not found');
    });
    try {
      const kube = connect({ server: server.base, namespace: 'gone' });
      const metrics = new ProbeMetrics();
      const lines: string[] = [];
      const options = {
        ...probeOptions(kube, metrics, lines),
        target: { info: DEPLOYMENTS, namespace: 'gone', name: 'canary' },
        canary: { namespace: 'gone', name: 'canary', image: 'pause', replicas: 1 },
      };
      const probe = new Probe(options);
      const stop = new AbortController();
      for (let n = 1; n <= 3; n++) await probe.round(n, stop.signal);
      expect(lines).toEqual(['namespace "gone" does not exist; the rounds go on, failing quietly until it changes']);
      expect(probe.ready).toBe(false);
      expect(probe.notReadyReason).toBe('namespace "gone" does not exist');
      refuse = true;
      for (let n = 4; n <= 6; n++) await probe.round(n, stop.signal);
      expect(lines.slice(1)).toEqual(['forbidden: jane may not get deployments.apps in namespace gone; the rounds go on, failing quietly until it changes']);
      expect(probe.notReadyReason).toBe('forbidden: jane may not get deployments.apps in namespace gone');
      // A failure that may heal is said for its round, and does not end the standing problem.
      broken = true;
      await probe.round(7, stop.signal);
      expect(lines).toHaveLength(3);
      expect(lines[2]).toMatch(/^round 7: failed: .*etcdserver: request timed out/);
      expect(probe.notReadyReason).toBe('forbidden: jane may not get deployments.apps in namespace gone');
      const exp = parseExposition(await metrics.render(), { format: 'prometheus' });
      expect(exp.families.find((f) => f.name === 'informer_trace_probe_rounds_total')?.samples.find((s) => s.labels.outcome === 'failed')?.value).toBe(7);
    } finally {
      await server.close();
    }
  });

  it('a --target that does not exist, in a namespace that does, is said once', async () => {
    const server = await startLoopbackServer((req, res) => {
      if (req.url === '/api/v1/namespaces/shop')
        return res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"Namespace","metadata":{"name":"shop"}}');
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'deployments.apps "web" not found' }),
        );
    });
    try {
      const lines: string[] = [];
      const probe = new Probe({
        ...probeOptions(connect({ server: server.base, namespace: 'shop' }), new ProbeMetrics(), lines),
        target: { info: DEPLOYMENTS, namespace: 'shop', name: 'web' },
        mode: { kind: 'scale', sizes: [1, 2] },
      });
      for (let n = 1; n <= 2; n++) await probe.round(n, new AbortController().signal);
      expect(lines).toEqual(['the target Deployment/web does not exist in namespace shop; the rounds go on, failing quietly until it changes']);
      expect(probe.ready).toBe(false);
    } finally {
      await server.close();
    }
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
    readiness,
    shutdownGraceMs: 1_000,
    metrics,
    log: (l: string) => lines.push(l),
  };
}
