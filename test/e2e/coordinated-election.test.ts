/**
 * Coordinated leader election (KEP-4355) on a control plane of its own, started here in a temporary
 * folder and stopped at the end, beside the shared one (which keeps client-go's own election): the
 * launcher runs kube-apiserver with the CoordinatedLeaderElection gate and
 * coordination.k8s.io/v1beta1 served, and both electing components with the gate, as its state
 * records. On it: the kube-controller-manager and kube-scheduler Leases under the strategy
 * OldestEmulationVersion with their LeaseCandidates (identity, binary and emulation version, ping
 * and renew) and why each holder holds, as `lease-watch` shows them (-o json, the table, the TUI)
 * and `top`; a LeaseCandidate RBAC refuses, said once; deploy/'s reader role reading them; and two
 * client-go candidates (test/fixtures/coordinated-candidate) under the API server's election
 * controller, the leader of which stops standing and releases its Lease on SIGTERM: a release with
 * its gap, then the other candidate elected, never an expiry.
 *
 * No kill of a leader here: after a SIGKILL, kube-apiserver 1.37's election controller can wait
 * for another event before it hands the Lease over, so the time to a new holder is not bounded.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COORDINATED_LEADER_ELECTION_FLAGS,
  LocalCluster,
  processesMentioning,
  readerNamespace,
  restrictedUsers,
  type ComponentName,
} from '../../tools/cluster/launcher.js';
import { stopPid } from '../../tools/cluster/process.js';
import { repoRoot } from '../../tools/root.js';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { createLeaseWatchProgram } from '../../src/commands/lease-watch.js';
import { ApiLeaseClient, connect, leaseCandidateResource, type Kube } from '../../src/kube/index.js';
import { ELECTION_DURATION_MS, OLDEST_EMULATION_VERSION } from '../../src/lease/index.js';
import type { CandidateRow, LeaseChange, LeaseWatchView } from '../../src/view/lease-view.js';
import type { TopView } from '../../src/view/top-view.js';
import { cluster, createNamespace, eventually, ndjsonLines, runCli, startCli } from './helpers.js';
import { buildFixture, startOperators, type Operators } from './operators.js';
import { closeTerminals, Terminal, tmuxInstalled } from './terminal.js';

/** The version the control plane is built at (scripts/build-control-plane.sh). */
const BINARY_VERSION = '1.37.2';
const EMULATION_VERSION = /^1\.37(\.0)?$/;
/**
 * The election controller looks at a Lease again every 5 s when nothing changes; an election pings
 * the candidates that have not renewed within 5 s and waits up to ELECTION_DURATION_MS for them.
 */
const ELECTION_MS = 5_000 + 2 * ELECTION_DURATION_MS;
const electing = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const satisfies readonly ComponentName[];

const dir = mkdtempSync(join(tmpdir(), 'informer-trace-cle-'));
let cle: LocalCluster | undefined;
let kube: Kube;
let kubeconfig: string;
/** The client-go candidate, built (or found in the cache) before the tests: a cold build takes minutes. */
let candidate: string;

function plane(): LocalCluster {
  if (!cle) throw new Error('the coordinated control plane did not start');
  return cle;
}

/** A kube-controller-manager or kube-scheduler candidate as the control plane registers it. */
function expectComponentCandidate(c: CandidateRow): void {
  expect(c.identity).toMatch(/_[0-9a-f-]{36}$/);
  expect(c.binaryVersion).toBe(BINARY_VERSION);
  expect(c.emulationVersion).toMatch(EMULATION_VERSION);
  expect(c.strategy).toBe(OLDEST_EMULATION_VERSION);
  expect(['ready', 'pinged']).toContain(c.state);
  // It renewed at registration at least; a ping only comes with an election that needs it.
  expect(c.renewTime).not.toBeNull();
  expect(c.renewAgeMs).not.toBeNull();
  expect(c.pingAgeMs === null).toBe(c.pingTime === null);
}

