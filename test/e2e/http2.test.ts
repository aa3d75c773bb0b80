/**
 * The plugins over HTTP/2 (INFORMER_TRACE_HTTP2=1) against the real kube-apiserver, through the
 * fault proxy (tools/cluster/fault-proxy.ts), which counts the TCP connections:
 * - a trace of a Deployment lists and watches every kind of its chain as streams of one
 *   connection (over HTTP/1.1, a connection a watch);
 * - `cache configmaps --watch`: the connection goes half-open; it is given up once its PING goes
 *   unanswered (or the watch's silence is noticed first), the watch opens again on a new
 *   connection, the change made meanwhile arrives within 75 s, said once; the plugin closes the
 *   dead connection; the cache equals a fresh List;
 * - every connection reset: the watches open again on a new one, and a change made after arrives.
 * The plugins run in-process; the API server itself is never touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInformerTraceProgram } from '../../src/commands/informer-trace.js';
import { HTTP2_ENV } from '../../src/kube/http2.js';
import type { KubeObject } from '../../src/kube/index.js';
import { FaultProxy } from '../../tools/cluster/fault-proxy.js';
import {
  adminKube,
  cacheLines,
  cluster,
  connectionsClosed,
  createNamespace,
  deleteNamespace,
  deltasOf,
  eventually,
  startCli,
  stderrLine,
  streamMatchesFreshList,
  uniqueName,
  watchConfigMaps,
  type LiveCli,
} from './helpers.js';

const kube = adminKube();
const ns = uniqueName('it-http2');
const ARRIVES_WITHIN_MS = 75_000;

const lines = cacheLines;
const deltas = deltasOf;
/** What says the connection was lost: the watch's silence (its reader's stall) or the unanswered PING, whichever came first. */
const lossLines = (cli: LiveCli): string[] =>
  cli
    .stderr()
    .split('\n')
    .filter((l) => /stalled|no answer|a ping/.test(l));
/** Either way a stall, said as the watch's own deadline says it. */
const STALL_LINE =
  /^warning: watch stalled: (nothing arrived for [\d.]+s, and the server did not end it at its \d+s timeout|the connection did not answer a ping within [\d.]+s) \(a half-open connection or a hung API server\); watching again from resourceVersion "\d+" on a new connection$/;
const cmPath = (name?: string): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const createConfigMap = (name: string): Promise<KubeObject> => kube.client.json<KubeObject>(cmPath(), { method: 'POST', body: { metadata: { name } } });

