import { describe, expect, it } from 'vitest';
import { pollTwice } from '../../tools/testing/fake-metrics-source.js';
import { buildTopView, type TopView } from '../view/top-view.js';
import { TopHistory } from './top-history.js';

const T0 = Date.UTC(2026, 0, 1);

/** A client-go exposition with one queue, `deployment`, empty; `retries` is the total so far. */
function expo(retries = 0): string {
  const labels = 'name="deployment"';
  return `${[
    '# TYPE workqueue_depth gauge',
    `workqueue_depth{${labels}} 0`,
    '# TYPE workqueue_adds_total counter',
    `workqueue_adds_total{${labels}} 0`,
    '# TYPE workqueue_retries_total counter',
    `workqueue_retries_total{${labels}} ${retries}`,
    '# TYPE workqueue_longest_running_processor_seconds gauge',
    `workqueue_longest_running_processor_seconds{${labels}} 0`,
    '# TYPE workqueue_queue_duration_seconds histogram',
    `workqueue_queue_duration_seconds_bucket{${labels},le="0.1"} 0`,
    `workqueue_queue_duration_seconds_bucket{${labels},le="+Inf"} 0`,
    `workqueue_queue_duration_seconds_sum{${labels}} 0`,
    `workqueue_queue_duration_seconds_count{${labels}} 0`,
  ].join('\n')}\n`;
}

/** The view of one source `a` (component `c`, no Lease) whose second scrape counted `retries` more. */
async function viewWith(retries: number): Promise<TopView> {
  const { second } = await pollTwice({ a: [expo(), expo(retries)] }, 2_000);
  const target = { source: 'a', component: 'c', namespace: null, pod: null, host: null, lease: null, foundBy: ['--metrics'] };
  return buildTopView({ now: T0, leases: [], metrics: second, targets: [target] });
}

describe('TopHistory', () => {
  it('keeps one point per scrape of the shown replica, per component and queue, aligned, and bounded', async () => {
    const h = new TopHistory(3);
    const at = (v: TopView, ms: number): TopView => ({ ...v, components: v.components.map((c) => ({ ...c, sampledAt: new Date(ms).toISOString() })) });
    const v1 = await viewWith(2);
    h.record(at(v1, 1));
    h.record(at(v1, 1)); // the same scrape again (another source's snapshot): no point
    h.record(at(await viewWith(4), 2));
    h.record(at(await viewWith(0), 3));
    h.record(at(await viewWith(6), 4));
    expect(h.series('source:c', '', 'retries')).toEqual([2, 0, 3]);
    expect(h.series('source:c', 'deployment', 'depth')).toEqual([0, 0, 0]);
    expect(h.series('source:c', 'missing', 'depth')).toEqual([]);
    // A component with no scrape yet gets no point.
    h.record({ ...v1, components: v1.components.map((c) => ({ ...c, sampledAt: null, key: 'other' })) });
    expect(h.series('other', '', 'depth')).toEqual([]);
  });
});
