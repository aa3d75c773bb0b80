/**
 * The informer machinery (src/informer) against the real control plane (issue #3):
 * (a) random ConfigMap churn in several namespaces, then the cache equals a fresh LIST;
 * (b) the same with kube-apiserver stopped for 10 s in the middle of the churn;
 * (c) etcd compaction while the API server is down: the re-watch gets 410, the informer relists;
 * (d) a CRD made by the test, found through discovery by its short name and watched;
 * (e) field-path and namespace indexes answer ByIndex like a fresh LIST grouped by hand;
 * (f) a slow handler does not hold up a fast one on the same informer.
 *
 * Every comparison is against a fresh LIST (a quorum read), never against what the test thinks it
 * wrote: writes can be lost or applied without an answer while the API server restarts.
 */
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fieldPathIndexFunc,
  metaNamespaceIndexFunc,
  NamespaceIndex,
  SharedIndexInformer,
  type InformerEvent,
  type SharedIndexInformerOptions,
  type WatchErrorContext,
} from '../../src/informer/index.js';
import { ApiError, ResourceListerWatcher, type KubeObject, type ResourceInfo } from '../../src/kube/index.js';
import { adminKube, cluster, createCrd, createNamespace, deleteNamespace, eventually, uniqueName } from './helpers.js';

const run = promisify(execFile);
const kube = adminKube();

/** Every ConfigMap the churn writes carries this label; the informers select on it. */
const RUN_LABEL = 'informer-trace.dev/e2e-run';
const COLOR_LABEL = 'informer-trace.dev/color';
const runId = uniqueName('run');
const selector = `${RUN_LABEL}=${runId}`;
const namespaces = [1, 2, 3, 4].map((i) => uniqueName(`it-inf${i}`));

const TIERS = ['web', 'db', 'cache'];
const COLORS = ['red', 'green', 'blue'];
const YS = ['a', 'b', 'c', 'd', 'e'];

/** A reflector backoff capped at 4 s (client-go caps at 30 s) so that recovery fits the time budget. */
const testBackoff: SharedIndexInformerOptions['backoff'] = { capMs: 4_000 };

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

// ---- comparing a cache with a fresh LIST ------------------------------------------------------------

interface ListResult {
  metadata: { resourceVersion: string };
  items: KubeObject[];
}

function keyOf(o: KubeObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata.name ?? '');
}

/** key → resourceVersion, sorted by key. */
function keysAndRVs(items: readonly KubeObject[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of [...items].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1))) out[keyOf(o)] = o.metadata.resourceVersion ?? '';
  return out;
}

async function freshList(path: string, labelSelector?: string): Promise<ListResult> {
  // No resourceVersion: a consistent (quorum) read, the newest state.
  return kube.client.json<ListResult>(path, { query: { labelSelector } });
}

/**
 * Waits until the cache holds exactly the keys and resourceVersions of a fresh LIST, then asserts
 * it (so a failure prints the difference). Returns the LIST it matched.
 */
async function expectConverged(informer: SharedIndexInformer, path: string, labelSelector?: string, timeoutMs = 60_000): Promise<ListResult> {
  let last: { cache: Record<string, string>; list: Record<string, string>; raw: ListResult } | undefined;
  try {
    await eventually(
      'the cache to equal a fresh LIST',
      async () => {
        const raw = await freshList(path, labelSelector);
        last = { cache: keysAndRVs(informer.getStore().list()), list: keysAndRVs(raw.items), raw };
        return JSON.stringify(last.cache) === JSON.stringify(last.list);
      },
      timeoutMs,
      200,
    );
  } catch (err) {
    if (!last) throw err;
  }
  expect(last, 'no LIST succeeded').toBeDefined();
  expect(last!.cache).toEqual(last!.list);
  return last!.raw;
}

// ---- random churn --------------------------------------------------------------------------------

interface ChurnStats {
  creates: number;
  updates: number;
  deletes: number;
  /** Writes refused or lost (API server down or restarting); retried later, not counted as done. */
  failures: number;
  done: number;
}

