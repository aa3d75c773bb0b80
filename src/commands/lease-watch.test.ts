import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../testing/cli.js';
import { UsageError } from '../errors.js';
import type { MetricsSnapshot } from '../metrics/index.js';
import { createLeaseWatchProgram, metricsInput, parseLeaseArg } from './lease-watch.js';

function run(argv: string[], env: NodeJS.ProcessEnv = { CI: 'true' }): Promise<CliResult> {
  // No cluster: every case here must fail before a request; a kubeconfig that does not exist proves it.
  return runCli(createLeaseWatchProgram, [...argv, '--kubeconfig', '/nonexistent/kubeconfig'], env);
}

describe('kubectl lease-watch: input checked before any request', () => {
  it.each([
    [['-A', '-n', 'kube-system'], '--namespace and --all-namespaces cannot be used together'],
    [['kube-system/x', '-A'], 'a Lease name and --all-namespaces cannot be used together'],
    [['kube-system/x', '-n', 'default'], 'the Lease kube-system/x is not in namespace default (-n)'],
    [['a/b/c'], '"a/b/c" is not a Lease'],
    [['Kube-System/x'], '"Kube-System" in "Kube-System/x" is not a namespace name'],
    [['kube-system/X_y'], '"X_y" is not a Lease name'],
    [['x', '-l', 'app=a'], 'a Lease name and --selector cannot be used together'],
    [['--for', '10'], '--for: invalid duration "10"'],
    [['--since', '0'], '--since must be a positive duration'],
    [['-o', 'json', '-w'], '--watch does not apply to -o json'],
    [['-o', 'tui'], '-o tui needs a terminal: stdout is not one'],
    [['--metrics', 'deploy/kube-system/x'], '--metrics "deploy/kube-system/x": not a form this tool reads'],
    [['--metrics', 'apiserver', '--metrics-interval', '0'], '--metrics-interval must be a positive duration'],
  ])('%j → exit 2: %s', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: ${message}`);
  });

  it('an unknown output format is refused by commander with the choices', async () => {
    const r = await run(['-o', 'yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("argument 'yaml' is invalid. Allowed choices are tui, table, json, ndjson.");
  });

  it('valid input gets as far as the kubeconfig', async () => {
    const r = await run(['kube-system/kube-controller-manager', '-o', 'ndjson', '--for', '1s', '--since', '10m']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/kubeconfig/);
  });

  it('--help lists the modes and examples', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('-o, --output <format>');
    expect(r.stdout).toContain('kubectl lease-watch kube-system/kube-controller-manager -o ndjson --for 2m');
  });
});

describe('parseLeaseArg', () => {
  it('reads NAME, NAMESPACE/NAME and kubectl’s lease/NAME', () => {
    expect(parseLeaseArg('kube-controller-manager')).toEqual({ namespace: undefined, name: 'kube-controller-manager' });
    expect(parseLeaseArg('kube-system/kube-scheduler')).toEqual({ namespace: 'kube-system', name: 'kube-scheduler' });
    expect(parseLeaseArg('lease/kube-scheduler')).toEqual({ namespace: undefined, name: 'kube-scheduler' });
    expect(parseLeaseArg('leases.coordination.k8s.io/kube-scheduler')).toEqual({ namespace: undefined, name: 'kube-scheduler' });
    expect(() => parseLeaseArg('')).toThrow(UsageError);
  });
});

describe('metricsInput', () => {
  it('takes leader_election_master_status rows from each source, and why a source failed', () => {
    const snapshot = {
      seq: 2,
      atMs: 0,
      intervalMs: 2_000,
      sources: [
        { source: 'a', ok: true, stale: false, error: null, kind: null, hint: null, stats: { leaderElection: [{ name: 'kube-scheduler', isLeader: true, value: 1 }] } },
        { source: 'b', ok: false, stale: false, error: 'TLS failed', kind: 'tls', hint: 'skip verification', stats: null },
      ],
    } as unknown as MetricsSnapshot;
    expect(metricsInput(snapshot)).toEqual([
      { source: 'a', ok: true, stale: false, error: null, leaderElection: [{ name: 'kube-scheduler', isLeader: true, value: 1 }] },
      { source: 'b', ok: false, stale: false, error: 'TLS failed (skip verification)', leaderElection: null },
    ]);
  });
});
