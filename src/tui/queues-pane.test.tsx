import { afterEach, describe, expect, it } from 'vitest';
import type { MetricsSnapshot } from '../metrics/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { metricsFixture, pollTwice, type Answer } from '../../tools/testing/fake-metrics-source.js';
import { controlsIn, HOSTILE, SHOWN } from '../../tools/testing/hostile.js';
import { renderInk, TEST_WIDTH, type InkHarness } from '../../tools/testing/ink.js';
import type { TraceSnapshot } from '../trace/index.js';
import { LeaseWatchModel } from '../live/index.js';
import { buildQueuesView } from '../view/queues-view.js';
import { LeaseWatchApp } from './lease-watch-app.js';
import { QueuesPane } from './queues-pane.js';
import { TraceApp } from './trace-app.js';
import type { MetricsFeed } from './use-queues-view.js';

const KCM = 'https://10.0.0.1:10257/metrics';
const OPERATOR = 'svc/shop/operator-metrics:8443';
const LOGIN = 'https://10.0.0.9/metrics';
const kcm: Answer[] = [metricsFixture('kube-controller-manager.prom'), metricsFixture('kube-controller-manager.2.prom')];
const operator: Answer[] = [metricsFixture('controller-runtime.prom'), metricsFixture('controller-runtime.2.prom')];
const login: Answer[] = [{ fail: 'not-metrics', reason: 'answered text/html, not Prometheus metrics', hint: 'is it the metrics endpoint?' }];

const flat = (s: string): string => s.replace(/\s+/g, ' ');

let harness: InkHarness | undefined;
afterEach(() => {
  harness?.unmount();
  harness = undefined;
});

