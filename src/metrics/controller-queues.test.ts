import { describe, expect, it } from 'vitest';
import { metricsFixture } from '../../tools/testing/fake-metrics-source.js';
import { controllerQueueFor, queueAddsBetween } from './controller-queues.js';
import { parseExposition } from './parse.js';
import type { TimedScrape } from './queue-stats.js';

const scrape = (text: string, atMs: number): TimedScrape => ({ atMs, families: parseExposition(text).families });
const kcm1 = scrape(metricsFixture('kube-controller-manager.prom'), 1_000);
const kcm2 = scrape(metricsFixture('kube-controller-manager.2.prom'), 11_327);

describe('controllerQueueFor', () => {
  it("names kube-controller-manager's queue for the workload kinds", () => {
    expect(controllerQueueFor({ group: 'apps', kind: 'Deployment' })).toBe('deployment');
    expect(controllerQueueFor({ group: 'apps', kind: 'StatefulSet' })).toBe('statefulset');
    expect(controllerQueueFor({ group: 'apps', kind: 'DaemonSet' })).toBe('daemonset');
    expect(controllerQueueFor({ group: 'batch', kind: 'Job' })).toBe('job');
    expect(controllerQueueFor({ group: 'batch', kind: 'CronJob' })).toBe('cronjob');
    expect(controllerQueueFor({ group: '', kind: 'ReplicationController' })).toBe('replicationmanager');
  });

  it('has none for kinds it does not reconcile (CRDs), nor for inherited object keys', () => {
    expect(controllerQueueFor({ group: 'example.com', kind: 'Guestbook' })).toBeUndefined();
    expect(controllerQueueFor({ group: '', kind: 'toString' })).toBeUndefined();
    expect(controllerQueueFor({ group: 'apps', kind: 'deployment' })).toBeUndefined();
  });

  it('knows a kind by its group: a custom resource named Job or Deployment has none', () => {
    expect(controllerQueueFor({ group: 'example.com', kind: 'Job' })).toBeUndefined();
    expect(controllerQueueFor({ group: 'example.com', kind: 'Deployment' })).toBeUndefined();
    expect(controllerQueueFor({ group: '', kind: 'Deployment' })).toBeUndefined();
  });
});

describe('queueAddsBetween, on two real kube-controller-manager scrapes', () => {
  it('is the increase of workqueue_adds_total for the queue (deployment 1 → 12, replicaset 3 → 14)', () => {
    expect(queueAddsBetween(new Map([['kcm', kcm1]]), new Map([['kcm', kcm2]]), 'deployment')).toEqual({ queue: 'deployment', adds: 11, sources: ['kcm'] });
    expect(queueAddsBetween(new Map([['kcm', kcm1]]), new Map([['kcm', kcm2]]), 'replicaset').adds).toBe(11);
  });

  it('sums over sources: the standby exports the queue at 0 and adds nothing, and is not named', () => {
    const standby = scrape('# TYPE workqueue_adds_total counter\nworkqueue_adds_total{name="deployment"} 0\n', 1_000);
    const r = queueAddsBetween(
      new Map([
        ['a', kcm1],
        ['b', standby],
      ]),
      new Map([
        ['a', kcm2],
        ['b', { ...standby, atMs: 11_327 }],
      ]),
      'deployment',
    );
    expect(r).toEqual({ queue: 'deployment', adds: 11, sources: ['a'] });
  });

  it('is 0 for an exported queue that took nothing, and null (absent, not 0) for a queue no source exports', () => {
    expect(queueAddsBetween(new Map([['kcm', kcm1]]), new Map([['kcm', kcm2]]), 'cronjob')).toEqual({ queue: 'cronjob', adds: 0, sources: [] });
    expect(queueAddsBetween(new Map([['kcm', kcm1]]), new Map([['kcm', kcm2]]), 'no-such-queue').adds).toBeNull();
  });

  it('leaves out a source missing from either scrape, and treats a counter that went down as a restart', () => {
    expect(queueAddsBetween(new Map(), new Map([['kcm', kcm2]]), 'deployment').adds).toBeNull();
    // Restarted between the scrapes: 12 then 5 means 5 adds since the restart, as increase() says.
    const restarted = scrape('# TYPE workqueue_adds_total counter\nworkqueue_adds_total{name="deployment"} 5\n', 20_000);
    expect(queueAddsBetween(new Map([['kcm', kcm2]]), new Map([['kcm', restarted]]), 'deployment').adds).toBe(5);
  });

  it("ignores controller-runtime queues of the same name: they are an operator's, not kube-controller-manager's", () => {
    const cr = (n: number, at: number): TimedScrape =>
      scrape(`# TYPE workqueue_adds_total counter\nworkqueue_adds_total{controller="deployment",name="deployment"} ${n}\n`, at);
    expect(queueAddsBetween(new Map([['op', cr(1, 0)]]), new Map([['op', cr(9, 1)]]), 'deployment').adds).toBeNull();
  });
});
