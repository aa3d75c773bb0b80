/**
 * `cache --watch -o ndjson` and `--verify` on the real control plane:
 * - churn of labelled ConfigMaps while the stream runs: every write shows up as exactly one delta,
 *   per object in the order written, with the resourceVersion the write returned and the index
 *   values of the labels written; --verify-every during the churn and --verify after it find no
 *   difference; the one-shot print's index values match what was written;
 * - a forced 410 (etcd compacted while kube-apiserver is down, one ConfigMap removed straight from
 *   etcd meanwhile): the stream marks the relist, re-delivers every ConfigMap as Replaced and the
 *   removed one as a Deleted tombstone; --verify then agrees with the server.
 * - the live view on a real terminal (tmux, the built binary): panes within the terminal's size,
 *   index counts following new ConfigMaps, Enter on an index value narrowing the objects, q
 *   leaving the alternate screen with the summary printed once.
 * The cluster is restored (API server up, controllers running, healthy) before the file ends.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import type { KubeObject } from '../../src/kube/index.js';
import type { DeltaLine, MarkerLine, SyncedLine } from '../../src/view/cache-view.js';
import {
  adminKube,
  cluster,
  ndjsonLines,
  clusterHealthy,
  createNamespace,
  deleteNamespace,
  eventually,
  runCli,
  startCli,
  uniqueName,
  type LiveCli,
} from './helpers.js';
import { closeTerminals, Terminal } from './terminal.js';

const run = promisify(execFile);
const kube = adminKube();
const ns = uniqueName('it-cachew');
const INDEX = ['--index', 'app=metadata.labels.app'];

interface VerifyLine {
  kind: 'verify';
  resourceVersion: string;
  cached: number;
  listed: number;
  differences: unknown[];
}
type Line = DeltaLine | MarkerLine | SyncedLine | VerifyLine;

const lines = (cli: LiveCli): Line[] => ndjsonLines<Line>(cli.stdout());

const deltas = (all: Line[]): DeltaLine[] => all.filter((l): l is DeltaLine => l.kind === 'delta');

function cmPath(name?: string): string {
  return `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
}

/** What the test wrote, in order: the delta each write must produce. */
interface Write {
  type: 'Added' | 'Updated' | 'Deleted';
  key: string;
  resourceVersion: string;
  app: string | undefined;
}

