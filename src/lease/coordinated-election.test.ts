import { describe, expect, it } from 'vitest';
import {
  bestCandidate,
  candidateRecord,
  candidateState,
  compareVersions,
  judgeElection,
  rankCandidates,
  type CandidateRecord,
  type ElectionLease,
} from './coordinated-election.js';
import { formatMicroTime } from './micro-time.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const at = (ms: number): string => formatMicroTime(T0 + ms);

function cand(name: string, p: Partial<CandidateRecord> = {}): CandidateRecord {
  return {
    namespace: 'kube-system',
    name,
    leaseName: 'kube-controller-manager',
    binaryVersion: '1.37.2',
    emulationVersion: '1.37.0',
    strategy: 'OldestEmulationVersion',
    pingTime: null,
    renewTime: at(-1_000),
    creationTimestamp: new Date(T0 - 60_000).toISOString(),
    ...p,
  };
}

const held = (holder: string | null, p: Partial<ElectionLease> = {}): ElectionLease => ({
  holder,
  state: holder ? 'valid' : 'released',
  expiresInMs: 12_000,
  strategy: 'OldestEmulationVersion',
  preferredHolder: null,
  renewedSincePreferred: null,
  ...p,
});

describe('LeaseCandidate records and states (the election controller rules)', () => {
  it('reads a v1beta1 object, and a v1alpha1 one by its first preferred strategy', () => {
    const c = candidateRecord({
      metadata: { namespace: 'kube-system', name: 'host_1', creationTimestamp: '2026-01-01T11:00:00Z' },
      spec: { leaseName: 'kube-scheduler', binaryVersion: '1.37.2', emulationVersion: '1.37.0', strategy: 'OldestEmulationVersion', renewTime: at(0) },
    });
    expect(c).toEqual({
      namespace: 'kube-system',
      name: 'host_1',
      leaseName: 'kube-scheduler',
      binaryVersion: '1.37.2',
      emulationVersion: '1.37.0',
      strategy: 'OldestEmulationVersion',
      pingTime: null,
      renewTime: at(0),
      creationTimestamp: '2026-01-01T11:00:00Z',
    });
    expect(candidateRecord({ metadata: { name: 'x' }, spec: { preferredStrategies: ['OldestEmulationVersion', 'Other'] } }).strategy).toBe(
      'OldestEmulationVersion',
    );
  });

  it('ready, pinged within 5 s, unresponsive after 5 s without an answer, expired after 30 minutes without a renew', () => {
    expect(candidateState({ pingTime: null, renewTime: at(0) }, T0 + 1_000)).toBe('ready');
    // Answered: renewTime after the ping.
    expect(candidateState({ pingTime: at(0), renewTime: at(100) }, T0 + 60_000)).toBe('ready');
    expect(candidateState({ pingTime: at(0), renewTime: at(-10_000) }, T0 + 4_999)).toBe('pinged');
    expect(candidateState({ pingTime: at(0), renewTime: at(-10_000) }, T0 + 5_000)).toBe('unresponsive');
    expect(candidateState({ pingTime: at(0), renewTime: null }, T0 + 6_000)).toBe('unresponsive');
    expect(candidateState({ pingTime: null, renewTime: at(0) }, T0 + 30 * 60_000)).toBe('ready');
    expect(candidateState({ pingTime: null, renewTime: at(0) }, T0 + 30 * 60_000 + 1)).toBe('expired');
  });

  it('semver order: numbers, missing parts as 0, a pre-release before its release', () => {
    expect(compareVersions('1.36.4', '1.37.0')).toBeLessThan(0);
    expect(compareVersions('1.37', '1.37.0')).toBe(0);
    expect(compareVersions('1.37.0-alpha.2', '1.37.0')).toBeLessThan(0);
    expect(compareVersions('1.37.0-alpha.10', '1.37.0-alpha.2')).toBeGreaterThan(0);
    expect(compareVersions('1.10.0', '1.9.0')).toBeGreaterThan(0);
  });

  it('OldestEmulationVersion: emulation version, then binary version, then registered first; unresponsive and expired ones do not count', () => {
    const now = T0;
    const older = cand('older-emulation', { emulationVersion: '1.36.0', binaryVersion: '1.37.2' });
    const olderBinary = cand('older-binary', { binaryVersion: '1.37.1' });
    const first = cand('registered-first', { creationTimestamp: new Date(T0 - 120_000).toISOString() });
    const later = cand('registered-later');
    expect(bestCandidate([later, first, olderBinary, older], now)?.name).toBe('older-emulation');
    expect(bestCandidate([later, first, olderBinary], now)?.name).toBe('older-binary');
    expect(bestCandidate([later, first], now)?.name).toBe('registered-first');
    const dead = cand('dead', { emulationVersion: '1.30.0', pingTime: at(-10_000), renewTime: at(-20_000) });
    const gone = cand('gone', { emulationVersion: '1.30.0', renewTime: at(-31 * 60_000) });
    expect(bestCandidate([later, dead, gone], now)?.name).toBe('registered-later');
    // The ranking lists those an election counts first, the rest after.
    expect(rankCandidates([dead, later, gone, first], now).map((c) => c.name)).toEqual(['registered-first', 'registered-later', 'dead', 'gone']);
  });
});

