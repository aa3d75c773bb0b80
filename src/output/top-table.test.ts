import { describe, expect, it } from 'vitest';
import { controlsIn, HOSTILE, HOSTILE_SHOWN } from '../../tools/testing/hostile.js';

describe('renderTopTable', () => {
  it('a table of components, then each with its Lease, replicas and non-idle queues', async () => {
    const { buildTopView } = await import('../view/top-view.js');
    const { pollTwice } = await import('../../tools/testing/fake-metrics-source.js');
    const { renderTopTable } = await import('./top-table.js');
    const expo = (adds: number, retries: number) =>
      `# TYPE workqueue_adds_total counter\nworkqueue_adds_total{name="deployment"} ${adds}\nworkqueue_adds_total{name="cronjob"} 0\n# TYPE workqueue_retries_total counter\nworkqueue_retries_total{name="deployment"} ${retries}\n# TYPE workqueue_depth gauge\nworkqueue_depth{name="deployment"} 2\nworkqueue_depth{name="cronjob"} 0\n`;
    const { second } = await pollTwice({ apiserver: [expo(0, 0), expo(4, 2)] }, 2_000);
    const view = buildTopView({
      now: Date.UTC(2026, 0, 1),
      leases: [],
      metrics: second,
      targets: [
        {
          source: 'apiserver',
          component: 'kube-apiserver',
          namespace: null,
          pod: null,
          host: null,
          lease: null,
          foundBy: ['the API server of the kubeconfig'],
        },
      ],
    });
    const text = renderTopTable(view, false);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^COMPONENT\s+STATE\s+HOLDER\s+RENEW\s+TRANS\s+LAST FAILOVER\s+REPLICAS\s+DEPTH\s+ADDS\/S\s+RETRIES\/S/);
    expect(lines[1]).toMatch(/^kube-apiserver\s+retrying\s+no lease\s+-\s+-\s+-\s+1\s+2\s+2\.00\s+1\.00/);
    expect(text).toContain('kube-apiserver · retrying · queue deployment: 1.00 retries/s');
    expect(text).toContain('  replica apiserver: role unknown, ok');
    expect(text).toMatch(/\n\s+deployment\s+retrying\s+2\s+2\.00\s+1\.00/);
    expect(text).not.toContain('cronjob');
    expect(text).not.toContain('RECONCILES/S'); // client-go queues only
    expect(renderTopTable(view, true)).toMatch(/\n\s+cronjob\s+idle\s+0/);
  });
});

describe('renderTopTable with hostile names and errors', () => {
  it('escapes the component, its source and what the source answered, a line each', async () => {
    const { buildTopView } = await import('../view/top-view.js');
    const { pollTwice } = await import('../../tools/testing/fake-metrics-source.js');
    const { renderTopTable } = await import('./top-table.js');
    const source = `https://10.0.0.66/metrics?${HOSTILE}`;
    const { second } = await pollTwice({ [source]: [{ fail: 'not-metrics', reason: `answered ${HOSTILE}` }] }, 2_000);
    const view = buildTopView({
      now: Date.UTC(2026, 0, 1),
      leases: [],
      metrics: second,
      targets: [{ source, component: `op${HOSTILE}`, namespace: null, pod: null, host: null, lease: null, foundBy: [HOSTILE] }],
    });
    const text = renderTopTable(view, true);
    expect(controlsIn(text)).toEqual([]);
    expect(text).toContain(`op${HOSTILE_SHOWN}`);
    expect(text).toContain(`  replica ${source.replace(HOSTILE, HOSTILE_SHOWN)}: role unknown, failed — answered ${HOSTILE_SHOWN}`);
  });
});
