/**
 * KubeClient and response compression, against a real HTTP server on the loopback address that
 * answers as kube-apiserver does: gzip when the request accepts it. And dead connections: the
 * idle timeout, and a stalled watch taking the pooled connections with it.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Agent } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync, createGzip } from 'node:zlib';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackKubeConfig, startLoopbackServer, type LoopbackServer } from '../../tools/testing/http-server.js';
import { ApiError } from './api-error.js';
import { KubeClient, keepAliveAgent } from './client.js';
import { ConnectionStalledError } from './http.js';
import { ResourceListerWatcher } from './lister-watcher.js';
import type { ResourceInfo } from './types.js';
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
  const kc = loopbackKubeConfig(server.base);
  return compression === undefined ? new KubeClient(kc) : new KubeClient(kc, 0, '', 0, compression);
}

describe('keepAliveAgent', () => {
  it('keeps connections alive and gives every connection one TLS context, made once; a proxy agent is left as it is', () => {
    const agent = keepAliveAgent(new Agent({ rejectUnauthorized: false }))!;
    expect(agent.options.keepAlive).toBe(true);
    expect(agent.options.rejectUnauthorized).toBe(false);
    expect(agent.options.secureContext).toBeDefined();
    expect(keepAliveAgent(agent)).toBe(agent);
    class ProxyAgent extends Agent {}
    const proxy = new ProxyAgent();
    expect(keepAliveAgent(proxy)).toBe(proxy);
    expect(keepAliveAgent(undefined)).toBeUndefined();
  });
});

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

describe('KubeClient: dead connections', () => {
  let dead: Server;
  let kc: KubeConfig;
  const open = new Set<Socket>();
  let connections = 0;

  beforeAll(async () => {
    dead = createServer((req, res) => {
      if (req.url?.includes('watch=true')) {
        // A watch whose connection then goes silent: headers, one event, nothing more.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', namespace: 'ns', resourceVersion: '5' } } })}\n`);
        return;
      }
      if (req.url === '/silent') return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    dead.on('connection', (s: Socket) => {
      connections++;
      open.add(s);
      s.on('close', () => open.delete(s));
    });
    // Idle connections stay open on both sides unless something closes them on purpose.
    dead.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    kc = loopbackKubeConfig(`http://127.0.0.1:${(dead.address() as AddressInfo).port}`);
  });

  afterAll(async () => {
    dead.closeAllConnections();
    await new Promise<void>((resolve) => dead.close(() => resolve()));
  });

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

  it('has an idle timeout by default: the server’s 60 s or --request-timeout, whichever is longer, plus 15 s', () => {
    expect(new KubeClient(kc).idleTimeoutMs).toBe(75_000);
    expect(new KubeClient(kc, 120_000).idleTimeoutMs).toBe(135_000);
    expect(new KubeClient(kc, 0, '', 0, true, 500).idleTimeoutMs).toBe(500);
  });

  it('a request that gets no answer fails as a network error (ETIMEDOUT) instead of hanging', async () => {
    const err = await new KubeClient(kc, 0, '', 0, true, 150).json('/silent').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).networkCode).toBe('ETIMEDOUT');
    expect((err as ApiError).message).toMatch(/nothing arrived from the server for 150ms/);
  });

  it('a watch aborted with ConnectionStalledError closes its connection and the idle pooled ones; the next request connects anew', async () => {
    const client = new KubeClient(kc);
    await Promise.all([client.json('/a'), client.json('/b')]); // two connections, then idle in the pool
    const pooled = open.size;
    expect(pooled).toBeGreaterThanOrEqual(1);
    const lw = new ResourceListerWatcher(client, configmaps, { namespace: 'ns' });
    const stall = new AbortController();
    const w = await lw.watch({ resourceVersion: '4', timeoutSeconds: 30 }, stall.signal);
    const it = w[Symbol.asyncIterator]();
    expect((await it.next()).value).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
    const before = connections;
    stall.abort(new ConnectionStalledError('watch stalled'));
    w.stop();
    expect((await it.next()).done).toBe(true);
    // Every connection of this client is gone: the watch's and the pooled ones.
    await waitFor(() => open.size === 0, 1_000);
    await client.json('/c');
    expect(connections).toBe(before + 1);
  });
});

describe('KubeClient: answers that ask to be retried (Retry-After)', () => {
  let busy: LoopbackServer;
  /** Per path: the requests it had, with their bodies; and the answers it gives before a 200. */
  const requests = new Map<string, { method: string; body: string }[]>();
  const refusals: Record<string, { status: number; retryAfter?: string; times: number }> = {
    '/twice': { status: 429, retryAfter: '1', times: 2 },
    '/post': { status: 429, retryAfter: '1', times: 1 },
    '/unavailable': { status: 503, retryAfter: '2', times: 1 },
    '/no-header': { status: 429, times: 1 },
    '/not-found': { status: 404, retryAfter: '1', times: 1 },
    '/date': { status: 429, retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT', times: 1 },
    '/too-long': { status: 429, retryAfter: '61', times: 1 },
    '/always': { status: 429, retryAfter: '1', times: Number.POSITIVE_INFINITY },
  };

  beforeAll(async () => {
    busy = await startLoopbackServer((req, res) => {
      const path = req.url?.split('?')[0] ?? '';
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const had = requests.get(path) ?? [];
        had.push({ method: req.method ?? '', body });
        requests.set(path, had);
        const refuse = refusals[path];
        if (refuse && had.length <= refuse.times) {
          res.writeHead(refuse.status, { 'content-type': 'application/json', ...(refuse.retryAfter ? { 'retry-after': refuse.retryAfter } : {}) });
          res.end(
            JSON.stringify({
              kind: 'Status',
              apiVersion: 'v1',
              status: 'Failure',
              reason: 'TooManyRequests',
              code: refuse.status,
              message: 'too many requests, please try again later',
            }),
          );
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ path, attempt: had.length }));
      });
    });
  });

  afterAll(() => busy.close());

  /** A client of the busy server whose waits are recorded instead of slept. */
  function retrying(recorded = true): { client: KubeClient; waits: number[] } {
    const kc = loopbackKubeConfig(busy.base);
    const client = new KubeClient(kc);
    const waits: number[] = [];
    if (recorded) client.retries.sleep = async (ms) => void waits.push(ms);
    return { client, waits };
  }

  it('a 429 with Retry-After is sent again after that many seconds, until answered; a 503 with one too; a body is sent again as it was', async () => {
    const { client, waits } = retrying();
    await expect(client.json('/twice')).resolves.toEqual({ path: '/twice', attempt: 3 });
    expect(waits).toEqual([1000, 1000]);
    await expect(client.json('/unavailable')).resolves.toEqual({ path: '/unavailable', attempt: 2 });
    expect(waits).toEqual([1000, 1000, 2000]);
    await expect(client.json('/post', { method: 'POST', body: { a: 1 } })).resolves.toEqual({ path: '/post', attempt: 2 });
    expect(requests.get('/post')).toEqual([
      { method: 'POST', body: '{"a":1}' },
      { method: 'POST', body: '{"a":1}' },
    ]);
  });

  it('is not retried without a Retry-After of whole seconds, beyond 60 s, for another status, or for a watch', async () => {
    const { client, waits } = retrying();
    for (const path of ['/no-header', '/not-found', '/date', '/too-long']) {
      const err = await client.json(path).catch((e: unknown) => e);
      expect(err, path).toBeInstanceOf(ApiError);
      expect((err as ApiError).code, path).toBe(refusals[path]!.status);
      expect(requests.get(path), path).toHaveLength(1);
    }
    // A watch's 429 goes to its reflector, which backs off and says so.
    const err = await client.openOk('/always', { stream: true }).catch((e: unknown) => e);
    expect((err as ApiError).code).toBe(429);
    expect(requests.get('/always')).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('gives up after ten retries with the last answer’s error, as client-go does; an abort while waiting ends it at once', async () => {
    requests.delete('/always');
    const { client, waits } = retrying();
    const err = await client.json('/always').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(429);
    expect((err as ApiError).message).toContain('too many requests');
    expect(requests.get('/always')).toHaveLength(11);
    expect(waits).toHaveLength(10);

    requests.delete('/always');
    const real = retrying(false).client; // the real wait, of 1 s
    const stop = new AbortController();
    const pending = real.json('/always', { signal: stop.signal }).catch((e: unknown) => e);
    await waitFor(() => requests.get('/always')?.length === 1, 1_000);
    stop.abort(new Error('interrupted'));
    expect(await pending).toEqual(new Error('interrupted'));
    expect(requests.get('/always')).toHaveLength(1);
  });
});

/** Polls `cond` on every turn of the event loop; fails after `ms` (well before any idle timeout). */
async function waitFor(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`not within ${ms}ms`);
    await new Promise((r) => setImmediate(r));
  }
}
