/**
 * KubeClient and response compression, against a real HTTP server on the loopback address that
 * answers as kube-apiserver does: gzip when the request accepts it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { gzipSync, createGzip } from 'node:zlib';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../testing/http-server.js';
import { ApiError } from './api-error.js';
import { KubeClient } from './client.js';
import { WatchStream } from './watch-stream.js';

let server: LoopbackServer;
let seen: IncomingHttpHeaders[] = [];

const list = {
  kind: 'ConfigMapList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '42' },
  items: Array.from({ length: 400 }, (_, i) => ({ metadata: { name: `cm-${i}`, namespace: 'ns' }, data: { key: `value-${i}`.repeat(20) } })),
};
const listJson = JSON.stringify(list);

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    seen.push(req.headers);
    const gzip = req.headers['accept-encoding']?.includes('gzip') === true;
    switch (req.url?.split('?')[0]) {
      case '/list': {
        res.writeHead(200, { 'content-type': 'application/json', ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
        const body = gzip ? gzipSync(listJson) : Buffer.from(listJson);
        // In small writes, so the gzip stream arrives in many chunks.
        for (let at = 0; at < body.length; at += 1000) res.write(body.subarray(at, at + 1000));
        res.end();
        return;
      }
      case '/cut': {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        const body = gzipSync(listJson);
        res.write(body.subarray(0, body.length >> 1), () => res.socket?.destroy());
        return;
      }
      case '/not-gzip':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(listJson);
        return;
      case '/watch': {
        // A proxy that compresses a watch flushes each event; nothing ends the answer.
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        const z = createGzip();
        z.pipe(res);
        z.write(`${JSON.stringify({ type: 'ADDED', object: list.items[0] })}\n`);
        z.flush();
        return;
      }
      default:
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not here' }));
    }
  });
});

afterAll(() => server.close());

function client(compression?: boolean): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: server.base, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return compression === undefined ? new KubeClient(kc) : new KubeClient(kc, 0, '', 0, compression);
}

describe('KubeClient: gzip', () => {
  it('asks for gzip by default and streams a compressed List item by item, as it was sent', async () => {
    seen = [];
    const items: unknown[] = [];
    const { list: rest, encoding } = await client().streamList('/list', {}, (item) => items.push(item));
    expect(seen[0]!['accept-encoding']).toBe('gzip');
    expect(encoding).toBe('json');
    expect(items).toEqual(list.items);
    expect(rest.metadata).toEqual(list.metadata);
    // A whole body read at once is gunzipped as well.
    expect(await client().json('/list')).toEqual(list);
  });

  it('does not ask for gzip with compression off (--disable-compression), and reads the same List', async () => {
    seen = [];
    const items: unknown[] = [];
    await client(false).streamList('/list', {}, (item) => items.push(item));
    expect(seen[0]!['accept-encoding']).toBeUndefined();
    expect(items).toEqual(list.items);
  });

  it('a compressed answer cut short fails as a network error, and one that is not gzip at all fails too', async () => {
    const cut = await client()
      .streamList('/cut', {}, () => {})
      .catch((err: unknown) => err);
    expect(cut).toBeInstanceOf(ApiError);
    expect((cut as ApiError).networkCode).toBeDefined();
    const garbled = await client()
      .json('/not-gzip')
      .catch((err: unknown) => err);
    expect(garbled).toBeInstanceOf(ApiError);
  });

  it('errors keep their Status; a compressed watch delivers each flushed event before the answer ends', async () => {
    const notFound = await client()
      .json('/missing')
      .catch((err: unknown) => err);
    expect((notFound as ApiError).code).toBe(404);
    expect((notFound as ApiError).message).toContain('not here');

    const res = await client().openOk('/watch');
    const watch = new WatchStream(res, 'configmaps');
    const first = await watch[Symbol.asyncIterator]().next();
    expect(first.value).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'cm-0' } } });
    watch.stop();
  });
});
