/**
 * A watch event over MAX_WATCH_EVENT_BYTES, from a real HTTP server on the loopback address that
 * answers list and watch as kube-apiserver does: the informer reports one line naming the
 * resource, the size and the limit, drops the connection, re-lists and watches on.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { SharedIndexInformer } from '../informer/shared-informer.js';
import type { InformerEvent } from '../informer/stats.js';
import { loopbackKubeConfig, startLoopbackServer, type LoopbackServer } from '../../tools/testing/http-server.js';
import { KubeClient } from './client.js';
import { ResourceListerWatcher } from './lister-watcher.js';
import type { ResourceInfo } from './types.js';
import { MAX_WATCH_EVENT_BYTES } from './watch-stream.js';

const configmaps: ResourceInfo = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  singularName: 'configmap',
  verbs: ['list', 'watch'],
};

const cm = (name: string, rv: string) => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'ns', resourceVersion: rv } });

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it('an event over the limit ends the watch with one line naming the resource and the limit; the informer re-lists and watches on', async () => {
  let lists = 0;
  let watches = 0;
  let hugeBytesSent = 0;
  const floods = new Set<ServerResponse>();
  server = await startLoopbackServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.searchParams.get('watch') === 'true') {
      watches++;
      res.writeHead(200, { 'content-type': 'application/json' });
      if (watches === 1) {
        // One event that never ends: the object's data grows for as long as the client reads.
        floods.add(res);
        res.write(
          `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"huge","namespace":"ns","resourceVersion":"2"},"data":{"k":"`,
        );
        const filler = 'x'.repeat(64 * 1024);
        const more = (): void => {
          while (!res.destroyed && hugeBytesSent < 8 * MAX_WATCH_EVENT_BYTES && res.write(filler)) hugeBytesSent += filler.length;
        };
        res.on('drain', more);
        more();
        return;
      }
      res.write(`${JSON.stringify({ type: 'ADDED', object: cm('after', '5') })}\n`);
      return; // then silence, until the test stops the informer
    }
    lists++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: lists === 1 ? '1' : '4' }, items: [cm('first', '1')] }));
  });
  const kc = loopbackKubeConfig(server.base);
  const events: InformerEvent[] = [];
  const informer = new SharedIndexInformer(new ResourceListerWatcher(new KubeClient(kc), configmaps, { namespace: 'ns', encoding: 'json' }), {
    onEvent: (e) => events.push(e),
  });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  try {
    const end = Date.now() + 20_000;
    while (!informer.getStore().listKeys().includes('ns/after')) {
      if (Date.now() > end) throw new Error(`no re-watch: ${events.map((e) => e.message).join(' | ')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    stop.abort();
    await running;
  }
  const refused = events.filter((e) => /over the 10 MiB limit/.test(e.message));
  expect(refused).toHaveLength(1);
  expect(refused[0]!.message).toMatch(
    /^watch ended with an error: watch of configmaps in ns sent an event of more than 10(\.\d)? MiB, over the 10 MiB limit; refused; relisting after backoff$/,
  );
  expect(lists).toBe(2);
  expect(informer.getStore().listKeys()).not.toContain('ns/huge');
  // The client stopped reading: far less than the flood was sent, and its connection is closed.
  expect(hugeBytesSent).toBeLessThan(3 * MAX_WATCH_EVENT_BYTES);
  expect([...floods].every((r) => r.destroyed || r.writableEnded || r.closed)).toBe(true);
});
