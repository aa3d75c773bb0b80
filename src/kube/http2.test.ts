/**
 * Requests over HTTP/2 against real node:http2 servers on the loopback address: streams sharing a
 * connection up to the server's limit, the idle timeout on one stream's bytes, a connection that
 * goes silent found by its PING, a stream the server resets, an abort; and through KubeClient
 * over TLS, HTTP/2 where the server speaks it and HTTP/1.1 where it does not.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createSecureServer, createServer, type Http2SecureServer, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import { createConnection, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCa, makeServingCert } from '../../tools/cluster/pki.js';
import { KubeClient } from './client.js';
import { ConnectionStalledError, readBody } from './http.js';
import { Http2Connections, Http2Unsupported } from './http2.js';

/** Streams the server holds open (a watch); ended in afterAll. */
const held: ServerHttp2Stream[] = [];
let server: Http2Server;
let origin: string;

function answer(stream: ServerHttp2Stream, path: string): void {
  // The client resets streams it gives up on; the server has nothing to do about it.
  stream.on('error', () => undefined);
  switch (path) {
    case '/hello':
      stream.respond({ ':status': 200, 'content-type': 'text/plain' });
      stream.end('hello');
      return;
    case '/watch':
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      stream.write('{"type":"ADDED"}\n');
      held.push(stream);
      return;
    case '/silent-body':
      stream.respond({ ':status': 200 });
      stream.write('part');
      held.push(stream);
      return;
    case '/reset':
      stream.respond({ ':status': 200 });
      stream.write('part', () => stream.destroy(new Error('the handler failed')));
      return;
    case '/cut':
      // The server goes away mid-answer (GOAWAY, then the connection closes): node ends the
      // client's stream as if the answer were whole unless told otherwise.
      stream.respond({ ':status': 200 });
      stream.write('part', () => stream.session?.destroy());
      return;
    case '/never':
      held.push(stream);
      return;
    default:
      stream.respond({ ':status': 404 });
      stream.end();
  }
}

const listen = (s: Http2Server | Http2SecureServer | HttpsServer | TcpServer): Promise<number> =>
  new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));

beforeAll(async () => {
  server = createServer({ settings: { maxConcurrentStreams: 3 } });
  server.on('stream', (stream, headers) => answer(stream, String(headers[':path'])));
  origin = `http://127.0.0.1:${await listen(server)}`;
});

afterAll(async () => {
  for (const s of held) if (!s.destroyed) s.close();
  await new Promise((r) => server.close(r));
});

