import { describe, expect, it } from 'vitest';
import type { QueueRow } from '../metrics/index.js';
import { metricsFixture, pollTwice, type Answer } from '../../tools/testing/fake-metrics-source.js';
import { buildQueuesView, countCell, isIdleQueue, queueCells, queuesJson, rateCell, secondsCell, sourceSummary, type QueuesView } from './queues-view.js';

const KCM = 'https://10.0.0.1:10257/metrics';
const OPERATOR = 'svc/shop/operator-metrics:8443';
const LOGIN = 'https://10.0.0.9/metrics';

const snapshots = (sources: Record<string, Answer[]>) => pollTwice(sources);

const kcm: Answer[] = [metricsFixture('kube-controller-manager.prom'), metricsFixture('kube-controller-manager.2.prom')];
const operator: Answer[] = [metricsFixture('controller-runtime.prom'), metricsFixture('controller-runtime.2.prom')];
const login: Answer[] = [{ fail: 'not-metrics', reason: 'answered text/html, not Prometheus metrics', hint: 'is it the metrics endpoint?' }];

function row(view: QueuesView, source: string, name: string): QueueRow | undefined {
  return view.sources.find((s) => s.source === source)?.queues.find((q) => q.name === name);
}

describe('buildQueuesView', () => {
  it('hides queues idle over the window, keeps busy ones, and counts what it hid (real kube-controller-manager scrapes)', async () => {
    const { second } = await snapshots({ [KCM]: kcm });
    const view = buildQueuesView(second);
    const s = view.sources[0]!;
    expect(s).toMatchObject({ source: KCM, state: 'ok', error: null, leader: 'leader', queueCount: 55 });
    expect(s.windowSeconds).toBeCloseTo(10.327, 6);
    expect(s.queues.length + s.hiddenIdle).toBe(55);
    // The deployment queue took 11 items in the window; cronjob took none.
    expect(row(view, KCM, 'deployment')!.addsPerSecond).toBeCloseTo(11 / 10.327, 6);
    expect(row(view, KCM, 'cronjob')).toBeUndefined();
    for (const q of s.queues) expect(isIdleQueue(q)).toBe(false);
    expect(sourceSummary(s)).toBe(`ok · leader · rates over 10.3s · 55 queues (${s.hiddenIdle} idle hidden)`);
  });

  it('on the first scrape (no rates yet) hides only the queues that never took an item', async () => {
    const { first } = await snapshots({ [KCM]: kcm });
    const s = buildQueuesView(first).sources[0]!;
    expect(s.windowSeconds).toBeNull();
    expect(s.queues.find((q) => q.name === 'deployment')!.addsTotal).toBe(1);
    expect(s.queues.find((q) => q.name === 'cronjob')).toBeUndefined();
    expect(sourceSummary(s)).toMatch(/^ok · leader · no rates yet \(one scrape\) · 55 queues \(\d+ idle hidden\)$/);
  });

  it('keeps idle queues with --all, and when they are named (with * as a wildcard)', async () => {
    const { second } = await snapshots({ [KCM]: kcm });
    expect(buildQueuesView(second, { includeIdle: true }).sources[0]!.queues).toHaveLength(55);
    const named = buildQueuesView(second, { names: ['cronjob', 'replica*'] }).sources[0]!;
    expect(named.queues.map((q) => q.name)).toEqual(['cronjob', 'replicaset', 'replicationmanager']);
    expect(named.hiddenIdle).toBe(0);
  });

  it('keys controller-runtime rows by controller, and filters controllers by the same names', async () => {
    const { second } = await snapshots({ [OPERATOR]: operator });
    const view = buildQueuesView(second, { names: ['webapp'] });
    expect(view.sources[0]!.queues.map((q) => [q.controller, q.name])).toEqual([['webapp', 'webapp']]);
    expect(view.sources[0]!.controllers.map((c) => c.controller)).toEqual(['webapp']);
    expect(view.sources[0]!.leader).toBe('leader');
  });

  it('says nothing of leadership for a source without leader_election_master_status: unknown, not "standby"', async () => {
    const plain = '# TYPE workqueue_adds_total counter\nworkqueue_adds_total{name="q"} 1\n';
    const { second } = await snapshots({ x: [plain] });
    expect(buildQueuesView(second).sources[0]!.leader).toBeNull();
    const standby = `${plain}# TYPE leader_election_master_status gauge\nleader_election_master_status{name="kube-scheduler"} 0\n`;
    expect(buildQueuesView((await snapshots({ x: [standby] })).second).sources[0]!.leader).toBe('standby');
  });

  it('gives a failing source its one-line error with the hint, next to a working one', async () => {
    const { second } = await snapshots({ [KCM]: kcm, [LOGIN]: login });
    const view = buildQueuesView(second);
    expect(view.okSources).toBe(1);
    expect(view.failedSources).toBe(1);
    expect(view.sources[1]).toMatchObject({
      source: LOGIN,
      state: 'failed',
      error: 'answered text/html, not Prometheus metrics (is it the metrics endpoint?)',
      queues: [],
      queueCount: 0,
    });
    expect(view.sources[0]!.queues.length).toBeGreaterThan(0);
  });

  it('marks a source stale when a later scrape fails, keeping its last numbers', async () => {
    const { second } = await snapshots({ [KCM]: [kcm[0]!, { fail: 'timeout', reason: 'no answer within 1s' }] });
    const s = buildQueuesView(second, { includeIdle: true }).sources[0]!;
    expect(s.state).toBe('stale');
    expect(s.error).toBe('no answer within 1s');
    expect(s.queues).toHaveLength(55);
  });
});

