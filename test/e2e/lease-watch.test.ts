/**
 * `kubectl lease-watch` against the real local control plane: a kube-controller-manager failover
 * (two instances, the leader killed without releasing), a node lease going stale when kwok stops
 * heartbeating, a controller-runtime leader that releases its Lease on SIGTERM (a release with its
 * gap, not an expiry), the master-status metric beside the lease, and the bad-input answers. This
 * control plane runs client-go's own leader election; coordinated-election.test.ts has the
 * LeaseCandidates.
 */
import { describe, expect, it } from 'vitest';
import type { ComponentName } from '../../tools/cluster/launcher.js';
import { createLeaseWatchProgram } from '../../src/commands/lease-watch.js';
import { ApiLeaseClient } from '../../src/kube/index.js';
import { DEFAULT_LEASE_DURATION_MS, DEFAULT_RETRY_PERIOD_MS, JITTER_FACTOR } from '../../src/lease/leader-elector.js';
import type { LeaseChange, LeaseWatchView } from '../../src/view/lease-view.js';
import {
  adminKube,
  cluster,
  componentHolding,
  createNamespace,
  deleteNamespace,
  eventually,
  firstControllerManagerLeads,
  runCli,
  startCli,
  uniqueName,
} from './helpers.js';
import { deleteWidgetCrd, installWidgetCrd, startWidgetOperators, WIDGET_CRD, WIDGET_DEFAULT_LEASE } from './widget-operator.js';

/**
 * KCM's defaults are client-go's: --leader-elect-lease-duration=15s, --leader-elect-retry-period=2s.
 * A candidate retries every RetryPeriod jittered by up to JitterFactor (1.2) more, so up to 4.4 s apart.
 */
const LEASE_DURATION_MS = DEFAULT_LEASE_DURATION_MS;
const RETRY_MS = DEFAULT_RETRY_PERIOD_MS * (1 + JITTER_FACTOR);
/** kwok in the launcher: --node-lease-duration-seconds=40. */
const NODE_LEASE_DURATION_MS = 40_000;

function ndjson(text: string): LeaseChange[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LeaseChange);
}

