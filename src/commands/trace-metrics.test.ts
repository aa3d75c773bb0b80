import { describe, expect, it } from 'vitest';
import { planMetrics } from '../cli/metrics-flags.js';
import type { Kube } from '../kube/index.js';
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
});
