import { describe, expect, it } from 'vitest';
import { metricsFixture, pollTwice, type Answer } from '../../tools/testing/fake-metrics-source.js';
import { ATTACKS, controlsIn, HOSTILE, SHOWN } from '../../tools/testing/hostile.js';
import { buildQueuesView } from '../view/queues-view.js';
import { renderQueuesTable } from './queues-table.js';

const KCM = 'https://10.0.0.1:10257/metrics';
const OPERATOR = 'svc/shop/operator-metrics:8443';
const LOGIN = 'https://10.0.0.9/metrics';
const kcm: Answer[] = [metricsFixture('kube-controller-manager.prom'), metricsFixture('kube-controller-manager.2.prom')];
const operator: Answer[] = [metricsFixture('controller-runtime.prom'), metricsFixture('controller-runtime.2.prom')];
const login: Answer[] = [{ fail: 'not-metrics', reason: 'answered text/html, not Prometheus metrics' }];
const snapshots = (sources: Record<string, Answer[]>) => pollTwice(sources);

describe('renderQueuesTable', () => {
  it('prints the sources, then one row per busy queue with every column; no SOURCE column for one source', async () => {
    const { second } = await snapshots({ [KCM]: kcm });
    const out = renderQueuesTable(buildQueuesView(second, { names: ['deployment', 'cronjob'] }));
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^SOURCE\s+STATE$/);
    expect(lines[1]).toBe(`${KCM}   ok · leader · rates over 10.3s · 55 queues`);
    expect(out).toMatch(/^QUEUE\s+DEPTH\s+ADDS\/S\s+RETRIES\/S\s+QUEUE P50\s+QUEUE P99\s+WORK P50\s+WORK P99\s+UNFINISHED\s+LONGEST$/m);
    // deployment: 11 adds and 7 retries in 10.327 s; cronjob: exported, idle, no observations.
    expect(out).toMatch(/^deployment\s+0\s+1\.07\s+0\.68\s+\S+\s+\S+\s+\S+\s+\S+\s+0\s+0$/m);
    expect(out).toMatch(/^cronjob\s+0\s+0\s+0\s+-\s+-\s+-\s+-\s+0\s+0$/m);
  });

  it('adds a SOURCE column for several sources, the controllers table for controller-runtime, and "failed (see stderr)"', async () => {
    const { second } = await snapshots({ [KCM]: kcm, [OPERATOR]: operator, [LOGIN]: login });
    const out = renderQueuesTable(buildQueuesView(second));
    expect(out).toMatch(/^SOURCE\s+QUEUE\s+DEPTH/m);
    expect(out).toMatch(new RegExp(`^${KCM.replace(/[.]/g, '\\.')}\\s+deployment\\s+0\\s+1\\.07`, 'm'));
    expect(out).toMatch(/^svc\/shop\/operator-metrics:8443\s+webapp\s+/m);
    expect(out).toMatch(/^https:\/\/10\.0\.0\.9\/metrics\s+failed \(see stderr\)$/m);
    expect(out).toMatch(/^CONTROLLER\s+RECONCILES\/S\s+ERRORS\/S\s+RESULTS\/S\s+RECONCILE P50\s+RECONCILE P99\s+WORKERS$/m);
    expect(out).toMatch(/^guestbook\s+\S+\s+\S+\s+.*\d+\/1$/m);
    expect(out).not.toContain('NaN');
    expect(out).not.toContain('null');
  });

  it('says why the queue table is empty when every queue was idle', async () => {
    const quiet = metricsFixture('kube-controller-manager.2.prom');
    const { second } = await snapshots({ [KCM]: [quiet, quiet] });
    const out = renderQueuesTable(buildQueuesView(second));
    expect(out).toContain('no queue was busy in the last 10.3s: 55 idle queues hidden (--all shows them)');
    expect(out).not.toMatch(/QUEUE\s+DEPTH/);
  });
});

describe('renderQueuesTable with hostile names', () => {
  it('escapes queue and source names, and the columns stay aligned', async () => {
    // A label value may hold escape sequences (the parser refuses NUL as binary data).
    const queue = `q${ATTACKS.clear}${ATTACKS.title}${ATTACKS.csi}`;
    const exposition = (adds: number): string =>
      [
        '# TYPE workqueue_depth gauge',
        `workqueue_depth{name="${queue}"} 2`,
        `workqueue_depth{name="plain"} 1`,
        '# TYPE workqueue_adds_total counter',
        `workqueue_adds_total{name="${queue}"} ${adds}`,
        `workqueue_adds_total{name="plain"} ${adds}`,
        '',
      ].join('\n');
    const source = `https://10.0.0.7/metrics?${HOSTILE}`;
    const { second } = await snapshots({ [source]: [exposition(1), exposition(5)], [LOGIN]: login });
    const out = renderQueuesTable(buildQueuesView(second));
    expect(controlsIn(out)).toEqual([]);
    for (const s of SHOWN) expect(out).toContain(s);
    expect(out).toContain('q\\x1b[2J\\x1b]0;pwned\\x07\\u009b31m');
    const lines = out.split('\n');
    const header = lines.find((l) => /^QUEUE\s+DEPTH/.test(l))!;
    const rows = lines.filter((l) => l.startsWith('q\\x1b'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.indexOf(' 2 ') + 1).toBe(header.indexOf('DEPTH'));
  });
});
