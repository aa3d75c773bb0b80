import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../tools/testing/cli.js';
import { controlsIn, HOSTILE, HOSTILE_SHOWN, SHOWN } from '../../tools/testing/hostile.js';
import { startLoopbackServer, type LoopbackServer } from '../../tools/testing/http-server.js';
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
        {
          source: 'a',
          ok: true,
          stale: false,
          error: null,
          kind: null,
          hint: null,
          stats: { leaderElection: [{ name: 'kube-scheduler', isLeader: true, value: 1 }] },
        },
        { source: 'b', ok: false, stale: false, error: 'TLS failed', kind: 'tls', hint: 'skip verification', stats: null },
      ],
    } as unknown as MetricsSnapshot;
    expect(metricsInput(snapshot)).toEqual([
      { source: 'a', ok: true, stale: false, error: null, leaderElection: [{ name: 'kube-scheduler', isLeader: true, value: 1 }] },
      { source: 'b', ok: false, stale: false, error: 'TLS failed (skip verification)', leaderElection: null },
    ]);
  });
});

describe('kubectl lease-watch against an API server whose Leases hold escape sequences', () => {
  // Answers every list with the same Leases, and holds every watch open.
  const leases = [
    {
      metadata: { namespace: 'kube-system', name: `evil${HOSTILE}`, resourceVersion: '5' },
      spec: { holderIdentity: HOSTILE, leaseDurationSeconds: 15, renewTime: new Date().toISOString().replace('Z', '000Z') },
    },
  ];
  let server: LoopbackServer;
  let dir: string;
  let kubeconfig: string;
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (new URL(req.url ?? '/', server.base).searchParams.has('watch')) return;
      res.end(JSON.stringify({ kind: 'LeaseList', apiVersion: 'coordination.k8s.io/v1', metadata: { resourceVersion: '5' }, items: leases }));
    });
    dir = mkdtempSync(join(tmpdir(), 'lease-watch-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server.base}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u, namespace: kube-system}}]\ncurrent-context: x\n`,
    );
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const lw = (argv: string[]): Promise<CliResult> => runCli(createLeaseWatchProgram, [...argv, '--kubeconfig', kubeconfig], { CI: 'true' });

  it('-o table shows the name and the holder escaped', async () => {
    const r = await lw(['-n', 'kube-system', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(controlsIn(r.stdout)).toEqual([]);
    expect(r.stdout).toContain(`kube-system/evil${HOSTILE_SHOWN}`);
    expect(r.stdout.split('\n')).toHaveLength(3);
  });

  it('-o json gives them exactly', async () => {
    const r = await lw(['-n', 'kube-system', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const view = JSON.parse(r.stdout) as { leases: { name: string; holder: string }[] };
    expect(view.leases[0]).toMatchObject({ name: `evil${HOSTILE}`, holder: HOSTILE });
  });

  it('a Lease not found names the ones there, escaped', async () => {
    const r = await lw(['kube-system/missing', '-o', 'table']);
    expect(r.code).toBe(1);
    expect(controlsIn(r.stderr)).toEqual([]);
    expect(r.stderr).toContain('error: lease kube-system/missing not found');
    expect(r.stderr).toContain(SHOWN[0]);
  });
});
