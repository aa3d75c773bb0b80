import { describe, expect, it } from 'vitest';
import type { HolderTenure } from '../lease/index.js';
import { describeChange, leaseRole, masterCell, renewCell, severityOf, strategyCell, tenureRows, type LeaseChange } from './lease-view.js';

function tenure(p: Partial<HolderTenure> & Pick<HolderTenure, 'holder' | 'firstSeenAt' | 'lastRenewSeenAt'>): HolderTenure {
  return {
    acquireTime: null,
    transitions: 0,
    firstRenewTime: null,
    lastRenewTime: null,
    firstRenewSeenAt: p.firstSeenAt,
    renewsSeen: 0,
    heldForMs: 0,
    previousHolder: null,
    previousEndReason: null,
    failoverGapMs: null,
    endedAt: null,
    endReason: null,
    skew: null,
    ...p,
  };
}

const change = (p: Partial<LeaseChange>): LeaseChange => ({
  seq: 1,
  type: 'acquired',
  role: 'leader',
  namespace: 'kube-system',
  name: 'kube-controller-manager',
  at: '2026-01-01T00:00:19.000Z',
  holder: 'b',
  previousHolder: null,
  failoverGapMs: null,
  previousEndReason: null,
  sinceLastRenewMs: null,
  transitions: null,
  acquireTime: null,
  heldForMs: null,
  lastRenewAt: null,
  strategy: null,
  candidates: null,
  ...p,
});

describe('lease view helpers', () => {
  it('roles: kube-node-lease is a node heartbeat, the identity label an apiserver, the rest leader election', () => {
    expect(leaseRole('kube-node-lease', undefined)).toBe('node');
    expect(leaseRole('kube-system', { 'apiserver.kubernetes.io/identity': 'kube-apiserver' })).toBe('apiserver');
    expect(leaseRole('kube-system', { app: 'x' })).toBe('leader');
  });

  it('severity: amber while expiring, red when expired', () => {
    expect([severityOf('valid'), severityOf('expiring'), severityOf('expired'), severityOf('released')]).toEqual(['ok', 'warn', 'bad', 'idle']);
  });

  it('tenure rows measure the time from the predecessor’s last renew only when it is the predecessor', () => {
    const rows = tenureRows(
      [
        tenure({ holder: 'a', firstSeenAt: 0, lastRenewSeenAt: 2_000, endedAt: 17_000, endReason: 'expired' }),
        tenure({ holder: 'b', firstSeenAt: 18_500, lastRenewSeenAt: 18_500, previousHolder: 'a', failoverGapMs: 1_500 }),
      ],
      true,
    );
    expect(rows[0]).toMatchObject({ holder: 'a', heldAtStart: true, sinceLastRenewMs: null, endedAt: '1970-01-01T00:00:17.000Z' });
    expect(rows[1]).toMatchObject({ holder: 'b', heldAtStart: false, failoverGapMs: 1_500, sinceLastRenewMs: 16_500 });
    // History truncated: the first kept row's predecessor is unknown.
    const cut = tenureRows([tenure({ holder: 'c', firstSeenAt: 0, lastRenewSeenAt: 0, previousHolder: 'b', failoverGapMs: 10 })], false);
    expect(cut[0]!.sinceLastRenewMs).toBeNull();
  });

  it('formats the renew, strategy and master cells', () => {
    expect(renewCell({ renewAgeMs: 1_234, leaseDurationSeconds: 15 })).toBe('1.2s/15s');
    expect(strategyCell({ strategy: null, preferredHolder: null })).toBe('-');
    expect(strategyCell({ strategy: 'OldestEmulationVersion', preferredHolder: 'x' })).toBe('OldestEmulationVersion, preferred x');
    expect(masterCell(null)).toBe('');
    expect(masterCell([])).toBe('not reported');
    expect(
      masterCell([
        { source: 'a', isLeader: true, value: 1, stale: false, error: null },
        { source: 'b', isLeader: null, value: null, stale: true, error: 'x' },
      ]),
    ).toBe('a=1 b=? (stale)');
  });

  it('describes changes in one line', () => {
    expect(describeChange(change({ previousHolder: 'a', failoverGapMs: 1_500, sinceLastRenewMs: 16_500, transitions: 3 }))).toBe(
      'kube-system/kube-controller-manager: b acquired after a gap 1.5s (16s since its last renew) transitions 3',
    );
    expect(describeChange(change({ type: 'expired', holder: 'a', lastRenewAt: '2026-01-01T00:00:02.000Z' }))).toBe(
      'kube-system/kube-controller-manager: a expired (no renew since 00:00:02)',
    );
    expect(
      describeChange(
        change({ type: 'expired', role: 'node', namespace: 'kube-node-lease', name: 'n1', holder: 'n1', lastRenewAt: '2026-01-01T00:00:02.000Z' }),
      ),
    ).toBe('kube-node-lease/n1: stale (no renew since 00:00:02)');
    expect(
      describeChange(change({ role: 'node', namespace: 'kube-node-lease', name: 'n1', holder: 'kwok-2', previousHolder: 'kwok-1', failoverGapMs: 12_000 })),
    ).toBe('kube-node-lease/n1: renewing again, now held by kwok-2, after 12s stale');
    expect(describeChange(change({ role: 'node', namespace: 'kube-node-lease', name: 'n1', holder: 'n1' }))).toBe('kube-node-lease/n1: new, held by n1');
    expect(describeChange(change({ type: 'released', holder: 'a', heldForMs: 65_000 }))).toBe('kube-system/kube-controller-manager: a released after 1m5s');
    expect(describeChange(change({ type: 'deleted', holder: null }))).toBe('kube-system/kube-controller-manager: deleted');
    expect(describeChange(change({ type: 'resumed', holder: 'a', failoverGapMs: 3_000 }))).toBe(
      'kube-system/kube-controller-manager: a renewing again after 3.0s expired',
    );
  });
});
