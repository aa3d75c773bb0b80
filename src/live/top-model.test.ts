import { describe, expect, it } from 'vitest';
import type { NotificationInfo } from '../informer/index.js';
import type { Lease } from '../kube/types.js';
import { formatMicroTime } from '../lease/index.js';
import { MetricsPoller, MultiScraper } from '../metrics/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { FakeMetricsSource } from '../../tools/testing/fake-metrics-source.js';
import type { LeaseChange } from '../view/lease-view.js';
import { LeaseWatchModel } from './lease-watch-model.js';
import { TopModel } from './top-model.js';

const T0 = Date.UTC(2026, 0, 1);
const info = (clock: FakeClock): NotificationInfo => ({
  receivedAt: clock.now(),
  distributedAt: clock.now(),
  deltaType: undefined,
  eventType: undefined,
  isSync: false,
});
const kcm = (holder: string, renewAt: number, transitions: number): Lease => ({
  metadata: { namespace: 'kube-system', name: 'kube-controller-manager', resourceVersion: String(renewAt) },
  spec: { holderIdentity: holder, leaseDurationSeconds: 15, renewTime: formatMicroTime(T0 + renewAt), leaseTransitions: transitions },
});
const expo = (depth: number, retries: number) =>
  `# TYPE workqueue_depth gauge\nworkqueue_depth{name="deployment"} ${depth}\n# TYPE workqueue_retries_total counter\nworkqueue_retries_total{name="deployment"} ${retries}\n`;

describe('TopModel', () => {
  it('joins the live Lease model and the poller; series grow per scrape; holder changes are passed on', async () => {
    const clock = new FakeClock(T0);
    const leases = new LeaseWatchModel({ clock });
    leases.handler.onAdd!(kcm('a_1', 0, 0), true, info(clock));
    leases.markSynced();
    const poller = new MetricsPoller(new MultiScraper([new FakeMetricsSource('kcm', [expo(1, 0), expo(3, 4), expo(2, 4)])], clock), {
      clock,
      intervalMs: 2_000,
    });
    const model = new TopModel({
      leases,
      metrics: poller,
      targets: [{ source: 'kcm', component: 'kube-controller-manager', namespace: 'kube-system', pod: null, host: null, lease: null, foundBy: [] }],
      now: () => clock.now(),
    });
    let updates = 0;
    const changes: LeaseChange[] = [];
    model.onUpdate(() => updates++);
    model.onLeaseChange((c) => changes.push(c));

    expect(model.view().components[0]).toMatchObject({ key: 'kube-system/kube-controller-manager', note: 'waiting for the first scrape', depthSeries: [] });
    for (let i = 0; i < 3; i++) {
      await poller.pollOnce();
      await clock.step(2_000);
    }
    const c = model.view().components[0]!;
    expect(c.depthSeries).toEqual([1, 3, 2]);
    expect(c.retrySeries).toEqual([null, 2, 0]);
    expect(c.queues[0]!.depthSeries).toEqual([1, 3, 2]);
    expect(updates).toBeGreaterThanOrEqual(3);

    leases.handler.onUpdate!(kcm('a_1', 0, 0), kcm('b_2', 6_000, 1), info(clock));
    expect(changes.map((x) => [x.type, x.holder, x.previousHolder])).toEqual([['acquired', 'b_2', 'a_1']]);
    expect(model.view().components[0]!.lease!.lastFailover).toMatchObject({ from: 'a_1', to: 'b_2' });
    expect(model.leaseChanges()).toHaveLength(1);

    model.close();
    const before = updates;
    await poller.pollOnce();
    expect(updates).toBe(before);
    leases.close();
  });
});
