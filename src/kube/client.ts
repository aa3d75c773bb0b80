/**
 * HTTP to the API server. @kubernetes/client-node supplies the TLS material and credentials
 * (client certificates, bearer tokens, exec and auth-provider plugins) through applyToHTTPSOptions;
 * the requests themselves go through node:https (sendRequest, http.ts) so that watch streams are
 * read line by line with back-pressure and no buffering.
 *
 * Every request has an idle timeout (`idleTimeoutMs`): nothing from the server for longer than
 * its own request timeout allows (kube-apiserver answers a request that is not a watch within its
 * --request-timeout, 60 s by default, if only with a 504), plus a margin, and the request fails
 * with ETIMEDOUT instead of hanging on a half-open connection or a hung server. A watch has it
 * until its headers; its stream's silence is judged by its reader (the Reflector). After a
 * request failed that way, or a watch was aborted with a ConnectionStalledError, the idle pooled
 * connections are closed too: they took the same path, and the retry must open a new one.
 */
import { globalAgent as httpGlobalAgent, type Agent as HttpAgent, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent, globalAgent as httpsGlobalAgent } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSecureContext } from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { ApiError, type RequestDescription } from './api-error.js';
import { abortError } from '../util/abort.js';
import { ConnectionStalledError, decodedBody, readBody, readBytes, sendRequest, type ResponseStream } from './http.js';
import { Http2Connections, Http2Unsupported } from './http2.js';
import { ListDecodeError, ListStreamDecoder } from './list-decoder.js';
import { decodeObject, ProtobufDecodeError, type DecodeOptions } from './protobuf/decode.js';
import { ProtobufListStreamDecoder } from './protobuf/stream.js';
import type { Encoding, Status } from './types.js';

export interface RequestInit {
  method?: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal | undefined;
  /** Overrides the connection's request timeout (0 = none). */
  timeoutMs?: number;
  /** The answer is a stream whose silence its reader judges (a watch): the idle timeout ends with its headers. */
  stream?: boolean;
  /** Describes the request for error messages (verb, resource, namespace). */
  describe?: RequestDescription;
  /** raw(): refuse an answer larger than this (a network error with code ETOOBIG); none when absent. */
  maxBytes?: number;
}

export interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Prepared {
  agent: Agent | undefined;
  /** The connections over HTTP/2, when the client speaks it to this server. */
  http2: Http2Connections | undefined;
  headers: Record<string, string>;
  auth: string | undefined;
}

/** What the idle timeout adds to the longest time the server may take to answer. */
export const IDLE_MARGIN_MS = 15_000;

/** kube-apiserver's default --request-timeout: a request that is not a watch is answered within it. */
export const SERVER_REQUEST_TIMEOUT_MS = 60_000;

/** How many times a request the server asks to retry (Retry-After) is sent again: client-go's default. */
export const MAX_RETRIES = 10;

/** The longest Retry-After honoured; an answer asking for longer fails at once. */
export const MAX_RETRY_AFTER_S = 60;

/**
 * The seconds to wait before sending a request again, when its answer asks for it: 429 or 5xx with
 * a Retry-After of whole seconds (the API server's throttling, API Priority and Fairness, a server
 * starting), as client-go reads it; undefined otherwise, or beyond MAX_RETRY_AFTER_S.
 */
export function retryAfterSeconds(res: Pick<ResponseStream, 'statusCode' | 'headers'>): number | undefined {
  const status = res.statusCode ?? 0;
  if (status !== 429 && status < 500) return undefined;
  const header = res.headers['retry-after'];
  if (typeof header !== 'string' || !/^\d+$/.test(header.trim())) return undefined;
  const seconds = Number(header.trim());
  return seconds <= MAX_RETRY_AFTER_S ? seconds : undefined;
}

export class KubeClient {
  /**
   * How answers that ask to be retried (429 or 5xx with Retry-After) are: how many times at most,
   * and how the client waits (a test's clock may stand in).
   */
  readonly retries: { max: number; sleep: (ms: number, signal: AbortSignal | undefined) => Promise<void> } = {
    max: MAX_RETRIES,
    sleep: (ms, signal) => sleep(ms, undefined, signal ? { signal } : {}),
  };
  private prepared: Promise<Prepared> | undefined;
  private preparedAt = 0;
  private agent: Agent | undefined;
  private http2: Http2Connections | undefined;
  readonly server: URL;
  /** No byte from the server for this long fails a request (ETIMEDOUT); 0 = never. */
  readonly idleTimeoutMs: number;