/** A feed a test pushes snapshots into, as the MetricsPoller does. */
class StubFeed implements MetricsFeed {
  private listeners = new Set<(s: MetricsSnapshot) => void>();
  constructor(private current: MetricsSnapshot) {}
  latest(): MetricsSnapshot {
    return this.current;
  }
  subscribe(listener: (s: MetricsSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  push(s: MetricsSnapshot): void {
    this.current = s;
    for (const l of this.listeners) l(s);
  }
  get subscribers(): number {
    return this.listeners.size;
  }
}

describe('QueuesPane', () => {
  it('shows each source, then its busiest queues first with every column, and why a source failed', async () => {
    const { second } = await pollTwice({ [KCM]: kcm, [OPERATOR]: operator, [LOGIN]: login });
    harness = renderInk(<QueuesPane view={buildQueuesView(second)} width={TEST_WIDTH} maxRows={3} />);
    const f = harness.frame();
    expect(f).toContain('Controller queues');
    expect(f).toMatch(/https:\/\/10\.0\.0\.1:10257\/metrics · ok · leader · rates over 10\.3s · 55 queues \(49 idle hidden\)/);
    expect(f).toMatch(/QUEUE\s+DEPTH\s+ADDS\/S\s+RETRY\/S\s+Q P50\s+Q P99\s+W P50\s+W P99\s+UNFIN\s+LONGEST/);
    // Busiest first: garbage collector (3.00/s) before the deployment and replicaset queues (1.07/s).
    const gc = f.search(/garbage_collec\S*graph_changes\s+0\s+3\.00/);
    const deployment = f.indexOf('deployment ');
    expect(gc).toBeGreaterThan(-1);
    expect(deployment).toBeGreaterThan(gc);
    expect(f).toMatch(/deployment\s+0\s+1\.07\s+0\.68\s+\S+\s+90ms\s+\S+\s+98ms\s+0\s+0/);
    expect(f).toContain('… 3 more');
    // controller-runtime: the operator's queue with its depth 3, and its controllers' reconcile rates.
    expect(f).toMatch(/webapp\s+3\s+2\.42\s+0\.39/);
    expect(f).toContain('controller webapp: 2.42 reconciles/s · errors 0.39/s · p50 38ms p99 595ms · workers 1/2 · error 0');
    expect(f).toContain('controller guestbook: 0 reconciles/s · errors 0/s · p50 - p99 - · workers 0/1\n');
    // A failure is never cut short: it wraps.
    expect(flat(f)).toContain('https://10.0.0.9/metrics · failed: answered text/html, not Prometheus metrics (is it the metrics endpoint?)');
  });

  it('says it is waiting before the first scrape', async () => {
    const { poller } = await pollTwice({ [KCM]: kcm });
    const pending = { ...poller.latest(), sources: [{ ...poller.latest().sources[0]!, ok: false, stats: null, error: null }] };
    harness = renderInk(<QueuesPane view={buildQueuesView(pending)} width={TEST_WIDTH} />);
    expect(harness.frame()).toContain(`${KCM} · waiting for the first scrape`);
  });
});

describe('the queues pane in the lease-watch TUI', () => {
  it('appears with --metrics, follows the feed, and replaces the plain metrics error lines', async () => {
    const { first, second } = await pollTwice({ [KCM]: kcm, [LOGIN]: login });
    const feed = new StubFeed(first);
    const model = new LeaseWatchModel({ clock: new FakeClock(Date.UTC(2026, 0, 1, 12)) });
    model.markSynced();
    harness = renderInk(<LeaseWatchApp source={model} metrics={feed} width={TEST_WIDTH} maxFps={100} />);
    await harness.waitFor('Controller queues');
    expect(harness.frame()).toContain(`${KCM} · ok · leader · no rates yet (one scrape)`);
    feed.push(second);
    const f = await harness.waitFor('rates over 10.3s');
    expect(f).toMatch(/deployment\s+0\s+1\.07/);
    expect(f).toContain(`${LOGIN} · failed: answered text/html`);
    expect(f).not.toContain(`metrics ${LOGIN}:`);
    harness.unmount();
    harness = undefined;
    expect(feed.subscribers).toBe(0);
    model.close();
  });

  it('is not there without --metrics', () => {
    const model = new LeaseWatchModel({ clock: new FakeClock(Date.UTC(2026, 0, 1, 12)) });
    model.markSynced();
    harness = renderInk(<LeaseWatchApp source={model} width={TEST_WIDTH} maxFps={100} />);
    expect(harness.frame()).not.toContain('Controller queues');
    model.close();
  });
});

describe('the queues pane in the trace TUI', () => {
  const snapshot: TraceSnapshot = {
    target: { kind: 'Deployment', namespace: 'demo', name: 'web' },
    trigger: undefined,
    hops: [],
    tree: undefined,
    informers: [],
    queue: { name: 'informer-trace', depth: 0, adds: 4, retries: 0 } as unknown as TraceSnapshot['queue'],
    reconciles: 2,
    targetWatchEvents: 0,
    outcome: undefined,
    endMessage: undefined,
    burst: undefined,
  };
  const source = { snapshot: () => snapshot, subscribe: () => () => undefined };

  it('sits under Internals, beside our own workqueue', async () => {
    const { second } = await pollTwice({ [KCM]: kcm });
    harness = renderInk(<TraceApp source={source} onQuit={() => undefined} metrics={new StubFeed(second)} />);
    const f = await harness.waitFor('Controller queues');
    const internals = f.indexOf('Internals');
    expect(internals).toBeGreaterThan(-1);
    expect(f.indexOf('workqueue informer-trace: depth 0 · adds 4')).toBeGreaterThan(internals);
    expect(f.indexOf('Controller queues')).toBeGreaterThan(f.indexOf('workqueue informer-trace'));
    expect(f).toMatch(/deployment\s+0\s+1\.07/);
  });

  it('is not there without --metrics', () => {
    harness = renderInk(<TraceApp source={source} onQuit={() => undefined} />);
    expect(harness.frame()).toContain('Internals');
    expect(harness.frame()).not.toContain('Controller queues');
  });
});

describe('queues -o tui', () => {
  it('shows the pane full screen; a shows and hides the idle queues, q quits', async () => {
    const { QueuesApp } = await import('./queues-app.js');
    const { second } = await pollTwice({ [KCM]: kcm });
    const exits: string[] = [];
    harness = renderInk(<QueuesApp feed={new StubFeed(second)} names={[]} includeIdle={false} width={TEST_WIDTH} height={40} onExit={(r) => exits.push(r)} />);
    let f = await harness.waitFor('deployment');
    expect(f).toMatch(/^queues \d\d:\d\d:\d\d UTC · every 10\.3s \(a show idle queues\)/);
    expect(f).toContain('(49 idle hidden)');
    expect(f).not.toMatch(/^\s+cronjob\s/m);
    harness.stdin.write('a');
    f = await harness.waitFor((fr) => /^\s+cronjob\s+0\s+0\s+0\s+-\s+-\s+-\s+-\s+0\s+0/m.test(fr), 10_000);
    expect(f).toContain('(a hide idle queues)');
    harness.stdin.write('q');
    expect(exits).toEqual(['quit']);
  }, 20_000);
});

describe('QueuesPane with hostile names and errors', () => {
  it('shows a source name and what it answered escaped; the whole error still wraps onto the rows', async () => {
    const evil = `https://10.0.0.66/metrics?${HOSTILE}`;
    const { second } = await pollTwice({ [KCM]: kcm, [evil]: [{ fail: 'not-metrics', reason: `answered ${HOSTILE}`, hint: HOSTILE }] });
    harness = renderInk(<QueuesPane view={buildQueuesView(second)} width={TEST_WIDTH} maxRows={3} />);
    const f = harness.frame();
    expect(controlsIn(f, { sgr: true })).toEqual([]);
    for (const l of f.split('\n')) expect(l.length).toBeLessThanOrEqual(TEST_WIDTH);
    for (const s of SHOWN) expect(flat(f).replace(/ /g, '')).toContain(s.replace(/ /g, ''));
  });
});
