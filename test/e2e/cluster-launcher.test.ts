/**
 * The launcher's failure paths: no Go toolchain, a failed build, a component that exits at start.
 * Each must give one clear line naming what failed and where its log is, a non-zero exit, and leave
 * nothing running. And its control plane's leader election: coordinated (the gate on kube-apiserver,
 * kube-controller-manager and kube-scheduler, LeaseCandidate served), recorded in its state, and a
 * reused cluster recorded without it restarted with it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LEADER_ELECTION_FLAGS, LocalCluster, type ComponentName } from '../../tools/cluster/launcher.js';
import { leaseCandidateResource } from '../../src/kube/index.js';
import { adminKube, cluster, clusterHealthy } from './helpers.js';
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

function expectCoordinated(c: LocalCluster): void {
  expect(c.leaderElection).toEqual(LEADER_ELECTION_FLAGS);
  for (const name of electing) {
    const argv = argvOf(c.pid(name)!);
    expect(argv, name).toContain('--feature-gates=CoordinatedLeaderElection=true');
    if (name === 'kube-apiserver') expect(argv).toContain('--runtime-config=coordination.k8s.io/v1beta1=true');
  }
}

describe('the local control plane runs coordinated leader election', () => {
  it('with the gate on every electing component and LeaseCandidate served in coordination.k8s.io/v1beta1, as its state records', async () => {
    const c = cluster();
    expectCoordinated(c);
    const kube = adminKube();
    const r = await leaseCandidateResource(kube.discovery);
    expect(r).toMatchObject({ group: 'coordination.k8s.io', version: 'v1beta1', resource: 'leasecandidates', namespaced: true });
  });

  it('a reused cluster whose state records no leader-election flags is restarted with them, not taken for one that has them', async () => {
    const c = cluster();
    const file = join(c.dir, 'state.json');
    const state = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const before = Object.fromEntries(electing.map((n) => [n, c.pid(n)]));
    // As a cluster started by a version before the flags: nothing recorded.
    delete state.leaderElection;
    writeFileSync(file, JSON.stringify(state, null, 2));
    const reused = LocalCluster.attach(c.dir, () => undefined)!;
    expect(reused.leaderElection).toBeUndefined();
    try {
      expect(await reused.ensureControlPlaneFlags()).toBe(true);
    } finally {
      // Whatever happened, the next attach sees a cluster that runs with the flags again.
      await clusterHealthy(adminKube());
    }
    const again = LocalCluster.attach(c.dir, () => undefined)!;
    expectCoordinated(again);
    for (const n of electing) expect(again.pid(n), n).not.toBe(before[n]);
    // Recorded now: a second look restarts nothing.
    expect(await again.ensureControlPlaneFlags()).toBe(false);
  });
});
