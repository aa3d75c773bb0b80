import { describe, expect, it } from 'vitest';
import type { NotificationInfo } from '../informer/index.js';
import { DeletedFinalStateUnknown } from '../informer/index.js';
import type { Lease, LeaseCandidate, LeaseSpec } from '../kube/types.js';
import { formatMicroTime } from '../lease/index.js';
import { renderTopTable } from '../output/top-table.js';
import { renderChangeLine, renderLeaseTables } from '../output/lease-table.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { controlsIn, HOSTILE, SHOWN } from '../../tools/testing/hostile.js';
import { leaseDetailLines } from './lease-layout.js';
import { candidatesNote, describeChange, electionLines, type LeaseChange } from './lease-view.js';
import { LeaseWatchModel } from '../live/index.js';
import { buildTopView } from './top-view.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
let rv = 0;
const at = (ms: number): string => formatMicroTime(T0 + ms);
const info = (clock: FakeClock): NotificationInfo => ({
  receivedAt: clock.now(),
  distributedAt: clock.now(),
  deltaType: undefined,
  eventType: undefined,
  isSync: false,
});

function kcm(spec: LeaseSpec): Lease {
  return { metadata: { namespace: 'kube-system', name: 'kube-controller-manager', resourceVersion: String(++rv) }, spec };
}
const coordinated = (holder: string, renewAt: number, extra: LeaseSpec = {}): Lease =>
  kcm({ holderIdentity: holder, leaseDurationSeconds: 15, renewTime: at(renewAt), leaseTransitions: 0, strategy: 'OldestEmulationVersion', ...extra });

function candidate(name: string, spec: LeaseCandidate['spec'] = {}, created = T0 - 60_000): LeaseCandidate {
  return {
    metadata: { namespace: 'kube-system', name, creationTimestamp: new Date(created).toISOString(), resourceVersion: String(++rv) },
    spec: {
      leaseName: 'kube-controller-manager',
      binaryVersion: '1.37.2',
      emulationVersion: '1.37.0',
      strategy: 'OldestEmulationVersion',
      renewTime: at(-1_000),
      ...spec,
    },
  };
}

function setup(): { clock: FakeClock; model: LeaseWatchModel; changes: LeaseChange[] } {
  const clock = new FakeClock(T0);
  const model = new LeaseWatchModel({ clock, scope: { namespace: 'kube-system', name: null, selector: null } });
  const changes: LeaseChange[] = [];
  model.onChange((c) => changes.push(c));
  return { clock, model, changes };
}