interface ChurnOptions {
  ops: number;
  /** Label value for RUN_LABEL (default: this run's). */
  run?: string;
  concurrency?: number;
  /** Keep going past `ops` until this is true (checked between operations). */
  until?: () => boolean;
}

interface Churn {
  /** Live counters. */
  readonly stats: ChurnStats;
  readonly done: Promise<ChurnStats>;
  /** Stops after the writes in flight. */
  cancel(): void;
}

function cmBody(name: string, run: string): Record<string, unknown> {
  const labels: Record<string, string> = { [RUN_LABEL]: run, tier: pick(TIERS) };
  if (Math.random() < 0.7) labels[COLOR_LABEL] = pick(COLORS);
  const data: Record<string, string> = { n: String(Math.random()) };
  if (Math.random() < 0.8) data.y = pick(YS);
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data };
}

/** A merge patch that changes labels and data, sometimes removing the color label or data.y. */
function randomPatch(): Record<string, unknown> {
  const r = Math.random();
  return {
    metadata: { labels: { tier: pick(TIERS), [COLOR_LABEL]: r < 0.2 ? null : pick(COLORS) } },
    data: { n: String(Math.random()), y: r > 0.9 ? null : pick(YS) },
  };
}

/**
 * Random creates, updates (merge patches) and deletes of ConfigMaps across `namespaces`, a few at a
 * time, until `ops` have succeeded (and `until` holds). A write that fails for any reason but
 * 404/409 is retried later and not counted.
 */
function startChurn(opts: ChurnOptions): Churn {
  const run = opts.run ?? runId;
  const stats: ChurnStats = { creates: 0, updates: 0, deletes: 0, failures: 0, done: 0 };
  const existing: string[] = []; // "ns/name" the churn believes exist
  const busy = new Set<string>();
  let seq = 0;
  let cancelled = false;
  const takeExisting = (): string | undefined => {
    for (let tries = 0; tries < 10 && existing.length > 0; tries++) {
      const k = existing[Math.floor(Math.random() * existing.length)]!;
      if (!busy.has(k)) return k;
    }
    return undefined;
  };
  const forget = (k: string): void => {
    const i = existing.indexOf(k);
    if (i >= 0) existing.splice(i, 1);
  };
  const finished = (): boolean => cancelled || (stats.done >= opts.ops && (opts.until?.() ?? true));
  const worker = async (): Promise<void> => {
    while (!finished()) {
      const r = Math.random();
      const existingTarget = existing.length >= 30 && r >= 0.4 ? takeExisting() : undefined;
      const kind = existingTarget === undefined ? 'create' : r < 0.75 ? 'update' : 'delete';
      const target = existingTarget ?? `${pick(namespaces)}/cm-${run}-${++seq}`;
      const [ns, name] = target.split('/') as [string, string];
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      busy.add(target);
      try {
        if (kind === 'create') {
          await kube.client.json(path, { method: 'POST', body: cmBody(name, run) });
          existing.push(target);
          stats.creates++;
        } else if (kind === 'update') {
          await kube.client.json(`${path}/${name}`, { method: 'PATCH', body: randomPatch(), contentType: 'application/merge-patch+json' });
          stats.updates++;
        } else {
          await kube.client.json(`${path}/${name}`, { method: 'DELETE' });
          forget(target);
          stats.deletes++;
        }
        stats.done++;
      } catch (err) {
        const code = err instanceof ApiError ? err.code : -1;
        if (code === 404)
          forget(target); // a delete that was applied without an answer
        else if (code === 409 && kind === 'create')
          existing.push(target); // a create likewise
        else {
          stats.failures++;
          await sleep(200);
        }
      } finally {
        busy.delete(target);
      }
    }
  };
  const done = Promise.all(Array.from({ length: opts.concurrency ?? 24 }, () => worker())).then(() => stats);
  return {
    stats,
    done,
    cancel: () => {
      cancelled = true;
    },
  };
}

