/**
 * The probe's HTTP endpoints: /metrics (Prometheus text), /healthz (the loop makes progress) and
 * /readyz (the probe has reached the API server and synced a round's informers). A scrape that
 * fails or hangs is the scraper's problem: rendering never waits on the rounds.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';
import type { ProbeMetrics } from './metrics.js';

export interface ListenAddress {
  /** Empty: every interface. */
  host: string;
  port: number;
}

/** `HOST:PORT`, `:PORT` (every interface) or `[::1]:PORT`. */
export function parseListen(value: string): ListenAddress {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new UsageError(`--listen "${value}" is not HOST:PORT`, { hint: 'e.g. :8080, 0.0.0.0:8080 or 127.0.0.1:9090' });
  return { host: m[1] ?? m[2] ?? '', port };
}

export interface ProbeHealth {
  readonly healthy: boolean;
  readonly ready: boolean;
  /** Why it is not ready, one line; /readyz answers it. */
  readonly notReadyReason?: string | undefined;
}

export interface RunningServer {
  /** http://HOST:PORT as bound (the port chosen when 0 was asked for). */
  url: string;
  close(): Promise<void>;
}

export async function serveProbe(address: ListenAddress, metrics: ProbeMetrics, health: ProbeHealth): Promise<RunningServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (path === '/metrics') {
      metrics.render().then(
        (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
        (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err.message}\n`),
      );
      return;
    }
    if (path === '/healthz' || path === '/livez') {
      const ok = health.healthy;
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok\n' : 'the probe loop has made no progress\n');
      return;
    }
    if (path === '/readyz') {
      const ok = health.ready;
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok\n' : `${health.notReadyReason ?? 'not synced with the API server yet'}\n`);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics, /healthz or /readyz\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new UsageError(
          `--listen ${address.host}:${address.port}: ${err.code === 'EADDRINUSE' ? 'the address is in use' : err.code === 'EACCES' ? 'permission denied' : err.message}`,
        ),
      ),
    );
    if (address.host) server.listen(address.port, address.host, resolve);
    else server.listen(address.port, resolve);
  });
  const bound = server.address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${host}:${bound.port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