  /**
   * `credentialsTtlMs`: read the credentials again when they are older than this (a token file
   * that is rotated, as client-go re-reads a service account token); 0: only after a 401.
   */
  constructor(
    private readonly kubeConfig: KubeConfig,
    readonly requestTimeoutMs = 0,
    readonly userName = '',
    readonly credentialsTtlMs = 0,
    /**
     * Ask for gzip, as client-go does by default: kube-apiserver then compresses answers above
     * 128 KiB (List pages). false: kubectl's --disable-compression.
     */
    readonly compression = true,
    /** Default: the longer of the server's 60 s and --request-timeout, plus 15 s. */
    idleTimeoutMs?: number,
    /**
     * Send the requests over HTTP/2 (src/kube/http2.ts) when the server is reached over TLS without
     * a proxy and speaks it; HTTP/1.1 otherwise.
     */
    readonly useHttp2 = false,
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    this.server = new URL(cluster?.server ?? 'https://localhost');
    this.idleTimeoutMs = idleTimeoutMs ?? Math.max(SERVER_REQUEST_TIMEOUT_MS, requestTimeoutMs) + IDLE_MARGIN_MS;
  }

  /**
   * Closes the connections to the server that wait idle in the pool, so that the next request
   * opens a new one: after a connection stopped delivering, those that took the same path (the
   * same NAT entry, load balancer or tunnel) are as likely to be dead. Requests under way keep
   * theirs.
   */
  dropIdleConnections(): number {
    // Over HTTP/2 the requests under way share a connection: it is pinged, and closed if silent.
    const h2 = this.http2?.checkLiveness();
    const agent: HttpAgent = this.agent ?? (this.server.protocol === 'https:' ? httpsGlobalAgent : httpGlobalAgent);
    // The global agents serve other hosts too; the name of a pool starts with host:port.
    const ours = this.agent
      ? undefined
      : `${this.server.hostname.replace(/^\[|\]$/g, '')}:${this.server.port || (this.server.protocol === 'https:' ? '443' : '80')}:`;
    let closed = 0;
    for (const [name, sockets] of Object.entries(agent.freeSockets ?? {})) {
      if (ours && !name.startsWith(ours)) continue;
      for (const s of [...(sockets ?? [])]) {
        s.destroy();
        closed++;
      }
    }
    return closed + (h2?.closed ?? 0);
  }