describe('judgeElection: why the holder holds, or what the Lease waits for', () => {
  const a = cand('kcm-a', { creationTimestamp: new Date(T0 - 120_000).toISOString() });
  const b = cand('kcm-b');

  it('nothing to say for a Lease outside coordinated leader election', () => {
    expect(judgeElection(held('x', { strategy: null }), [], T0)).toBeNull();
  });

  it('the holder the strategy puts first is the preferred holder, with the tie said', () => {
    const e = judgeElection(held('kcm-a'), [b, a], T0)!;
    expect(e).toEqual({
      strategy: 'OldestEmulationVersion',
      first: 'kcm-a',
      verdict: 'holder preferred',
      reason: 'holder is the preferred holder (OldestEmulationVersion: emulation 1.37.0, binary 1.37.2; registered first of 2 with those versions)',
    });
    expect(judgeElection(held('kcm-a'), [cand('kcm-a', { emulationVersion: '1.36.0' }), b], T0)!.reason).toBe(
      'holder is the preferred holder (OldestEmulationVersion: emulation 1.36.0, binary 1.37.2)',
    );
  });

  it('a preferred holder named: still renewing, stopped renewing (runs out in N s), run out', () => {
    const old = cand('kcm-old', { emulationVersion: '1.36.0' });
    const lease = held('kcm-b', { preferredHolder: 'kcm-old', renewedSincePreferred: true });
    expect(judgeElection(lease, [b, old], T0)).toMatchObject({
      verdict: 'handover',
      first: 'kcm-old',
      reason: 'preferred holder kcm-old (oldest emulation version, 1.36.0) — holder kcm-b still renewing',
    });
    expect(judgeElection({ ...lease, renewedSincePreferred: false, expiresInMs: 7_400 }, [b, old], T0)!.reason).toBe(
      'preferred holder kcm-old (oldest emulation version, 1.36.0) — holder kcm-b has stopped renewing; its lease runs out in 7s',
    );
    expect(judgeElection({ ...lease, renewedSincePreferred: null }, [b, old], T0)!.reason).toBe(
      'preferred holder kcm-old (oldest emulation version, 1.36.0) — holder kcm-b holds until its lease runs out (in 12s)',
    );
    expect(judgeElection({ ...lease, state: 'expired', expiresInMs: -1_000 }, [b, old], T0)!.reason).toBe(
      'preferred holder kcm-old (oldest emulation version, 1.36.0) — holder kcm-b has stopped renewing and its lease has run out; the election controller hands it over',
    );
  });

  it('no holder (released): the controller picks among those that answer, waiting for the pinged', () => {
    const pinged = cand('kcm-c', { pingTime: at(-1_000), renewTime: at(-9_000) });
    expect(judgeElection(held(null, { strategy: null }), [a, b, pinged], T0)).toMatchObject({
      verdict: 'no holder',
      strategy: 'OldestEmulationVersion',
      reason:
        'no holder: the election controller picks one of 3 answering candidates (first by OldestEmulationVersion: kcm-a), waiting for 1 to answer its ping',
    });
    const dead = cand('kcm-d', { pingTime: at(-9_000), renewTime: at(-20_000) });
    expect(judgeElection(held(null), [dead], T0)!.reason).toBe('no holder: none of 1 candidate answers the election controller');
    expect(judgeElection(held(null), [], T0)!.reason).toBe('no holder, and no LeaseCandidate for the election controller to pick');
  });

  it('an expired holder, a holder that is not first, one without a candidate, no strategy, another strategy', () => {
    expect(judgeElection(held('kcm-a', { state: 'expired', expiresInMs: -2_000 }), [a, b], T0)).toMatchObject({
      verdict: 'holder expired',
      reason: 'holder kcm-a has not renewed within its lease: the election controller elects again among 2 answering candidates',
    });
    expect(judgeElection(held('kcm-b'), [a, b], T0)).toMatchObject({
      verdict: 'holder not first',
      reason: 'kcm-a ranks first (same versions, registered first); the election controller has not asked kcm-b to step down yet',
    });
    expect(judgeElection(held('someone'), [a], T0)!.reason).toBe('holder someone has no LeaseCandidate; the election controller will prefer kcm-a');
    expect(judgeElection(held('kcm-a', { strategy: null }), [a], T0)).toMatchObject({
      verdict: 'not coordinated',
      reason: 'not coordinated: the Lease has no strategy, so kcm-a acquired it itself (1 LeaseCandidate registered)',
    });
    expect(judgeElection(held('kcm-a', { strategy: 'NewestEmulationVersion' }), [a], T0)!.reason).toBe(
      "strategy NewestEmulationVersion is not the API server's (OldestEmulationVersion): another controller picks the holder",
    );
  });
});
