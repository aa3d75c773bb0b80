/**
 * Where metrics come from: the `--metrics` specs a user writes, and the sources built from them.
 *
 *   apiserver                    GET /metrics on the API server, with the kubeconfig's credentials
 *   pod/NAMESPACE/NAME[:PORT]    through the API server's pod proxy (https first, then http)
 *   svc/NAMESPACE/NAME[:PORT]    through the API server's service proxy (https first, then http)
 *   https://HOST:PORT/metrics    directly (http:// too), with a bearer token or the kubeconfig's
 *                                credentials if the caller passes them, TLS verification optional
 *
 * Specs are checked before any request (UsageError with the accepted forms). A source's scrape
 * returns the parsed exposition or throws a ScrapeError that says what went wrong for that source
 * alone.
 */
import { UsageError } from '../errors.js';
import { firstLineOf, statusFromBody, type RawResponse, type RequestInit } from '../kube/client.js';
import { ApiError } from '../kube/api-error.js';
import { httpGet, type HttpGet } from '../kube/http.js';
import { parseExposition, type Exposition } from './parse.js';
import { fartherFailure, MAX_SCRAPE_BYTES, ScrapeError, toScrapeError, type FailureContext } from './scrape-error.js';

/** What the scrape asks for: Prometheus text first, OpenMetrics too; anything else to say what it was. */
export const METRICS_ACCEPT = 'text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.8,*/*;q=0.1';

export const DEFAULT_SCRAPE_TIMEOUT_MS = 5_000;

export const METRICS_SPEC_FORMS = [
  "apiserver                   the API server's own /metrics",
  "pod/NAMESPACE/NAME[:PORT]   a pod, through the API server's proxy",
  "svc/NAMESPACE/NAME[:PORT]   a service, through the API server's proxy",
  'https://HOST:PORT/metrics   an endpoint reached directly (http:// too)',
] as const;

export type MetricsSpec =
  | { kind: 'apiserver' }
  | { kind: 'pod' | 'service'; namespace: string; name: string; port: string | undefined }
  | { kind: 'url'; url: URL };

/** One place metrics are scraped from. */
export interface MetricsSource {
  /** The source as the user would write it: "apiserver", "pod/kube-system/kcm-node1:10257", a URL. */
  readonly name: string;
  /** How long one scrape may take before it counts as failed. */
  readonly timeoutMs: number;
  /** Fetches and parses the exposition; throws ScrapeError. Aborting `signal` cancels the request. */
  scrape(signal?: AbortSignal): Promise<Exposition>;
}

/** The part of KubeClient the sources use. */
export interface RawGetter {
  raw(path: string, init?: RequestInit): Promise<RawResponse>;
}

/** TLS material and headers for a direct endpoint, e.g. built from the kubeconfig's user. */
export interface DirectCredentials {
  headers?: Record<string, string> | undefined;
  ca?: string | Buffer | undefined;
  cert?: string | Buffer | undefined;
  key?: string | Buffer | undefined;
}

export interface DirectAuth {
  /** Sent as `Authorization: Bearer ...`; wins over an Authorization header from `credentials`. */
  bearerToken?: string | undefined;
  /**
   * Called before each direct scrape (so expiring exec-plugin tokens are asked for again). The
   * credentials go to the URL the user named, so pass this only when the user asked for it.
   */
  credentials?: (() => Promise<DirectCredentials>) | undefined;
  insecureSkipTlsVerify?: boolean | undefined;
}

