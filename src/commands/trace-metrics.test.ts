import { describe, expect, it } from 'vitest';
import { planMetrics } from '../cli/metrics-flags.js';
import type { Kube } from '../kube/index.js';
import { metricsFixture } from '../../tools/testing/fake-metrics-source.js';
import { controlsIn, HOSTILE } from '../../tools/testing/hostile.js';
import { startLoopbackServer } from '../../tools/testing/http-server.js';
import { traceMetrics } from './trace-metrics.js';

describe('traceMetrics', () => {
  it('says on one line, escaped, what a source that failed answered', async () => {
    const server = await startLoopbackServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end(HOSTILE);
    });
    try {
      const opts = { metrics: [`${server.base}/metrics`] };
      const lines: string[] = [];
      // A direct URL needs no cluster connection.
      const m = traceMetrics(undefined as unknown as Kube, planMetrics(opts), 1_000, (l) => lines.push(l));
      await m.baseline(new AbortController().signal);
      // Failing again at the end is not said again.
      await m.sinceBaseline(new AbortController().signal);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^warning: metrics http:\/\/127\.0\.0\.1:\d+\/metrics: 401 Unauthorized: /);
      expect(controlsIn(lines[0]!)).toEqual([]);
      expect(lines[0]).toContain('\\x1b[2J \\x1b]0;pwned\\x07 ok\\rFAIL \\u009b31m');
    } finally {
      await server.close();
    }
  });

  it("after a burst, measures the adds of kube-controller-manager's queue for the target's group and kind: none for a custom resource named Deployment", async () => {
    const scrapes = [metricsFixture('kube-controller-manager.prom'), metricsFixture('kube-controller-manager.2.prom')];
    const afterBurst = async (group: string) => {
      let served = 0;
      const server = await startLoopbackServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(scrapes[Math.min(served++, 1)]);
      });
      try {
        const lines: string[] = [];
        const adds: [string, number][] = [];
        const m = traceMetrics(undefined as unknown as Kube, planMetrics({ metrics: [`${server.base}/metrics`] }), 1_000, (l) => lines.push(l));
        await m.baseline(new AbortController().signal);
        await m.afterBurst({ setControllerQueueAdds: (q, n) => adds.push([q, n]) }, { group, kind: 'Deployment' }, new AbortController().signal);
        return { lines, adds };
      } finally {
        await server.close();
      }
    };
    expect(await afterBurst('apps')).toEqual({ lines: [], adds: [['deployment', 11]] });
    expect(await afterBurst('example.com')).toEqual({
      lines: ["note: kube-controller-manager has no queue for Deployment.example.com; the controller queue's adds are not measured"],
      adds: [],
    });
  });
});
