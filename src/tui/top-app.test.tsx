import { afterEach, describe, expect, it } from 'vitest';
import type { NotificationInfo } from '../informer/index.js';
import type { Lease } from '../kube/types.js';
import { formatMicroTime } from '../lease/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { pollTwice } from '../../tools/testing/fake-metrics-source.js';
import { controlsIn, HOSTILE, SHOWN } from '../../tools/testing/hostile.js';
import { renderInk, TEST_WIDTH, type InkHarness } from '../../tools/testing/ink.js';
import type { LeaseChange } from '../view/lease-view.js';
import { LeaseWatchModel, TopHistory } from '../live/index.js';
import { buildTopView, type TopView } from '../view/top-view.js';
import { TopApp, type TopSource } from './top-app.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const A = 'kcm-host_1b4e28ba-2fa1-11d2-883f-0016d3cca427';

function kcmLease(holder: string, renewAt: number): Lease {
  return {
    metadata: { namespace: 'kube-system', name: 'kube-controller-manager', resourceVersion: String(renewAt + 1) },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, acquireTime: formatMicroTime(T0), renewTime: formatMicroTime(T0 + renewAt), leaseTransitions: 2 },
  };
}
function info(clock: FakeClock): NotificationInfo {
  return { receivedAt: clock.now(), distributedAt: clock.now(), deltaType: undefined, eventType: undefined, isSync: false };
}
function expo(queues: Record<string, { depth: number; retries: number; adds: number }>, leader: boolean): string {
  const lines = ['# TYPE workqueue_depth gauge', ...Object.entries(queues).map(([n, q]) => `workqueue_depth{name="${n}"} ${q.depth}`)];
  lines.push('# TYPE workqueue_retries_total counter', ...Object.entries(queues).map(([n, q]) => `workqueue_retries_total{name="${n}"} ${q.retries}`));
  lines.push('# TYPE workqueue_adds_total counter', ...Object.entries(queues).map(([n, q]) => `workqueue_adds_total{name="${n}"} ${q.adds}`));
  lines.push('# TYPE leader_election_master_status gauge', `leader_election_master_status{name="kube-controller-manager"} ${leader ? 1 : 0}`);
  return `${lines.join('\n')}\n`;
}