  private prepare(): Promise<Prepared> {
    if (this.prepared && this.credentialsTtlMs > 0 && Date.now() - this.preparedAt >= this.credentialsTtlMs) this.prepared = undefined;
    this.prepared ??= (async () => {
      this.preparedAt = Date.now();
      const opts: RequestOptions & { agent?: Agent; auth?: string } = {};
      await this.kubeConfig.applyToHTTPSOptions(opts as never);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined) headers[k] = String(v);
      // A credentials refresh keeps the connections: only the headers change on a timed re-read.
      if (this.server.protocol === 'https:' && (!this.agent || this.credentialsTtlMs === 0)) {
        const agent = keepAliveAgent(opts.agent);
        if (agent !== this.agent && this.useHttp2 && agent?.constructor === Agent && !this.http2?.unsupported) {
          // New TLS material (a credentials refresh): requests under way keep their connection.
          this.http2?.close({ graceful: true });
          const { secureContext, rejectUnauthorized, servername } = agent.options;
          this.http2 = new Http2Connections(this.server.origin, {
            tls: { secureContext, ...(rejectUnauthorized !== undefined ? { rejectUnauthorized } : {}), ...(servername ? { servername } : {}) },
          });
        }
        this.agent = agent;
      }
      return { agent: this.agent, http2: this.http2, headers, auth: opts.auth };
    })();
    return this.prepared;
  }

  /** Credentials from exec plugins can expire; the next request asks for them again. */
  invalidateCredentials(): void {
    this.prepared = undefined;
  }

  url(path: string, query?: RequestInit['query']): URL {
    const base = this.server.pathname.replace(/\/$/, '');
    const url = new URL(this.server.origin + base + path);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    }
    return url;
  }

  /**
   * Sends a request and returns the open response, its body gunzipped when the server compressed
   * it; the caller reads or destroys the body.
   */
  async open(path: string, init: RequestInit = {}): Promise<ResponseStream> {
    if (init.describe && this.userName && init.describe.user === undefined) init.describe.user = this.userName;
    const prepared = await this.prepare();
    const url = this.url(path, init.query);
    const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    const headers: Record<string, string> = {
      ...prepared.headers,
      accept: init.accept ?? 'application/json',
      'user-agent': 'kubectl-informer-trace',
    };
    if (this.compression) headers['accept-encoding'] = 'gzip';
    if (body !== undefined) {
      headers['content-type'] = init.contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const send = {
      method: init.method,
      headers,
      body,
      signal: init.signal,
      timeoutMs: init.timeoutMs ?? this.requestTimeoutMs,
      idleTimeoutMs: this.idleTimeoutMs,
      idleTimeoutCoversBody: !init.stream,
    };
    try {
      if (prepared.http2 && !prepared.http2.unsupported) {
        // node:https turns `auth` into this header; over HTTP/2 it is ours to write.
        const basic: Record<string, string> =
          prepared.auth && !headers.authorization ? { authorization: `Basic ${Buffer.from(prepared.auth).toString('base64')}` } : {};
        try {
          return decodedBody(await prepared.http2.request(url, { ...send, headers: { ...headers, ...basic } }));
        } catch (err) {
          if (!(err instanceof Http2Unsupported)) throw err;
        }
      }
      return decodedBody(await sendRequest(url, { ...send, agent: prepared.agent, auth: prepared.auth }));
    } catch (err) {
      throw init.signal?.aborted ? err : this.networkError(err as NodeJS.ErrnoException, init.describe);
    }
  }

  /** Sends a request, reads the whole answer, and turns a non-2xx status into an ApiError. */
  async raw(path: string, init: RequestInit = {}): Promise<RawResponse> {
    const res = await this.openOk(path, init);
    return { status: res.statusCode ?? 0, headers: res.headers, body: await this.readText(res, init, init.maxBytes) };
  }

  /**
   * Opens a request and turns a non-2xx answer into an ApiError; the caller reads the body. A
   * request that is not a stream is sent again, up to `retries.max` times, when the server answers
   * 429 or 5xx with a Retry-After of whole seconds, after that many seconds (at most
   * MAX_RETRY_AFTER_S): client-go's REST client does so ten times. A watch is not: its reflector
   * backs off and says so at the first 429.
   */
  async openOk(path: string, init: RequestInit = {}): Promise<ResponseStream> {
    let res = await this.open(path, init);
    for (let retried = 0; !init.stream && retried < this.retries.max; retried++) {
      const wait = retryAfterSeconds(res);
      if (wait === undefined) break;
      res.resume();
      try {
        await this.retries.sleep(wait * 1000, init.signal);
      } catch (err) {
        throw init.signal?.aborted ? abortError(init.signal) : err;
      }
      res = await this.open(path, init);
    }
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return res;
    const body = await this.readBytes(res, init);
    if (status === 401) this.invalidateCredentials();
    const text = body.toString('utf8');
    // A request that accepted protobuf gets its error Status in protobuf too.
    throw errorFromResponse(status, text, init.describe, isProtobuf(res) ? statusFromProtobuf(body) : statusFromBody(text));
  }

  private readText(res: ResponseStream, init: RequestInit, maxBytes?: number): Promise<string> {
    return this.reading(readBody(res, { signal: init.signal, maxBytes }), init);
  }

  private readBytes(res: ResponseStream, init: RequestInit, maxBytes?: number): Promise<Buffer> {
    return this.reading(readBytes(res, { signal: init.signal, maxBytes }), init);
  }

  /** A body being read; a failure other than the caller's abort says which request it was. */
  private reading<T>(body: Promise<T>, init: RequestInit): Promise<T> {
    return body.catch((err: NodeJS.ErrnoException) => {
      throw init.signal?.aborted ? err : this.networkError(err, init.describe);
    });
  }

  /**
   * GETs a List and decodes it while it arrives: every element of `items` goes to onItem as soon
   * as it is read (see ListStreamDecoder, and ProtobufListStreamDecoder when the request accepted
   * protobuf and the server answered in it). Returns the rest of the List (metadata, kind), with
   * `items` empty or absent, and the encoding the server answered in.
   */
  async streamList(
    path: string,
    init: RequestInit,
    onItem: (item: unknown) => void,
    decode: DecodeOptions = {},
  ): Promise<{ list: Record<string, unknown>; encoding: Encoding }> {
    const res = await this.openOk(path, init);
    const protobuf = isProtobuf(res);
    const decoder = protobuf ? new ProtobufListStreamDecoder(onItem, decode) : new ListStreamDecoder(onItem);
    const notJson = (err: unknown): ApiError =>
      new ApiError(`the API server sent a response that is not ${protobuf ? 'a protobuf List' : 'JSON'} for ${path}: ${(err as Error).message}`, {
        code: res.statusCode ?? 0,
        cause: err,
        ...(init.describe ? { request: init.describe } : {}),
      });
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const fail = (err: unknown): void => {
        if (failed) return;
        failed = true;
        res.destroy();
        reject(err);
      };
      res.on('data', (c: Buffer) => {
        if (failed) return;
        try {
          decoder.write(c);
        } catch (err) {
          fail(err instanceof ListDecodeError || err instanceof ProtobufDecodeError ? notJson(err) : err);
        }
      });
      res.on('end', () => {
        if (!failed) resolve();
      });
      res.on('error', (err: NodeJS.ErrnoException) => fail(init.signal?.aborted ? abortError(init.signal) : this.networkError(err, init.describe)));
      res.on('aborted', () =>
        fail(
          init.signal?.aborted
            ? abortError(init.signal)
            : this.networkError(Object.assign(new Error('response aborted'), { code: 'ECONNRESET' }), init.describe),
        ),
      );
    });
    try {
      return { list: decoder.end(), encoding: protobuf ? 'protobuf' : 'json' };
    } catch (err) {
      throw err instanceof ListDecodeError || err instanceof ProtobufDecodeError ? notJson(err) : err;
    }
  }

  async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    const res = await this.raw(path, init);
    try {
      return JSON.parse(res.body) as T;
    } catch (err) {
      throw new ApiError(`the API server sent a response that is not JSON for ${path}`, {
        code: res.status,
        cause: err,
        ...(init.describe ? { request: init.describe } : {}),
      });
    }
  }

  private networkError(err: NodeJS.ErrnoException | ConnectionStalledError, describe?: RequestDescription): ApiError {
    // A connection found dead (an HTTP/2 PING unanswered) already says so, and what to do.
    if (err instanceof ConnectionStalledError) {
      this.dropIdleConnections();
      return err;
    }
    const code = err.code ?? 'ERROR';
    // Silence (or a connect that never completed): the pooled connections are suspect too.
    if (code === 'ETIMEDOUT') this.dropIdleConnections();
    return new ApiError(`cannot reach the API server at ${this.server.origin}: ${err.message}`, {
      code: 0,
      networkCode: code,
      cause: err,
      ...(describe ? { request: describe } : {}),
    });
  }
}

