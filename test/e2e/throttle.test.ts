/**
 * Throttling on the real control plane, both kinds a user meets. The plugins run in-process as a
 * user of their own (not system:masters, which API Priority and Fairness exempts), bound to
 * cluster-admin in the test's namespace only, through the fault proxy (tools/cluster/fault-proxy.ts).
 * - A slow link: the proxy throttled to 48 KiB/s under `cache configmaps --watch -o ndjson`. A
 *   ConfigMap of 192 KiB created after the throttle started arrives, no sooner than the throttle
 *   allows; the watch is not taken for a dead one (bytes keep arriving), so there is no stall and no
 *   relist. More writes meanwhile (creations, an update, a deletion) are all delivered once the
 *   throttle is lifted, at once, and the cache then equals a fresh List.
 * - The API server's own throttling: a burst of 429s with Retry-After from API Priority and
 *   Fairness (tools/cluster/apf-burst.ts) against the plugins' user while `cache --watch -o ndjson`
 *   and `lease-watch NS/LEASE -o ndjson` run; every connection is reset so that their watches open
 *   again into the 429s. The API server's rejections of the user are counted by its own metric;
 *   each plugin says so on stderr once per refused attempt, naming the 429 and the retry, and backs
 *   off (a handful of lines, not one per request). A ConfigMap and a holder change made during the
 *   burst and another of each after it are all seen, in order, and the cache equals a fresh List.
 *   A one-shot command (`cache configmaps -o name`) in another burst is not failed by it: its
 *   LIST is sent again as the 429's Retry-After asks, the API server counting each refusal, and
 *   it answers once the burst has ended.
 * Nothing here touches the API server's processes; the FlowSchema and PriorityLevelConfiguration,
 * the user's certificate and the namespace are deleted afterwards.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { createLeaseWatchProgram } from '../../src/commands/lease-watch.js';
import type { KubeObject } from '../../src/kube/index.js';
import type { DeltaLine, MarkerLine, SyncedLine } from '../../src/view/cache-view.js';
import type { LeaseChange } from '../../src/view/lease-view.js';
import { ApfBurst, apfRejectedRequests, deleteApfObjects } from '../../tools/cluster/apf-burst.js';
import { FaultProxy } from '../../tools/cluster/fault-proxy.js';
import {
  adminKube,
  cacheFromStream,
  cluster,
  createNamespace,
  deleteNamespace,
  eventually,
  freshList,
  ndjsonLines,
  sameCache,
  startCli,
  stderrLine,
  uniqueName,
  type LiveCli,
} from './helpers.js';

const kube = adminKube();
const ns = uniqueName('it-throttle');
/** The plugins' user: its certificate is made in the cluster's pki folder, and removed after. */
const USER = { file: 'user-throttled', user: 'it-throttled', groups: [] };
/** The burst's FlowSchema and PriorityLevelConfiguration (sorts before "probes"). */
const APF_NAME = 'it-throttle-429-burst';
const KiB = 1024;
const RATE = 48 * KiB;
/** A refused attempt to watch again as cache and lease-watch say it: the 429, and what happens next. */
const LINE_429 = /^warning: watch failed: 429 TooManyRequests; backing off [\d.]+m?s then watching again without a relist$/;

type Line = DeltaLine | MarkerLine | SyncedLine;
const lines = (cli: LiveCli): Line[] => ndjsonLines<Line>(cli.stdout());
const deltas = (all: Line[]): DeltaLine[] => all.filter((l): l is DeltaLine => l.kind === 'delta');
const lines429 = (cli: LiveCli): string[] =>
  cli
    .stderr()
    .split('\n')
    .filter((l) => /\b429\b|TooManyRequests/.test(l));

/** The backoff a 429 line names, in ms. */
function backoffMs(line: string): number {
  const m = /backing off ([\d.]+)(m?s)/.exec(line);
  expect(m, line).not.toBeNull();
  return Number(m![1]) * (m![2] === 'ms' ? 1 : 1000);
}

