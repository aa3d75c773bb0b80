import { describe, expect, it } from 'vitest';
import type { NotificationInfo } from '../informer/index.js';
import type { Lease } from '../kube/types.js';
import { formatMicroTime } from '../lease/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { pollTwice, type Answer } from '../../tools/testing/fake-metrics-source.js';
import { LeaseWatchModel } from '../live/index.js';
import { buildTopView, type TopView } from '../view/top-view.js';
import { evaluateController, type ControllerCheckSpec } from './controller.js';
import { describeSpec } from './describe.js';
import { specsFromFlags } from './flags.js';

const T0 = Date.UTC(2026, 0, 1);
const info = (clock: FakeClock): NotificationInfo => ({
  receivedAt: clock.now(),
  distributedAt: clock.now(),
  deltaType: undefined,
  eventType: undefined,
  isSync: false,
});
const lease: Lease = {
  metadata: { namespace: 'kube-system', name: 'kube-controller-manager', resourceVersion: '1' },
  spec: { holderIdentity: 'vm_1', leaseDurationSeconds: 15, renewTime: formatMicroTime(T0), leaseTransitions: 1 },
};
const expo = (depth: number, retries: number) =>
  `# TYPE workqueue_depth gauge\nworkqueue_depth{name="deployment"} ${depth}\n# TYPE workqueue_retries_total counter\nworkqueue_retries_total{name="deployment"} ${retries}\n# TYPE leader_election_master_status gauge\nleader_election_master_status{name="kube-controller-manager"} 1\n`;

async function window(answers: Answer[], stepMs = 0): Promise<{ first: TopView; last: TopView }> {
  const clock = new FakeClock(T0);
  const model = new LeaseWatchModel({ clock });
  model.handler.onAdd!(lease, true, info(clock));
  model.markSynced();
  const { first, second } = await pollTwice({ kcm: answers }, 10_000);
  await clock.step(stepMs);
  const targets = [{ source: 'kcm', component: 'kube-controller-manager', namespace: 'kube-system', pod: null, host: null, lease: null, foundBy: [] }];
  const view = (m: typeof first) => buildTopView({ now: clock.now(), leases: model.view().leases, metrics: m, targets });
  const out = { first: view(first), last: view(second) };
  model.close();
  return out;
}

const spec = (over: Partial<ControllerCheckSpec> = {}): ControllerCheckSpec => ({
  kind: 'controller',
  name: 'controller kube-controller-manager',
  controller: 'kube-controller-manager',
  metrics: [],
  access: { insecureSkipTlsVerify: false, kubeconfigCredentials: false, token: undefined, timeoutMs: 5_000 },
  maxDepth: [{ queue: '*', limit: 5, text: '5' }],
  maxRetryRate: [{ queue: '*', limit: 1, text: '1/s' }],
  windowMs: 10_000,
  origin: { source: 'flags' },
  ...over,
});

describe('evaluateController', () => {
  it('a leader throughout, depth within its limit, retries faster than 1/s: the retry rate fails', async () => {
    const w = await window([expo(7, 0), expo(3, 20)]);
    const r = evaluateController(spec(), { ...w, leaderlessMs: 0, windowMs: 10_000 });
    expect(r.map((x) => [x.name, x.status, x.measured])).toEqual([
      ['time without a leader', 'passed', 0],
      ['depth', 'failed', 7],
      ['retry rate', 'failed', 2],
    ]);
    expect(r[0]!.message).toBe('held throughout 10.0s: 0ms without a valid holder; now vm_1 (valid), 1 transitions');
    expect(r[1]!.message).toBe('highest depth 7 (queue deployment) of kube-controller-manager, over the limit of 5');
    expect(r[2]!.message).toBe('fastest: queue deployment of kube-controller-manager, 2/s over 10.0s, over the limit of 1/s');
  });

  it('time without a leader fails the leader limit; an unknown controller fails every limit with the names found', async () => {
    const w = await window([expo(0, 0), expo(0, 0)], 20_000);
    const r = evaluateController(spec(), { ...w, leaderlessMs: 5_000, windowMs: 30_000 });
    expect(r[0]).toMatchObject({ status: 'failed', measured: 5_000 });
    const unknown = evaluateController(spec({ controller: 'kube-controller-manger' }), { ...w, leaderlessMs: 0, windowMs: 30_000 });
    expect(unknown.every((x) => x.status === 'failed')).toBe(true);
    expect(unknown[0]!.message).toBe('no controller named "kube-controller-manger" (did you mean "kube-controller-manager"?); found: kube-controller-manager');
  });

  it('a leader whose metrics cannot be read: the queue limits are errors (exit 3) with the reason', async () => {
    const w = await window([expo(0, 0), { fail: 'forbidden', reason: '403 Forbidden: no' }]);
    const r = evaluateController(spec(), { ...w, leaderlessMs: 0, windowMs: 10_000 });
    expect(r.slice(1).map((x) => [x.status, x.exitCode, x.message])).toEqual([
      ['error', 3, 'kcm: 403 Forbidden: no'],
      ['error', 3, 'kcm: 403 Forbidden: no'],
    ]);
  });
});

describe('check flags: --controller', () => {
  const access = { insecureSkipTlsVerify: false, kubeconfigCredentials: false, token: undefined, timeoutMs: 5_000 };
  it('one controller check per --controller, with the queue limits and the window; --metrics adds sources to it, no queue check', () => {
    const specs = specsFromFlags(
      {
        controller: ['kube-controller-manager', 'shop/op-lock'],
        maxRetryRate: ['1/s'],
        metrics: ['kube-controller-manager=https://10.0.0.1:10257/metrics'],
        window: '30s',
      },
      undefined,
      access,
    );
    expect(specs.map((s) => [s.kind, s.name])).toEqual([
      ['controller', 'controller kube-controller-manager'],
      ['controller', 'controller shop/op-lock'],
    ]);
    expect(specs[0]).toMatchObject({
      controller: 'kube-controller-manager',
      windowMs: 30_000,
      maxDepth: [],
      maxRetryRate: [{ queue: '*', limit: 1 }],
      metrics: ['kube-controller-manager=https://10.0.0.1:10257/metrics'],
    });
    expect(describeSpec(specs[0]!)).toBe('watch kube-controller-manager for 30.0s; a leader throughout, retry rate ≤ 1/s');
  });

  it('bad names and queue limits without a subject are usage errors that name --controller', () => {
    expect(() => specsFromFlags({ controller: ['Kube Controller'] }, undefined, access)).toThrow(
      '--controller "Kube Controller" is not a component or Lease name',
    );
    let err: unknown;
    try {
      specsFromFlags({ maxDepth: ['5'] }, undefined, access);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ message: '--max-depth applies to a queue check: give --metrics SOURCE', hint: 'or to a controller check: --controller NAME' });
  });
});