describe('kubectl informer-trace cache --watch -o ndjson, --verify', () => {
  beforeAll(async () => {
    await createNamespace(kube, ns);
    for (let i = 0; i < 4; i++) await kube.client.json(cmPath(), { method: 'POST', body: { metadata: { name: `seed-${i}`, labels: { app: `a${i % 2}` } } } });
    // kube-controller-manager publishes the namespace's root CA ConfigMap on its own time; the
    // initial state below counts it.
    await eventually('kube-root-ca.crt', () => kube.client.json(cmPath('kube-root-ca.crt')).then(() => true));
  });

  afterAll(async () => {
    // A test that failed half-way may have left the API server or a controller stopped.
    if (!cluster().pid('kube-apiserver')) await cluster().startApiServer();
    for (const name of ['kube-controller-manager', 'kube-scheduler'] as const) {
      if (!cluster().pid(name)) await cluster().startComponentAgain(name);
    }
    await clusterHealthy(kube);
    await deleteNamespace(kube, ns);
  });

  it('streams the initial state, then every write once, in order, with its index values; --verify finds no difference', async () => {
    const stop = new AbortController();
    const cli = startCli(
      createInformerTraceProgram,
      ['cache', 'configmaps', '-n', ns, '--watch', '-o', 'ndjson', ...INDEX, '--verify-every', '1s', '--kubeconfig', cluster().kubeconfigPath],
      { signal: stop.signal },
    );
    const synced = await eventually('the synced line', async () => lines(cli).find((l): l is SyncedLine => l.kind === 'synced'));
    const initial = deltas(lines(cli));
    // The initial state: every ConfigMap once (kube-root-ca.crt included), marked initial, before "synced".
    expect(initial.map((d) => d.key).sort()).toEqual([`${ns}/kube-root-ca.crt`, ...[0, 1, 2, 3].map((i) => `${ns}/seed-${i}`)]);
    expect(initial.every((d) => d.initial === true && d.type === 'Replaced')).toBe(true);
    expect(synced.objects).toBe(5);
    expect(synced.indexes).toEqual({ app: { a0: 2, a1: 2 } });
    // client-go's informer metrics: the store at the list's resourceVersion, one processing per object.
    expect(synced.metrics.storeResourceVersion).toBe(Number(synced.resourceVersion.slice(-15)));
    expect(synced.metrics.storeResourceVersion).toBeGreaterThan(0);
    expect(synced.metrics.processingLatency.count).toBe(5);
    expect(synced.metrics.processingLatency.buckets.at(-1)).toEqual({ le: '+Inf', count: 5 });
    expect(synced.metrics.queuedItems).toBe(0);

    // Churn: creates, label changes and deletes, one at a time, on a few names.
    const writes: Write[] = [];
    const live = new Map<string, string>();
    let n = 0;
    for (let round = 0; round < 40; round++) {
      const name = `cm-${round % 7}`;
      const app = `a${round % 3}`;
      if (!live.has(name)) {
        const o = await kube.client.json<KubeObject>(cmPath(), { method: 'POST', body: { metadata: { name, labels: { app } }, data: { n: String(n++) } } });
        writes.push({ type: 'Added', key: `${ns}/${name}`, resourceVersion: o.metadata.resourceVersion!, app });
        live.set(name, app);
      } else if (round % 4 === 3) {
        await kube.client.json(cmPath(name), { method: 'DELETE' });
        writes.push({ type: 'Deleted', key: `${ns}/${name}`, resourceVersion: '', app: live.get(name) });
        live.delete(name);
      } else {
        const o = await kube.client.json<KubeObject>(cmPath(name), {
          method: 'PATCH',
          contentType: 'application/merge-patch+json',
          body: { metadata: { labels: { app } }, data: { n: String(n++) } },
        });
        writes.push({ type: 'Updated', key: `${ns}/${name}`, resourceVersion: o.metadata.resourceVersion!, app });
        live.set(name, app);
      }
    }
    const last = writes.at(-1)!;
    await eventually('the last write in the stream', async () =>
      deltas(lines(cli)).some((d) => d.key === last.key && d.type === last.type && (last.resourceVersion === '' || d.resourceVersion === last.resourceVersion)),
    );
    // Comparisons every second: some ran while the churn went on, one more after it ended.
    const verifiesBefore = lines(cli).filter((l) => l.kind === 'verify').length;
    await eventually(
      'a --verify-every comparison after the churn',
      async () => lines(cli).filter((l) => l.kind === 'verify').length > Math.max(1, verifiesBefore),
    );
    stop.abort();
    const result = await cli.done;

    const all = lines(cli);
    const live_ = deltas(all).filter((d) => !d.initial);
    // Every write once, nothing else (no resync was asked for, no relist happened).
    expect(live_).toHaveLength(writes.length);
    expect(all.some((l) => l.kind === 'relist')).toBe(false);
    const byKey = (xs: { key: string }[]): Map<string, { key: string }[]> => {
      const m = new Map<string, { key: string }[]>();
      for (const x of xs) m.set(x.key, [...(m.get(x.key) ?? []), x]);
      return m;
    };
    const seen = byKey(live_) as Map<string, DeltaLine[]>;
    for (const [key, ws] of byKey(writes) as Map<string, Write[]>) {
      const ds = seen.get(key) ?? [];
      // In the order written, each with the resourceVersion the write returned.
      expect(
        ds.map((d) => d.type),
        key,
      ).toEqual(ws.map((w) => w.type));
      ws.forEach((w, i) => {
        if (w.resourceVersion) expect(ds[i]!.resourceVersion, `${key} #${i}`).toBe(w.resourceVersion);
        // The index values follow the label written (a deletion carries the last state's).
        expect(ds[i]!.indexes, `${key} #${i}`).toEqual({ app: [w.app] });
      });
    }
    // Across objects too, deltas come in the order the server wrote them.
    const rvs = live_.filter((d) => d.type !== 'Deleted').map((d) => Number(d.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
    expect(live_.every((d) => !Number.isNaN(Date.parse(d.receivedAt)))).toBe(true);

    // --verify-every: at least two comparisons, none with a difference, none failed.
    const verifies = all.filter((l): l is VerifyLine => l.kind === 'verify');
    expect(verifies.length).toBeGreaterThanOrEqual(2);
    for (const v of verifies) expect(v.differences).toEqual([]);
    expect(result.stderr).toMatch(/verify: the cache matches the API server at resourceVersion \d+/);
    expect(result.stderr).not.toMatch(/difference/);

    // The one-shot print agrees: the index maps each value to the ConfigMaps written with it.
    const once = await runCli(createInformerTraceProgram, [
      'cache',
      'configmaps',
      '-n',
      ns,
      '-o',
      'json',
      '--keys-only',
      ...INDEX,
      '--verify',
      '--kubeconfig',
      cluster().kubeconfigPath,
    ]);
    expect(once.code, once.stderr).toBe(0);
    const expected: Record<string, string[]> = {};
    for (const [name, app] of [...live, ...[0, 1, 2, 3].map((i) => [`seed-${i}`, `a${i % 2}`] as const)])
      expected[app] = [...(expected[app] ?? []), `${ns}/${name}`].sort();
    expect((JSON.parse(once.stdout) as { indexes: Record<string, Record<string, string[]>> }).indexes.app).toEqual(expected);
    expect(once.stderr).toMatch(/verify: the cache matches the API server/);
  });

  it('--resync produces Sync deltas of every cached object', async () => {
    const r = await runCli(createInformerTraceProgram, [
      'cache',
      'configmaps',
      '-n',
      ns,
      '-o',
      'ndjson',
      '--resync',
      '1s',
      '--for',
      '2500ms',
      '--kubeconfig',
      cluster().kubeconfigPath,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const all = ndjsonLines<Line>(r.stdout);
    const keys = deltas(all)
      .filter((d) => d.initial)
      .map((d) => d.key)
      .sort();
    const rvOf = new Map(
      deltas(all)
        .filter((d) => d.initial)
        .map((d) => [d.key, d.resourceVersion]),
    );
    const resyncs = all.filter((l) => l.kind === 'resync').length;
    expect(resyncs).toBeGreaterThanOrEqual(1);
    const sync = deltas(all).filter((d) => d.type === 'Sync');
    // Each resync re-delivers the whole cache, unchanged (the last may be cut short by the end).
    expect(sync.length).toBeGreaterThanOrEqual(keys.length);
    expect(sync.length).toBeLessThanOrEqual(resyncs * keys.length);
    expect([...new Set(sync.map((d) => d.key))].sort()).toEqual(keys);
    for (const d of sync) expect(d.resourceVersion, d.key).toBe(rvOf.get(d.key));
  });

  it('on a terminal: the live view follows the cache, Enter on an index value narrows it, q leaves it', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const t = Terminal.start('cache', 100, 30, [join(root, 'bin', 'kubectl-informer_trace'), 'cache', 'configmaps', '-n', ns, ...INDEX]);
    try {
      const first = await t.waitFor(/── synced/);
      const rows = first.split('\n');
      expect(rows.length).toBeLessThanOrEqual(30);
      expect(rows.every((r) => [...r].length <= 100)).toBe(true);
      expect(rows[0]).toMatch(/^cache configmaps in it-cachew/);
      expect(t.modes().alternate).toBe(true);
      for (const name of ['tui-1', 'tui-2', 'tui-3'])
        await kube.client.json(cmPath(), { method: 'POST', body: { metadata: { name, labels: { app: 'tui' } } } });
      await t.waitFor(/app=tui {2}3/);
      await t.waitFor(/Added {5}it-cachew-\S+\/tui-3/);
      // Focus the index pane, go to app=tui (the last value), narrow to it.
      t.keys('Tab');
      t.keys('G');
      t.keys('Enter');
      const narrowed = await t.waitFor(/Objects · 3 under app=tui/);
      expect(narrowed).toMatch(/tui-1/);
      // Only the three in the objects pane (the delta pane below still lists the others).
      expect(narrowed).not.toMatch(/^it-cachew\S*\s+seed-/m);
      t.keys('q');
      const after = await t.waitFor(/EXIT \d+/);
      expect(after).toMatch(/EXIT 0/);
      expect(t.modes().alternate).toBe(false);
      const history = t.history();
      expect(history.split('configmaps cached at resourceVersion').length - 1).toBe(1);
      // No frame reached the scrollback.
      expect(history).not.toMatch(/─ Objects/);
    } finally {
      closeTerminals();
    }
  });

  it('a forced 410 shows the relist, its Replaced deltas and the tombstone of what went missing; --verify agrees after', async () => {
    const stop = new AbortController();
    const cli = startCli(
      createInformerTraceProgram,
      ['cache', 'configmaps', '-n', ns, '--watch', '-o', 'ndjson', ...INDEX, '--kubeconfig', cluster().kubeconfigPath],
      { signal: stop.signal },
    );
    await eventually('the synced line', async () => lines(cli).some((l) => l.kind === 'synced'));
    const cached = deltas(lines(cli)).map((d) => d.key);
    const gone = `${ns}/seed-0`;
    expect(cached).toContain(gone);
    const seenBefore = lines(cli).length;

    await cluster().stopApiServer();
    let compacted: number;
    try {
      // Removed behind the API server's back: only a relist can find out, as a tombstone.
      await etcdctl('del', `/registry/configmaps/${ns}/seed-0`);
      compacted = await cluster().compactEtcd();
    } finally {
      await cluster().startApiServer();
    }
    expect(compacted).toBeGreaterThan(0);

    const since = async (): Promise<Line[]> => lines(cli).slice(seenBefore);
    const tombstone = await eventually('the tombstone after the relist', async () => deltas(await since()).find((d) => d.key === gone), 120_000);
    stop.abort();
    await cli.done;
    const tail = await since();
    const relist = tail.findIndex((l) => l.kind === 'relist');
    expect(relist, JSON.stringify(tail.filter((l) => l.kind !== 'delta'))).toBeGreaterThanOrEqual(0);
    expect(tail.slice(0, relist).some((l) => l.kind === 'watch-closed')).toBe(true);
    expect(tombstone).toMatchObject({ type: 'Deleted', tombstone: true, indexes: { app: ['a0'] } });
    // Every ConfigMap still there comes again, as Replaced, after the relist mark.
    const replaced = deltas(tail.slice(relist))
      .filter((d) => d.type === 'Replaced')
      .map((d) => d.key)
      .sort();
    expect(replaced).toEqual(cached.filter((k) => k !== gone).sort());
    expect(deltas(tail).every((d) => !d.initial)).toBe(true);

    const verify = await runCli(createInformerTraceProgram, ['cache', 'configmaps', '-n', ns, '--verify', '--kubeconfig', cluster().kubeconfigPath]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stderr).toMatch(/verify: the cache matches the API server/);
    expect(verify.stdout).not.toMatch(/seed-0/);
  });
});

async function etcdctl(...args: string[]): Promise<string> {
  const c = cluster();
  const r = await run(join(c.binDir, 'etcdctl'), [`--endpoints=http://127.0.0.1:${c.ports.etcd}`, ...args]);
  return r.stdout;
}
