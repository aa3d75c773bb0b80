/**
 * The launcher's failure paths: no Go toolchain, a failed build, a component that exits at start.
 * Each must give one clear line naming what failed and where its log is, a non-zero exit, and leave
 * nothing running.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cluster } from './helpers.js';
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
