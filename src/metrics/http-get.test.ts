/**
 * nodeHttpGet against a real HTTP server on the loopback address (no sleeps: every case answers
 * or fails at once).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeHttpGet } from './http-get.js';
import { createSource } from './sources.js';
import { ScrapeError } from './scrape-error.js';

let server: Server;
let base: string;
const seen: { url: string; authorization: string | undefined; accept: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization, accept: req.headers.accept });
    switch (req.url) {
      case '/metrics':
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        res.end('# TYPE workqueue_depth gauge\nworkqueue_depth{name="deployment"} 4\n');
        return;
      case '/ui':
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><html><title>Dashboard</title></html>');
        return;
      case '/secret':
        res.writeHead(req.headers.authorization === 'Bearer right' ? 200 : 401, { 'content-type': 'text/plain' });
        res.end(req.headers.authorization === 'Bearer right' ? 'ok 1\n' : 'Unauthorized\n');
        return;
      case '/big':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(4096));
        return;
      case '/redirect':
        res.writeHead(302, { location: '/metrics' });
        res.end();
        return;
      default:
        res.writeHead(404);
        res.end('404 page not found\n');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('nodeHttpGet', () => {
  it('returns status, headers and body', async () => {
    const res = await nodeHttpGet({ url: new URL(`${base}/metrics`), headers: { accept: 'text/plain' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toMatch(/workqueue_depth\{name="deployment"\} 4/);
  });

  it('returns non-2xx answers as they are and does not follow redirects', async () => {
    expect((await nodeHttpGet({ url: new URL(`${base}/nope`), headers: {} })).status).toBe(404);
    const r = await nodeHttpGet({ url: new URL(`${base}/redirect`), headers: {} });
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('/metrics');
  });

  it('refuses bodies over the size limit', async () => {
    await expect(nodeHttpGet({ url: new URL(`${base}/big`), headers: {}, maxBytes: 100 })).rejects.toMatchObject({ code: 'ETOOBIG' });
  });

  it('rejects with the errno code when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(nodeHttpGet({ url: new URL(`http://127.0.0.1:${port}/metrics`), headers: {} })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('rejects at once with the abort reason when the signal is already aborted', async () => {
    const ctrl = new AbortController();
    ctrl.abort(new Error('stop'));
    await expect(nodeHttpGet({ url: new URL(`${base}/metrics`), headers: {}, signal: ctrl.signal })).rejects.toThrow('stop');
  });
});

describe('direct sources over real HTTP', () => {
  it('scrapes and parses, sending the accept header', async () => {
    const exp = await createSource(`${base}/metrics`, {}).scrape();
    expect(exp.families[0]!.samples[0]!.value).toBe(4);
    expect(seen.at(-1)!.accept).toMatch(/^text\/plain;version=0\.0\.4/);
  });

  it('refuses an HTML page, and a missing token, each with its own reason', async () => {
    await expect(createSource(`${base}/ui`, {}).scrape()).rejects.toThrow(/answered text\/html, not Prometheus metrics/);
    const err = await createSource(`${base}/secret`, { direct: { bearerToken: 'wrong' } }).scrape().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScrapeError);
    expect((err as ScrapeError).kind).toBe('unauthorized');
    expect(seen.at(-1)!.authorization).toBe('Bearer wrong');
    const good = await createSource(`${base}/secret`, { direct: { bearerToken: 'right' } }).scrape();
    expect(good.families[0]!.name).toBe('ok');
  });
});