describe('queuesJson', () => {
  it('keeps every row (idle ones too), nulls as null, and the source errors as data', async () => {
    const { second } = await snapshots({ [KCM]: kcm, [LOGIN]: login });
    const json = JSON.parse(JSON.stringify(queuesJson(second))) as {
      sources: { source: string; ok: boolean; kind: string | null; queues: QueueRow[]; totals: unknown }[];
    };
    expect(json.sources[0]!.queues).toHaveLength(55);
    const cronjob = json.sources[0]!.queues.find((q) => q.name === 'cronjob')!;
    expect(cronjob.addsPerSecond).toBe(0);
    expect(cronjob.workTime).toEqual({ p50: null, p99: null, observations: 0, basis: 'interval' });
    expect(json.sources[1]).toMatchObject({ source: LOGIN, ok: false, kind: 'not-metrics', queues: [], totals: null });
  });
});

describe('cells', () => {
  it('prints absent as "-" and zero as "0", never one for the other', () => {
    expect([countCell(null), countCell(0), countCell(3)]).toEqual(['-', '0', '3']);
    expect([rateCell(null), rateCell(0), rateCell(0.35), rateCell(12.54), rateCell(2500)]).toEqual(['-', '0', '0.35', '12.5', '2.5k']);
    expect([secondsCell(null), secondsCell(0), secondsCell(0.000085), secondsCell(0.0032), secondsCell(0.41), secondsCell(1.25), secondsCell(125)]).toEqual([
      '-',
      '0',
      '85µs',
      '3.2ms',
      '410ms',
      '1.25s',
      '2m5s',
    ]);
  });

  it('names controller-runtime queues controller/name when the two differ', () => {
    const base = queueRowLike({ name: 'webapp', controller: 'webapp' });
    expect(queueCells(base)[0]).toBe('webapp');
    expect(queueCells({ ...base, name: 'webapp-status' })[0]).toBe('webapp/webapp-status');
  });
});

function queueRowLike(over: Partial<QueueRow>): QueueRow {
  const q = { p50: null, p99: null, observations: null, basis: null };
  return {
    name: 'q',
    controller: null,
    depth: null,
    addsPerSecond: null,
    retriesPerSecond: null,
    addsTotal: null,
    retriesTotal: null,
    queueTime: q,
    workTime: q,
    unfinishedWorkSeconds: null,
    longestRunningProcessorSeconds: null,
    ...over,
  };
}
