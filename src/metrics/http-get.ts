/**
 * A plain GET for metrics endpoints reached directly (not through the API server), behind a small
 * function type so sources can be tested without sockets. Redirects are not followed: a bearer
 * token must not travel to wherever a 302 points.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface TlsOptions {
  /** Accept any server certificate (control-plane components serve self-signed ones). */
  insecureSkipTlsVerify?: boolean | undefined;
  ca?: string | Buffer | undefined;
  cert?: string | Buffer | undefined;
  key?: string | Buffer | undefined;
}

export interface HttpGetRequest {
  url: URL;
  headers: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** Socket-level backstop; the scraper's own timeout usually fires first. 0 = none. */
  timeoutMs?: number | undefined;
  tls?: TlsOptions | undefined;
  /** Refuse bodies larger than this (default 64 MiB). */
  maxBytes?: number | undefined;
}

export interface HttpGetResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Resolves with any HTTP status; rejects only when no complete answer came (errno-style code). */
export type HttpGet = (req: HttpGetRequest) => Promise<HttpGetResponse>;

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export const nodeHttpGet: HttpGet = (req) =>
  new Promise<HttpGetResponse>((resolve, reject) => {
    if (req.signal?.aborted) return reject(abortReason(req.signal));
    const https = req.url.protocol === 'https:';
    const send = https ? httpsRequest : httpRequest;
    const tls = req.tls ?? {};
    const maxBytes = req.maxBytes ?? DEFAULT_MAX_BYTES;
    const r = send(
      req.url,
      {
        method: 'GET',
        headers: req.headers,
        agent: false,
        ...(req.signal ? { signal: req.signal } : {}),
        ...(https
          ? {
              rejectUnauthorized: !tls.insecureSkipTlsVerify,
              ...(tls.ca ? { ca: tls.ca } : {}),
              ...(tls.cert ? { cert: tls.cert } : {}),
              ...(tls.key ? { key: tls.key } : {}),
            }
          : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) {
            fail(Object.assign(new Error(`the answer is larger than ${maxBytes} bytes`), { code: 'ETOOBIG' }));
            r.destroy();
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clear();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', fail);
        res.on('aborted', () => fail(Object.assign(new Error('the answer was cut short'), { code: 'ECONNRESET' })));
      },
    );
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const clear = (): void => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    };
    function fail(err: Error): void {
      if (settled) return;
      settled = true;
      clear();
      reject(req.signal?.aborted ? abortReason(req.signal) : err);
    }
    if (req.timeoutMs && req.timeoutMs > 0) {
      timer = setTimeout(() => r.destroy(Object.assign(new Error(`no answer within ${req.timeoutMs}ms`), { code: 'ETIMEDOUT' })), req.timeoutMs);
    }
    r.on('error', fail);
    r.end();
  });

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('aborted', 'AbortError');
}
