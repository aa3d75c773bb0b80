/**
 * `top`'s bad input, in-process: every flag is checked before any request (the kubeconfig does not
 * exist, so a request would fail differently), one clear line and exit 2 each. The command against
 * a real control plane is in test/e2e/top.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../tools/testing/cli.js';
import { controlsIn, HOSTILE, HOSTILE_SHOWN } from '../../tools/testing/hostile.js';
import { createInformerTraceProgram } from './informer-trace.js';
import { createLeaseWatchProgram } from './lease-watch.js';

const run = (argv: string[]) => runCli(createInformerTraceProgram, ['top', ...argv, '--kubeconfig', '/nonexistent/kubeconfig'], { CI: 'true' });

describe('top: bad input', () => {
  it.each([
    [['-o', 'tui'], 'error: -o tui needs a terminal: stdout is not one'],
    [['--interval', '0'], 'error: --interval must be a positive duration, e.g. 2s'],
    [['--for', 'soon'], '--for'],
    [['--controller', 'Kube Controller'], 'error: --controller "Kube Controller" is not a component or Lease name'],
    [['--metrics', 'ftp://x/metrics'], 'error: --metrics "ftp://x/metrics": ftp:// is not supported, only http:// and https://'],
    [['--metrics', 'kube-scheduler=pod/a/b/c'], 'error: --metrics "pod/a/b/c": expected pod/NAMESPACE/NAME[:PORT]'],
  ])('%j: one line, exit 2, nothing sent', async (argv, line) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toContain(line);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.stderr).not.toContain('nonexistent');
  });

  it('is reachable as `kubectl lease-watch top` too, with the same help', async () => {
    const a = await runCli(createLeaseWatchProgram, ['top', '--help'], { CI: 'true' });
    const b = await runCli(createInformerTraceProgram, ['top', '--help'], { CI: 'true' });
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('States, worst first: no leader, unreachable, stuck, retrying, backlog, ok.');
    expect(a.stdout.replace(/^Usage: .*$/m, '')).toBe(b.stdout.replace(/^Usage: .*$/m, ''));
  });
});

describe('renderTopTable', () => {
  it('a table of components, then each with its Lease, replicas and non-idle queues', async () => {
    const { buildTopView } = await import('../view/top-view.js');
    const { pollTwice } = await import('../../tools/testing/fake-metrics-source.js');
    const { renderTopTable } = await import('./top.js');
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
    const { renderTopTable } = await import('./top.js');
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
