import { afterEach, describe, expect, it } from 'vitest';
import type { NotificationInfo } from '../informer/index.js';
import type { Lease, LeaseSpec } from '../kube/types.js';
import { formatMicroTime } from '../lease/index.js';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { controlsIn, HOSTILE, SHOWN } from '../../tools/testing/hostile.js';
import { renderInk, TEST_WIDTH, type InkHarness } from '../../tools/testing/ink.js';
import { LeaseWatchModel } from '../live/index.js';
import { LeaseWatchApp, type ExitReason } from './lease-watch-app.js';
import { summaryText } from './lease-watch-app.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const A = 'control-plane-host_1b4e28ba-2fa1-11d2-883f-0016d3cca427';
const B = 'control-plane-host_6fa459ea-ee8a-3ca4-894e-db77e160355e';
let rv = 0;

function lease(namespace: string, name: string, spec: LeaseSpec): Lease {
  return { metadata: { namespace, name, resourceVersion: String(++rv) }, spec };
}
function kcm(holder: string, renewAt: number, transitions: number): Lease {
  return lease('kube-system', 'kube-controller-manager', {
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: formatMicroTime(T0),
    renewTime: formatMicroTime(T0 + renewAt),
    leaseTransitions: transitions,
  });
}
function nodeLease(name: string, renewAt: number): Lease {
  return lease('kube-node-lease', name, { holderIdentity: name, leaseDurationSeconds: 40, renewTime: formatMicroTime(T0 + renewAt) });
}
function info(clock: FakeClock): NotificationInfo {
  return { receivedAt: clock.now(), distributedAt: clock.now(), deltaType: undefined, eventType: undefined, isSync: false };
}

const flat = (s: string): string => s.replace(/\s+/g, ' ');

let harness: InkHarness | undefined;
let model: LeaseWatchModel | undefined;
afterEach(() => {
  harness?.unmount();
  model?.close();
  harness = undefined;
  model = undefined;
});

function start(): { clock: FakeClock; model: LeaseWatchModel; exits: ExitReason[]; exited: Promise<ExitReason> } {
  const clock = new FakeClock(T0);
  model = new LeaseWatchModel({ clock });
  model.handler.onAdd!(kcm(A, 0, 4), true, info(clock));
  model.handler.onAdd!(nodeLease('kwok-node-0', 0), true, info(clock));
  model.handler.onAdd!(nodeLease('kwok-node-1', 0), true, info(clock));
  model.markSynced();
  const exits: ExitReason[] = [];
  let firstExit: (r: ExitReason) => void = () => {};
  const exited = new Promise<ExitReason>((resolve) => (firstExit = resolve));
  const onExit = (r: ExitReason): void => {
    exits.push(r);
    firstExit(r);
  };
  harness = renderInk(<LeaseWatchApp source={model} onExit={onExit} width={TEST_WIDTH} height={30} maxFps={100} />);
  return { clock, model, exits, exited };
}

