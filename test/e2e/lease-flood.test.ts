/**
 * A Lease renewed 50 times a second, written by the test with the real API server: lease-watch
 * prints none of the renewals — -o table --for and -o ndjson print
 * the one holder change and nothing else, and -o json keeps one tenure per holder, which counts
 * every one of the 150 renewals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaseWatchProgram } from '../../src/commands/lease-watch.js';
import { ApiLeaseClient, type Lease } from '../../src/kube/index.js';
import type { LeaseChange, LeaseWatchView } from '../../src/view/lease-view.js';
import { adminKube, cluster, createNamespace, deleteNamespace, eventually, startCli, uniqueName } from './helpers.js';

const kube = adminKube();
const leases = new ApiLeaseClient(kube.client);
const ns = uniqueName('it-lease-flood');
const RENEWALS = 150;
const PER_SECOND = 50;

const microNow = (): string => new Date().toISOString().replace('Z', '000Z');

beforeAll(async () => {
  await createNamespace(kube, ns);
  await leases.create({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'busy', namespace: ns },
    spec: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: microNow(), renewTime: microNow(), leaseTransitions: 0 },
  } as Lease);
});

afterAll(async () => {
  await deleteNamespace(kube, ns);
});

describe('a Lease renewed 50 times a second', () => {
  it('renewals are counted, not printed: one line for the one holder change', async () => {
    const args = (o: string[]): string[] => [`${ns}/busy`, ...o, '--for', '8s', '--kubeconfig', cluster().kubeconfigPath];
    const table = startCli(createLeaseWatchProgram, args(['-o', 'table']));
    const nd = startCli(createLeaseWatchProgram, args(['-o', 'ndjson']));
    const json = startCli(createLeaseWatchProgram, args(['-o', 'json']));
    await eventually('every watch to sync', async () => [table, nd, json].every((c) => /synced \d+ leases?/.test(c.stderr())));

    // Renewals by holder a, paced at 50 a second, then holder b takes over.
    let lease = (await leases.get(ns, 'busy'))!;
    const start = Date.now();
    for (let i = 0; i < RENEWALS; i++) {
      lease = await leases.update({ ...lease, spec: { ...lease.spec, renewTime: microNow() } });
      const due = start + ((i + 1) * 1000) / PER_SECOND;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    }
    await leases.update({ ...lease, spec: { ...lease.spec, holderIdentity: 'b', acquireTime: microNow(), renewTime: microNow(), leaseTransitions: 1 } });

    const [t, n, j] = await Promise.all([table.done, nd.done, json.done]);
    for (const r of [t, n, j]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/^\s+at /m);
    }
    // ndjson: the holder change alone.
    const changes = n.stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as LeaseChange);
    expect(changes.map((c) => c.holder)).toEqual(['b']);
    // table: the snapshot, then one change line, not one per renewal.
    const changeLines = t.stdout.split('\n').filter((l) => /^\d\d:\d\d:\d\d/.test(l));
    expect(changeLines, t.stdout).toHaveLength(1);
    expect(changeLines[0]).toContain('b');
    expect(t.stdout.split('\n').length).toBeLessThan(20);
    // json: each holder is one tenure, however often it renewed.
    const view = JSON.parse(j.stdout) as LeaseWatchView;
    const row = view.leases.find((l) => l.name === 'busy')!;
    expect(row.history.map((h) => h.holder)).toEqual(['a', 'b']);
    // Every renewal counted: each was made after the watch synced, and a watch delivers every
    // version (renewsSeen counts new renewTimes at their full precision; validity, as client-go
    // judges it, moves only once a second, see HolderTenure.renewsSeen).
    expect(row.history[0]!.renewsSeen).toBe(RENEWALS);
    expect(row.history[1]!.renewsSeen).toBe(0);
  });
});