describe('over HTTP/2', () => {
  let proxy: FaultProxy;
  let kubeconfig: string;
  const before = process.env[HTTP2_ENV];

  beforeAll(async () => {
    process.env[HTTP2_ENV] = '1';
    proxy = await FaultProxy.start(cluster().server);
    kubeconfig = proxy.kubeconfig(cluster().kubeconfigPath);
    await createNamespace(kube, ns);
    await eventually('kube-root-ca.crt', () => kube.client.json(cmPath('kube-root-ca.crt')).then(() => true));
  });

  afterAll(async () => {
    if (before === undefined) delete process.env[HTTP2_ENV];
    else process.env[HTTP2_ENV] = before;
    await proxy?.close();
    await deleteNamespace(kube, ns);
  });

  /**
   * Creates a ConfigMap and waits for it in the stream: the watch is open and has had an event (a
   * watch that ends within a second with none is relisted, client-go's "very short watch").
   */
  async function watchSees(cli: LiveCli, name: string): Promise<void> {
    await createConfigMap(name);
    await eventually(`${name} in the stream`, async () => deltas(lines(cli)).some((d) => d.key === `${ns}/${name}`), 30_000, 50);
  }

  it('a trace lists and watches every kind of its chain on one connection', async () => {
    await kube.client.json(`/apis/apps/v1/namespaces/${ns}/deployments`, {
      method: 'POST',
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'example.invalid/web:1' }] } },
        },
      },
    });
    const opened = proxy.connections().length;
    const stop = new AbortController();
    const running = startCli(createInformerTraceProgram, ['deploy/web', '-n', ns, '--watch', '-o', 'ndjson', '--kubeconfig', kubeconfig], {
      signal: stop.signal,
    });
    try {
      await stderrLine(running, /^watching Deployment\/web for a change/);
      const info = running.stderr();
      // Its informers: the Deployment's, its ReplicaSets', Pods', Events' at least, each a LIST and a WATCH.
      const mine = proxy.connections().slice(opened);
      expect(
        mine.filter((c) => !c.closed),
        info,
      ).toHaveLength(1);
      expect(mine, info).toHaveLength(1);
    } finally {
      stop.abort();
      await running.done;
    }
  });

  it('cache --watch: a half-open connection is given up, the change made meanwhile arrives on a new one within 75 s, said once; the cache equals a fresh List', async () => {
    const stop = new AbortController();
    const earlier = proxy.connections().length;
    const cli = await watchConfigMaps(ns, kubeconfig, stop.signal);
    try {
      await watchSees(cli, 'before-freeze');
      const start = lines(cli).length;
      // This command's connections (one: HTTP/2 carries its LIST and WATCH as streams).
      const atFreeze = proxy
        .connections()
        .slice(earlier)
        .filter((c) => !c.closed);
      expect(atFreeze).toHaveLength(1);
      proxy.freeze();
      const frozenAt = Date.now();
      const made = await createConfigMap('made-while-frozen');
      const arrived = await eventually(
        'the new ConfigMap in the stream',
        async () => deltas(lines(cli).slice(start)).find((d) => d.key === `${ns}/made-while-frozen`),
        ARRIVES_WITHIN_MS,
        100,
      );
      expect(Date.now() - frozenAt).toBeLessThan(ARRIVES_WITHIN_MS);
      expect(arrived, cli.stderr()).toMatchObject({ type: 'Added', resourceVersion: made.metadata.resourceVersion });
      expect(lossLines(cli), cli.stderr()).toHaveLength(1);
      expect(lossLines(cli)[0]).toMatch(STALL_LINE);
      expect(
        lines(cli)
          .slice(start)
          .some((l) => l.kind === 'relist'),
      ).toBe(false);
      expect(
        lines(cli)
          .slice(start)
          .some((l) => l.kind === 'watch-closed' && /^watch stalled: /.test(l.message)),
      ).toBe(true);
      // The dead connection is closed by the plugin: its PING went unanswered.
      const ids = new Set(atFreeze.map((c) => c.id));
      proxy.thaw();
      await connectionsClosed(proxy, ids, 30_000);
      await streamMatchesFreshList(cli, kube, cmPath());
    } finally {
      proxy.thaw();
      stop.abort();
      await cli.done;
    }
  });

  it('cache --watch: every connection reset, the watch opens again on a new one and a change made after arrives', async () => {
    const stop = new AbortController();
    const cli = await watchConfigMaps(ns, kubeconfig, stop.signal);
    try {
      await watchSees(cli, 'before-reset');
      const start = lines(cli).length;
      const atReset = new Set(
        proxy
          .connections()
          .filter((c) => !c.closed)
          .map((c) => c.id),
      );
      proxy.reset();
      const made = await createConfigMap('made-after-reset');
      const arrived = await eventually(
        'the new ConfigMap in the stream',
        async () => deltas(lines(cli).slice(start)).find((d) => d.key === `${ns}/made-after-reset`),
        30_000,
        100,
      );
      expect(arrived, cli.stderr()).toMatchObject({ type: 'Added', resourceVersion: made.metadata.resourceVersion });
      expect(proxy.connections().some((c) => !atReset.has(c.id) && !c.closed)).toBe(true);
    } finally {
      stop.abort();
      await cli.done;
    }
  });
});
