/**
 * httpGet against a real HTTP server on the loopback address (no sleeps: every case answers or
 * fails at once, or at a timeout).
 */
import { Agent, createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../tools/testing/http-server.js';
import { gzipSync } from 'node:zlib';
import { decodedBody, httpGet, isTlsErrorCode, readBody, readBytes, sendRequest } from './http.js';

let server: LoopbackServer;
let base: string;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    switch (req.url) {
      case '/ok':
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('ok\n');
        return;
      case '/no-answer':
        return;
      case '/half-answer':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('o');
        return;
      case '/big':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(4096));
        return;
      case '/gzip':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        res.end(gzipSync('z'.repeat(100_000)));
        return;
      case '/redirect':
        res.writeHead(302, { location: '/ok' });
        res.end();
        return;
      default:
        res.writeHead(404);
        res.end('404 page not found\n');
    }
  });
  base = server.base;
});

afterAll(() => server.close());

describe('httpGet', () => {
  it('returns status, headers and body', async () => {
    const res = await httpGet({ url: new URL(`${base}/ok`), headers: { accept: 'text/plain' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toBe('ok\n');
  });

  it('returns non-2xx answers as they are and does not follow redirects', async () => {
    expect((await httpGet({ url: new URL(`${base}/nope`), headers: {} })).status).toBe(404);
    const r = await httpGet({ url: new URL(`${base}/redirect`), headers: {} });
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('/ok');
  });

  it('refuses bodies over the size limit', async () => {
    await expect(httpGet({ url: new URL(`${base}/big`), headers: {}, maxBytes: 100 })).rejects.toMatchObject({ code: 'ETOOBIG' });
  });

  it('rejects with the errno code when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(httpGet({ url: new URL(`http://127.0.0.1:${port}/metrics`), headers: {} })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('gives up with ETIMEDOUT when no answer comes in time, or the answer stops halfway', async () => {
    await expect(httpGet({ url: new URL(`${base}/no-answer`), headers: {}, timeoutMs: 100 })).rejects.toMatchObject({
      code: 'ETIMEDOUT',
      message: 'no answer within 100ms',
    });
    await expect(httpGet({ url: new URL(`${base}/half-answer`), headers: {}, timeoutMs: 100 })).rejects.toMatchObject({ code: 'ETIMEDOUT' });
  });

  it('rejects at once with the abort reason when the signal is already aborted', async () => {
    const ctrl = new AbortController();
    ctrl.abort(new Error('stop'));
    await expect(httpGet({ url: new URL(`${base}/metrics`), headers: {}, signal: ctrl.signal })).rejects.toThrow('stop');
  });
});

describe('sendRequest: idle timeout', () => {
  let idleServer: Server;
  let idleBase: string;
  const sockets = new Set<Socket>();
  let connections = 0;

  beforeAll(async () => {
    idleServer = createServer((req, res) => {
      switch (req.url) {
        case '/silent':
          return; // accepts, never answers: a hung server
        case '/half':
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('o');
          return;
        case '/trickle': {
          res.writeHead(200, { 'content-type': 'text/plain' });
          let i = 0;
          const t = setInterval(() => {
            res.write(String(i++));
            if (i === 8) {
              clearInterval(t);
              res.end();
            }
          }, 60);
          return;
        }
        default:
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('ok');
      }
    });
    idleServer.on('connection', (s: Socket) => {
      connections++;
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => idleServer.listen(0, '127.0.0.1', resolve));
    idleBase = `http://127.0.0.1:${(idleServer.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    idleServer.closeAllConnections();
    await new Promise<void>((resolve) => idleServer.close(() => resolve()));
  });

  it('fails with ETIMEDOUT when nothing arrives before the headers, or the body stops coming', async () => {
    await expect(sendRequest(new URL(`${idleBase}/silent`), { headers: {}, idleTimeoutMs: 150 })).rejects.toMatchObject({
      code: 'ETIMEDOUT',
      message: 'nothing arrived from the server for 150ms',
    });
    const res = await sendRequest(new URL(`${idleBase}/half`), { headers: {}, idleTimeoutMs: 150 });
    await expect(readBody(res)).rejects.toMatchObject({ code: 'ETIMEDOUT' });
  });

  it('a body that keeps trickling in is read to its end, however long it takes', async () => {
    const res = await sendRequest(new URL(`${idleBase}/trickle`), { headers: {}, idleTimeoutMs: 200 });
    expect(await readBody(res)).toBe('01234567');
  });

  it('with idleTimeoutCoversBody false it ends with the headers: a silent stream stays open for its reader to judge', async () => {
    const res = await sendRequest(new URL(`${idleBase}/half`), { headers: {}, idleTimeoutMs: 50, idleTimeoutCoversBody: false });
    const closed = new Promise<string>((resolve) => res.once('close', () => resolve('closed')));
    const waited = new Promise<string>((resolve) => setTimeout(() => resolve('open'), 250));
    expect(await Promise.race([closed, waited])).toBe('open');
    res.destroy();
  });

  it('the silent connection is destroyed, never handed back to the pool: the next request opens a new one', async () => {
    const agent = new Agent({ keepAlive: true });
    try {
      expect(await readBody(await sendRequest(new URL(`${idleBase}/ok`), { headers: {}, agent }))).toBe('ok');
      const before = connections;
      const res = await sendRequest(new URL(`${idleBase}/half`), { headers: {}, agent, idleTimeoutMs: 100 });
      expect(connections).toBe(before); // the pooled connection was reused for it
      await expect(readBody(res)).rejects.toMatchObject({ code: 'ETIMEDOUT' });
      expect(Object.values(agent.freeSockets).flat()).toHaveLength(0);
      expect(await readBody(await sendRequest(new URL(`${idleBase}/ok`), { headers: {}, agent }))).toBe('ok');
      expect(connections).toBe(before + 1);
    } finally {
      agent.destroy();
    }
  });
});

describe('decodedBody', () => {
  it('inflates a gzip answer, and once it is read the response holds nothing of the inflater (a kept response keeps no 64 KiB chunk)', async () => {
    const res = await sendRequest(new URL(`${base}/gzip`), { headers: { 'accept-encoding': 'gzip' } });
    const before = { close: res.listenerCount('close'), error: res.listenerCount('error') };
    const body = decodedBody(res);
    expect(body).not.toBe(res);
    expect(res.listenerCount('close')).toBe(before.close + 1);
    expect(await readBody(body)).toBe('z'.repeat(100_000));
    await new Promise((resolve) => (body.closed ? resolve(undefined) : body.once('close', resolve)));
    expect(res.listeners('close')).toHaveLength(before.close);
    // What is left on 'error' is one listener that keeps a late error from crashing the process, and retains nothing.
    expect(res.listeners('error').map((l) => l.name)).toContain('ignore');
  });
});

describe('readBody and readBytes', () => {
  /** A response whose body arrives as these chunks. */
  const answer = (chunks: Buffer[]) => {
    const res = Object.assign(new PassThrough(), { statusCode: 200, headers: {}, complete: true });
    for (const c of chunks) res.write(c);
    res.end();
    return res;
  };
  const text = 'Zustände: ✓ ready, 準備完了 🚀';
  const bytes = Buffer.from(text, 'utf8');

  it('decodes text as it arrives, a character split between chunks included', async () => {
    for (let at = 1; at < bytes.length; at++) {
      const chunks = [bytes.subarray(0, at), bytes.subarray(at, at + 1), bytes.subarray(at + 1)];
      expect(await readBody(answer(chunks)), `split at byte ${at}`).toBe(text);
    }
    expect(await readBody(answer(Array.from(bytes, (b) => Buffer.of(b))))).toBe(text);
    expect((await readBytes(answer([bytes.subarray(0, 7), bytes.subarray(7)]))).equals(bytes)).toBe(true);
  });

  it('refuses an answer past maxBytes, as text or as bytes', async () => {
    await expect(readBody(answer([bytes, bytes]), { maxBytes: bytes.length + 1 })).rejects.toMatchObject({ code: 'ETOOBIG' });
    await expect(readBytes(answer([bytes, bytes]), { maxBytes: bytes.length + 1 })).rejects.toMatchObject({ code: 'ETOOBIG' });
    expect(await readBody(answer([bytes]), { maxBytes: bytes.length })).toBe(text);
  });
});

describe('isTlsErrorCode', () => {
  it('tells a failed certificate check or handshake from an unreachable host', () => {
    for (const code of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_SSL_WRONG_VERSION_NUMBER', 'EPROTO'])
      expect(isTlsErrorCode(code), code).toBe(true);
    for (const code of ['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'ECONNRESET']) expect(isTlsErrorCode(code), code).toBe(false);
  });
});