class Stub implements TopSource {
  private listeners = new Set<() => void>();
  constructor(public current: TopView) {}
  view(): TopView {
    return this.current;
  }
  onUpdate(l: () => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  leaseChanges(): readonly LeaseChange[] {
    return [];
  }
  set(v: TopView): void {
    this.current = v;
    for (const l of this.listeners) l();
  }
}

async function views(holder = A): Promise<{ ok: TopView; expired: TopView }> {
  const clock = new FakeClock(T0);
  const model = new LeaseWatchModel({ clock });
  model.handler.onAdd!(kcmLease(holder, 0), true, info(clock));
  model.markSynced();
  const history = new TopHistory();
  const { first, second } = await pollTwice(
    {
      'https://127.0.0.1:40001/metrics': [
        expo(
          { deployment: { depth: 0, retries: 0, adds: 0 }, replicaset: { depth: 1, retries: 0, adds: 3 }, cronjob: { depth: 0, retries: 0, adds: 0 } },
          true,
        ),
        expo(
          { deployment: { depth: 4, retries: 6, adds: 10 }, replicaset: { depth: 0, retries: 0, adds: 5 }, cronjob: { depth: 0, retries: 0, adds: 0 } },
          true,
        ),
      ],
    },
    2_000,
  );
  const targets = [
    {
      source: 'https://127.0.0.1:40001/metrics',
      component: 'kube-controller-manager',
      namespace: 'kube-system',
      pod: null,
      host: null,
      lease: null,
      foundBy: ['EndpointSlice kube-system/kube-controller-manager-1'],
    },
  ];
  const input = (metrics: typeof first, now: number) => ({ now, leases: model.view(now).leases, metrics, targets, history });
  history.record(buildTopView(input(first, T0)));
  history.record(buildTopView(input(second, T0)));
  const ok = buildTopView(input(second, T0 + 2_000));
  await clock.step(17_000);
  const expired = buildTopView(input(second, clock.now()));
  model.close();
  return { ok, expired };
}

let harness: InkHarness | undefined;
afterEach(() => {
  harness?.unmount();
  harness = undefined;
});

describe('top TUI', () => {
  it('a row per component with its busy queues under it, sized to the terminal; Enter opens the Lease and replicas', async () => {
    const { ok } = await views();
    const stub = new Stub(ok);
    harness = renderInk(<TopApp source={stub} width={TEST_WIDTH} height={16} maxFps={100} />);
    let frame = await harness.waitFor('kube-controller-manager');
    expect(frame).toMatch(/^top · 12:00:02 UTC · 1 component, 1 not ok · every 2\.00s/);
    expect(frame).toMatch(/COMPONENT\s+STATE\s+HOLDER/);
    expect(frame).toMatch(/kube-controller-manager\s+retrying\s+kcm-host_/);
    expect(frame).toMatch(/deployment\s+retrying\s+4\s+5\.00\s+3\.00/);
    expect(frame).toMatch(/replicaset\s+ok\s+0\s+1\.00\s+0/);
    expect(frame).not.toContain('cronjob'); // idle: hidden until `a`
    const rows = frame.split('\n');
    expect(rows).toHaveLength(16);
    for (const r of rows) expect(r.length).toBeLessThanOrEqual(TEST_WIDTH);
    harness.stdin.write('a');
    frame = await harness.waitFor('cronjob');
    harness.stdin.write('\r');
    frame = await harness.waitFor('─ Detail');
    expect(frame).toContain('kube-controller-manager: retrying');
    expect(frame).toContain('queue deployment: 3.00 retries/s');
    expect(frame).toContain(`Lease kube-system/kube-controller-manager: ${A} · valid`);
    expect(frame).toContain('https://127.0.0.1:40001/metrics: leader (leader_election_master_status 1), ok');
    harness.stdin.write('\u001b');
    await harness.waitFor('─ Controllers · 1');
  });

  it('Enter on a queue shows its series; a Lease that expires turns the row to "no leader"', async () => {
    const { ok, expired } = await views();
    const stub = new Stub(ok);
    harness = renderInk(<TopApp source={stub} width={TEST_WIDTH} height={20} maxFps={100} />);
    await harness.waitFor('deployment');
    harness.stdin.write('j');
    harness.stdin.write('\r');
    let frame = await harness.waitFor('queue deployment of kube-controller-manager: retrying');
    expect(frame).toMatch(/depth\s+4\s+▁█/);
    harness.stdin.write('\u001b');
    await harness.waitFor('─ Controllers');
    stub.set(expired);
    frame = await harness.waitFor('no leader');
    expect(frame).toMatch(/kube-controller-manager\s+no leader/);
  });

  it('/ filters the lines, q quits', async () => {
    const { ok } = await views();
    const exits: string[] = [];
    harness = renderInk(<TopApp source={new Stub(ok)} width={TEST_WIDTH} height={16} maxFps={100} onExit={(r) => exits.push(r)} />);
    await harness.waitFor('replicaset');
    harness.stdin.write('/');
    harness.stdin.write('replica');
    harness.stdin.write('\r');
    const frame = await harness.waitFor((f) => f.includes('filter: replica') && !f.includes('deployment'));
    expect(frame).toContain('replicaset');
    harness.stdin.write('q');
    await new Promise((r) => setTimeout(r, 20));
    expect(exits).toEqual(['quit']);
  });
});

describe('top TUI with a hostile holder identity', () => {
  it('shows it escaped in the component row and in full in the detail, each row within the width', async () => {
    const { ok } = await views(`kcm${HOSTILE}`);
    // The detail's lines are cut to the width, not wrapped: wide enough to hold the holder whole.
    const width = 240;
    harness = renderInk(<TopApp source={new Stub(ok)} width={width} height={40} maxFps={100} />);
    let frame = await harness.waitFor('kube-controller-manager');
    expect(controlsIn(frame, { sgr: true })).toEqual([]);
    for (const r of frame.split('\n')) expect(r.length).toBeLessThanOrEqual(width);
    expect(frame).toMatch(/kube-controller-manager\s+retrying\s+kcm\\x1b\[2J/);
    harness.stdin.write('\r');
    frame = await harness.waitFor('─ Detail');
    expect(controlsIn(frame, { sgr: true })).toEqual([]);
    const flat = frame.replace(/\s+/g, ' ');
    for (const s of SHOWN) expect(flat).toContain(s);
  });
});
