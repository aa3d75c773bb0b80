/**
 * Direct sources against a real HTTP server on the loopback address (no sleeps: every case
 * answers at once).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../tools/testing/http-server.js';
import { createSource } from './sources.js';
import { ScrapeError } from './scrape-error.js';

let server: LoopbackServer;
let base: string;
const seen: { authorization: string | undefined; accept: string | undefined }[] = [];

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    seen.push({ authorization: req.headers.authorization, accept: req.headers.accept });
    if (req.url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end('# TYPE workqueue_depth gauge\nworkqueue_depth{name="deployment"} 4\n');
    } else if (req.url === '/ui') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><title>Dashboard</title></html>');
    } else {
      const allowed = req.headers.authorization === 'Bearer right';
      res.writeHead(allowed ? 200 : 401, { 'content-type': 'text/plain' });
      res.end(allowed ? 'ok 1\n' : 'Unauthorized\n');
    }
  });
  base = server.base;
});

afterAll(() => server.close());

describe('direct sources over real HTTP', () => {
  it('scrapes and parses, sending the accept header', async () => {
    const exp = await createSource(`${base}/metrics`, {}).scrape();
    expect(exp.families[0]!.samples[0]!.value).toBe(4);
    expect(seen.at(-1)!.accept).toMatch(/^text\/plain;version=0\.0\.4/);
  });

  it('refuses an HTML page, and a missing token, each with its own reason', async () => {
    await expect(createSource(`${base}/ui`, {}).scrape()).rejects.toThrow(/answered text\/html, not Prometheus metrics/);
    const err = await createSource(`${base}/secret`, { direct: { bearerToken: 'wrong' } })
      .scrape()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScrapeError);
    expect((err as ScrapeError).kind).toBe('unauthorized');
    expect(seen.at(-1)!.authorization).toBe('Bearer wrong');
    const good = await createSource(`${base}/secret`, { direct: { bearerToken: 'right' } }).scrape();
    expect(good.families[0]!.name).toBe('ok');
  });
});