describe('kubectl lease-watch on the real control plane', () => {
  const c = cluster();
  const kubeconfig = c.kubeconfigPath;
  const leases = new ApiLeaseClient(adminKube().client);

  it('prints a table of the leader-election leases and summarises the node leases', async () => {
    const r = await runCli(createLeaseWatchProgram, ['--kubeconfig', kubeconfig]);
    expect(r.stderr).toMatch(/synced \d+ leases in all namespaces/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^LEASE\s+HOLDER\s+STATE\s+RENEWED\s+ACQUIRED\s+TRANSITIONS\s+HELD/);
    expect(r.stdout).toMatch(/kube-system\/kube-controller-manager\s+\S+\s+(valid|expiring)\s+/);
    expect(r.stdout).toMatch(/kube-system\/kube-scheduler\s+\S+\s+(valid|expiring)\s+/);
    expect(r.stdout).toContain(`node leases: ${c.nodes.length}, none stale`);
    expect(r.stdout).not.toContain('\u001b['); // not a TTY: no colour
  });

  it('a killed kube-controller-manager leader: its lease expires, the other instance acquires, with a gap consistent with the lease duration', async () => {
    await c.startSecondControllerManager();
    let victim: ComponentName | undefined;
    try {
      const before = await leases.get('kube-system', 'kube-controller-manager');
      const oldHolder = before?.spec?.holderIdentity ?? '';
      expect(oldHolder).not.toBe('');
      victim = componentHolding(oldHolder);
      expect(victim, `no kube-controller-manager log says "${oldHolder} became leader"`).toBeDefined();

      // Master status from both instances beside the lease: the holder reports 1.
      const urls = [c.metricsUrl('kube-controller-manager'), c.metricsUrl('kube-controller-manager-2')];
      const withMetrics = await runCli(createLeaseWatchProgram, [
        'kube-system/kube-controller-manager',
        '-o',
        'json',
        '--metrics',
        urls[0]!,
        '--metrics',
        urls[1]!,
        '--metrics-insecure-skip-tls-verify',
        '--kubeconfig',
        kubeconfig,
      ]);
      expect(withMetrics.stderr).not.toContain('error');
      expect(withMetrics.code).toBe(0);
      const snapshot = JSON.parse(withMetrics.stdout) as LeaseWatchView;
      const victimUrl = victim === 'kube-controller-manager' ? urls[0] : urls[1];
      expect(snapshot.leases[0]!.holder).toBe(oldHolder);
      expect(snapshot.leases[0]!.masterStatus).toContainEqual(expect.objectContaining({ source: victimUrl, value: 1, isLeader: true }));
      const other = snapshot.leases[0]!.masterStatus!.find((m) => m.source !== victimUrl);
      if (other) expect(other.value).toBe(0); // a candidate that never led may not report the series at all

      const live = startCli(createLeaseWatchProgram, ['-n', 'kube-system', '-o', 'ndjson', '--for', '35s', '--kubeconfig', kubeconfig]);
      await eventually('lease-watch to sync', async () => live.stderr().includes('streaming holder changes'), 30_000, 50);
      const killedAt = Date.now();
      await c.killComponent(victim!);

      const r = await live.done;
      expect(r.stderr).not.toContain('error');
      expect(r.code).toBe(0);
      const changes = ndjson(r.stdout).filter((ch) => ch.name === 'kube-controller-manager');
      const expired = changes.find((ch) => ch.type === 'expired' && ch.holder === oldHolder);
      const acquired = changes.find((ch) => ch.type === 'acquired' && ch.holder !== oldHolder);
      expect(acquired, r.stdout).toBeDefined();
      if (expired) {
        expect(expired.role).toBe('leader');
        expect(expired.seq).toBeLessThan(acquired!.seq);
        // The expiry is judged LeaseDuration after the last renew we saw (within a retry of the kill).
        expect(Date.parse(expired.at) - Date.parse(expired.lastRenewAt!)).toBe(LEASE_DURATION_MS);
        expect(Date.parse(expired.lastRenewAt!)).toBeGreaterThan(killedAt - RETRY_MS - 1_000);
      } else {
        // The new holder judges the expiry from its own sighting of the last renew, which on a
        // loaded machine can come a little before ours (our watch event arrived late): then it
        // acquires before our LeaseDuration is up, no expiry is reported, and the acquisition
        // names the holder it replaced, with no gap.
        expect(acquired!.sinceLastRenewMs!).toBeLessThan(LEASE_DURATION_MS + 1_000);
        expect(acquired!.failoverGapMs).toBe(0);
      }
      expect(acquired!.previousHolder).toBe(oldHolder);
      expect(acquired!.transitions).toBe((before?.spec?.leaseTransitions ?? 0) + 1);
      // The new holder takes over one LeaseDuration after the old one's last renew, plus up to two
      // retry periods (it notices the renew, and then the expiry, one retry later each).
      expect(acquired!.sinceLastRenewMs!).toBeGreaterThanOrEqual(LEASE_DURATION_MS - 1_000);
      expect(acquired!.sinceLastRenewMs!).toBeLessThan(LEASE_DURATION_MS + 2 * RETRY_MS + 2_000);
      // ...so the time with no valid leader after the expiry is at most about those retries.
      expect(acquired!.failoverGapMs!).toBeGreaterThanOrEqual(0);
      expect(acquired!.failoverGapMs!).toBeLessThan(2 * RETRY_MS + 2_000);
      expect(Date.parse(acquired!.at) - killedAt).toBeGreaterThan(LEASE_DURATION_MS - RETRY_MS - 1_000);
      expect(Date.parse(acquired!.at) - killedAt).toBeLessThan(LEASE_DURATION_MS + 2 * RETRY_MS + 3_000);

      const after = await leases.get('kube-system', 'kube-controller-manager');
      expect(after?.spec?.holderIdentity).toBe(acquired!.holder);
      expect(componentHolding(acquired!.holder!)).toBe(victim === 'kube-controller-manager' ? 'kube-controller-manager-2' : 'kube-controller-manager');
    } finally {
      // Leave one kube-controller-manager, the first, leading for the tests that follow.
      await firstControllerManagerLeads(victim);
    }
  });

  it('a controller-runtime leader stopped with SIGTERM releases its Lease: a release with its gap, then the other replica acquires; no expiry', async () => {
    const kube = adminKube();
    const ns = uniqueName('it-release');
    const crdBefore = await kube.client.json(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${WIDGET_CRD}`).then(
      () => true,
      () => false,
    );
    await installWidgetCrd(kube);
    await createNamespace(kube, ns);
    const ops = await startWidgetOperators({ namespace: ns, replicas: 2, releaseOnCancel: true });
    try {
      const holder = await eventually('a widget-operator replica to lead', () => ops.holder(kube));
      const leader = ops.replicas.find((r) => r.identity === holder)!;
      const other = ops.replicas.find((r) => r.identity !== holder)!;
      expect(leader, holder).toBeDefined();
      const before = (await leases.get(ns, WIDGET_DEFAULT_LEASE))!;
      const live = startCli(createLeaseWatchProgram, [`${ns}/${WIDGET_DEFAULT_LEASE}`, '-o', 'ndjson', '--for', '25s', '--kubeconfig', kubeconfig]);
      await eventually('lease-watch to sync', async () => live.stderr().includes('streaming holder changes'), 30_000, 50);
      const stoppedAt = Date.now();
      await leader.stop();
      const stoppedBy = Date.now();
      const r = await live.done;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('error');
      const changes = ndjson(r.stdout);
      // The release as client-go writes it: the holder cleared by the holder, transitions kept.
      const released = changes.find((ch) => ch.type === 'released');
      expect(released, r.stdout).toMatchObject({
        role: 'leader',
        namespace: ns,
        name: WIDGET_DEFAULT_LEASE,
        holder,
        transitions: before.spec!.leaseTransitions ?? 0,
      });
      expect(Date.parse(released!.at)).toBeGreaterThanOrEqual(stoppedAt - 1_000);
      expect(Date.parse(released!.at)).toBeLessThanOrEqual(stoppedBy + 1_000);
      expect(released!.heldForMs).toBeGreaterThan(0);
      // The other replica takes it at its next try, not a lease duration later, and says after what.
      const acquired = changes.find((ch) => ch.type === 'acquired');
      expect(acquired, r.stdout).toMatchObject({
        holder: other.identity,
        previousHolder: holder,
        previousEndReason: 'released',
        transitions: (before.spec!.leaseTransitions ?? 0) + 1,
        // Not coordinated: no strategy, and LeaseCandidates are not served here.
        strategy: null,
        candidates: null,
      });
      expect(acquired!.seq).toBeGreaterThan(released!.seq);
      expect(acquired!.failoverGapMs).toBe(Date.parse(acquired!.at) - Date.parse(released!.at));
      expect(acquired!.failoverGapMs!).toBeGreaterThanOrEqual(0);
      expect(acquired!.failoverGapMs!).toBeLessThan(RETRY_MS + 2_000);
      expect(acquired!.failoverGapMs!).toBeLessThan(LEASE_DURATION_MS / 2);
      // A release is not an expiry: none was reported, before or after.
      expect(changes.filter((ch) => ch.type === 'expired')).toEqual([]);
      expect(changes.map((ch) => ch.type)).toEqual(['released', 'acquired']);
      const after = (await leases.get(ns, WIDGET_DEFAULT_LEASE))!;
      expect(after.spec!.holderIdentity).toBe(other.identity);
    } finally {
      await ops.stop();
      await deleteNamespace(kube, ns);
      if (!crdBefore) await deleteWidgetCrd(kube);
    }
  });

  it('a node lease goes stale when kwok stops heartbeating', async () => {
    const snapshot = startCli(createLeaseWatchProgram, ['-n', 'kube-node-lease', '-o', 'json', '--for', '55s', '--kubeconfig', kubeconfig]);
    const stream = startCli(createLeaseWatchProgram, ['-n', 'kube-node-lease', '-o', 'ndjson', '--for', '55s', '--kubeconfig', kubeconfig]);
    await eventually('both to sync', async () => snapshot.stderr().includes('watching for') && stream.stderr().includes('streaming'), 30_000, 50);
    const stoppedAt = Date.now();
    await c.stopKwok();
    try {
      const [json, nd] = await Promise.all([snapshot.done, stream.done]);
      expect(json.code).toBe(0);
      expect(nd.code).toBe(0);
      const view = JSON.parse(json.stdout) as LeaseWatchView;
      expect(view.leases).toEqual([]);
      expect(view.nodes.total).toBe(c.nodes.length);
      expect(view.nodes.staleCount).toBe(c.nodes.length);
      for (const node of c.nodes) {
        const row = view.nodes.leases.find((l) => l.name === node)!;
        expect(row, node).toBeDefined();
        expect(row.stale).toBe(true);
        expect(row.state).toBe('expired');
        expect(row.leaseDurationSeconds * 1000).toBe(NODE_LEASE_DURATION_MS);
        expect(row.renewAgeMs).toBeGreaterThan(NODE_LEASE_DURATION_MS);
        expect(row.renewTimeAgeMs!).toBeGreaterThan(NODE_LEASE_DURATION_MS - 2_000);
      }
      // The stream said so when it happened: one expiry per node, LeaseDuration after its last renew.
      const stale = ndjson(nd.stdout).filter((ch) => ch.type === 'expired');
      expect(stale.map((ch) => ch.name).sort()).toEqual([...c.nodes].sort());
      for (const ch of stale) {
        expect(ch.role).toBe('node');
        expect(Date.parse(ch.at) - Date.parse(ch.lastRenewAt!)).toBe(NODE_LEASE_DURATION_MS);
        expect(Date.parse(ch.lastRenewAt!)).toBeLessThanOrEqual(stoppedAt + 1_000);
      }
    } finally {
      await c.startKwok();
    }
    // Leave the nodes heartbeating again for the tests that follow.
    await eventually(
      'node leases renewed again',
      async () => {
        const all = await Promise.all(c.nodes.map((n) => leases.get('kube-node-lease', n)));
        return all.every((l) => l?.spec?.renewTime && Date.now() - Date.parse(l.spec.renewTime) < 15_000);
      },
      60_000,
      500,
    );
  });

  it('a lease that does not exist: exit 1, a clear line and the close names', async () => {
    const r = await runCli(createLeaseWatchProgram, ['kube-system/kube-controler-manager', '--kubeconfig', kubeconfig]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('error: lease kube-system/kube-controler-manager not found\n');
    expect(r.stderr).toContain('hint: did you mean kube-system/kube-controller-manager?');
    const far = await runCli(createLeaseWatchProgram, ['nothing-like-it', '-n', 'kube-system', '-o', 'ndjson', '--kubeconfig', kubeconfig]);
    expect(far.code).toBe(1);
    expect(far.stderr).toContain('error: lease kube-system/nothing-like-it not found');
    expect(far.stderr).toMatch(/hint: leases in kube-system: .*kube-controller-manager/);
  });

  it('a namespace that does not exist: named once, as such, for a lease in it and for a watch of it', async () => {
    const one = await runCli(createLeaseWatchProgram, ['lease-watch-ghost/leader', '--kubeconfig', kubeconfig]);
    expect(one.code).toBe(1);
    expect(one.stderr).toContain('error: lease lease-watch-ghost/leader not found: namespace lease-watch-ghost does not exist\n');
    const all = await runCli(createLeaseWatchProgram, ['-n', 'lease-watch-ghost', '-o', 'table', '--for', '2s', '--kubeconfig', kubeconfig]);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('no leases found');
    expect(all.stderr.split('\n').filter((l) => l.includes('does not exist'))).toEqual([
      'note: namespace lease-watch-ghost does not exist; its Leases are shown once it is created',
    ]);
    // A namespace that exists but holds no Lease says nothing of the kind.
    const empty = await runCli(createLeaseWatchProgram, ['-n', 'default', '-o', 'table', '--kubeconfig', kubeconfig]);
    expect(empty.stderr).not.toContain('does not exist');
  });

  it('no RBAC to list leases: exit 3 naming what was refused', async () => {
    const all = await runCli(createLeaseWatchProgram, ['-o', 'table', '--kubeconfig', c.noAccessKubeconfig]);
    expect(all.code).toBe(3);
    expect(all.stdout).toBe('');
    expect(all.stderr).toContain('error: forbidden: user "it-noaccess" may not list leases.coordination.k8s.io (403)');
    expect(all.stderr).toContain('hint: confirm with: kubectl auth can-i list leases.coordination.k8s.io --all-namespaces');
    const ns = await runCli(createLeaseWatchProgram, ['kube-system/kube-controller-manager', '-o', 'json', '--kubeconfig', c.noAccessKubeconfig]);
    expect(ns.code).toBe(3);
    expect(ns.stderr).toContain('may not list leases.coordination.k8s.io in namespace kube-system (403)');
    expect(ns.stderr).toContain('kubectl auth can-i list leases.coordination.k8s.io -n kube-system');
  });
});
