import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../tools/testing/cli.js';
import { controlsIn, HOSTILE, HOSTILE_SHOWN, SHOWN } from '../../tools/testing/hostile.js';
import { startLoopbackServer, type LoopbackServer } from '../../tools/testing/http-server.js';
import { UsageError } from '../errors.js';
import type { MetricsSnapshot } from '../metrics/index.js';
import type { LeaseWatchView } from '../view/lease-view.js';
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

describe('kubectl lease-watch against an API server that serves LeaseCandidates', () => {
  // Aggregated discovery with coordination.k8s.io v1 (Lease) and v1beta1 (LeaseCandidate); every
  // list answered at once, every watch held open; LeaseCandidates refused while `refuse` is set.
  const renew = (): string => new Date().toISOString().replace('Z', '000Z');
  let refuse = false;
  let server: LoopbackServer;
  let dir: string;
  let kubeconfig: string;
  const resource = (name: string, kind: string): Record<string, unknown> => ({
    resource: name,
    responseKind: { group: 'coordination.k8s.io', version: '', kind },
    scope: 'Namespaced',
    singularResource: name.slice(0, -1),
    verbs: ['get', 'list', 'watch'],
  });
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      const url = new URL(req.url ?? '/', server.base);
      const json = (code: number, body: unknown): void => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/api') return json(200, { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', items: [] });
      if (url.pathname === '/apis') {
        return json(200, {
          kind: 'APIGroupDiscoveryList',
          apiVersion: 'apidiscovery.k8s.io/v2',
          items: [
            {
              metadata: { name: 'coordination.k8s.io' },
              versions: [
                { version: 'v1', resources: [resource('leases', 'Lease')] },
                { version: 'v1beta1', resources: [resource('leasecandidates', 'LeaseCandidate')] },
              ],
            },
          ],
        });
      }
      if (url.searchParams.has('watch')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return;
      }
      if (url.pathname.endsWith('/leasecandidates')) {
        if (refuse) {
          return json(403, {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'Forbidden',
            code: 403,
            message: 'leasecandidates.coordination.k8s.io is forbidden: User "u" cannot list resource "leasecandidates"',
          });
        }
        return json(200, {
          kind: 'LeaseCandidateList',
          apiVersion: 'coordination.k8s.io/v1beta1',
          metadata: { resourceVersion: '7' },
          items: [
            {
              metadata: { namespace: 'kube-system', name: `kcm${HOSTILE}`, resourceVersion: '6', creationTimestamp: '2026-01-01T00:00:00Z' },
              spec: {
                leaseName: 'kube-controller-manager',
                binaryVersion: '1.37.2',
                emulationVersion: '1.37.0',
                strategy: 'OldestEmulationVersion',
                renewTime: renew(),
              },
            },
          ],
        });
      }
      return json(200, {
        kind: 'LeaseList',
        apiVersion: 'coordination.k8s.io/v1',
        metadata: { resourceVersion: '5' },
        items: [
          {
            metadata: { namespace: 'kube-system', name: 'kube-controller-manager', resourceVersion: '5' },
            spec: { holderIdentity: `kcm${HOSTILE}`, leaseDurationSeconds: 15, renewTime: renew(), strategy: 'OldestEmulationVersion' },
          },
        ],
      });
    });
    dir = mkdtempSync(join(tmpdir(), 'lease-watch-cle-'));
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

  it('-o json: the candidates exactly, and why the holder holds; -o table: escaped', async () => {
    refuse = false;
    const r = await lw(['-n', 'kube-system', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('candidates');
    const view = JSON.parse(r.stdout) as LeaseWatchView;
    expect(view.candidates).toEqual({ access: 'watched', error: null });
    expect(view.leases[0]!.candidates).toEqual([
      expect.objectContaining({
        identity: `kcm${HOSTILE}`,
        binaryVersion: '1.37.2',
        emulationVersion: '1.37.0',
        strategy: 'OldestEmulationVersion',
        state: 'ready',
        holder: true,
      }),
    ]);
    expect(view.leases[0]!.election).toMatchObject({ verdict: 'holder preferred', first: `kcm${HOSTILE}` });
    const t = await lw(['-n', 'kube-system', '-o', 'table']);
    expect(t.code, t.stderr).toBe(0);
    expect(controlsIn(t.stdout)).toEqual([]);
    expect(t.stdout).toContain(`  candidates (1):\n    kcm${HOSTILE_SHOWN} · binary 1.37.2 · emulation 1.37.0 · OldestEmulationVersion · ready`);
  });

  it('a 403 on LeaseCandidates: said once, the Leases shown as before, exit 0', async () => {
    refuse = true;
    for (const output of ['json', 'table', 'ndjson']) {
      const r = await lw(['-n', 'kube-system', '-o', output, ...(output === 'ndjson' ? ['--for', '1s'] : [])]);
      expect(r.code, r.stderr).toBe(0);
      const said = r.stderr.split('\n').filter((l) => l.includes('candidates'));
      expect(said).toEqual(['candidates: not permitted (forbidden: user "u" may not list leasecandidates.coordination.k8s.io in namespace kube-system (403))']);
      if (output === 'json') {
        const view = JSON.parse(r.stdout) as LeaseWatchView;
        expect(view.candidates.access).toBe('not permitted');
        expect(view.leases[0]!.holder).toBe(`kcm${HOSTILE}`);
        expect(view.leases[0]!.candidates).toBeNull();
      }
      if (output === 'table') expect(r.stdout).toMatch(/^kube-system\/kube-controller-manager +kcm\\x1b\[2J/m);
    }
  });
});
