/**
 * HTTP/2 to the API server, as client-go speaks it: a client's requests share one connection as
 * streams, instead of a TCP connection and a TLS session each. A trace that watches 77 kinds holds
 * 77 watches open at once; over HTTP/1.1 that is 77 connections of ~120 KiB each, over HTTP/2 one
 * connection and ~14 KiB a stream (BENCHMARKS.md, section 10).
 *
 * - Connections: a request goes on the first connection with a stream to spare under the
 *   server's SETTINGS_MAX_CONCURRENT_STREAMS (kube-apiserver allows 100 by default), else on a new
 *   one, as Go's transport does: a watch never ends, so a full connection must not hold a request
 *   back. A connection the server sent GOAWAY on takes no new request; one that closed or failed
 *   is forgotten, and the next request opens another.
 * - Liveness: HTTP/2 has PING, so a connection's silence need not be guessed from each request
 *   alone. While a connection carries requests it is pinged every `pingEveryMs`; one that does not
 *   answer within `pingTimeoutMs` is destroyed, and every request on it fails with a
 *   ConnectionStalledError (ETIMEDOUT), the error a watch's reader gives a watch gone silent over
 *   HTTP/1.1: an informer counts and says it as a stall either way (client-go's ReadIdleTimeout
 *   and PingTimeout, 30 s and 15 s). `checkLiveness()` pings them all
 *   now: what a request whose own silence was noticed asks for (a watch's reader, src/kube/http.ts);
 *   until the answer, new requests go on another connection, so the one that went silent does not
 *   hold its own retry.
 * - Each request keeps the semantics of an HTTP/1.1 one (sendRequest): a timeout, an idle timeout
 *   on its own bytes (a server that answers others and not this one), an AbortSignal; its answer
 *   has `statusCode`, `headers` and `complete`, and emits 'aborted' when it closed before its end.
 * - A connection with no request under way does not keep the process alive.
 */
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders, OutgoingHttpHeaders, SecureClientSessionOptions, Settings } from 'node:http2';
import type { IncomingMessage } from 'node:http';
import { abortError } from '../util/abort.js';
import { formatDuration } from '../util/duration.js';
import { ConnectionStalledError, SilenceWatchdog, type SendOptions } from './http.js';

/** The environment variable that turns HTTP/2 on (`1`); HTTP/1.1 otherwise. */
export const HTTP2_ENV = 'INFORMER_TRACE_HTTP2';

type Http2Module = typeof import('node:http2');
let http2Module: Promise<Http2Module> | undefined;
/** node:http2 is loaded on a client's first request over it: a command that sends none pays nothing. */
const loadHttp2 = (): Promise<Http2Module> => (http2Module ??= import('node:http2'));

/** What a request over HTTP/2 resolves with: the stream, with what HTTP/1.1's answer would say of itself. */
export type Http2Response = ClientHttp2Stream & Pick<IncomingMessage, 'statusCode' | 'headers' | 'complete'>;

/** A request's options: those of HTTP/1.1's, but for the connection's, which are the pool's. */
export type Http2RequestOptions = Omit<SendOptions, 'agent' | 'auth' | 'tls'>;

export interface Http2ConnectionOptions {
  /** TLS options of the connection (a secureContext, rejectUnauthorized, servername…); none for h2c. */
  tls?: SecureClientSessionOptions | undefined;
  pingEveryMs?: number | undefined;
  pingTimeoutMs?: number | undefined;
}

/** What the server allows until its SETTINGS arrive: RFC 9113 recommends no fewer than 100. */
const DEFAULT_MAX_STREAMS = 100;
/**
 * The receive windows, a stream's and the connection's. Node's default (64 KiB) would hold a List
 * page of many MiB to one round trip per 64 KiB; Go's transport asks for 4 MiB and 1 GiB.
 */
const STREAM_WINDOW = 4 * 1024 * 1024;
const CONNECTION_WINDOW = 64 * 1024 * 1024;

interface Connection {
  session: ClientHttp2Session;
  streams: number;
  maxStreams: number;
  draining: boolean;
  /** Asked after a request on it went silent: no new request goes on it until its PING is answered. */
  suspect: boolean;
  pinging: boolean;
  timer: NodeJS.Timeout | undefined;
}

/** The server does not speak HTTP/2 (no "h2" in its TLS handshake's ALPN): the caller goes on over HTTP/1.1. */
export class Http2Unsupported extends Error {
  constructor(origin: string) {
    super(`${origin} does not speak HTTP/2`);
    this.name = 'Http2Unsupported';
  }
}

/** The TLS alert of a server that takes none of the protocols offered (ALPN). */
const NO_ALPN = /no application protocol/;

export class Http2Connections {
  private readonly connections: Connection[] = [];
  /** The server refused "h2": every request from now on rejects with Http2Unsupported. */
  unsupported = false;
  private readonly pingEveryMs: number;
  private readonly pingTimeoutMs: number;
  /** Connections opened, over this object's life (tests, benchmarks). */
  opened = 0;