describe('LeaseCandidates in the lease-watch view', () => {
  it('not watched: every row says null, and nothing is said unless they were refused', () => {
    const { clock, model } = setup();
    model.handler.onAdd!(coordinated('kcm-a', 0), true, info(clock));
    model.candidateHandler.onAdd!(candidate('kcm-a'), true, info(clock));
    model.markSynced();
    let view = model.view();
    expect(view.candidates).toEqual({ access: 'unknown', error: null });
    expect(view.leases[0]!.candidates).toBeNull();
    expect(view.leases[0]!.election).toBeNull();
    model.setCandidatesStatus({ access: 'not served', error: null });
    view = model.view();
    expect(view.leases[0]!.candidates).toBeNull();
    expect(candidatesNote(view.candidates)).toBeNull();
    const text = renderLeaseTables(view, { color: false });
    expect(text).not.toContain('candidate');
    expect(text).not.toContain('election');
    const refused = { access: 'not permitted' as const, error: 'forbidden: user "u" may not list leasecandidates.coordination.k8s.io (403)' };
    model.setCandidatesStatus(refused);
    expect(model.view().leases[0]!.candidates).toBeNull();
    expect(candidatesNote(model.view().candidates)).toBe(`candidates: not permitted (${refused.error})`);
    model.close();
  });

  it('watched: the Lease’s candidates (its namespace and leaseName only), the strategy’s first first, and why the holder holds', () => {
    const { clock, model } = setup();
    model.setCandidatesStatus({ access: 'watched', error: null });
    model.handler.onAdd!(coordinated('kcm-a', 0), true, info(clock));
    model.candidateHandler.onAdd!(candidate('kcm-b'), true, info(clock));
    model.candidateHandler.onAdd!(candidate('kcm-a', {}, T0 - 120_000), true, info(clock));
    model.candidateHandler.onAdd!(candidate('sched', { leaseName: 'kube-scheduler' }), true, info(clock));
    model.candidateHandler.onAdd!({ ...candidate('elsewhere'), metadata: { namespace: 'other', name: 'elsewhere' } }, true, info(clock));
    model.markSynced();
    const row = model.view().leases[0]!;
    expect(row.candidates!.map((c) => [c.identity, c.state, c.holder, c.first])).toEqual([
      ['kcm-a', 'ready', true, true],
      ['kcm-b', 'ready', false, false],
    ]);
    expect(row.candidates![0]).toMatchObject({
      binaryVersion: '1.37.2',
      emulationVersion: '1.37.0',
      strategy: 'OldestEmulationVersion',
      pingTime: null,
      renewAgeMs: 1_000,
    });
    expect(row.election).toMatchObject({ verdict: 'holder preferred', first: 'kcm-a' });
    expect(electionLines(row)).toEqual([
      'election: holder is the preferred holder (OldestEmulationVersion: emulation 1.37.0, binary 1.37.2; registered first of 2 with those versions)',
      'candidates (2):',
      '  kcm-a · binary 1.37.2 · emulation 1.37.0 · OldestEmulationVersion · ready · pinged never · renewed 1.0s ago · (holder)',
      '  kcm-b · binary 1.37.2 · emulation 1.37.0 · OldestEmulationVersion · ready · pinged never · renewed 1.0s ago',
    ]);
    // A candidate that goes away goes from the row, tombstone or not.
    model.candidateHandler.onDelete!(new DeletedFinalStateUnknown('kube-system/kcm-b', candidate('kcm-b')), info(clock));
    expect(model.view().leases[0]!.candidates!.map((c) => c.identity)).toEqual(['kcm-a']);
    const text = renderLeaseTables(model.view(), { color: false });
    expect(text).toMatch(/^LEASE\s+HOLDER\s+STATE\s+RENEWED\s+ACQUIRED\s+TRANSITIONS\s+HELD\s+STRATEGY\s+CANDIDATES/m);
    expect(text).toMatch(/^kube-system\/kube-controller-manager\s+kcm-a\s+valid .* OldestEmulationVersion\s+1: 1 ready$/m);
    expect(text).toContain('\nkube-system/kube-controller-manager:\n  election: holder is the preferred holder');
    expect(text).toContain('\n  candidates (1):\n    kcm-a · binary 1.37.2');
    model.close();
  });

  it('an acquisition under coordinated election carries the strategy and the candidates of that moment', async () => {
    const { clock, model, changes } = setup();
    model.setCandidatesStatus({ access: 'watched', error: null });
    model.handler.onAdd!(coordinated('kcm-a', 0), true, info(clock));
    model.candidateHandler.onAdd!(candidate('kcm-a', {}, T0 - 120_000), true, info(clock));
    model.candidateHandler.onAdd!(candidate('kcm-b'), true, info(clock));
    model.markSynced();
    await clock.step(16_000);
    // The election controller wrote the new holder: no acquireTime, leaseTransitions unchanged.
    model.handler.onUpdate!(
      coordinated('kcm-a', 0),
      kcm({ holderIdentity: 'kcm-b', leaseDurationSeconds: 5, renewTime: at(16_000), leaseTransitions: 0, strategy: 'OldestEmulationVersion' }),
      info(clock),
    );
    const acquired = changes.find((c) => c.type === 'acquired')!;
    expect(acquired).toMatchObject({
      holder: 'kcm-b',
      previousHolder: 'kcm-a',
      previousEndReason: 'expired',
      strategy: 'OldestEmulationVersion',
      transitions: 0,
      acquireTime: null,
    });
    expect(acquired.candidates!.map((c) => [c.identity, c.binaryVersion, c.emulationVersion, c.strategy, c.holder])).toEqual([
      ['kcm-a', '1.37.2', '1.37.0', 'OldestEmulationVersion', false],
      ['kcm-b', '1.37.2', '1.37.0', 'OldestEmulationVersion', true],
    ]);
    expect(describeChange(acquired)).toBe(
      'kube-system/kube-controller-manager: kcm-b acquired after kcm-a gap 1.0s (16s since its last renew) transitions 0 (elected: OldestEmulationVersion)',
    );
    model.close();
  });

  it('a release: the change, the Lease without a leader and for how long, then the acquisition with its gap, named a release', async () => {
    const { clock, model, changes } = setup();
    model.handler.onAdd!(kcm({ holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: at(0), leaseTransitions: 2 }), true, info(clock));
    model.markSynced();
    await clock.step(3_000);
    model.handler.onUpdate!(
      kcm({}),
      kcm({ holderIdentity: '', leaseDurationSeconds: 1, acquireTime: at(3_000), renewTime: at(3_000), leaseTransitions: 2 }),
      info(clock),
    );
    await clock.step(1_500);
    const view = model.view();
    expect(view.leases[0]).toMatchObject({
      state: 'released',
      severity: 'idle',
      holder: null,
      vacancy: { lastHolder: 'a', endReason: 'released', since: new Date(T0 + 3_000).toISOString(), forMs: 1_500 },
    });
    expect(electionLines(view.leases[0]!)).toEqual(['no leader for 1.5s: a released it at 12:00:03']);
    // Long past the 1 s lease the release wrote, and past a's own 15 s: no expiry.
    await clock.step(20_000);
    expect(changes.map((c) => c.type)).toEqual(['released']);
    expect(changes[0]).toMatchObject({ holder: 'a', heldForMs: 3_000, transitions: 2 });
    model.handler.onUpdate!(
      kcm({}),
      kcm({ holderIdentity: 'b', leaseDurationSeconds: 15, acquireTime: at(24_500), renewTime: at(24_500), leaseTransitions: 3 }),
      info(clock),
    );
    const acquired = changes.at(-1)!;
    expect(acquired).toMatchObject({
      type: 'acquired',
      holder: 'b',
      previousHolder: 'a',
      previousEndReason: 'released',
      failoverGapMs: 21_500,
      transitions: 3,
    });
    expect(renderChangeLine(acquired, { color: false })).toBe(
      '12:00:24  kube-system/kube-controller-manager: b acquired after a (released) gap 21s (24s since its last renew) transitions 3\n',
    );
    const history = model.view().leases[0]!.history;
    expect(history.map((h) => [h.holder, h.endReason, h.previousEndReason, h.failoverGapMs])).toEqual([
      ['a', 'released', null, null],
      ['b', null, 'released', 21_500],
    ]);
    expect(leaseDetailLines(model.view().leases[0]!, clock.now()).join('\n')).toContain('gap 21s, after a release');
    // top says the same.
    const top = buildTopView({ now: clock.now(), leases: model.view().leases, metrics: null, targets: [] });
    expect(top.components[0]!.lease!.lastFailover).toMatchObject({ from: 'a', to: 'b', gapMs: 21_500, fromEnded: 'released' });
    model.close();
  });

  it('candidate identities and versions are the cluster’s: escaped in text, exact in the view', () => {
    const { clock, model } = setup();
    model.setCandidatesStatus({ access: 'watched', error: null });
    model.handler.onAdd!(coordinated(`kcm${HOSTILE}`, 0, { preferredHolder: `p${HOSTILE}` }), true, info(clock));
    model.candidateHandler.onAdd!(candidate(`kcm${HOSTILE}`, { binaryVersion: `1.37.2${HOSTILE}`, strategy: `S${HOSTILE}` }), true, info(clock));
    model.candidateHandler.onAdd!(candidate(`p${HOSTILE}`, { emulationVersion: '1.36.0' }), true, info(clock));
    model.markSynced();
    const view = model.view();
    expect(view.leases[0]!.candidates!.map((c) => c.identity).sort()).toEqual([`kcm${HOSTILE}`, `p${HOSTILE}`].sort());
    expect(JSON.parse(JSON.stringify(view)).leases[0].candidates[1].binaryVersion).toBe(`1.37.2${HOSTILE}`);
    for (const color of [false, true]) {
      const text = renderLeaseTables(view, { color });
      expect(controlsIn(text, { sgr: color })).toEqual([]);
      for (const s of SHOWN) expect(text).toContain(s);
    }
    const detail = leaseDetailLines(view.leases[0]!, clock.now());
    expect(detail.some((l) => l.startsWith('election: preferred holder p'))).toBe(true);
    // top's table: the election line and the candidates under the component, escaped.
    const top = renderTopTable(buildTopView({ now: clock.now(), leases: view.leases, candidates: view.candidates, metrics: null, targets: [] }), false);
    expect(controlsIn(top)).toEqual([]);
    expect(top).toContain(`\n    election: preferred holder p${SHOWN[0]}`);
    expect(top).toContain(`\n      kcm${SHOWN[0]}`);
    model.close();
  });
});