const cmPath = (name?: string): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const leasePath = (name?: string): string => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases${name ? `/${name}` : ''}`;
const freshConfigMaps = (): Promise<Map<string, string>> => freshList(kube, cmPath());

function createConfigMap(name: string, data: Record<string, string> = { made: name }): Promise<KubeObject> {
  return kube.client.json<KubeObject>(cmPath(), { method: 'POST', body: { metadata: { name }, data } });
}

/** 192 KiB of base64 that no compression shrinks. */
const bulk = (): Record<string, string> => ({ blob: randomBytes(144 * KiB).toString('base64') });

/** A MicroTime as the API server writes it. */
const microNow = (): string => new Date().toISOString().replace(/\.(\d{3})\d*Z$/, '.$1000Z');

/** The Lease `name` passes to `holder`, its transitions counted. */
async function handOver(name: string, holder: string, transitions: number): Promise<void> {
  const now = microNow();
  await kube.client.json(leasePath(name), {
    method: 'PATCH',
    contentType: 'application/merge-patch+json',
    body: { spec: { holderIdentity: holder, acquireTime: now, renewTime: now, leaseTransitions: transitions } },
  });
}

/** `cache configmaps -n NS --watch -o ndjson` as the plugins' user through the proxy, once synced. */
async function watchConfigMaps(kubeconfig: string, signal: AbortSignal): Promise<LiveCli> {
  const cli = startCli(createInformerTraceProgram, ['cache', 'configmaps', '-n', ns, '--watch', '-o', 'ndjson', '--kubeconfig', kubeconfig], { signal });
  await eventually('the synced line', async () => lines(cli).some((l) => l.kind === 'synced'), 60_000, 50).catch((err: Error) => {
    throw new Error(`${err.message}\nstderr:\n${cli.stderr()}`);
  });
  return cli;
}

describe('throttled: a slow link, and the API server answering 429', () => {
  let proxy: FaultProxy;
  let kubeconfig: string;

  beforeAll(async () => {
    await createNamespace(kube, ns);
    await kube.client.json(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
      method: 'POST',
      body: {
        metadata: { name: USER.user },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER.user }],
      },
    });
    proxy = await FaultProxy.start(cluster().server);
    kubeconfig = proxy.kubeconfig(await cluster().userKubeconfig(USER));
    // kube-controller-manager adds the root CA ConfigMap on its own time: before the watches start.
    await eventually('kube-root-ca.crt', () => kube.client.json(cmPath('kube-root-ca.crt')).then(() => true));
  });

  afterAll(async () => {
    proxy?.throttle(0);
    await proxy?.close();
    await deleteApfObjects(cluster(), APF_NAME);
    await deleteNamespace(kube, ns);
    cluster().removeUser(USER);
  });

  it('cache --watch at 48 KiB/s: a 192 KiB ConfigMap made after the throttle started arrives no sooner than the throttle allows, with no stall or relist; once lifted, the rest arrives at once and the cache equals a fresh List', async () => {
    await createConfigMap('small-0');
    const stop = new AbortController();
    const cli = await watchConfigMaps(kubeconfig, stop.signal);
    try {
      const before = lines(cli).length;
      proxy.throttle(RATE);
      const made = await createConfigMap('big-1', bulk());
      const madeAt = Date.now();
      const arrived = await eventually('big-1 in the stream', async () => deltas(lines(cli).slice(before)).find((d) => d.key === `${ns}/big-1`), 60_000, 50);
      const took = Date.now() - madeAt;
      expect(arrived).toMatchObject({ type: 'Added', resourceVersion: made.metadata.resourceVersion });
      // 192 KiB of data (and more of JSON and TLS around it) at 48 KiB/s: at least 4 s; 0.6 of it leaves room for compression (random base64 shrinks to 3/4) and the clock.
      expect(took).toBeGreaterThanOrEqual(0.6 * ((192 * KiB) / RATE) * 1000);

      // More while throttled: 576 KiB to come, an update and a deletion behind them.
      for (const name of ['big-2', 'big-3', 'big-4']) await createConfigMap(name, bulk());
      await kube.client.json(cmPath('big-1'), { method: 'PATCH', contentType: 'application/merge-patch+json', body: { data: { blob: 'small now' } } });
      await kube.client.json(cmPath('small-0'), { method: 'DELETE' });
      const fresh = await freshConfigMaps();
      // Still on their way: at 48 KiB/s they take 12 s.
      expect(deltas(lines(cli).slice(before)).some((d) => d.key === `${ns}/small-0` && d.type === 'Deleted')).toBe(false);
      const liftedAt = Date.now();
      proxy.throttle(0);
      await eventually('the stream to match a fresh List', async () => sameCache(cacheFromStream(lines(cli)), fresh), 10_000, 50);
      expect(Date.now() - liftedAt).toBeLessThan(8_000);
      expect([...cacheFromStream(lines(cli))].sort()).toEqual([...fresh].sort());
      expect(fresh.has(`${ns}/big-4`) && !fresh.has(`${ns}/small-0`)).toBe(true);

      // A slow watch is not a dead one: no stall, no relist, nothing to warn of.
      const tail = lines(cli).slice(before);
      expect(tail.filter((l) => l.kind === 'relist' || (l.kind === 'watch-closed' && /stalled|no answer/.test(l.message)))).toEqual([]);
      expect(cli.stderr()).not.toMatch(/^(warning|error):/m);
    } finally {
      proxy.throttle(0);
      stop.abort();
      await cli.done;
    }
  });

  it('a 429 burst from API Priority and Fairness: counted by the API server, each refused attempt said once on stderr; changes made during and after it are all seen, the cache equals a fresh List', async () => {
    const now = microNow();
    await kube.client.json(leasePath(), {
      method: 'POST',
      body: {
        metadata: { name: 'leader' },
        spec: { holderIdentity: 'candidate-a', leaseDurationSeconds: 3600, acquireTime: now, renewTime: now, leaseTransitions: 0 },
      },
    });
    const stop = new AbortController();
    const cache = await watchConfigMaps(kubeconfig, stop.signal);
    const leases = startCli(createLeaseWatchProgram, [`${ns}/leader`, '-o', 'ndjson', '--kubeconfig', kubeconfig], { signal: stop.signal });
    let burst: ApfBurst | undefined;
    try {
      await stderrLine(leases, /^streaming holder changes/);
      const changes = (): LeaseChange[] => ndjsonLines<LeaseChange>(leases.stdout());
      const before = lines(cache).length;
      const changesBefore = changes().length;
      expect(lines429(cache)).toEqual([]);
      expect(lines429(leases)).toEqual([]);

      // An event on each watch first: a watch closed within a second of its start with none counts
      // as failed (client-go's rule) and is relisted, not re-watched.
      const first = await createConfigMap('made-before-burst');
      await handOver('leader', 'candidate-b', 1);
      await eventually(
        'the first change on each watch',
        async () =>
          deltas(lines(cache).slice(before)).some((d) => d.resourceVersion === first.metadata.resourceVersion) &&
          changes().some((c) => c.holder === 'candidate-b'),
        30_000,
        50,
      );

      burst = await ApfBurst.start(cluster(), { name: APF_NAME, user: USER, namespace: ns });
      proxy.reset(); // every watch opens again, into the 429s
      const during = await createConfigMap('made-during-burst');
      await handOver('leader', 'candidate-c', 2);
      // Each plugin refused, and refused again after backing off, twice.
      await eventually('three refused attempts of each plugin', async () => lines429(cache).length >= 3 && lines429(leases).length >= 3, 30_000, 100).catch(
        (err: Error) => {
          throw new Error(`${err.message}\ncache stderr:\n${cache.stderr()}\nlease-watch stderr:\n${leases.stderr()}`);
        },
      );
      // Nothing gets through while the user is refused.
      expect(deltas(lines(cache).slice(before)).some((d) => d.key === `${ns}/made-during-burst`)).toBe(false);
      expect(changes().some((c) => c.holder === 'candidate-c')).toBe(false);
      // Every line so far tells of a request the API server refused before end() reads its count.
      const saidBeforeEnd = lines429(cache).length + lines429(leases).length;
      const result = await burst.end();
      const endedAt = Date.now();
      // The API server really refused them: its own count, at least one per line the plugins wrote.
      expect(result.rejected).toBeGreaterThanOrEqual(saidBeforeEnd);
      expect(result.retryAfterSeconds).toBeGreaterThanOrEqual(1);

      const after = await createConfigMap('made-after-burst');
      await handOver('leader', 'candidate-d', 3);
      const seen = await eventually(
        'both ConfigMaps in the stream',
        async () => {
          const tail = deltas(lines(cache).slice(before));
          const d = tail.find((x) => x.key === `${ns}/made-during-burst`);
          const a = tail.find((x) => x.key === `${ns}/made-after-burst`);
          return d && a ? { d, a } : undefined;
        },
        60_000,
        100,
      );
      expect(seen.d).toMatchObject({ type: 'Added', resourceVersion: during.metadata.resourceVersion });
      expect(seen.a).toMatchObject({ type: 'Added', resourceVersion: after.metadata.resourceVersion });
      const handovers = await eventually(
        'every holder change in the stream',
        async () => {
          const acquired = changes()
            .slice(changesBefore)
            .filter((c) => c.type === 'acquired' && c.name === 'leader');
          return acquired.some((c) => c.holder === 'candidate-d') ? acquired : undefined;
        },
        60_000,
        100,
      );
      expect(handovers.map((c) => [c.holder, c.previousHolder, c.transitions])).toEqual([
        ['candidate-b', 'candidate-a', 1],
        ['candidate-c', 'candidate-b', 2],
        ['candidate-d', 'candidate-c', 3],
      ]);
      // The watches came back within a backoff step of the burst's end.
      expect(Date.now() - endedAt).toBeLessThan(45_000);

      const fresh = await freshConfigMaps();
      await eventually('the stream to match a fresh List', async () => sameCache(cacheFromStream(lines(cache)), fresh), 10_000, 100);
      expect([...cacheFromStream(lines(cache))].sort()).toEqual([...fresh].sort());
      // Re-watched from where they were: nothing needed a relist.
      expect(lines(cache).some((l) => l.kind === 'relist')).toBe(false);
      // Said once per refused attempt, in one line naming the 429 and the retry; the attempts back off.
      const said = [...lines429(cache), ...lines429(leases)];
      for (const l of said) expect(l).toMatch(LINE_429);
      // Each backs off longer every time (client-go's 800 ms doubling, jittered within [d, 2d)).
      for (const cli of [cache, leases]) {
        const delays = lines429(cli).map((l) => backoffMs(l));
        expect(delays[0]).toBeGreaterThanOrEqual(800);
        expect(delays).toEqual([...delays].sort((a, b) => a - b));
      }
      // ...and every request the API server refused was said: no refusal went unreported.
      expect(result.rejected).toBeLessThanOrEqual(said.length);
      expect(lines429(cache).length).toBeLessThanOrEqual(8);
      expect(lines429(leases).length).toBeLessThanOrEqual(8);
      for (const cli of [cache, leases]) expect(cli.stderr()).not.toMatch(/^error:|at .*\.js:\d+/m);
    } finally {
      await burst?.end();
      stop.abort();
      await Promise.all([cache.done, leases.done]);
    }
  });
  it('a one-shot command in a 429 burst: its LIST is sent again as Retry-After asks, the API server refusing it again and again, and it answers once the burst ends', async () => {
    const burst = await ApfBurst.start(cluster(), { name: APF_NAME, user: USER, namespace: ns });
    let cli: LiveCli | undefined;
    try {
      const rejectedBefore = await apfRejectedRequests(cluster(), APF_NAME);
      cli = startCli(createInformerTraceProgram, ['cache', 'configmaps', '-n', ns, '-o', 'name', '--kubeconfig', kubeconfig]);
      let ended = false;
      void cli.done.then(() => (ended = true));
      // Refused, then refused again after the wait the answer asked for: the command still waits.
      await eventually('two refusals of the command', async () => (await apfRejectedRequests(cluster(), APF_NAME)) - rejectedBefore >= 2, 30_000, 100);
      expect(ended).toBe(false);
      expect(cli.stdout()).toBe('');
      const result = await burst.end();
      expect(result.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      const done = await cli.done;
      expect(done.code).toBe(0);
      // The informer's one LIST succeeded: the client waited it out, the reflector never failed.
      expect(done.stderr).toMatch(/^info: listed \d+ objects at resourceVersion "\d+" in 1 request/m);
      expect(done.stderr).not.toMatch(/error|warning|429|TooManyRequests/i);
      const names = done.stdout.trim().split('\n').sort();
      expect(names).toEqual([...(await freshConfigMaps()).keys()].map((k) => `configmap/${k.split('/')[1]}`).sort());
    } finally {
      await burst.end();
      await cli?.done;
    }
  });
});