describe('Http2Connections', () => {
  it('sends requests as streams of one connection, and opens another only past the server’s limit', async () => {
    const h2 = new Http2Connections(origin);
    const answers = await Promise.all([1, 2, 3].map(() => h2.request(new URL('/hello', origin), { headers: {} })));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect(await Promise.all(answers.map((a) => readBody(a)))).toEqual(['hello', 'hello', 'hello']);
    expect(answers[0]!.complete).toBe(true);
    expect(h2.opened).toBe(1);
    // Three watches fill the connection (the server allows three streams): the fourth gets a new one.
    const watches = await Promise.all(
      [1, 2, 3, 4].map(() => h2.request(new URL('/watch', origin), { headers: {}, idleTimeoutMs: 5000, idleTimeoutCoversBody: false })),
    );
    expect(h2.opened).toBe(2);
    expect(h2.size).toBe(2);
    for (const w of watches) w.destroy();
    h2.close();
  });

  it('fails a body silent past the idle timeout with ETIMEDOUT, and leaves a watch’s silence to its reader', async () => {
    const h2 = new Http2Connections(origin);
    const res = await h2.request(new URL('/silent-body', origin), { headers: {}, idleTimeoutMs: 150 });
    await expect(readBody(res)).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    const watch = await h2.request(new URL('/silent-body', origin), { headers: {}, idleTimeoutMs: 150, idleTimeoutCoversBody: false });
    const body = readBody(watch);
    const outcome = await Promise.race([
      body.then(
        () => 'ended',
        (e: NodeJS.ErrnoException) => e.code,
      ),
      new Promise((r) => setTimeout(() => r('open'), 400)),
    ]);
    expect(outcome).toBe('open');
    watch.destroy();
    await body.catch(() => undefined);
    // No answer at all: the same timeout, before the headers.
    await expect(h2.request(new URL('/never', origin), { headers: {}, idleTimeoutMs: 150 })).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    h2.close();
  });

  it('says a stream the server reset mid-answer was cut (ECONNRESET), as HTTP/1.1 says a closed connection', async () => {
    const h2 = new Http2Connections(origin);
    const res = await h2.request(new URL('/reset', origin), { headers: {} });
    await expect(readBody(res)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(res.complete).toBe(false);
    const cut = await h2.request(new URL('/cut', origin), { headers: {} });
    await expect(readBody(cut)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(cut.complete).toBe(false);
    h2.close();
  });

  it('says what stopped the connection, as HTTP/1.1 does: ECONNREFUSED from a port nobody listens on', async () => {
    const closed = createTcpServer();
    const port = await listen(closed);
    await new Promise((r) => closed.close(r));
    const h2 = new Http2Connections(`http://127.0.0.1:${port}`);
    await expect(h2.request(new URL('/hello', `http://127.0.0.1:${port}`), { headers: {} })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    h2.close();
  });

  it('rejects with the abort reason, before the answer and after', async () => {
    const h2 = new Http2Connections(origin);
    const ac = new AbortController();
    const pending = h2.request(new URL('/never', origin), { headers: {}, signal: ac.signal });
    setTimeout(() => ac.abort(new Error('stopped by the test')), 50);
    await expect(pending).rejects.toThrow('stopped by the test');
    const ac2 = new AbortController();
    const res = await h2.request(new URL('/silent-body', origin), { headers: {}, signal: ac2.signal });
    const body = readBody(res, { signal: ac2.signal });
    ac2.abort(new Error('stopped later'));
    await expect(body).rejects.toThrow('stopped later');
    h2.close();
  });

  it('destroys a connection that does not answer its PING, failing its requests as stalled (ETIMEDOUT)', async () => {
    // A TCP proxy that can stop forwarding the connections open now while both sockets stay open:
    // half-open connections. Those opened later go through.
    const frozen = new Set<Socket>();
    const pairs: [Socket, Socket][] = [];
    const proxy = createTcpServer((client) => {
      const upstream = createConnection(Number(new URL(origin).port), '127.0.0.1');
      pairs.push([client, upstream]);
      client.on('data', (c) => frozen.has(client) || upstream.write(c));
      upstream.on('data', (c) => frozen.has(client) || client.write(c));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('error', () => undefined);
      upstream.on('error', () => undefined);
    });
    const proxied = `http://127.0.0.1:${await listen(proxy)}`;
    const h2 = new Http2Connections(proxied, { pingTimeoutMs: 200 });
    const watch = await h2.request(new URL('/watch', proxied), { headers: {}, idleTimeoutCoversBody: false, idleTimeoutMs: 60_000 });
    const body = readBody(watch);
    expect(h2.checkLiveness()).toEqual({ closed: 0, pinged: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect(h2.size).toBe(1);
    for (const [client] of pairs) frozen.add(client);
    expect(h2.checkLiveness()).toEqual({ closed: 0, pinged: 1 });
    // Until the PING is answered, a new request (the silent watch's retry) goes on a new connection.
    const retry = await h2.request(new URL('/hello', proxied), { headers: {} });
    expect(await readBody(retry)).toBe('hello');
    expect(h2.opened).toBe(2);
    const failed = await body.catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(ConnectionStalledError);
    expect(failed).toMatchObject({ networkCode: 'ETIMEDOUT', message: expect.stringMatching(/^the connection did not answer a ping within 200ms/) });
    expect(h2.size).toBe(1);
    // The connection with no request left is closed, as HTTP/1.1 closes its idle pooled ones.
    expect(h2.checkLiveness()).toEqual({ closed: 1, pinged: 0 });
    expect(h2.size).toBe(0);
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    await new Promise((r) => proxy.close(r));
  });
});

describe('KubeClient over HTTP/2', () => {
  let dir: string;
  let secure: Http2SecureServer;
  let plain: HttpsServer;
  let securePort: number;
  let plainPort: number;

  const client = (port: number): KubeClient => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `https://127.0.0.1:${port}`, caFile: join(dir, 'ca.crt') }],
      users: [{ name: 'u', token: 'a-token' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    return new KubeClient(kc, 0, '', 0, true, undefined, true);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'informer-trace-h2-'));
    await makeCa(dir);
    await makeServingCert(dir);
    const tls = { key: readFileSync(join(dir, 'apiserver.key')), cert: readFileSync(join(dir, 'apiserver.crt')) };
    const reply = (version: string, auth: string | undefined): string => JSON.stringify({ kind: 'Status', version, auth });
    secure = createSecureServer(tls, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(reply(req.httpVersion, req.headers.authorization));
    });
    // ALPN offers http/1.1 only: a server (or a proxy in front of it) that does not speak HTTP/2.
    plain = createHttpsServer({ ...tls, ALPNProtocols: ['http/1.1'] }, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(reply(req.httpVersion, req.headers.authorization));
    });
    securePort = await listen(secure);
    plainPort = await listen(plain);
  }, 60_000);

  afterAll(async () => {
    await new Promise((r) => secure.close(r));
    await new Promise((r) => plain.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('speaks HTTP/2 to a server that does, with the credentials, all on one connection', async () => {
    const kube = client(securePort);
    const answers = await Promise.all([1, 2, 3].map(() => kube.json<{ version: string; auth: string }>('/api')));
    expect(answers).toEqual([1, 2, 3].map(() => ({ kind: 'Status', version: '2.0', auth: 'Bearer a-token' })));
  });

  it('goes on over HTTP/1.1 with a server that does not', async () => {
    const kube = client(plainPort);
    expect(await kube.json('/api')).toEqual({ kind: 'Status', version: '1.1', auth: 'Bearer a-token' });
    expect(await kube.json('/api')).toEqual({ kind: 'Status', version: '1.1', auth: 'Bearer a-token' });
  });

  it('refuses with Http2Unsupported once the server turned "h2" down', async () => {
    const port = plainPort;
    const h2 = new Http2Connections(`https://127.0.0.1:${port}`, { tls: { ca: readFileSync(join(dir, 'ca.crt')) } });
    await expect(h2.request(new URL('/api', `https://127.0.0.1:${port}`), { headers: {} })).rejects.toBeInstanceOf(Http2Unsupported);
    expect(h2.unsupported).toBe(true);
    await expect(h2.request(new URL('/api', `https://127.0.0.1:${port}`), { headers: {} })).rejects.toBeInstanceOf(Http2Unsupported);
  });
});
