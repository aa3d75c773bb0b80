/**
 * The one way this tool sends an HTTP request: node:http or node:https with the caller's agent,
 * credentials and TLS options, a timeout that destroys the request, an idle timeout that destroys
 * it when nothing arrives for too long, and an AbortSignal.
 *
 * The idle timeout is what notices a connection that stays open but delivers nothing (a
 * half-open TCP connection after a NAT, load balancer or VPN dropped the flow; a server that
 * accepts and never answers): node's HTTP/1.1 has no ping, so silence is the only sign. A request
 * destroyed for it, or aborted with a ConnectionStalledError, takes its socket with it: it never
 * goes back to the agent's pool.
 *
 * KubeClient sends every request to the API server through `sendRequest`; `httpGet` is the plain
 * GET for an endpoint reached directly (a component's https://HOST:PORT/metrics), with TLS material
 * and headers of its own. Redirects are never followed: a bearer token must not travel to
 * wherever a 302 points.
 */
import { request as httpRequest, type Agent, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { abortError } from '../util/abort.js';
import { formatDuration } from '../util/duration.js';
import { ApiError } from './api-error.js';

/**
 * A connection that stopped delivering while it stayed open: what a watch's reader aborts the
 * request's signal with when the stream went silent past the time the server promised to end it
 * (src/informer/reflector.ts). KubeClient then closes the idle connections pooled with it too, as
 * they went the same way, so that the retry opens a new one.
 */
export class ConnectionStalledError extends ApiError {
  constructor(message: string) {
    super(message, { code: 0, networkCode: 'ETIMEDOUT' });
    this.name = 'ConnectionStalledError';
  }
}

/** A watch whose connection was found dead (an HTTP/2 PING unanswered): its stall, as a watch says it. */
export function watchStalled(err: ConnectionStalledError): ConnectionStalledError {
  return new ConnectionStalledError(`watch stalled: ${err.message}`);
}

/** Whether an abort reason or error says the connection stalled. */
export function isConnectionStalled(err: unknown): err is ConnectionStalledError {
  return err instanceof ConnectionStalledError;
}

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
  /**
   * Destroy the request (ETIMEDOUT) when no byte arrives for this long: from the moment it is
   * sent (connecting, the TLS handshake, the wait for the answer) to the answer's headers, and,
   * unless `idleTimeoutCoversBody` is false, between the chunks of its body until its end. Time
   * while the reader holds the body paused does not count. 0 or absent: none.
   */
  idleTimeoutMs?: number | undefined;
  /** false: the idle timeout ends with the headers (a watch stream, whose silence its reader judges). */
  idleTimeoutCoversBody?: boolean | undefined;
  /** The connection's agent (an https.Agent: its TLS options and keep-alive); false: a connection of its own. */
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
        if (idle) {
          if (opts.idleTimeoutCoversBody === false) idle.stop();
          else {
            idle.touch();
            idle.body = res;
            res.once('close', idle.stop);
          }
        }
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
    const idle = opts.idleTimeoutMs && opts.idleTimeoutMs > 0 ? new IdleWatchdog(req, opts.idleTimeoutMs) : undefined;
    req.on('error', (err) => {
      clear();
      idle?.stop();
      reject(opts.signal?.aborted ? abortError(opts.signal) : err);
    });
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/**
 * Fails a request when no byte of it arrived for `ms`: one timer, re-armed for what is left when it
 * fires early. `touch` hears of each arrival (what the transport sees: a socket's bytes over
 * HTTP/1.1, a stream's chunks over HTTP/2); a `body` its reader holds paused (back-pressure) is
 * not the server's silence. Once stopped, it never fires.
 */
export class SilenceWatchdog {
  body: Readable | undefined;
  private last = Date.now();
  private timer: NodeJS.Timeout | undefined;
  protected stopped = false;

  constructor(
    private readonly ms: number,
    private readonly fail: (err: NodeJS.ErrnoException) => void,
  ) {
    this.timer = setTimeout(this.check, ms);
  }

  readonly touch = (): void => {
    this.last = Date.now();
  };

  private readonly check = (): void => {
    this.timer = undefined;
    if (this.stopped) return;
    const body = this.body;
    if (body && (body.isPaused() || body.readableLength > 0)) this.touch();
    const left = this.last + this.ms - Date.now();
    if (left > 0) {
      this.timer = setTimeout(this.check, left);
      return;
    }
    this.stop();
    this.fail(Object.assign(new Error(`nothing arrived from the server for ${formatDuration(this.ms)}`), { code: 'ETIMEDOUT' }));
  };

  readonly stop = (): void => {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.release();
  };

  /** What a transport lets go of when the watchdog stops. */
  protected release(): void {}
}

/**
 * Over HTTP/1.1, bytes are seen on the request's socket ('data', which the HTTP parser reads too),
 * so a body that trickles in keeps it alive; once the answer has begun, its body carries the error.
 */
class IdleWatchdog extends SilenceWatchdog {
  private socket: Socket | undefined;

  constructor(req: ClientRequest, ms: number) {
    super(ms, (err) => {
      if (this.body) this.body.destroy(err);
      else req.destroy(err);
    });
    req.once('socket', (s: Socket) => {
      // A pooled socket outlives the request: no listener is left on it once stopped.
      if (this.stopped) return;
      this.socket = s;
      s.on('data', this.touch);
    });
    req.once('close', this.stop);
  }

  protected override release(): void {
    this.socket?.off('data', this.touch);
    this.socket = undefined;
  }
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
export function decodedBody(res: Readable & Pick<IncomingMessage, 'statusCode' | 'headers' | 'complete'>): ResponseStream {
  if (res.headers['content-encoding'] !== 'gzip') return res;
  const body = Object.assign(createGunzip({ chunkSize: INFLATE_CHUNK }), { statusCode: res.statusCode, headers: res.headers });
  res.pipe(body);
  const onError = (err: Error): void => {
    body.destroy(err);
  };
  const onClose = (): void => {
    if (!res.complete) body.destroy(cutShort());
  };
  res.on('error', onError);
  res.on('close', onClose);
  body.on('close', () => {
    // Node's https agent keeps the first request of each connection it opens, and its response,
    // for as long as the connection lives (a LIST's, when a WATCH reuses it): the response lets go
    // of the inflater and its 64 KiB chunk here, so a kept response holds nothing of it.
    res.off('error', onError);
    res.off('close', onClose);
    res.on('error', ignore);
    if (!res.complete) res.destroy();
  });
  return body;
}

/** An error of a response nobody reads any more (its body closed). */
function ignore(): void {}

export interface ReadOptions {
  signal?: AbortSignal | undefined;
  /** Refuse answers larger than this (ETOOBIG); none when absent. */
  maxBytes?: number | undefined;
}

/**
 * The whole body as text, decoded as it arrives (a character split between chunks kept for the
 * next): each chunk can be let go at once, and no Buffer of the whole answer is made. An answer of
 * a few MiB read every few seconds (a /metrics scrape) would otherwise pass twice through malloc,
 * as its chunks and as their concatenation, which glibc keeps resident after they are freed; as
 * text it lives in V8's heap, which compacts. Rejects with the abort reason when `signal` aborted,
 * else with the error that cut the answer short (ECONNRESET when the connection closed mid-answer).
 */
export function readBody(res: ResponseStream, opts: ReadOptions = {}): Promise<string> {
  const decoder = new StringDecoder('utf8');
  const parts: string[] = [];
  return readWhole(res, opts, {
    add: (c) => {
      parts.push(decoder.write(c));
    },
    end: () => parts.join('') + decoder.end(),
  });
}

/** The whole body of a response, as bytes (a protobuf answer: its decoder needs them in one piece). */
export function readBytes(res: ResponseStream, opts: ReadOptions = {}): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return readWhole(res, opts, {
    add: (c) => {
      chunks.push(c);
    },
    end: () => Buffer.concat(chunks),
  });
}

/** Reads a body to its end through `sink`, within `maxBytes`; settles once. */
function readWhole<T>(res: ResponseStream, opts: ReadOptions, sink: { add(chunk: Buffer): void; end(): T }): Promise<T> {
  return new Promise((resolve, reject) => {
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
      sink.add(c);
    });
    res.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(sink.end());
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
  const res = await sendRequest(req.url, {
    headers: req.headers,
    signal: req.signal,
    timeoutMs: req.timeoutMs,
    timeoutCoversBody: true,
    agent: false,
    tls: req.tls ?? {},
  });
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
