/**
 * Dead connections under a watch, on the real control plane, through the fault proxy
 * (tools/cluster/fault-proxy.ts):
 * - `cache configmaps --watch -o ndjson`: the proxy freezes every connection open (half-open, as
 *   after a NAT entry was dropped); a ConfigMap created straight against the API server meanwhile
 *   reaches the stream within 75 s, because the watch is given up once silent past its timeout and
 *   opened again from its resourceVersion on a new connection; stderr says so in one line; every
 *   connection open at the freeze was closed by the plugin, none reused; the cache then equals a
 *   fresh List.
 * - the same with the API server hung (new connections accepted and never answered too): the
 *   watch is given up within 60 s and tried again, and once the server answers, the change arrives.
 * - `lease-watch -n NS -o ndjson`: a Lease acquired during a freeze is reported.
 * The plugins run in-process; the API server itself is never touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaseWatchProgram } from '../../src/commands/lease-watch.js';
import type { KubeObject } from '../../src/kube/index.js';
import type { LeaseChange } from '../../src/view/lease-view.js';
import { FaultProxy, type ProxiedConnection } from '../../tools/cluster/fault-proxy.js';
import {
  adminKube,
  cacheFromStream,
  cacheLines,
  cluster,
  connectionsClosed,
  createNamespace,
  deltasOf,
  deleteNamespace,
  eventually,
  startCli,
  streamMatchesFreshList,
  uniqueName,
  watchConfigMaps,
  type LiveCli,
} from './helpers.js';

const kube = adminKube();
const ns = uniqueName('it-halfopen');
/** The promise: a stalled watch is noticed within 60 s; the change then arrives on the new one. */
const ARRIVES_WITHIN_MS = 75_000;
/** The one stderr line; a freeze can catch the watch open, or still waiting for its answer (over HTTP/2, its PING finds it). */
const STALL_LINE =
  /^warning: watch (stalled: nothing arrived for [\d.]+s, and the server did not end it at its \d+s timeout|stalled: the connection did not answer a ping within [\d.]+s|request got no answer within [\d.]+s) \(a half-open connection or a hung API server\); watching again from resourceVersion "\d+" on a new connection$/;

const lines = cacheLines;
const deltas = deltasOf;
const stallLines = (cli: LiveCli): string[] =>
  cli
    .stderr()
    .split('\n')
    .filter((l) => /stalled|no answer/.test(l));

