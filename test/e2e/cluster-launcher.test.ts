/**
 * The launcher's failure paths: no Go toolchain, a failed build, a component that exits at start.
 * Each must give one clear line naming what failed and where its log is, a non-zero exit, and leave
 * nothing running. And the shared control plane's leader election: client-go's own (no
 * CoordinatedLeaderElection gate, LeaseCandidate not served), as its state records, and a reused
 * cluster recorded with coordinated election restarted without it. (A control plane of its own with
 * coordinated election: coordinated-election.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COORDINATED_LEADER_ELECTION_FLAGS, LocalCluster, type ComponentName } from '../../tools/cluster/launcher.js';
import { leaseCandidateResource } from '../../src/kube/index.js';
import { adminKube, cluster, clusterHealthy, publishedInstanceLeads } from './helpers.js';
import { repoRoot } from '../../tools/root.js';

const cli = join(repoRoot, 'build', 'tools', 'cluster', 'cli.js');

function run(env: NodeJS.ProcessEnv, args = ['up']): { code: number; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 240_000 });
  return { code: r.status ?? -1, stderr: r.stderr, stdout: r.stdout };
}

/** Every folder a test made, removed when the file is done. */
const made: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function pgrep(pattern: string): string {
  return spawnSync('pgrep', ['-af', pattern], { encoding: 'utf8' }).stdout.trim();
}

describe('local control plane launcher failures', () => {
  it('without a Go toolchain: says so and exits non-zero', () => {
    const cache = tempDir('it-nogo-');
    const dir = tempDir('it-nogo-cluster-');
    const nodeDir = dirname(process.execPath);
    const r = run({ INFORMER_TRACE_CACHE: cache, INFORMER_TRACE_CLUSTER_DIR: dir, PATH: `${nodeDir}:/usr/bin:/bin` });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/no Go toolchain on PATH/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('a failed build: names the component and its build log', () => {
    const cache = tempDir('it-badbuild-');
    const dir = tempDir('it-badbuild-cluster-');
    const r = run({ INFORMER_TRACE_CACHE: cache, INFORMER_TRACE_CLUSTER_DIR: dir, ETCD_VERSION: 'v3.0.0-does-not-exist' });
    expect(r.code).not.toBe(0);
    const line = r.stderr.split('\n').find((l) => l.includes('did not build'));
    expect(line).toMatch(/etcd v3\.0\.0-does-not-exist did not build; see .*build-logs\/etcd\.log/);
    const log = /see (\S+)/.exec(line!)![1]!;
    expect(existsSync(log)).toBe(true);
  });

  it('a component that exits at start: names it and its log, and stops what it had started', () => {
    // A cache holding the real binaries except a kube-scheduler that fails at once.
    const realBin = cluster().binDir;
    const versionDir = realBin.split('/').at(-2)!;
    const cache = tempDir('it-crash-');
    const bin = join(cache, versionDir, 'bin');
    mkdirSync(bin, { recursive: true });
    for (const b of readdirSync(realBin)) if (b !== 'kube-scheduler') symlinkSync(join(realBin, b), join(bin, b));
    writeFileSync(join(bin, 'kube-scheduler'), '#!/bin/sh\necho "E1130 fake failure: unknown flag" >&2\nexit 3\n');
    chmodSync(join(bin, 'kube-scheduler'), 0o755);
    symlinkSync(join(realBin, '..', 'kwok-stages'), join(cache, versionDir, 'kwok-stages'));
    const dir = tempDir('it-crash-cluster-');
    const r = run({ INFORMER_TRACE_CACHE: cache, INFORMER_TRACE_CLUSTER_DIR: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(new RegExp(`kube-scheduler exited at start \\(code 3\\); log: ${dir}/logs/kube-scheduler\\.log`));
    // Nothing of that cluster is left running: its data folder name appears in no process.
    expect(pgrep(dir)).toBe('');
    expect(existsSync(join(dir, 'logs', 'kube-scheduler.log'))).toBe(true);
  });
});

function argvOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
}

const electing = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const satisfies readonly ComponentName[];

function expectClassic(c: LocalCluster): void {
  expect(c.leaderElection).toBeUndefined();
  expect(c.leaderElectionMode).toBe('classic');
  for (const name of electing) {
    const argv = argvOf(c.pid(name)!);
    expect(
      argv.filter((a) => a.startsWith('--feature-gates') || a.startsWith('--runtime-config')),
      name,
    ).toEqual([]);
  }
}

describe("the shared local control plane runs client-go's own leader election", () => {
  it('with no CoordinatedLeaderElection gate and LeaseCandidate not served, as its state records', async () => {
    const c = cluster();
    expectClassic(c);
    expect(await leaseCandidateResource(adminKube().discovery)).toBeUndefined();
  });

  it('a reused cluster whose state records coordinated leader election is restarted without it, not taken for one that has it', async () => {
    const c = cluster();
    const file = join(c.dir, 'state.json');
    const state = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const before = Object.fromEntries(electing.map((n) => [n, c.pid(n)]));
    // As a cluster started with coordinated leader election.
    state.leaderElection = { ...COORDINATED_LEADER_ELECTION_FLAGS };
    writeFileSync(file, JSON.stringify(state, null, 2));
    const reused = LocalCluster.attach(c.dir, () => undefined)!;
    expect(reused.leaderElectionMode).toBe('coordinated');
    try {
      expect(await reused.ensureLeaderElection('classic')).toBe(true);
    } finally {
      // Whatever happened, the next test finds the cluster healthy, the restarted instances leading.
      await clusterHealthy(adminKube());
      await publishedInstanceLeads('kube-controller-manager');
      await publishedInstanceLeads('kube-scheduler');
    }
    const again = LocalCluster.attach(c.dir, () => undefined)!;
    expectClassic(again);
    for (const n of electing) expect(again.pid(n), n).not.toBe(before[n]);
    // Recorded now: a second look restarts nothing.
    expect(await again.ensureLeaderElection('classic')).toBe(false);
  });
});