/**
 * applyToHTTPSOptions gives a plain https.Agent without keep-alive, so every request paid for a new
 * TCP connection and TLS handshake (client-go reuses connections). Same TLS options, keep-alive on:
 * it more than doubled write throughput against a busy local API server. And one TLS context for
 * every connection: without one, each new connection parses the CA, the client certificate and its
 * key again (tls.connect makes a context per connection unless given one), a few ms of CPU each; a
 * trace of a custom resource opens a connection per kind it lists and watches. Proxy agents (a
 * proxy-url in the kubeconfig) are subclasses and are left as they are.
 */
export function keepAliveAgent(agent: Agent | undefined): Agent | undefined {
  if (!agent || agent.constructor !== Agent || agent.options.keepAlive) return agent;
  const options = { ...agent.options, keepAlive: true };
  return new Agent({ ...options, secureContext: options.secureContext ?? createSecureContext(options) });
}

/**
 * A non-2xx answer: a metav1.Status when the server sent one (`parsed`, read from the body as JSON
 * when not given), else the first line of the body.
 */
export function errorFromResponse(status: number, text: string, describe?: RequestDescription, parsed: Status | undefined = statusFromBody(text)): ApiError {
  if (parsed) return ApiError.fromStatus({ ...parsed, code: parsed.code ?? status }, describe, status);
  const reason = (
    {
      401: 'Unauthorized',
      403: 'Forbidden',
      404: 'NotFound',
      409: 'Conflict',
      410: 'Gone',
      429: 'TooManyRequests',
      500: 'InternalError',
      503: 'ServiceUnavailable',
      504: 'Timeout',
    } as Record<number, string>
  )[status];
  const firstLine = firstLineOf(text);
  return new ApiError(`${status}${reason ? ` ${reason}` : ''}${firstLine ? `: ${firstLine}` : ''}`, {
    code: status,
    ...(reason ? { reason } : {}),
    ...(describe ? { request: describe } : {}),
  });
}

/** The metav1.Status an error answer carries, if its body is one. */
export function statusFromBody(text: string): Status | undefined {
  try {
    const obj = JSON.parse(text) as Status;
    return obj && obj.kind === 'Status' ? obj : undefined;
  } catch {
    return undefined;
  }
}

/** The content type of the API server's protobuf. */
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** Whether a response is in the API server's protobuf (a List or object, or a watch stream). */
export function isProtobuf(res: Pick<ResponseStream, 'headers'>): boolean {
  return res.headers['content-type']?.startsWith(PROTOBUF) ?? false;
}

/** The metav1.Status of a protobuf error answer, if its body is one. */
export function statusFromProtobuf(body: Buffer): Status | undefined {
  try {
    const obj = decodeObject(body) as unknown as Status;
    return obj.kind === 'Status' ? obj : undefined;
  } catch {
    return undefined;
  }
}

/** The first line of an error answer's body, cut to a length that fits one message line. */
export function firstLineOf(text: string): string {
  return text.trim().split('\n')[0]?.slice(0, 200) ?? '';
}
