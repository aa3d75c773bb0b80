import { describe, expect, it } from 'vitest';
import type { NotificationInfo } from '../informer/index.js';
import type { Lease, LeaseSpec } from '../kube/types.js';
import { formatMicroTime } from '../lease/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { controlsIn, HOSTILE, SHOWN } from '../../tools/testing/hostile.js';
import { LeaseWatchModel } from '../live/index.js';
import { renderChangeLine, renderLeaseTables } from './lease-table.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
let rv = 0;
const lease = (namespace: string, name: string, spec: LeaseSpec): Lease => ({ metadata: { namespace, name, resourceVersion: String(++rv) }, spec });
const kcm = (holder: string, renewAt: number, transitions: number): Lease =>
  lease('kube-system', 'kube-controller-manager', {
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: formatMicroTime(T0 - 60_000),
    renewTime: formatMicroTime(T0 + renewAt),
    leaseTransitions: transitions,
  });
const info = (clock: FakeClock): NotificationInfo => ({
  receivedAt: clock.now(),
  distributedAt: clock.now(),
  deltaType: undefined,
  eventType: undefined,
  isSync: false,
});

async function failover(): Promise<LeaseWatchModel> {
  const clock = new FakeClock(T0);
  const model = new LeaseWatchModel({ clock, scope: { namespace: 'kube-system', name: null, selector: null } });
  model.handler.onAdd!(kcm('a', 0, 1), true, info(clock));
  model.handler.onAdd!(
    lease('kube-system', 'kube-scheduler', { holderIdentity: 's', leaseDurationSeconds: 15, strategy: 'OldestEmulationVersion', preferredHolder: 's2' }),
    true,
    info(clock),
  );
  model.handler.onAdd!(
    lease('kube-node-lease', 'kwok-node-0', { holderIdentity: 'kwok-node-0', leaseDurationSeconds: 40, renewTime: formatMicroTime(T0) }),
    true,
    info(clock),
  );
  model.markSynced();
  await clock.step(16_000);
  model.handler.onUpdate!(kcm('a', 0, 1), kcm('b', 16_000, 2), info(clock));
  await clock.step(8_000);
  return model;
}

describe('lease tables', () => {
  it('renders the leases, the holder changes with their gaps, and the heartbeat summary', async () => {
    const model = await failover();
    const text = renderLeaseTables(model.view(), { color: false });
    expect(text).toMatchInlineSnapshot(`
      "LEASE                                 HOLDER   STATE      RENEWED    ACQUIRED    TRANSITIONS   HELD   STRATEGY
      kube-system/kube-controller-manager   b        expiring   8.0s/15s   1m24s ago   2             8.0s   -
      kube-system/kube-scheduler            s        expired    24s/15s    -           0             ≥15s   OldestEmulationVersion, preferred s2

      LEASE                                 HOLDER   FROM       TO         HELD   ENDED     FAILOVER GAP   SINCE LAST RENEW
      kube-system/kube-controller-manager   a        12:00:00   12:00:15   ≥15s   expired   -              -
      kube-system/kube-controller-manager   b        12:00:16   -          8.0s   holding   1.0s           16s

      node leases: 1, none stale
      "
    `);
    expect(text).not.toContain('\u001b[');
    model.close();
  });

  it('colours states only when asked: amber expiring, red expired', async () => {
    const model = await failover();
    const text = renderLeaseTables(model.view(), { color: true });
    expect(text).toContain('\u001b[33mexpiring\u001b[0m');
    expect(text).toContain('\u001b[31mexpired\u001b[0m');
    model.close();
  });

  it('one line per change', async () => {
    const model = await failover();
    const lines = model.changeLog().map((c) => renderChangeLine(c, { color: false }));
    expect(lines).toEqual([
      '12:00:15  kube-system/kube-controller-manager: a expired (no renew since 12:00:00)\n',
      '12:00:15  kube-system/kube-scheduler: s expired (no renew since 12:00:00)\n',
      '12:00:16  kube-system/kube-controller-manager: b acquired after a gap 1.0s (16s since its last renew) transitions 2\n',
    ]);
    model.close();
  });
});

describe('lease text with hostile holders and names', () => {
  it('shows holder identities, Lease names and scrape errors escaped, in colour or not, and changes as one line', async () => {
    const clock = new FakeClock(T0);
    const model = new LeaseWatchModel({ clock, scope: { namespace: 'kube-system', name: null, selector: null } });
    const spec = (holder: string, renewAt: number, transitions: number): LeaseSpec => ({
      holderIdentity: holder,
      leaseDurationSeconds: 15,
      acquireTime: formatMicroTime(T0),
      renewTime: formatMicroTime(T0 + renewAt),
      leaseTransitions: transitions,
    });
    const name = `evil${HOSTILE}`;
    model.handler.onAdd!(lease('kube-system', name, spec(HOSTILE, 0, 1)), true, info(clock));
    model.handler.onAdd!(
      lease('kube-node-lease', `node${HOSTILE}`, { holderIdentity: HOSTILE, leaseDurationSeconds: 40, renewTime: formatMicroTime(T0) }),
      true,
      info(clock),
    );
    model.markSynced();
    model.setMetrics([{ source: `pod/kube-system/x${HOSTILE}`, ok: false, stale: false, error: HOSTILE, leaderElection: null }]);
    await clock.step(16_000);
    model.handler.onUpdate!(lease('kube-system', name, spec(HOSTILE, 0, 1)), lease('kube-system', name, spec(`b${HOSTILE}`, 16_000, 2)), info(clock));
    await clock.step(1_000);
    for (const color of [false, true]) {
      const text = renderLeaseTables(model.view(), { color });
      expect(controlsIn(text, { sgr: color })).toEqual([]);
      for (const s of SHOWN) expect(text).toContain(s);
      expect(text).toContain(`metrics pod/kube-system/x${SHOWN[0]}`);
      const lines = model.changeLog().map((c) => renderChangeLine(c, { color }));
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines) {
        expect(controlsIn(l, { sgr: color })).toEqual([]);
        expect(l.split('\n')).toHaveLength(2);
      }
      expect(lines.join('')).toContain(`b${SHOWN[0]}`);
    }
    model.close();
  });
});
