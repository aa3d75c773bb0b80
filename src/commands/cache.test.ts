import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../tools/testing/cli.js';
import { ATTACKS, controlsIn, HOSTILE, HOSTILE_SHOWN } from '../../tools/testing/hostile.js';
import { startLoopbackServer, type LoopbackServer } from '../../tools/testing/http-server.js';
import { createInformerTraceProgram } from './informer-trace.js';

/** Flags are checked before any connection: a kubeconfig that does not exist is never read. */
const NO_CLUSTER = ['--kubeconfig', '/nonexistent/kubeconfig'];

describe('cache flags', () => {
  for (const [args, message] of [
    [['--watch', '-o', 'table'], /--watch streams deltas: use it with -o ndjson \(-o table prints the cache once\)/],
    [['--watch'], /--watch streams deltas: use it with -o ndjson/],
    [['--verify-every', '10s'], /--verify-every compares while watching: add --watch or --for DURATION/],
    [['--verify-every', '0s', '--watch', '-o', 'ndjson'], /--verify-every must be a positive duration, e.g. 30s/],
    [['--resync', 'soon'], /--resync: /],
  ] as const) {
    it(`${args.join(' ')}: one error line, exit 2`, async () => {
      const r = await runCli(createInformerTraceProgram, ['cache', 'configmaps', ...args, ...NO_CLUSTER]);
      expect(r.code).toBe(2);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(errors, r.stderr).toHaveLength(1);
      expect(errors[0]).toMatch(message);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.stdout).toBe('');
    });
  }
});

describe('cache against an API server whose objects hold escape sequences', () => {
  // Discovery of the core group, then the same ConfigMaps for every list; every watch is held open.
  const items = [{ metadata: { namespace: 'demo', name: `x${HOSTILE}`, resourceVersion: '5', labels: { app: `v${ATTACKS.csi}` } } }];
  let server: LoopbackServer;
  let dir: string;
  let kubeconfig: string;
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (url.searchParams.has('watch')) return;
      const body =
        url.pathname === '/api'
          ? { kind: 'APIVersions', versions: ['v1'] }
          : url.pathname === '/apis'
            ? { kind: 'APIGroupList', apiVersion: 'v1', groups: [] }
            : url.pathname === '/api/v1'
              ? {
                  kind: 'APIResourceList',
                  groupVersion: 'v1',
                  resources: [
                    { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['list', 'watch', 'get'], shortNames: ['cm'] },
                  ],
                }
              : { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items };
      res.end(JSON.stringify(body));
    });
    dir = mkdtempSync(join(tmpdir(), 'cache-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server.base}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u, namespace: demo}}]\ncurrent-context: x\n`,
    );
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // HOME and XDG_CACHE_HOME in the test's folder: nothing of the discovery is kept elsewhere.
  const cache = (output: string) =>
    runCli(createInformerTraceProgram, ['cache', 'configmaps', '-o', output, '--index', 'app=metadata.labels.app', '--kubeconfig', kubeconfig], {
      CI: 'true',
      HOME: dir,
      XDG_CACHE_HOME: dir,
    });

  it('-o table and -o name show names and index values escaped', async () => {
    const table = await cache('table');
    expect(table.code, table.stderr).toBe(0);
    expect(controlsIn(table.stdout)).toEqual([]);
    expect(table.stdout).toContain(`x${HOSTILE_SHOWN}`);
    expect(table.stdout).toContain('v\\u009b31m');
    const names = await cache('name');
    expect(names.stdout).toBe(`configmap/x${HOSTILE_SHOWN}\n`);
  });

  it('-o json and -o yaml give them exactly', async () => {
    for (const output of ['json', 'yaml']) {
      const r = await cache(output);
      expect(r.code, r.stderr).toBe(0);
      const { parse } = await import('yaml');
      const list = parse(r.stdout) as {
        items: { metadata: { name: string; labels: Record<string, string> } }[];
        indexes: Record<string, Record<string, string[]>>;
      };
      expect(list.items[0]!.metadata).toMatchObject({ name: `x${HOSTILE}`, labels: { app: `v${ATTACKS.csi}` } });
      expect(list.indexes.app).toEqual({ [`v${ATTACKS.csi}`]: [`demo/x${HOSTILE}`] });
    }
  });
});