async function leaseView(args: string[]): Promise<LeaseWatchView> {
  const r = await runCli(createLeaseWatchProgram, [...args, '-o', 'json', '--kubeconfig', kubeconfig]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as LeaseWatchView;
}

/** Both components' Leases held by their preferred holder: right after start the controller may still be electing. */
function settled(): Promise<LeaseWatchView> {
  return eventually(
    'the kube-controller-manager and kube-scheduler Leases to be held by their preferred holders',
    async () => {
      const v = await leaseView(['-n', 'kube-system']);
      const ok = ['kube-controller-manager', 'kube-scheduler'].every((n) => v.leases.find((l) => l.name === n)?.election?.verdict === 'holder preferred');
      return ok && v;
    },
    60_000,
    1_000,
  );
}

beforeAll(async () => {
  if (!tmuxInstalled()) throw new Error('the TUI steps need tmux on PATH (apt-get install -y tmux)');
  candidate = await buildFixture(join(repoRoot, 'test', 'fixtures', 'coordinated-candidate', 'build.sh'), 'the coordinated candidate');
  cle = await LocalCluster.up({ dir, leaderElection: 'coordinated', nodes: 1, log: () => undefined });
  kubeconfig = cle.kubeconfigPath;
  kube = connect({ kubeconfig });
});

afterAll(async () => {
  closeTerminals();
  // Always, the folder with it. A start that failed has stopped what it started and kept the logs;
  // nothing naming the folder may still run.
  if (cle) await cle.down();
  else {
    await Promise.all(processesMentioning(dir).map((pid) => stopPid(pid, 10_000)));
    process.stderr.write(`the coordinated control plane did not start; its logs: ${join(dir, 'logs')}\n`);
  }
});

describe('a control plane of its own with coordinated leader election', () => {
  it('runs the gate on kube-apiserver, kube-controller-manager and kube-scheduler and serves LeaseCandidate, as its state records, beside the shared one', async () => {
    const c = plane();
    expect(c.leaderElection).toEqual(COORDINATED_LEADER_ELECTION_FLAGS);
    expect(c.leaderElectionMode).toBe('coordinated');
    for (const name of electing) {
      const argv = readFileSync(`/proc/${c.pid(name)!}/cmdline`, 'utf8').split('\0');
      expect(argv, name).toContain('--feature-gates=CoordinatedLeaderElection=true');
      if (name === 'kube-apiserver') expect(argv).toContain('--runtime-config=coordination.k8s.io/v1beta1=true');
    }
    expect(await leaseCandidateResource(kube.discovery)).toMatchObject({
      group: 'coordination.k8s.io',
      version: 'v1beta1',
      resource: 'leasecandidates',
      namespaced: true,
    });
    // The shared control plane runs as it did, on other ports (a second kube-controller-manager's is
    // only taken while it runs).
    const shared = cluster();
    expect(shared.leaderElectionMode).toBe('classic');
    expect(shared.dir).not.toBe(c.dir);
    const listening = (p: LocalCluster['ports']): number[] => [p.etcd, p.etcdPeer, p.apiserver, p.kcm, p.scheduler, p.kwok];
    expect(listening(c.ports).filter((p) => listening(shared.ports).includes(p))).toEqual([]);
  });

  it('lease-watch: kube-controller-manager and kube-scheduler stand as LeaseCandidates, each holder the preferred one, in json and in the table', async () => {
    const view = await settled();
    expect(view.candidates).toEqual({ access: 'watched', error: null });
    for (const name of ['kube-controller-manager', 'kube-scheduler']) {
      const lease = view.leases.find((l) => l.name === name)!;
      expect(lease.strategy, name).toBe(OLDEST_EMULATION_VERSION);
      expect(lease.election).toMatchObject({ strategy: OLDEST_EMULATION_VERSION, first: lease.holder, verdict: 'holder preferred' });
      expect(lease.election!.reason).toMatch(/^holder is the preferred holder \(OldestEmulationVersion: emulation 1\.37(\.0)?, binary 1\.37\.2/);
      expect(lease.candidates!.length).toBeGreaterThanOrEqual(1);
      const mine = lease.candidates!.find((x) => x.holder)!;
      expect(mine.identity).toBe(lease.holder);
      expect(mine.first).toBe(true);
      expectComponentCandidate(mine);
      // The API server's election controller wrote the holder: coordinated, it counts no transition.
      expect(lease.transitions).toBe(0);
    }

    const table = await runCli(createLeaseWatchProgram, ['-n', 'kube-system', '--kubeconfig', kubeconfig]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stderr).not.toContain('candidates');
    expect(table.stdout).toMatch(/^LEASE\s+HOLDER\s+STATE\s+RENEWED\s+ACQUIRED\s+TRANSITIONS\s+HELD\s+STRATEGY\s+CANDIDATES\b/m);
    expect(table.stdout).toMatch(/^kube-system\/kube-scheduler\s+\S+\s+(valid|expiring)\s.*\sOldestEmulationVersion\s+1: 1 (ready|pinged)/m);
    for (const name of ['kube-controller-manager', 'kube-scheduler']) {
      const holder = view.leases.find((l) => l.name === name)!.holder!;
      const block = table.stdout.slice(table.stdout.indexOf(`\nkube-system/${name}:\n`));
      expect(block, table.stdout).toMatch(/^ {2}election: holder is the preferred holder \(OldestEmulationVersion: emulation 1\.37(\.0)?, binary 1\.37\.2/m);
      expect(block).toMatch(/^ {2}candidates \(\d+\):$/m);
      const candidateRow = new RegExp(
        `^ {4}${holder} · binary 1\\.37\\.2 · emulation 1\\.37(\\.0)? · OldestEmulationVersion · (ready|pinged) · pinged (never|\\S+ ago) · renewed \\S+ ago · \\(holder\\)$`,
        'm',
      );
      expect(block).toMatch(candidateRow);
    }
  });

  it('top: the components carry their Leases with the candidates and the election, and the API server leads the election controller', async () => {
    await settled();
    const r = await runCli(createInformerTraceProgram, ['top', '-o', 'json', '--interval', '2s', '--kubeconfig', kubeconfig]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('error');
    const view = JSON.parse(r.stdout) as TopView;
    expect(view.candidates).toEqual({ access: 'watched', error: null });
    for (const key of ['kube-system/kube-controller-manager', 'kube-system/kube-scheduler']) {
      const comp = view.components.find((x) => x.key === key)!;
      expect(comp, r.stdout).toBeDefined();
      expect(comp.lease!.strategy).toBe(OLDEST_EMULATION_VERSION);
      expect(comp.lease!.election).toMatchObject({ verdict: 'holder preferred', first: comp.lease!.holder });
      const mine = comp.lease!.candidates!.find((x) => x.holder)!;
      expect(mine.identity).toBe(comp.lease!.holder);
      expectComponentCandidate(mine);
      expect(comp.replicas.find((x) => x.role === 'leader')).toMatchObject({ state: 'ok', roleBecause: 'leader_election_master_status 1' });
    }
    // The API server runs the election controller under a Lease of its own, which its
    // leader_election_master_status names: it is that Lease's component, and its leader.
    const api = view.components.find((x) => x.replicas.some((s) => s.source === 'apiserver'))!;
    expect(api.key).toBe('kube-system/leader-election-controller');
    expect(api.replicas[0]).toMatchObject({ source: 'apiserver', state: 'ok', role: 'leader', roleBecause: 'leader_election_master_status 1' });

    const table = await runCli(createInformerTraceProgram, ['top', '-o', 'table', '--interval', '2s', '--kubeconfig', kubeconfig]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ {4}election: holder is the preferred holder \(OldestEmulationVersion: emulation 1\.37(\.0)?, binary 1\.37\.2/m);
    expect(table.stdout).toMatch(
      /^ {6}\S+_[0-9a-f-]{36} · binary 1\.37\.2 · emulation 1\.37(\.0)? · OldestEmulationVersion · (ready|pinged) · .* · \(holder\)$/m,
    );
  });

  it('lease-watch on a terminal: the strategy, why the holder holds, the candidates with their versions, and the CAND and STRATEGY columns', async () => {
    await settled();
    const t = Terminal.start('cle-leases', 80, 24, ['bin/kubectl-lease_watch', '-n', 'kube-system', '-o', 'tui', '--kubeconfig', kubeconfig]);
    try {
      let s = await t.waitFor(/─ Leader leases · [1-9]/);
      t.keys('/');
      t.type('scheduler');
      t.keys('Enter');
      await t.waitFor(/─ Leader leases · 1 of \d+/);
      t.keys('Enter');
      s = await t.waitFor('─ Lease ');
      expect(s).toMatch(/^kube-system\/kube-scheduler$/m);
      expect(s).toMatch(/^strategy {5}OldestEmulationVersion$/m);
      expect(s).toMatch(/^election: holder is the preferred holder/m);
      // The candidates close the detail: G scrolls to them.
      t.keys('G');
      s = await t.waitFor(/^candidates \(\d+\):$/m);
      expect(s).toMatch(/^ {2}\S+ · binary 1\.37\.2 · emulation 1\.37(\.0)? ·/m);
      t.keys('Escape');
      t.keys('Escape');
      t.resize(160, 45);
      s = await t.waitFor(
        (screen) => screen.split('\n').some((l) => l.startsWith('─ Leader leases') && [...l].length > 100) && / CAND +STRATEGY$/m.test(screen),
      );
      expect(s).toMatch(/^kube-system\/kube-controller-manager +\S+ +valid .* [1-9]\d*\/\d+ +OldestEmulationVersion/m);
      t.keys('q');
      await t.waitFor(/^EXIT \d+/m);
      expect(t.history()).toMatch(/^EXIT 0$/m);
    } finally {
      t.close();
    }
  });

  it('LeaseCandidates refused by RBAC: "candidates: not permitted", said once, and the Leases shown as before', async () => {
    const RBAC = `/apis/rbac.authorization.k8s.io/v1/namespaces/${readerNamespace}`;
    const name = 'it-leases-only';
    // The namespace reader may list and watch Leases there, and nothing of LeaseCandidates.
    await kube.client.json(`${RBAC}/roles`, {
      method: 'POST',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name },
        rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list', 'watch'] }],
      },
    });
    await kube.client.json(`${RBAC}/rolebindings`, {
      method: 'POST',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: restrictedUsers.namespaceReader.user }],
      },
    });
    const now = new Date().toISOString().replace('Z', '000Z');
    await new ApiLeaseClient(kube.client).create({
      metadata: { namespace: readerNamespace, name },
      spec: { holderIdentity: 'someone', leaseDurationSeconds: 3600, renewTime: now, acquireTime: now },
    });
    const r = await eventually(
      'the Role to take effect',
      async () => {
        const x = await runCli(createLeaseWatchProgram, ['-n', readerNamespace, '-o', 'json', '--kubeconfig', plane().namespaceReaderKubeconfig]);
        return x.code !== 3 && x;
      },
      30_000,
      500,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.includes('candidates'))).toEqual([
      `candidates: not permitted (forbidden: user "${restrictedUsers.namespaceReader.user}" may not list leasecandidates.coordination.k8s.io in namespace ${readerNamespace} (403))`,
    ]);
    const view = JSON.parse(r.stdout) as LeaseWatchView;
    expect(view.candidates.access).toBe('not permitted');
    expect(view.leases.find((l) => l.name === name)).toMatchObject({ holder: 'someone', state: 'valid', candidates: null, election: null });
  });

  it("deploy/rbac-reader.yaml's role reads the LeaseCandidates, and nothing is said about them", async () => {
    const docs = parseAllDocuments(readFileSync(join(repoRoot, 'deploy', 'rbac-reader.yaml'), 'utf8'));
    const role = (docs[0] as { toJS(): unknown }).toJS() as { metadata: { name: string } };
    await kube.client.json('/apis/rbac.authorization.k8s.io/v1/clusterroles', { method: 'POST', body: role });
    await kube.client.json('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      method: 'POST',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'it-noaccess-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: restrictedUsers.noAccess.user }],
      },
    });
    const r = await eventually(
      'the ClusterRoleBinding to take effect',
      async () => {
        const x = await runCli(createLeaseWatchProgram, ['kube-system/kube-scheduler', '-o', 'json', '--kubeconfig', plane().noAccessKubeconfig]);
        return x.code !== 3 && x;
      },
      30_000,
      500,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('candidates');
    const view = JSON.parse(r.stdout) as LeaseWatchView;
    expect(view.candidates.access).toBe('watched');
    expect(view.leases[0]!.candidates!.find((x) => x.holder)?.identity).toBe(view.leases[0]!.holder);
  });

  it('a client-go candidate that leads stops standing and releases on SIGTERM: a release with its gap, the other candidate elected, no expiry', async () => {
    const ns = 'it-coordinated';
    const lease = 'fixture';
    await createNamespace(kube, ns);
    const binary = candidate;
    const start = (identity: string): Promise<Operators> =>
      startOperators({
        name: 'coordinated-candidate',
        binary,
        replicas: 1,
        lease: { namespace: ns, name: lease },
        identities: [identity],
        waitForMetrics: false,
        args: () => ['--kubeconfig', kubeconfig, '--namespace', ns, '--lease', lease, '--identity', identity],
      });
    const started: Operators[] = [];
    try {
      // The first to register is elected (the Lease is created for it), and stays first by the strategy:
      // same versions, registered first.
      const a = await start('candidate-a');
      started.push(a);
      await eventually(
        'candidate-a to be elected and lead',
        async () => (await a.holder(kube)) === 'candidate-a' && a.replicas[0]!.output().includes(' leading'),
        60_000,
      );
      // creationTimestamp has whole seconds: the second candidate registers in a later one, so that
      // the election controller ranks them as we do.
      const registered = await kube.client.json<{ metadata: { creationTimestamp: string } }>(
        `/apis/coordination.k8s.io/v1beta1/namespaces/${ns}/leasecandidates/candidate-a`,
      );
      await eventually('a second after candidate-a registered', async () => Date.now() > Date.parse(registered.metadata.creationTimestamp) + 1_100, 5_000, 50);
      const b = await start('candidate-b');
      started.push(b);
      const before = await eventually(
        'both candidates to stand',
        async () => {
          const v = await leaseView([`${ns}/${lease}`]);
          return v.leases[0]?.candidates?.length === 2 && v;
        },
        30_000,
        500,
      );
      const l = before.leases[0]!;
      expect(l).toMatchObject({ holder: 'candidate-a', strategy: OLDEST_EMULATION_VERSION });
      expect(l.election).toMatchObject({ verdict: 'holder preferred', first: 'candidate-a' });
      expect(l.election!.reason).toBe(
        'holder is the preferred holder (OldestEmulationVersion: emulation 1.37.0, binary 1.37.2; registered first of 2 with those versions)',
      );
      expect(l.candidates!.map((x) => [x.identity, x.binaryVersion, x.emulationVersion, x.strategy, x.holder, x.first])).toEqual([
        ['candidate-a', '1.37.2', '1.37.0', OLDEST_EMULATION_VERSION, true, true],
        ['candidate-b', '1.37.2', '1.37.0', OLDEST_EMULATION_VERSION, false, false],
      ]);

      const live = startCli(createLeaseWatchProgram, [`${ns}/${lease}`, '-o', 'ndjson', '--for', '20s', '--kubeconfig', kubeconfig]);
      await eventually('lease-watch to sync', async () => live.stderr().includes('streaming holder changes'), 30_000, 50);
      const stoppedAt = Date.now();
      await a.stop();
      const stoppedBy = Date.now();
      expect(await a.replicas[0]!.exited).toBe(0);
      const steps = a.replicas[0]!.output();
      const at = (step: string): number => steps.indexOf(` ${step}\n`);
      expect(at('candidate withdrawn'), steps).toBeGreaterThan(at('leading'));
      expect(at('stopped leading'), steps).toBeGreaterThan(at('candidate withdrawn'));
      expect(at('done'), steps).toBeGreaterThan(at('stopped leading'));
      const r = await live.done;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('error');
      const changes = ndjsonLines<LeaseChange>(r.stdout);
      // A release is not an expiry: the holder cleared by the holder, and none reported expired.
      expect(
        changes.map((ch) => ch.type),
        r.stdout,
      ).toEqual(['released', 'acquired']);
      const [released, acquired] = changes as [LeaseChange, LeaseChange];
      expect(released).toMatchObject({ role: 'leader', namespace: ns, name: lease, holder: 'candidate-a', transitions: 0 });
      expect(Date.parse(released.at)).toBeGreaterThanOrEqual(stoppedAt - 1_000);
      expect(Date.parse(released.at)).toBeLessThanOrEqual(stoppedBy + 1_000);
      expect(released.heldForMs).toBeGreaterThan(0);
      // The election controller elects the candidate left (it pings it first when it has not
      // renewed lately), and the acquisition says after what, with the gap from the release.
      expect(acquired).toMatchObject({
        holder: 'candidate-b',
        previousHolder: 'candidate-a',
        previousEndReason: 'released',
        strategy: OLDEST_EMULATION_VERSION,
        transitions: 0,
      });
      expect(acquired.candidates!.find((x) => x.holder)?.identity).toBe('candidate-b');
      expect(acquired.failoverGapMs).toBe(Date.parse(acquired.at) - Date.parse(released.at));
      expect(acquired.failoverGapMs!).toBeGreaterThanOrEqual(0);
      expect(acquired.failoverGapMs!).toBeLessThan(ELECTION_MS);
      await eventually('candidate-b to lead', async () => b.replicas[0]!.output().includes(' leading'), 30_000);
      const after = await leaseView([`${ns}/${lease}`]);
      expect(after.leases[0]).toMatchObject({ holder: 'candidate-b', state: 'valid', strategy: OLDEST_EMULATION_VERSION });
      expect(after.leases[0]!.election).toMatchObject({ verdict: 'holder preferred', first: 'candidate-b' });
      // The candidate that stopped standing is gone.
      expect(after.leases[0]!.candidates!.map((x) => x.identity)).toEqual(['candidate-b']);
    } finally {
      await Promise.all(started.map((o) => o.stop()));
    }
  });
});