// ---- the informer under test -----------------------------------------------------------------------

interface WatchErrorRecord {
  at: number;
  code: number | undefined;
  reason: string | undefined;
  message: string;
  phase: string;
  action: string;
}

const indexers = {
  [NamespaceIndex]: metaNamespaceIndexFunc,
  tier: fieldPathIndexFunc('metadata.labels.tier'),
  color: fieldPathIndexFunc(`metadata.labels['${COLOR_LABEL}']`),
  y: fieldPathIndexFunc('data.y'),
};

let configMaps: ResourceInfo;
let informer: SharedIndexInformer;
const informerStop = new AbortController();
let informerDone: Promise<void> | undefined;
const watchErrors: WatchErrorRecord[] = [];
const events: InformerEvent[] = [];
const heard = { adds: 0, updates: 0, deletes: 0 };

describe('the informer on the real control plane', () => {
  beforeAll(async () => {
    await Promise.all(namespaces.map((ns) => createNamespace(kube, ns)));
    configMaps = await kube.discovery.resolve('configmaps');
    const lw = new ResourceListerWatcher(kube.client, configMaps, { labelSelector: selector });
    informer = new SharedIndexInformer(lw, {
      indexers,
      backoff: testBackoff,
      watchErrorHandler: (err: unknown, ctx: WatchErrorContext) => {
        const e = err instanceof ApiError ? err : undefined;
        watchErrors.push({
          at: Date.now(),
          code: e?.code,
          reason: e?.reason,
          message: err instanceof Error ? err.message : String(err),
          phase: ctx.phase,
          action: ctx.action,
        });
      },
      onEvent: (e) => void events.push(e),
    });
    informer.addEventHandler({
      onAdd: () => void heard.adds++,
      onUpdate: () => void heard.updates++,
      onDelete: () => void heard.deletes++,
    });
    informerDone = informer.run(informerStop.signal);
    expect(await informer.waitForCacheSync(AbortSignal.timeout(30_000))).toBe(true);
  });

  afterAll(async () => {
    informerStop.abort();
    await informerDone;
    // A test that failed half-way may have left the API server stopped.
    if (!cluster().pid('kube-apiserver')) await cluster().startApiServer();
    await reviveControllers();
    await Promise.all(namespaces.map((ns) => deleteNamespace(kube, ns)));
  });

  it('(a) after 2,000 random creates, updates and deletes in 4 namespaces, the cache equals a fresh LIST', async () => {
    const before = informer.stats();
    const heardBefore = { ...heard };
    const stats = await timed('a: churn', startChurn({ ops: 2000 }).done);
    expect(stats.done).toBeGreaterThanOrEqual(2000);
    // Every write was answered, so the counts below are exact.
    expect(stats.failures).toBe(0);
    expect(stats.creates).toBeGreaterThan(300);
    expect(stats.updates).toBeGreaterThan(300);
    expect(stats.deletes).toBeGreaterThan(300);

    const list = await timed('a: converge', expectConverged(informer, '/api/v1/configmaps', selector));
    expect(list.items.length).toBeGreaterThan(30);
    expect(new Set(list.items.map((o) => o.metadata.namespace))).toEqual(new Set(namespaces));
    const after = informer.stats();
    // The churn came through the watch, not through relists.
    expect(after.relists).toBe(before.relists);
    expect(after.events.ADDED - before.events.ADDED).toBe(stats.creates);
    expect(after.events.DELETED - before.events.DELETED).toBe(stats.deletes);
    expect(after.events.MODIFIED - before.events.MODIFIED).toBe(stats.updates);
    // The handler heard every change and has nothing left in its buffer.
    await eventually('the handler backlog to drain', async () => informer.stats().backlog === 0);
    expect(heard.adds - heardBefore.adds).toBe(stats.creates);
    expect(heard.updates - heardBefore.updates).toBe(stats.updates);
    expect(heard.deletes - heardBefore.deletes).toBe(stats.deletes);
  });

  it('(e) field-path and namespace indexes answer ByIndex like a fresh LIST grouped by hand', async () => {
    const list = await expectConverged(informer, '/api/v1/configmaps', selector);
    expectIndexesMatch(informer, list);
  });

  it('(b) the cache equals a fresh LIST after churn with kube-apiserver stopped for 10 s in the middle', async () => {
    const before = informer.stats();
    const errorsBefore = watchErrors.length;
    let restarted = false;
    let doneAtRestart = 0;
    const c: Churn = startChurn({
      ops: 2000,
      // Keep writing after the API server is back: at least 500 more successful writes.
      until: () => restarted && c.stats.done - doneAtRestart >= 500,
    });
    let failuresWhileDown: number;
    let doneWhileDown: number;
    try {
      await eventually('600 writes before the stop', async () => c.stats.done >= 600, 60_000, 10);
      // kube-apiserver stops listening at once on SIGTERM, but here its process can take until the
      // launcher's 10 s SIGKILL to exit: count the 10 s from the SIGTERM.
      const failed = c.stats.failures;
      await Promise.all([timed('b: stop', cluster().stopApiServer()), sleep(10_000)]);
      const doneAtStop = c.stats.done;
      await sleep(1_000);
      failuresWhileDown = c.stats.failures - failed;
      doneWhileDown = c.stats.done - doneAtStop;
      await timed('b: start', cluster().startApiServer());
      doneAtRestart = c.stats.done;
      restarted = true;
    } catch (err) {
      c.cancel();
      throw err;
    }
    const stats = await timed('b: churn after restart', c.done);
    expect(failuresWhileDown, 'writes were attempted (and refused) while the API server was down').toBeGreaterThan(50);
    expect(doneWhileDown, 'no write succeeded while the API server was down').toBe(0);
    expect(stats.done - doneAtRestart).toBeGreaterThanOrEqual(500);
    expect(stats.done).toBeGreaterThanOrEqual(2000);

    const list = await timed('b: converge', expectConverged(informer, '/api/v1/configmaps', selector, 90_000));
    expectIndexesMatch(informer, list);
    const after = informer.stats();
    // The reflector saw the watch break and opened new watches.
    const errs = watchErrors.slice(errorsBefore);
    expect(errs.length).toBeGreaterThan(0);
    expect(after.watchRestarts).toBeGreaterThan(before.watchRestarts);
    expect(after.synced).toBe(true);
    recovery.b = { errors: errs, relists: after.relists - before.relists };
    await reviveControllers();
  });

  it('(c) etcd compacted while kube-apiserver is down: the re-watch gets 410 (or meets the API server still starting), the informer relists, counts it and converges', async () => {
    await expectConverged(informer, '/api/v1/configmaps', selector);
    await startChurn({ ops: 50 }).done;
    await expectConverged(informer, '/api/v1/configmaps', selector);
    const staleRV = informer.lastSyncResourceVersion();
    const before = informer.stats();
    const errorsBefore = watchErrors.length;
    // Writes the informer does not see (no run label): the revision moves past the informer's RV.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        kube.client.json(`/api/v1/namespaces/${namespaces[0]}/configmaps`, {
          method: 'POST',
          body: { metadata: { name: `unwatched-${i}` }, data: { i: String(i) } },
        }),
      ),
    );
    await cluster().stopApiServer();
    let compacted: number;
    let readyAt = Number.POSITIVE_INFINITY;
    try {
      // One more revision straight into etcd (outside /registry): even if a bookmark moved the
      // informer's RV just before the stop, the compaction revision is past it.
      await etcdctl('put', '/informer-trace-e2e/bump', String(Date.now()));
      compacted = await cluster().compactEtcd();
    } finally {
      await timed('c: start', cluster().startApiServer());
      readyAt = Date.now();
    }
    expect(compacted).toBeGreaterThan(Number(staleRV));
    // The informer's old RV is really gone from etcd: an exact LIST at it is refused with 410.
    await expect(
      kube.client.json('/api/v1/configmaps', { query: { resourceVersion: staleRV, resourceVersionMatch: 'Exact', labelSelector: selector } }),
    ).rejects.toMatchObject({ code: 410 });

    // More writes while the informer recovers.
    await startChurn({ ops: 100 }).done;
    const list = await timed('c: converge', expectConverged(informer, '/api/v1/configmaps', selector, 90_000));
    expectIndexesMatch(informer, list);

    const after = informer.stats();
    const errs = watchErrors.slice(errorsBefore);
    recovery.c = { errors: errs, relists: after.relists - before.relists };
    // What kube-apiserver does: its fresh watch cache starts at the current revision, so a
    // re-watch from the informer's RV ends with an ERROR event 410 Expired ("too old resource
    // version"), and the reflector relists (at its last RV, served by the watch cache). A re-watch
    // that meets the API server still starting (it accepts the connection, then hangs up) is no
    // refused connection, so the reflector relists at once, as client-go's does
    // (isWatchErrorRetriable), and no watch reaches the 410. Either way the informer relists.
    const expired = errs.find((e) => e.code === 410);
    const hungUp = errs.find((e) => e.phase === 'watch-open' && e.code === 0 && e.action === 'relist' && e.at <= readyAt);
    const cause = expired ?? hungUp;
    expect(cause, `a 410, or a hang-up while the API server started, among the watch errors: ${JSON.stringify(errs)}`).toBeDefined();
    if (expired) {
      expect(expired.message).toMatch(/too old resource version/);
      expect(expired.action).toBe('relist');
    }
    expect(after.relists).toBeGreaterThanOrEqual(before.relists + 1);
    expect(events.some((e) => e.kind === 'list' && e.at >= cause!.at)).toBe(true);
    expect(Number(informer.lastSyncResourceVersion())).toBeGreaterThan(compacted);
    await reviveControllers();
  });

  it('(d) watches a CRD made by the test, found through discovery by its short name', async () => {
    const group = `${uniqueName('g')}.e2e.informer-trace.dev`;
    const shortName = `itw${Date.now().toString(36)}`;
    const crdName = await createCrd(kube, group, { kind: 'Widget', plural: 'widgets', shortNames: [shortName] });
    const stop = new AbortController();
    let done: Promise<void> | undefined;
    try {
      const info = await eventually(`discovery to know "${shortName}"`, async () => {
        kube.discovery.invalidate();
        return kube.discovery.resolve(shortName);
      });
      expect(info).toMatchObject({ group, version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });
      const crInformer = new SharedIndexInformer(new ResourceListerWatcher(kube.client, info), { backoff: testBackoff });
      const kinds: string[] = [];
      crInformer.addEventHandler({
        onAdd: (o) => void kinds.push(`add ${o.kind}`),
        onUpdate: () => void kinds.push('update'),
        onDelete: () => void kinds.push('delete'),
      });
      const path = (ns: string, name = ''): string => `/apis/${group}/v1/namespaces/${ns}/widgets${name ? `/${name}` : ''}`;
      // Some before the informer starts (initial list), more while it watches.
      for (let i = 0; i < 10; i++) {
        await kube.client.json(path(namespaces[i % 2]!), {
          method: 'POST',
          body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: `w${i}` }, spec: { size: i } },
        });
      }
      done = crInformer.run(stop.signal);
      expect(await crInformer.waitForCacheSync(AbortSignal.timeout(30_000))).toBe(true);
      expect(crInformer.getStore().list()).toHaveLength(10);
      for (let i = 10; i < 30; i++) {
        await kube.client.json(path(namespaces[i % 2]!), {
          method: 'POST',
          body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: `w${i}` }, spec: { size: i } },
        });
      }
      for (let i = 0; i < 30; i += 2) {
        await kube.client.json(path(namespaces[i % 2]!, `w${i}`), {
          method: 'PATCH',
          body: { spec: { size: 1000 + i } },
          contentType: 'application/merge-patch+json',
        });
      }
      for (let i = 0; i < 30; i += 3) await kube.client.json(path(namespaces[i % 2]!, `w${i}`), { method: 'DELETE' });
      const list = await expectConverged(crInformer, `/apis/${group}/v1/widgets`);
      expect(list.items).toHaveLength(20);
      const w4 = crInformer.getStore().getByKey(`${namespaces[0]}/w4`) as { spec?: { size?: number }; kind?: string } | undefined;
      expect(w4?.spec?.size).toBe(1004);
      expect(w4?.kind).toBe('Widget');
      await eventually('the handler to hear everything', async () => kinds.length === 30 + 15 + 10);
      expect(kinds.filter((k) => k === 'add Widget')).toHaveLength(30);
      expect(kinds.filter((k) => k === 'update')).toHaveLength(15);
      expect(kinds.filter((k) => k === 'delete')).toHaveLength(10);
    } finally {
      stop.abort();
      await done;
      await kube.client.json(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`, { method: 'DELETE' }).catch(() => undefined);
    }
  });

  it('(f) a slow handler does not delay a fast handler on the same informer', async () => {
    const run = `${runId}-fs`;
    const ns = namespaces[3]!;
    const lw = new ResourceListerWatcher(kube.client, configMaps, { namespace: ns, labelSelector: `${RUN_LABEL}=${run}` });
    const inf = new SharedIndexInformer(lw, { backoff: testBackoff });
    const N = 150;
    const SLOW_MS = 30;
    const fast: { name: string; at: number; latency: number }[] = [];
    const slow: { name: string; at: number; latency: number }[] = [];
    let slowSeenWhenFastDone = -1;
    let fastDoneAt = 0;
    inf.addEventHandler(
      {
        onAdd: (o, _initial, info) => {
          fast.push({ name: o.metadata.name!, at: Date.now(), latency: Date.now() - info.receivedAt });
          if (fast.length === N) {
            fastDoneAt = Date.now();
            slowSeenWhenFastDone = slow.length;
          }
        },
      },
      { name: 'fast' },
    );
    inf.addEventHandler(
      {
        onAdd: async (o, _initial, info) => {
          slow.push({ name: o.metadata.name!, at: Date.now(), latency: Date.now() - info.receivedAt });
          await sleep(SLOW_MS);
        },
      },
      { name: 'slow' },
    );
    const stop = new AbortController();
    const done = inf.run(stop.signal);
    try {
      expect(await inf.waitForCacheSync(AbortSignal.timeout(30_000))).toBe(true);
      const started = Date.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next < N) {
            const i = next++;
            await kube.client.json(`/api/v1/namespaces/${ns}/configmaps`, {
              method: 'POST',
              body: { metadata: { name: `fs-${String(i).padStart(3, '0')}`, labels: { [RUN_LABEL]: run } } },
            });
          }
        }),
      );
      const writesTook = Date.now() - started;
      await eventually('the fast handler to see every add', async () => fast.length === N, 30_000, 10);
      await eventually('the slow handler to see every add', async () => slow.length === N, 60_000, 50);
      const slowDoneAt = slow[N - 1]!.at + SLOW_MS;
      const maxFast = Math.max(...fast.map((f) => f.latency));
      const maxSlow = Math.max(...slow.map((f) => f.latency));
      // The slow handler needs N × 30 ms = 4.5 s; the fast one keeps up with the watch.
      expect(slowDoneAt - fastDoneAt, `writes took ${writesTook} ms`).toBeGreaterThan(2000);
      expect(slowSeenWhenFastDone).toBeLessThan(N * 0.75);
      expect(maxFast, 'fast handler: longest time from watch event to handler').toBeLessThan(1000);
      expect(maxSlow).toBeGreaterThan(2000);
      // Both saw the same events in the same order.
      expect(slow.map((s) => s.name)).toEqual(fast.map((f) => f.name));
      expect(new Set(fast.map((f) => f.name)).size).toBe(N);
      await eventually('the slow handler to return', async () => inf.stats().listeners.every((l) => l.delivered === N && l.backlog === 0));
    } finally {
      stop.abort();
      await done;
    }
  });
});

/** How long the slow parts took, for the report at the end (the shared CI machine is not fast). */
const timings: Record<string, number> = {};
async function timed<T>(what: string, p: Promise<T>): Promise<T> {
  const t = Date.now();
  try {
    return await p;
  } finally {
    timings[what] = (timings[what] ?? 0) + Date.now() - t;
  }
}

/** What (b) and (c) saw, for the report at the end. */
const recovery: { b?: { errors: WatchErrorRecord[]; relists: number }; c?: { errors: WatchErrorRecord[]; relists: number } } = {};

afterAll(() => {
  const line = (e: WatchErrorRecord): string => `  ${e.phase} → ${e.action}: ${e.code ?? ''} ${e.reason ?? ''} ${e.message.slice(0, 160)}`;
  process.stderr.write(`informer e2e timings (ms): ${JSON.stringify(timings)}\n`);
  for (const [name, r] of Object.entries(recovery)) {
    process.stderr.write(`informer e2e (${name}): ${r.relists} relist(s); reflector errors:\n${r.errors.map(line).join('\n')}\n`);
  }
});

function expectIndexesMatch(inf: SharedIndexInformer, list: ListResult): void {
  const indexer = inf.getIndexer();
  const byHand = (value: (o: KubeObject) => string | undefined): Map<string, string[]> => {
    const m = new Map<string, string[]>();
    for (const o of list.items) {
      const v = value(o);
      if (v === undefined) continue;
      m.set(v, [...(m.get(v) ?? []), keyOf(o)].sort());
    }
    return m;
  };
  const expected: Record<string, Map<string, string[]>> = {
    [NamespaceIndex]: byHand((o) => o.metadata.namespace),
    tier: byHand((o) => o.metadata.labels?.tier),
    color: byHand((o) => o.metadata.labels?.[COLOR_LABEL]),
    y: byHand((o) => (o.data as Record<string, string> | undefined)?.y),
  };
  for (const [name, groups] of Object.entries(expected)) {
    expect(indexer.listIndexFuncValues(name).sort(), `values of index ${name}`).toEqual([...groups.keys()].sort());
    for (const [value, keys] of groups) {
      expect(indexer.byIndex(name, value).map(keyOf).sort(), `byIndex(${name}, ${value})`).toEqual(keys);
      expect([...indexer.indexKeys(name, value)].sort(), `indexKeys(${name}, ${value})`).toEqual(keys);
    }
  }
  // Not trivial: every value occurs, and the churn removed the color label and data.y from some.
  expect(expected[NamespaceIndex]!.size).toBe(namespaces.length);
  expect(expected.color!.size).toBe(COLORS.length);
  expect(expected.y!.size).toBe(YS.length);
  const count = (m: Map<string, string[]>): number => [...m.values()].reduce((n, ks) => n + ks.length, 0);
  expect(count(expected.color!)).toBeLessThan(list.items.length);
  expect(count(expected.y!)).toBeLessThan(list.items.length);
  expect(count(expected.tier!)).toBe(list.items.length);
  expect(indexer.byIndex('color', 'no-such-color')).toEqual([]);
  expect(() => indexer.byIndex('no-such-index', 'x')).toThrow(/Index with name no-such-index does not exist/);
}

/**
 * kube-controller-manager and kube-scheduler exit when they cannot renew their leader Lease for
 * 10 s ("leaderelection lost"), which stopping the API server causes. Start them again so the
 * cluster is whole for the tests that follow.
 */
async function reviveControllers(): Promise<void> {
  for (const name of ['kube-controller-manager', 'kube-scheduler'] as const) {
    if (!cluster().pid(name)) await cluster().startComponentAgain(name);
  }
}

async function etcdctl(...args: string[]): Promise<string> {
  const c = cluster();
  const r = await run(join(c.binDir, 'etcdctl'), [`--endpoints=http://127.0.0.1:${c.ports.etcd}`, ...args]);
  return r.stdout;
}
