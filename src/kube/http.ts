/**
 * The one way this tool sends an HTTP request: node:http or node:https with the caller's agent,
 * credentials and TLS options, a timeout that destroys the request, and an AbortSignal.
 *
 * KubeClient sends every request to the API server through `sendRequest`; `httpGet` is the plain
 * GET for an endpoint reached directly (a component's https://HOST:PORT/metrics), with TLS material
 * and headers of its own. Redirects are never followed: a bearer token must not travel to
 * wherever a 302 points.
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type Agent } from 'node:https';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { abortError } from '../util/abort.js';

export interface TlsOptions {
  /** Accept any server certificate (control-plane components serve self-signed ones). */
  insecureSkipTlsVerify?: boolean | undefined;
  ca?: string | Buffer | undefined;
  cert?: string | Buffer | undefined;
  key?: string | Buffer | undefined;
}

export interface SendOptions {
  method?: string | undefined;
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
  /** 0 or absent: none. */
  timeoutMs?: number | undefined;
  /**
   * Keep the timeout running until the answer has been read to its end, not only until its
   * headers arrive (a GET read whole; a watch stream must not have it).
   */
  timeoutCoversBody?: boolean | undefined;
  /** The connection's agent (its TLS options and keep-alive); false: a connection of its own. */
  agent?: Agent | false | undefined;
  /** user:password for basic auth. */
  auth?: string | undefined;
  /** For https on a connection of its own (agent false). */
  tls?: TlsOptions | undefined;
}

/**
 * Sends a request and resolves with the open response, whatever its status; the caller reads or
 * destroys the body. Rejects with the abort reason when `signal` aborted, otherwise with the
 * errno-style error of the socket (ETIMEDOUT when the timeout fired).
 */
export function sendRequest(url: URL, opts: SendOptions): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    if (opts.signal?.aborted) return reject(abortError(opts.signal));
    const https = url.protocol === 'https:';
    const tls = opts.tls;
    const send = https ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: opts.method ?? 'GET',
        headers: opts.headers,
        ...(opts.agent !== undefined ? { agent: opts.agent } : {}),
        ...(opts.auth ? { auth: opts.auth } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(https && tls
          ? {
              rejectUnauthorized: !tls.insecureSkipTlsVerify,
              ...(tls.ca ? { ca: tls.ca } : {}),
              ...(tls.cert ? { cert: tls.cert } : {}),
              ...(tls.key ? { key: tls.key } : {}),
            }
          : {}),
      },
      (res) => {
        if (opts.timeoutCoversBody) {
          response = res;
          res.once('close', clear);
        } else clear();
        resolve(res);
      },
    );
    let response: IncomingMessage | undefined;
    let timer: NodeJS.Timeout | undefined;
    function clear(): void {
      if (timer) clearTimeout(timer);
      timer = undefined;
    }
    if (opts.timeoutMs && opts.timeoutMs > 0) {
      const ms = opts.timeoutMs;
      timer = setTimeout(() => {
        // Destroying the request once the answer has begun would report a reset, not the timeout.
        const err = Object.assign(new Error(`no answer within ${ms}ms`), { code: 'ETIMEDOUT' });
        if (response) response.destroy(err);
        else req.destroy(err);
      }, ms);
    }
    req.on('error', (err) => {
      clear();
      reject(opts.signal?.aborted ? abortError(opts.signal) : err);
    });
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** An answer whose body is read as it arrives: the response itself, or its body gunzipped. */
export type ResponseStream = Readable & Pick<IncomingMessage, 'statusCode' | 'headers'>;

/**
 * Output chunks of the gunzip stream. Node's default (16 KiB) makes four times as many chunks and
 * callbacks; 64 KiB synced 10,000 Pods as fast as an uncompressed answer (BENCHMARKS.md, 1c).
 */
const INFLATE_CHUNK = 64 * 1024;

/** What a body ended early fails with: the connection closed before the answer's end. */
const cutShort = (): NodeJS.ErrnoException => Object.assign(new Error('the answer was cut short'), { code: 'ECONNRESET' });

/**
 * The response, with its body gunzipped when the server compressed it (Content-Encoding: gzip,
 * which kube-apiserver sends for an answer above 128 KiB when the request accepts it). zlib
 * inflates on libuv's thread pool, off the JavaScript thread. The result keeps the status and
 * headers; an error of the response, or its connection closing early, reaches it as an error,
 * and destroying it before its end destroys the response.
 */
export function decodedBody(res: IncomingMessage): ResponseStream {
  if (res.headers['content-encoding'] !== 'gzip') return res;
  const body = Object.assign(createGunzip({ chunkSize: INFLATE_CHUNK }), { statusCode: res.statusCode, headers: res.headers });
  res.pipe(body);
  res.on('error', (err) => body.destroy(err));
  res.on('close', () => {
    if (!res.complete) body.destroy(cutShort());
  });
  body.on('close', () => {
    if (!res.complete) res.destroy();
  });
  return body;
}

export interface ReadOptions {
  signal?: AbortSignal | undefined;
  /** Refuse answers larger than this (ETOOBIG); none when absent. */
  maxBytes?: number | undefined;
}

/**
 * The whole body as text. Rejects with the abort reason when `signal` aborted, else with the
 * error that cut the answer short (ECONNRESET when the connection closed mid-answer).
 */
export async function readBody(res: ResponseStream, opts: ReadOptions = {}): Promise<string> {
  return (await readBytes(res, opts)).toString('utf8');
}

/** The whole body of a response, as bytes. */
export function readBytes(res: ResponseStream, opts: ReadOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      reject(opts.signal?.aborted ? abortError(opts.signal) : err);
    };
    res.on('data', (c: Buffer) => {
      if (settled) return;
      size += c.length;
      if (opts.maxBytes !== undefined && size > opts.maxBytes) {
        fail(Object.assign(new Error(`the answer is larger than ${opts.maxBytes} bytes`), { code: 'ETOOBIG' }));
        res.destroy();
        return;
      }
      chunks.push(c);
    });
    res.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks));
    });
    // A response destroyed before its end emits 'error' (ECONNRESET, or what destroyed it), then 'close'.
    res.on('error', fail);
    res.on('close', () => fail(cutShort()));
  });
}

export interface HttpGetRequest {
  url: URL;
  headers: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** Covers the whole answer; the caller's own timeout usually fires first. 0 = none. */
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

/** A GET on a new connection, read whole. */
export const httpGet: HttpGet = async (req) => {
  const res = await sendRequest(req.url, { headers: req.headers, signal: req.signal, timeoutMs: req.timeoutMs, timeoutCoversBody: true, agent: false, tls: req.tls ?? {} });
  const body = await readBody(res, { signal: req.signal, maxBytes: req.maxBytes ?? DEFAULT_MAX_BYTES });
  return { status: res.statusCode ?? 0, headers: res.headers, body };
};

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || (err as NodeJS.ErrnoException).code === 'ABORT_ERR');
}

/** OpenSSL and Node codes of a failed TLS handshake or certificate check. */
const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'EPROTO',
]);

/** Whether a network error code means TLS failed (rather than the host being unreachable). */
export function isTlsErrorCode(code: string): boolean {
  return TLS_CODES.has(code) || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS');
}