function cmPath(name?: string): string {
  return `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
}

async function createConfigMap(name: string): Promise<KubeObject> {
  return kube.client.json<KubeObject>(cmPath(), { method: 'POST', body: { metadata: { name }, data: { made: 'while the watch was cut off' } } });
}

describe('a watch whose connection goes half-open, or whose API server hangs', () => {
  let proxy: FaultProxy;
  let kubeconfig: string;

  beforeAll(async () => {
    proxy = await FaultProxy.start(cluster().server);
    kubeconfig = proxy.kubeconfig(cluster().kubeconfigPath);
    await createNamespace(kube, ns);
    // kube-controller-manager adds the root CA ConfigMap on its own time: before the watches start.
    await eventually('kube-root-ca.crt', () => kube.client.json(cmPath('kube-root-ca.crt')).then(() => true));
  });

  afterAll(async () => {
    await proxy?.close();
    await deleteNamespace(kube, ns);
  });

  it('cache --watch: a change made while the connection is half-open arrives on a new connection within 75 s, said once; the cache equals a fresh List', async () => {
    const stop = new AbortController();
    const cli = await watchConfigMaps(ns, kubeconfig, stop.signal);
    try {
      const before = lines(cli).length;
      const atFreeze: ProxiedConnection[] = proxy.connections().filter((c) => !c.closed);
      expect(atFreeze.length).toBeGreaterThanOrEqual(1);
      proxy.freeze();
      const frozenAt = Date.now();
      const made = await createConfigMap('made-while-frozen');

      const arrived = await eventually(
        'the new ConfigMap in the stream',
        async () => deltas(lines(cli).slice(before)).find((d) => d.key === `${ns}/made-while-frozen`),
        ARRIVES_WITHIN_MS,
        100,
      );
      const took = Date.now() - frozenAt;
      expect(took).toBeLessThan(ARRIVES_WITHIN_MS);
      expect(arrived).toMatchObject({ type: 'Added', resourceVersion: made.metadata.resourceVersion });
      expect(arrived.initial).not.toBe(true);

      // Said once, in one line; the stream marks the closed watch and the restart, and no relist.
      expect(stallLines(cli), cli.stderr()).toHaveLength(1);
      expect(stallLines(cli)[0]).toMatch(STALL_LINE);
      const tail = lines(cli).slice(before);
      expect(tail.some((l) => l.kind === 'watch-closed' && /stalled|no answer/.test(l.message))).toBe(true);
      expect(tail.some((l) => l.kind === 'watch-restart')).toBe(true);
      expect(tail.some((l) => l.kind === 'relist')).toBe(false);

      // A new connection, and none of the old ones reused: once thawed, every connection open at
      // the freeze turns out closed by the plugin (the dead watch's and the idle pooled ones).
      const ids = new Set(atFreeze.map((c) => c.id));
      expect(proxy.connections().some((c) => !ids.has(c.id) && !c.closed)).toBe(true);
      proxy.thaw();
      await connectionsClosed(proxy, ids, 10_000);

      // The cache equals a fresh List (straight from the API server) once the stream caught up.
      const fresh = await streamMatchesFreshList(cli, kube, cmPath());
      expect([...cacheFromStream(lines(cli)).keys()].sort()).toEqual([...fresh.keys()].sort());
    } finally {
      proxy.thaw();
      stop.abort();
      await cli.done;
    }
  });

  it('cache --watch against a hung API server (new connections unanswered too): given up within 60 s, tried again; the change arrives once it answers', async () => {
    const stop = new AbortController();
    const cli = await watchConfigMaps(ns, kubeconfig, stop.signal);
    try {
      const before = lines(cli).length;
      proxy.freeze({ newConnections: true });
      const frozenAt = Date.now();
      const made = await createConfigMap('made-while-hung');
      const line = await eventually('the stall line', async () => stallLines(cli)[0], 60_000 + 5_000, 100);
      expect(Date.now() - frozenAt).toBeLessThan(60_000 + 5_000);
      expect(line).toMatch(STALL_LINE);
      // Nothing can arrive while the server does not answer; the next watch request is under way.
      expect(deltas(lines(cli).slice(before)).some((d) => d.key === `${ns}/made-while-hung`)).toBe(false);
      proxy.thaw();
      const arrived = await eventually(
        'the new ConfigMap in the stream',
        async () => deltas(lines(cli).slice(before)).find((d) => d.key === `${ns}/made-while-hung`),
        30_000,
        100,
      );
      expect(arrived).toMatchObject({ type: 'Added', resourceVersion: made.metadata.resourceVersion });
      expect(
        lines(cli)
          .slice(before)
          .some((l) => l.kind === 'relist'),
      ).toBe(false);
    } finally {
      proxy.thaw();
      stop.abort();
      await cli.done;
    }
  });

  it('lease-watch -o ndjson: a Lease acquired while the connection is half-open is reported within 75 s, the stall said once', async () => {
    const stop = new AbortController();
    const cli = startCli(createLeaseWatchProgram, ['-n', ns, '-o', 'ndjson', '--kubeconfig', kubeconfig], { signal: stop.signal });
    try {
      await eventually('lease-watch to sync', async () => cli.stderr().includes('streaming holder changes'), 60_000, 50);
      proxy.freeze();
      const frozenAt = Date.now();
      const now = new Date().toISOString().replace(/\.(\d{3})\d*Z$/, '.$1000Z');
      await kube.client.json(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
        method: 'POST',
        body: {
          metadata: { name: 'made-while-frozen' },
          spec: { holderIdentity: 'candidate-a', leaseDurationSeconds: 3600, acquireTime: now, renewTime: now, leaseTransitions: 0 },
        },
      });
      const changes = (): LeaseChange[] =>
        cli
          .stdout()
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l) as LeaseChange);
      const seen = await eventually(
        'the Lease in the stream',
        async () => changes().find((c) => c.name === 'made-while-frozen' && c.holder === 'candidate-a'),
        ARRIVES_WITHIN_MS,
        100,
      );
      expect(Date.now() - frozenAt).toBeLessThan(ARRIVES_WITHIN_MS);
      expect(seen.namespace).toBe(ns);
      expect(stallLines(cli), cli.stderr()).toHaveLength(1);
      expect(stallLines(cli)[0]).toMatch(STALL_LINE);
    } finally {
      proxy.thaw();
      stop.abort();
      await cli.done;
    }
  });
});
