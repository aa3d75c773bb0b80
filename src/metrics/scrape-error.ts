/**
 * Why a scrape failed, in words a user can act on. Every failure of a source ends up as one
 * ScrapeError with a kind (for code to branch on), a reason (one line, without the source's name)
 * and usually a hint.
 */
import { CliError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { ApiError } from '../kube/api-error.js';
import { isAbortError, isTlsErrorCode } from '../kube/http.js';
import { MetricsParseError, NotMetricsError } from './parse.js';

/**
 * The largest answer a scrape reads (64 MiB, the HTTP client's own default): several times the
 * /metrics of a large cluster's API server. An endpoint that sends more, or streams without end,
 * is cut there (and by the scrape's timeout, whichever comes first).
 */
export const MAX_SCRAPE_BYTES = 64 * 1024 * 1024;

export type ScrapeFailure =
  | 'timeout'
  | 'unreachable'
  | 'tls'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'http'
  | 'not-metrics'
  | 'too-large'
  | 'parse'
  | 'aborted'
  | 'error';

export class ScrapeError extends CliError {
  readonly source: string;
  readonly kind: ScrapeFailure;
  /** The message without the source's name: "answered text/html, not Prometheus metrics". */
  readonly reason: string;

  constructor(source: string, kind: ScrapeFailure, reason: string, options: { hint?: string | undefined; cause?: unknown } = {}) {
    super(`${source}: ${reason}`, exitCodeFor(kind), {
      ...(options.hint ? { hint: options.hint } : {}),
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.name = 'ScrapeError';
    this.source = source;
    this.kind = kind;
    this.reason = reason;
  }
}

function exitCodeFor(kind: ScrapeFailure): ExitCode {
  switch (kind) {
    case 'timeout':
    case 'unreachable':
    case 'tls':
    case 'unauthorized':
    case 'forbidden':
      return ExitCode.Cluster;
    case 'aborted':
      return ExitCode.Interrupted;
    default:
      return ExitCode.CheckFailed;
  }
}

const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'no answer in time',
  EPIPE: 'connection closed',
};

export const SKIP_TLS_HINT =
  'control-plane components serve self-signed certificates: skip verification for metrics endpoints (--insecure-skip-tls-verify), or give their CA';

/** Where the request went, for the wording of messages and hints. */
export interface FailureContext {
  /** "apiserver", "proxy" (through the API server's pod/service proxy) or "direct". */
  via: 'apiserver' | 'proxy' | 'direct';
  /** What we asked, for messages: "https://10.0.0.5:10257/metrics", "the API server's /metrics". */
  target: string;
  /** For proxied sources: the `kubectl auth can-i` line that checks the proxy permission. */
  canI?: string;
}

/** Turns whatever a scrape threw into a ScrapeError. */
export function toScrapeError(source: string, err: unknown, ctx: FailureContext): ScrapeError {
  if (err instanceof ScrapeError) return err;
  if (isAbortError(err)) return new ScrapeError(source, 'aborted', 'scrape cancelled', { cause: err });
  if (err instanceof NotMetricsError) {
    return new ScrapeError(source, 'not-metrics', err.message, {
      hint: `is ${ctx.target} the metrics endpoint? a web UI, a login page or an API answers there`,
      cause: err,
    });
  }
  if (err instanceof MetricsParseError) {
    return new ScrapeError(source, 'parse', `the answer is not valid Prometheus text: ${err.message}`, { cause: err });
  }
  if (err instanceof ApiError) return fromApiError(source, err, ctx);
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return fromNetworkCode(source, code, err, ctx);
  return new ScrapeError(source, 'error', err instanceof Error ? err.message : String(err), { cause: err });
}

function fromNetworkCode(source: string, code: string, err: unknown, ctx: FailureContext): ScrapeError {
  const who = ctx.via === 'direct' ? ctx.target : 'the API server';
  if (isTlsErrorCode(code)) {
    return new ScrapeError(source, 'tls', `TLS with ${who} failed (${code})`, {
      hint: ctx.via === 'direct' ? SKIP_TLS_HINT : 'check --certificate-authority, or --insecure-skip-tls-verify',
      cause: err,
    });
  }
  if (code === 'ETIMEDOUT') return new ScrapeError(source, 'timeout', `${who} did not answer in time`, { cause: err });
  if (code === 'ETOOBIG') {
    return new ScrapeError(
      source,
      'too-large',
      `${ctx.target} sent more than ${MAX_SCRAPE_BYTES / (1024 * 1024)} MiB, the limit of a scrape; the rest was not read`,
      {
        hint: 'is it the metrics endpoint? an endpoint that streams without end is refused at this limit',
        cause: err,
      },
    );
  }
  const words = NETWORK_WORDS[code];
  return new ScrapeError(source, 'unreachable', `cannot reach ${who}: ${words ? `${words} (${code})` : code}`, {
    hint:
      ctx.via === 'direct' ? 'is the component running and listening on that address and port?' : 'is the cluster running? check --context and the kubeconfig',
    cause: err,
  });
}

function fromApiError(source: string, err: ApiError, ctx: FailureContext): ScrapeError {
  if (err.networkCode) return fromNetworkCode(source, err.networkCode, err, ctx);
  // errorFromResponse writes "503 ServiceUnavailable: ..."; the code is said once, below.
  const message = (err.status?.message ?? err.message).replace(new RegExp(`^${err.code}( [A-Za-z]+)?: `), '');
  switch (err.code) {
    case 401:
      return new ScrapeError(source, 'unauthorized', `401 Unauthorized: ${message}`, {
        hint:
          ctx.via === 'proxy'
            ? 'the component refused the request the API server forwarded; scrape it directly with a token'
            : 'the credentials were refused; check the kubeconfig user or --token',
        cause: err,
      });
    case 403:
      return new ScrapeError(source, 'forbidden', `403 Forbidden: ${message}`, { hint: forbiddenHint(message, ctx), cause: err });
    case 404:
      return new ScrapeError(source, 'not-found', `404 Not Found: ${message}`, {
        hint: ctx.via === 'proxy' ? 'check the namespace, the name and the port (kubectl get pods,svc -n NAMESPACE)' : `nothing at ${ctx.target}`,
        cause: err,
      });
    default: {
      const hint = /HTTP request to an HTTPS server/i.test(message)
        ? 'the endpoint speaks https: use https:// (control-plane components serve only https)'
        : ctx.via === 'proxy'
          ? 'the API server could not get an answer from the target: is it running, and is the port right?'
          : undefined;
      return new ScrapeError(
        source,
        'http',
        ctx.via === 'proxy' ? `the API server's proxy answered ${err.code}: ${message}` : `answered ${err.code}: ${message}`,
        {
          hint,
          cause: err,
        },
      );
    }
  }
}

function forbiddenHint(message: string, ctx: FailureContext): string {
  if (/system:anonymous/.test(message)) {
    return ctx.via === 'proxy'
      ? "the component refused the API server's proxy, which sends no credentials; scrape it directly (https://NODE:PORT/metrics) with a token allowed to get /metrics"
      : 'the endpoint wants credentials: pass a bearer token, or use the kubeconfig credentials';
  }
  // RBAC refusals read 'User "x" cannot get resource "pods/proxy"' or '... cannot get path "/metrics"'.
  const rbac = /\bcannot \w+ (resource|path)\b/.test(message);
  switch (ctx.via) {
    case 'apiserver':
      return 'confirm with: kubectl auth can-i get /metrics';
    case 'proxy':
      if (rbac && ctx.canI) return `confirm with: ${ctx.canI}`;
      return 'the API server refused to proxy to this target (its proxy denies some destinations, e.g. host-network or link-local addresses); scrape the endpoint directly';
    default:
      return rbac
        ? 'the credentials may not get /metrics (RBAC: nonResourceURLs ["/metrics"], verb get)'
        : 'the endpoint refused the request; check the token or client certificate';
  }
}

/** Failures ranked by how far the request got: of two attempts, the farther one tells more. */
const PROGRESS: Record<ScrapeFailure, number> = {
  aborted: 9,
  unauthorized: 8,
  forbidden: 8,
  parse: 7,
  'not-metrics': 7,
  'too-large': 7,
  'not-found': 6,
  timeout: 4,
  http: 3,
  tls: 2,
  unreachable: 1,
  error: 0,
};

/** Whether failure `a` got farther than `b` (so is the one to report). */
export function fartherFailure(a: { kind: ScrapeFailure }, b: { kind: ScrapeFailure }): boolean {
  return PROGRESS[a.kind] > PROGRESS[b.kind];
}