  constructor(
    private readonly origin: string,
    private readonly options: Http2ConnectionOptions = {},
  ) {
    this.pingEveryMs = options.pingEveryMs ?? 30_000;
    this.pingTimeoutMs = options.pingTimeoutMs ?? 15_000;
  }

  /** Connections open now. */
  get size(): number {
    return this.connections.length;
  }

  /**
   * Sends a request and resolves with its open answer, whatever its status. Rejects with the abort
   * reason when `signal` aborted, otherwise with an errno-style error (ETIMEDOUT for a timeout,
   * ECONNRESET for a stream the server reset).
   */
  async request(url: URL, opts: Http2RequestOptions): Promise<Http2Response> {
    if (opts.signal?.aborted) throw abortError(opts.signal);
    const http2 = await loadHttp2();
    if (opts.signal?.aborted) throw abortError(opts.signal);
    if (this.unsupported) throw new Http2Unsupported(this.origin);
    const conn = this.connectionWithRoom(http2);
    const headers: OutgoingHttpHeaders = {
      ':method': opts.method ?? 'GET',
      ':path': url.pathname + url.search,
    };
    for (const [k, v] of Object.entries(opts.headers)) headers[k.toLowerCase()] = v;
    return new Promise<Http2Response>((resolve, reject) => {
      let stream: ClientHttp2Stream;
      try {
        stream = conn.session.request(headers, { endStream: opts.body === undefined });
      } catch (err) {
        // A connection closing under us (GOAWAY arrived meanwhile): the next request opens another.
        conn.draining = true;
        withCode(err as NodeJS.ErrnoException);
        reject(err);
        return;
      }
      this.track(conn, stream);
      const res = stream as Http2Response;
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const clear = (): void => {
        if (timer) clearTimeout(timer);
        timer = undefined;
      };
      const idle = opts.idleTimeoutMs && opts.idleTimeoutMs > 0 ? new SilenceWatchdog(opts.idleTimeoutMs, (err) => res.destroy(err)) : undefined;
      if (idle) {
        idle.body = res;
        res.once('response', idle.touch);
      }
      receive(res, () => idle?.touch());
      const onAbort = (): void => {
        res.destroy(abortError(opts.signal!));
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (opts.timeoutMs && opts.timeoutMs > 0) {
        const ms = opts.timeoutMs;
        timer = setTimeout(() => res.destroy(Object.assign(new Error(`no answer within ${ms}ms`), { code: 'ETIMEDOUT' })), ms);
      }
      res.complete = false;
      res.once('end', () => {
        res.complete = true;
      });
      res.once('close', () => {
        clear();
        idle?.stop();
        opts.signal?.removeEventListener('abort', onAbort);
        // HTTP/1.1's answer says so when its connection closed before the end; consumers listen for it.
        if (settled && !res.complete && !res.errored) res.emit('aborted');
        if (!settled) {
          settled = true;
          reject(
            opts.signal?.aborted ? abortError(opts.signal) : this.unsupported ? new Http2Unsupported(this.origin) : (res.errored ?? streamClosedError(res)),
          );
        }
      });
      // First of its 'error' listeners: the reader's see an errno-style code too.
      res.on('error', (err: NodeJS.ErrnoException) => {
        if (!settled && NO_ALPN.test(err.message)) this.unsupported = true;
        withCode(err);
        if (settled) return;
        settled = true;
        clear();
        idle?.stop();
        reject(opts.signal?.aborted ? abortError(opts.signal) : this.unsupported ? new Http2Unsupported(this.origin) : err);
      });
      res.once('response', (h: IncomingHttpHeaders) => {
        if (settled) return;
        settled = true;
        res.statusCode = Number(h[':status'] ?? 0);
        res.headers = h;
        if (!opts.timeoutCoversBody) clear();
        if (idle && opts.idleTimeoutCoversBody === false) idle.stop();
        resolve(res);
      });
      if (opts.body !== undefined) res.end(opts.body);
    });
  }

  /**
   * After a request went silent: closes the connections that carry no request (as HTTP/1.1 closes
   * its idle pooled ones), and pings those that do; one that does not answer within the ping
   * timeout is destroyed, and until one answers no new request goes on it. Returns how many were
   * closed and how many pinged.
   */
  checkLiveness(): { closed: number; pinged: number } {
    let closed = 0;
    let pinged = 0;
    for (const c of [...this.connections]) {
      if (c.streams === 0) {
        this.forget(c);
        c.session.destroy();
        closed++;
      } else {
        c.suspect = true;
        this.ping(c);
        pinged++;
      }
    }
    return { closed, pinged };
  }

  /** Closes every connection: at once (requests under way fail), or `graceful`ly, once their requests end. */
  close(opts: { graceful?: boolean } = {}): void {
    for (const c of [...this.connections]) {
      if (opts.graceful) {
        c.draining = true;
        c.session.close();
      } else c.session.destroy();
    }
  }

  private connectionWithRoom(http2: Http2Module): Connection {
    const free = this.connections.find((c) => !c.draining && !c.suspect && !c.session.closed && !c.session.destroyed && c.streams < c.maxStreams);
    return free ?? this.connect(http2);
  }

  private connect(http2: Http2Module): Connection {
    const session = http2.connect(this.origin, {
      ...this.options.tls,
      settings: { initialWindowSize: STREAM_WINDOW, enablePush: false },
      maxSessionMemory: 64,
    });
    this.opened++;
    const conn: Connection = { session, streams: 0, maxStreams: DEFAULT_MAX_STREAMS, draining: false, suspect: false, pinging: false, timer: undefined };
    this.connections.push(conn);
    session.once('connect', () => {
      if (session.alpnProtocol !== undefined && session.alpnProtocol !== 'h2' && session.alpnProtocol !== 'h2c') {
        this.unsupported = true;
        session.destroy();
        return;
      }
      session.setLocalWindowSize(CONNECTION_WINDOW);
    });
    session.on('remoteSettings', (s: Settings) => {
      if (s.maxConcurrentStreams !== undefined) conn.maxStreams = s.maxConcurrentStreams;
    });
    session.once('goaway', () => {
      conn.draining = true;
    });
    // A session's error reaches each of its streams; of its own it says only whether "h2" was refused.
    session.on('error', (err: Error) => {
      if (NO_ALPN.test(err.message)) this.unsupported = true;
    });
    session.once('close', () => this.forget(conn));
    session.unref();
    return conn;
  }

  private forget(conn: Connection): void {
    if (conn.timer) clearInterval(conn.timer);
    conn.timer = undefined;
    const i = this.connections.indexOf(conn);
    if (i >= 0) this.connections.splice(i, 1);
  }

  private track(conn: Connection, stream: ClientHttp2Stream): void {
    if (conn.streams++ === 0) {
      conn.session.ref();
      conn.timer = setInterval(() => this.ping(conn), this.pingEveryMs);
      conn.timer.unref();
    }
    stream.once('close', () => {
      if (--conn.streams > 0) return;
      if (conn.timer) clearInterval(conn.timer);
      conn.timer = undefined;
      if (!conn.session.destroyed) conn.session.unref();
    });
  }

  private ping(conn: Connection): void {
    const { session } = conn;
    if (conn.pinging || session.closed || session.destroyed || !session.socket) return;
    conn.pinging = true;
    const ms = this.pingTimeoutMs;
    const deadline = setTimeout(() => {
      const err = new ConnectionStalledError(`the connection did not answer a ping within ${formatDuration(ms)} (a half-open connection or a hung API server)`);
      this.forget(conn);
      session.destroy(err);
    }, ms);
    deadline.unref();
    const sent = session.ping((err) => {
      conn.pinging = false;
      conn.suspect = false;
      clearTimeout(deadline);
      if (err && !session.destroyed) session.destroy(err);
    });
    if (!sent) {
      conn.pinging = false;
      conn.suspect = false;
      clearTimeout(deadline);
    }
  }
}

/**
 * Sees each chunk where the stream receives it (its push), so that reading the body stays the
 * reader's (a 'data' listener would put it into flowing mode): `onBytes` hears of each. And when
 * the server goes away mid-answer (GOAWAY, its connection closed), node ends the stream's readable
 * side as if the answer were whole: a reader would take the part that arrived for all of it. Here
 * such an end is an error (ECONNRESET), as HTTP/1.1 reports a connection closed mid-answer.
 */
function receive(stream: ClientHttp2Stream, onBytes: () => void): void {
  const push = stream.push.bind(stream);
  stream.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (chunk !== null) onBytes();
    else if (stream.rstCode !== undefined && stream.rstCode !== 0) {
      stream.destroy(streamClosedError(stream));
      return false;
    }
    return push(chunk, encoding);
  };
}

/** A stream that closed before its answer: reset by the server (its code) or cut with its connection. */
function streamClosedError(stream: ClientHttp2Stream): NodeJS.ErrnoException {
  return Object.assign(new Error(`the server closed the stream (HTTP/2 code ${stream.rstCode ?? 'none'})`), { code: 'ECONNRESET' });
}

/**
 * Node's HTTP/2 errors have codes of their own (ERR_HTTP2_STREAM_ERROR…); the callers know errno's.
 * A request still waiting for its connection when that failed is cancelled with the connection's
 * error as its cause: the cause's code is the one that says what happened (ECONNREFUSED, a TLS
 * code), as HTTP/1.1 reports it.
 */
function withCode(err: NodeJS.ErrnoException): void {
  if (typeof err.code !== 'string' || !err.code.startsWith('ERR_HTTP2')) return;
  const cause = err.cause as NodeJS.ErrnoException | undefined;
  const code = typeof cause?.code === 'string' && !cause.code.startsWith('ERR_HTTP2') ? cause.code : 'ECONNRESET';
  Object.defineProperty(err, 'code', { value: code, configurable: true, writable: true });
}