export interface SourceOptions {
  /** Required for apiserver, pod and svc sources. */
  client?: RawGetter | undefined;
  timeoutMs?: number | undefined;
  direct?: DirectAuth | undefined;
  httpGet?: HttpGet | undefined;
  /** Only the families whose names start with one of these are read (parseExposition's `families`). */
  families?: readonly string[] | undefined;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const PORT = /^(?:[1-9][0-9]{0,4}|[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?)$/;
const KINDS: Record<string, 'pod' | 'service'> = { pod: 'pod', pods: 'pod', po: 'pod', svc: 'service', service: 'service', services: 'service' };

function badSpec(spec: string, why: string): UsageError {
  return new UsageError(`--metrics "${spec}": ${why}`, { hint: `accepted forms: ${METRICS_SPEC_FORMS.map((f) => f.split(/\s{2,}/)[0]).join(', ')}` });
}

/** Reads a `--metrics` spec; UsageError naming the accepted forms when it is not one of them. */
export function parseMetricsSpec(spec: string): MetricsSpec {
  const text = spec.trim();
  if (text === '') throw badSpec(spec, 'empty');
  if (text.toLowerCase() === 'apiserver' || text.toLowerCase() === 'kube-apiserver') return { kind: 'apiserver' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return { kind: 'url', url: parseUrl(spec, text) };
  const slash = text.indexOf('/');
  const kind = slash > 0 ? KINDS[text.slice(0, slash).toLowerCase()] : undefined;
  if (!kind) throw badSpec(spec, 'not a form this tool reads');
  const parts = text.slice(slash + 1).split('/');
  if (parts.length !== 2) throw badSpec(spec, `expected ${kind === 'pod' ? 'pod' : 'svc'}/NAMESPACE/NAME[:PORT]`);
  const [namespace, rest] = parts as [string, string];
  const colon = rest.indexOf(':');
  const name = colon === -1 ? rest : rest.slice(0, colon);
  const port = colon === -1 ? undefined : rest.slice(colon + 1);
  if (!DNS_LABEL.test(namespace)) throw badSpec(spec, `"${namespace}" is not a namespace name`);
  if (!DNS_SUBDOMAIN.test(name)) throw badSpec(spec, `"${name}" is not a ${kind} name`);
  if (port !== undefined && (!PORT.test(port) || (/^\d+$/.test(port) && Number(port) > 65535))) {
    throw badSpec(spec, `"${port}" is not a port (a number 1-65535 or a port name)`);
  }
  return { kind, namespace, name, port };
}

function parseUrl(spec: string, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badSpec(spec, 'not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badSpec(spec, `${url.protocol.slice(0, -1)}:// is not supported, only http:// and https://`);
  if (!url.hostname) throw badSpec(spec, 'the URL has no host');
  if (url.pathname === '/' && !url.search) url.pathname = '/metrics';
  return url;
}

/** The spec written back, the way it names the source in output. */
export function formatMetricsSpec(spec: MetricsSpec): string {
  switch (spec.kind) {
    case 'apiserver':
      return 'apiserver';
    case 'url': {
      const safe = new URL(spec.url.href);
      safe.username = '';
      safe.password = '';
      return safe.href;
    }
    default:
      return `${spec.kind === 'pod' ? 'pod' : 'svc'}/${spec.namespace}/${spec.name}${spec.port ? `:${spec.port}` : ''}`;
  }
}

/** Parses every spec first, so a typo in the last one fails before any network call. */
export function createSources(specs: readonly string[], options: SourceOptions): MetricsSource[] {
  const parsed = specs.map(parseMetricsSpec);
  const names = new Set<string>();
  return parsed
    .filter((s) => {
      const name = formatMetricsSpec(s);
      if (names.has(name)) return false;
      names.add(name);
      return true;
    })
    .map((s) => createSource(s, options));
}

export function createSource(spec: MetricsSpec | string, options: SourceOptions): MetricsSource {
  const s = typeof spec === 'string' ? parseMetricsSpec(spec) : spec;
  const timeoutMs = options.timeoutMs ?? DEFAULT_SCRAPE_TIMEOUT_MS;
  switch (s.kind) {
    case 'apiserver':
      return new ApiServerSource(needClient(s, options), timeoutMs, options.families);
    case 'pod':
    case 'service':
      return new ProxySource(s, needClient(s, options), timeoutMs, options.families);
    case 'url':
      return new DirectSource(s.url, formatMetricsSpec(s), timeoutMs, options.direct ?? {}, options.httpGet ?? httpGet, options.families);
  }
}

function needClient(spec: MetricsSpec, options: SourceOptions): RawGetter {
  if (!options.client) throw new UsageError(`--metrics ${formatMetricsSpec(spec)} needs a connection to the cluster`);
  return options.client;
}

function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

class ApiServerSource implements MetricsSource {
  readonly name = 'apiserver';

  constructor(
    private readonly client: RawGetter,
    readonly timeoutMs: number,
    private readonly families: readonly string[] | undefined,
  ) {}

  async scrape(signal?: AbortSignal): Promise<Exposition> {
    const ctx: FailureContext = { via: 'apiserver', target: "the API server's /metrics" };
    try {
      const res = await this.client.raw('/metrics', {
        accept: METRICS_ACCEPT,
        signal,
        timeoutMs: this.timeoutMs,
        maxBytes: MAX_SCRAPE_BYTES,
        describe: { verb: 'get', resource: '', path: '/metrics' },
      });
      return parseExposition(res.body, { contentType: headerValue(res.headers['content-type']), families: this.families });
    } catch (err) {
      throw toScrapeError(this.name, err, ctx);
    }
  }
}

class ProxySource implements MetricsSource {
  readonly name: string;
  /** The scheme that answered last time; both are tried until one does. */
  private scheme: 'https' | 'http' | undefined;

  constructor(
    private readonly spec: { kind: 'pod' | 'service'; namespace: string; name: string; port: string | undefined },
    private readonly client: RawGetter,
    readonly timeoutMs: number,
    private readonly families: readonly string[] | undefined,
  ) {
    this.name = formatMetricsSpec(spec);
  }

  private path(scheme: 'https' | 'http'): string {
    const resource = this.spec.kind === 'pod' ? 'pods' : 'services';
    const target = `${scheme}:${this.spec.name}:${this.spec.port ?? ''}`;
    // Names and ports were validated as DNS names, so they go into the path as kubectl writes them.
    return `/api/v1/namespaces/${this.spec.namespace}/${resource}/${target}/proxy/metrics`;
  }

  private context(scheme: 'https' | 'http'): FailureContext {
    const resource = this.spec.kind === 'pod' ? 'pods' : 'services';
    return {
      via: 'proxy',
      target: `${scheme}://${this.spec.kind === 'pod' ? 'pod' : 'service'} ${this.spec.namespace}/${this.spec.name}${this.spec.port ? `:${this.spec.port}` : ''}/metrics`,
      canI: `kubectl auth can-i get ${resource} --subresource=proxy -n ${this.spec.namespace}`,
    };
  }

  async scrape(signal?: AbortSignal): Promise<Exposition> {
    const schemes: ('https' | 'http')[] = this.scheme ? [this.scheme] : ['https', 'http'];
    const failures: { scheme: string; error: ScrapeError }[] = [];
    for (const scheme of schemes) {
      try {
        const res = await this.client.raw(this.path(scheme), {
          accept: METRICS_ACCEPT,
          signal,
          timeoutMs: this.timeoutMs,
          maxBytes: MAX_SCRAPE_BYTES,
          describe: { verb: 'get', resource: `${this.spec.kind === 'pod' ? 'pods' : 'services'}/proxy`, namespace: this.spec.namespace, name: this.spec.name },
        });
        const exposition = parseExposition(res.body, { contentType: headerValue(res.headers['content-type']), families: this.families });
        this.scheme = scheme;
        return exposition;
      } catch (err) {
        const error = toScrapeError(this.name, err, this.context(scheme));
        failures.push({ scheme, error });
        if (!worthOtherScheme(err, error)) break;
      }
    }
    this.scheme = undefined;
    if (failures.length === 1) throw failures[0]!.error;
    const best = failures.reduce((a, b) => (fartherFailure(b.error, a.error) ? b : a));
    const reasons = failures.map((f) => f.error.reason);
    const reason = reasons.every((r) => r === reasons[0]) ? `https and http: ${reasons[0]}` : failures.map((f) => `${f.scheme}: ${f.error.reason}`).join('; ');
    throw new ScrapeError(this.name, best.error.kind, reason, { hint: best.error.hint, cause: best.error });
  }
}

/**
 * After https failed, is http worth a try? Yes when the API server reached nothing useful (5xx,
 * TLS or protocol mismatch reported as 400/502/503); no when the API server itself refused or the
 * object is not there, or the request never reached the API server.
 */
function worthOtherScheme(err: unknown, error: ScrapeError): boolean {
  if (error.kind === 'aborted' || error.kind === 'timeout') return false;
  if (err instanceof ApiError) return !err.networkCode && (err.code === 400 || err.code >= 500);
  return error.kind === 'not-metrics' || error.kind === 'parse';
}

class DirectSource implements MetricsSource {
  constructor(
    private readonly url: URL,
    readonly name: string,
    readonly timeoutMs: number,
    private readonly auth: DirectAuth,
    private readonly httpGet: HttpGet,
    private readonly families: readonly string[] | undefined,
  ) {}

  async scrape(signal?: AbortSignal): Promise<Exposition> {
    const ctx: FailureContext = { via: 'direct', target: this.name };
    try {
      const creds = this.auth.credentials ? await this.auth.credentials() : {};
      const headers: Record<string, string> = { ...(creds.headers ?? {}), accept: METRICS_ACCEPT, 'user-agent': 'kubectl-informer-trace' };
      if (this.auth.bearerToken) {
        for (const k of Object.keys(headers)) if (k.toLowerCase() === 'authorization') delete headers[k];
        headers.authorization = `Bearer ${this.auth.bearerToken}`;
      }
      const res = await this.httpGet({
        url: this.url,
        headers,
        signal,
        timeoutMs: this.timeoutMs,
        maxBytes: MAX_SCRAPE_BYTES,
        tls: { insecureSkipTlsVerify: this.auth.insecureSkipTlsVerify, ca: creds.ca, cert: creds.cert, key: creds.key },
      });
      if (res.status < 200 || res.status >= 300) throw this.statusError(res.status, res.body, res.headers.location);
      return parseExposition(res.body, { contentType: headerValue(res.headers['content-type']), families: this.families });
    } catch (err) {
      throw toScrapeError(this.name, err, ctx);
    }
  }

  private statusError(status: number, body: string, location: string | undefined): Error {
    if (status >= 300 && status < 400) {
      return new ScrapeError(this.name, 'http', `answered ${status}, a redirect${location ? ` to ${location}` : ''} (not followed)`, {
        hint: 'give the URL it redirects to, if you trust it',
      });
    }
    const message = statusFromBody(body)?.message || firstLineOf(body);
    return new ApiError(message || `status ${status}`, { code: status });
  }
}
