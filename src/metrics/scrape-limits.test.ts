/**
 * A metrics endpoint that streams without end, fast or slowly, against a real HTTP server on the
 * loopback address: the scrape stops at MAX_SCRAPE_BYTES or at its timeout, with one line naming
 * the endpoint and the limit, directly and through the API server's client alike.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../kube/client.js';
import { loadConnection } from '../kube/config.js';
import { startLoopbackServer, type LoopbackServer } from '../../tools/testing/http-server.js';
import { MultiScraper } from './multi-scraper.js';
import { MAX_SCRAPE_BYTES } from './scrape-error.js';
import { createSource } from './sources.js';

let server: LoopbackServer;
const sent = new Map<string, number>();
const answers = new Set<ServerResponse>();
let ticker: NodeJS.Timeout | undefined;

/** Prometheus text, one more series per line, for as long as the client reads (and at most 3 limits). */
function flood(path: string, res: ServerResponse): void {
  const block = Array.from({ length: 1000 }, (_, i) => `flood_total{i="${i}",pad="${'p'.repeat(40)}"} ${i}\n`).join('');
  let n = 0;
  const more = (): void => {
    while (!res.destroyed && n < 3 * MAX_SCRAPE_BYTES && res.write(block)) n += block.length;
    sent.set(path, n);
  };
  res.on('drain', more);
  more();
}

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.url ?? '/';
    answers.add(res);
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    res.write('# TYPE flood_total counter\n');
    if (path === '/trickle') {
      // One line now and then, never the end: no idle timeout fires, only the scrape's own.
      ticker = setInterval(() => res.write('flood_total 1\n'), 25);
      res.on('close', () => clearInterval(ticker));
      return;
    }
    flood(path, res);
  });
});

afterAll(async () => {
  clearInterval(ticker);
  await server.close();
});

describe('a metrics endpoint that never ends', () => {
  it('a direct scrape stops at the size limit: one line naming the URL and the limit, and the connection is dropped', async () => {
    const url = `${server.base}/metrics`;
    const [result] = await new MultiScraper([createSource(url, { timeoutMs: 60_000 })]).scrapeAll();
    expect(result).toMatchObject({ ok: false, kind: 'too-large' });
    expect(result!.ok ? '' : result!.error).toBe(`${url} sent more than 64 MiB, the limit of a scrape; the rest was not read`);
    expect(sent.get('/metrics')!).toBeLessThan(MAX_SCRAPE_BYTES * 1.5);
  });

  it("the API server's /metrics read through the client stops at the same limit", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scrape-limits-'));
    const file = join(dir, 'kubeconfig');
    writeFileSync(
      file,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server.base}/apiserver"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
    );
    const { kubeConfig } = loadConnection({ kubeconfig: file }, {});
    rmSync(dir, { recursive: true });
    const [result] = await new MultiScraper([createSource('apiserver', { client: new KubeClient(kubeConfig), timeoutMs: 60_000 })]).scrapeAll();
    expect(result).toMatchObject({ ok: false, kind: 'too-large' });
    expect(result!.ok ? '' : result!.error).toBe("the API server's /metrics sent more than 64 MiB, the limit of a scrape; the rest was not read");
    expect(sent.get('/apiserver/metrics')!).toBeLessThan(MAX_SCRAPE_BYTES * 1.5);
  });

  it('an answer that trickles without end stops at the scrape timeout', async () => {
    const url = `${server.base}/trickle`;
    const [result] = await new MultiScraper([createSource(url, { timeoutMs: 400 })]).scrapeAll();
    expect(result).toMatchObject({ ok: false, kind: 'timeout' });
    expect(result!.ok ? '' : result!.error).toMatch(/no answer within 400ms/);
    const end = Date.now() + 5_000;
    while (![...answers].every((r) => r.destroyed || r.closed)) {
      if (Date.now() > end) throw new Error('the trickling answer is still being read');
      await new Promise((r) => setImmediate(r));
    }
  });
});