describe('lease-watch TUI', () => {
  it('shows the leader lease (holder, state, renew age over duration, transitions) and the node summary', () => {
    start();
    const frame = harness!.frame();
    expect(frame).toContain('lease-watch all namespaces · 3 leases · watching · 12:00:00 UTC');
    expect(frame).toMatch(/LEASE\s+HOLDER\s+STATE\s+RENEWED\s+ACQUIRED\s+TRANS\s+HELD/);
    // At 100 columns the long holder identity is shortened in the middle, keeping both ends.
    expect(frame).toMatch(/kube-system\/kube-controller-manager\s+control-pl\S*…\S*16d3cca427\s+valid\s+0ms\/15s\s+0ms\s+4\s+~0ms/);
    expect(frame).toContain('node leases: 2, none stale');
    for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(TEST_WIDTH);
  });

  it('after a failover: the expiry and the acquisition in the log, the holder change with its gap, a stale node', async () => {
    const { clock, model } = start();
    await clock.step(2_000);
    model.handler.onUpdate!(kcm(A, 0, 4), kcm(A, 2_000, 4), info(clock));
    model.handler.onUpdate!(nodeLease('kwok-node-1', 0), nodeLease('kwok-node-1', 2_000), info(clock));
    await clock.step(9_000); // renew 9 s old of 15 s: amber
    await harness!.waitFor('expiring');
    await clock.step(6_000); // A expired at +17 s
    await harness!.waitFor((f) => f.includes('12:00:17 kube-system/kube-controller-manager: control-pl…16d3cca427 expired'));
    await clock.step(2_000);
    model.handler.onUpdate!(kcm(A, 2_000, 4), kcm(B, 19_000, 5), info(clock));
    for (let t = 21_000; t <= 45_000; t += 2_000) {
      await clock.step(2_000);
      model.handler.onUpdate!(kcm(B, t - 2_000, 5), kcm(B, t, 5), info(clock));
      model.handler.onUpdate!(nodeLease('kwok-node-1', t - 2_000), nodeLease('kwok-node-1', t), info(clock));
    }
    // Redraws are throttled on real time: wait for the frame of the last step, not an earlier one.
    let frame = await harness!.waitFor((f) => f.includes('kwok-node-0 stale: renewed 45s ago') && f.includes('─ Holder changes · 3'), 10_000);
    expect(frame).toMatch(/kwok-node-0 stale: renewed 45s ago/);
    expect(frame).toMatch(/kube-system\/kube-controller-manager\s+control-pl\S*…\S*e160355e\s+valid\s+/);
    // The change log is a pane that follows its newest line; each change is one line, cut to the width.
    // Long holder identities are shortened in the middle there, so that what happened stays on screen.
    expect(frame).toContain('12:00:17 kube-system/kube-controller-manager: control-pl…16d3cca427 expired (no renew since');
    expect(frame).toContain('12:00:19 kube-system/kube-controller-manager: control-pl…77e160355e acquired after control-pl…');
    expect(frame).toContain('12:00:40 kube-node-lease/kwok-node-0: stale (no renew since 12:00:00)');
    expect(frame.split('\n')).toHaveLength(30);
    for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(TEST_WIDTH);
    // Enter on the selected lease: the holder in full, and each holder it had, with the gap.
    harness!.stdin.write('\r');
    frame = await harness!.waitFor('─ Lease ');
    expect(frame).toContain(`holder       ${B}`);
    expect(flat(frame)).toMatch(/▸ holding 26s · gap 2\.0s \(17s since last renew\) · control-plane-host_6fa459ea-ee8a-3ca4-894e-db77e160355e/);
    expect(frame).toMatch(/· held ≥17s, expired 28s ago · control-plane-host_1b4e28ba/);
    harness!.stdin.write('\u001b');
    await harness!.waitFor('─ Leader leases');
    // In the changes pane, Enter opens the lease of the selected change, with the change in full.
    harness!.stdin.write('\t');
    harness!.stdin.write('k');
    harness!.stdin.write('\r');
    frame = await harness!.waitFor('─ Lease ');
    expect(frame).toContain('12:00:19 kube-system/kube-controller-manager: control-plane-host_6fa459ea');
    expect(flat(frame)).toContain('acquired after control-plane-host_1b4e28ba-2fa1-11d2-883f-0016d3cca427 gap 2.0s (17s since its last renew)');
  });

  it('? shows the keys, / filters the leases, q quits', async () => {
    const { exits } = start();
    await harness!.waitFor('lease-watch');
    harness!.stdin.write('?');
    let f = await harness!.waitFor('─ Keys ');
    expect(f).toContain('/                filter (type, Enter keeps it, Esc clears it)');
    expect(f).toContain('RENEWED: time since the record last changed');
    harness!.stdin.write('?');
    await harness!.waitFor('─ Leader leases · 1');
    harness!.stdin.write('/');
    await harness!.waitFor('Enter keep');
    harness!.stdin.write('nothing-like-it');
    f = await harness!.waitFor('─ Leader leases · 0 of 1');
    expect(f).toContain('/nothing-like-it');
    harness!.stdin.write('\u001b');
    await harness!.waitFor('─ Leader leases · 1 ');
    harness!.stdin.write('q');
    await new Promise((r) => setTimeout(r, 20));
    expect(exits).toEqual(['quit']);
  });
});

describe('lease-watch TUI with hostile holders and names', () => {
  it('shows holder identities and Lease names escaped in the table, the log and the opened lease', async () => {
    const clock = new FakeClock(T0);
    model = new LeaseWatchModel({ clock });
    const evil = (holder: string, renewAt: number, transitions: number): Lease =>
      lease('kube-system', `evil${HOSTILE}`, {
        holderIdentity: holder,
        leaseDurationSeconds: 15,
        acquireTime: formatMicroTime(T0),
        renewTime: formatMicroTime(T0 + renewAt),
        leaseTransitions: transitions,
      });
    model.handler.onAdd!(evil(HOSTILE, 0, 1), true, info(clock));
    model.handler.onAdd!(nodeLease(`node${HOSTILE}`, 0), true, info(clock));
    model.markSynced();
    harness = renderInk(<LeaseWatchApp source={model} width={TEST_WIDTH} height={30} maxFps={100} />);
    await clock.step(16_000);
    model.handler.onUpdate!(evil(HOSTILE, 0, 1), evil(`b${HOSTILE}`, 16_000, 2), info(clock));
    let f = await harness.waitFor('acquire');
    expect(controlsIn(f, { sgr: true })).toEqual([]);
    for (const line of f.split('\n')) expect(line.length).toBeLessThanOrEqual(TEST_WIDTH);
    expect(f).toContain(`kube-system/evil${SHOWN[0]}`);
    // Enter opens the lease: the holder in full.
    harness.stdin.write('\r');
    f = await harness.waitFor('─ Lease ');
    expect(controlsIn(f, { sgr: true })).toEqual([]);
    const flatF = flat(f);
    for (const s of SHOWN) expect(flatF).toContain(s);
    // What is printed once the screen is gone: a line per lease and per change, escaped.
    const summary = summaryText(model);
    expect(controlsIn(summary)).toEqual([]);
    for (const s of SHOWN) expect(summary).toContain(s);
    expect(summary.trimEnd().split('\n').length).toBe(2 + model.changeLog().length);
  });
});
