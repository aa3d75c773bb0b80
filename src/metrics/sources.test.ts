import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { ApiError } from '../kube/api-error.js';
import { errorFromResponse, type RawResponse, type RequestInit } from '../kube/client.js';
import type { HttpGetRequest, HttpGetResponse } from '../kube/http.js';
import { ScrapeError } from './scrape-error.js';
import { createSource, createSources, formatMetricsSpec, parseMetricsSpec, type RawGetter } from './sources.js';

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const KCM = fixture('synthetic-kube-controller-manager.prom');
const TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/** A KubeClient stand-in: answers by path with a response or an error, and records the calls. */
class FakeClient implements RawGetter {
  calls: { path: string; init: RequestInit | undefined }[] = [];
  constructor(private readonly answer: (path: string) => RawResponse | Error) {}
  async raw(path: string, init?: RequestInit): Promise<RawResponse> {
    this.calls.push({ path, init });
    const a = this.answer(path);
    if (a instanceof Error) throw a;
    return a;
  }
}

const ok = (body: string, contentType = TEXT): RawResponse => ({ status: 200, headers: { 'content-type': contentType }, body });

async function scrapeError(p: Promise<unknown>): Promise<ScrapeError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ScrapeError);
    return err as ScrapeError;
  }
  throw new Error('the scrape worked');
}

describe('parseMetricsSpec', () => {
  it.each([
    ['apiserver', { kind: 'apiserver' }],
    ['pod/kube-system/kube-controller-manager-node1:10257', { kind: 'pod', namespace: 'kube-system', name: 'kube-controller-manager-node1', port: '10257' }],
    ['po/demo/web-7d4b9c-x2x1z', { kind: 'pod', namespace: 'demo', name: 'web-7d4b9c-x2x1z', port: undefined }],
    ['svc/monitoring/operator.metrics:metrics', { kind: 'service', namespace: 'monitoring', name: 'operator.metrics', port: 'metrics' }],
    ['service/default/kubernetes:443', { kind: 'service', namespace: 'default', name: 'kubernetes', port: '443' }],
  ])('reads %s', (spec, expected) => {
    expect(parseMetricsSpec(spec)).toEqual(expected);
  });

  it('reads URLs, adding /metrics to a bare host and port', () => {
    const a = parseMetricsSpec('https://127.0.0.1:10257');
    expect(a.kind === 'url' && a.url.href).toBe('https://127.0.0.1:10257/metrics');
    const b = parseMetricsSpec('http://localhost:8080/custom/metrics');
    expect(b.kind === 'url' && b.url.href).toBe('http://localhost:8080/custom/metrics');
    expect(formatMetricsSpec(parseMetricsSpec('https://user:secret@host:1/metrics'))).toBe('https://host:1/metrics');
  });

  it.each([
    ['', /empty/],
    ['deployment/web', /not a form this tool reads/],
    ['pod/web', /expected pod\/NAMESPACE\/NAME\[:PORT\]/],
    ['svc/a/b/c', /expected svc\/NAMESPACE\/NAME\[:PORT\]/],
    ['pod/Kube_System/x', /"Kube_System" is not a namespace name/],
    ['pod/ns/Web:80', /"Web" is not a pod name/],
    ['pod/ns/web:99999', /"99999" is not a port/],
    ['pod/ns/web:', /"" is not a port/],
    ['ftp://host/metrics', /ftp:\/\/ is not supported/],
    ['https://', /not a valid URL/],
  ])('refuses %j with the accepted forms', (spec, why) => {
    let err: unknown;
    try {
      parseMetricsSpec(spec);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(ExitCode.Usage);
    expect((err as UsageError).message).toMatch(why);
    expect((err as UsageError).hint).toBe('accepted forms: apiserver, pod/NAMESPACE/NAME[:PORT], svc/NAMESPACE/NAME[:PORT], https://HOST:PORT/metrics');
  });

  it('checks every spec before creating any source, and drops repeats', () => {
    expect(() => createSources(['apiserver', 'pod/ns/x:1', 'bogus'], { client: new FakeClient(() => ok('')) })).toThrow(/--metrics "bogus"/);
    const sources = createSources(['apiserver', 'apiserver', 'pod/ns/x:1'], { client: new FakeClient(() => ok('')) });
    expect(sources.map((s) => s.name)).toEqual(['apiserver', 'pod/ns/x:1']);
  });

  it('needs a cluster connection for apiserver, pod and svc sources', () => {
    expect(() => createSource('apiserver', {})).toThrow(UsageError);
  });
});

describe('apiserver source', () => {
  it("GETs /metrics through the client, asking for text, within the source's timeout", async () => {
    const client = new FakeClient(() => ok(KCM));
    const source = createSource('apiserver', { client, timeoutMs: 3000 });
    const exp = await source.scrape();
    expect(exp.families.some((f) => f.name === 'workqueue_depth')).toBe(true);
    expect(client.calls[0]!.path).toBe('/metrics');
    expect(client.calls[0]!.init?.accept).toMatch(/^text\/plain;version=0\.0\.4/);
    expect(client.calls[0]!.init?.timeoutMs).toBe(3000);
    expect(source.timeoutMs).toBe(3000);
  });

  it('reads only the families asked for, from every kind of source', async () => {
    const families = ['workqueue_'];
    const client = new FakeClient(() => ok(KCM));
    const http = fakeHttp(() => ({ status: 200, headers: { 'content-type': TEXT }, body: KCM }));
    for (const spec of ['apiserver', 'pod/kube-system/kcm:10257', 'https://127.0.0.1:10257/metrics']) {
      const exp = await createSource(spec, { client, httpGet: http.get, families }).scrape();
      expect(exp.families.length, spec).toBeGreaterThan(3);
      expect(
        exp.families.filter((f) => !f.name.startsWith('workqueue_')).map((f) => f.name),
        spec,
      ).toEqual([]);
      const whole = await createSource(spec, { client, httpGet: http.get }).scrape();
      expect(whole.families.length, spec).toBeGreaterThan(exp.families.length);
    }
  });

  it('says who refused and how to check it on 403', async () => {
    const status =
      '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden: User \\"dev\\" cannot get path \\"/metrics\\"","reason":"Forbidden","code":403}';
    const client = new FakeClient(() => errorFromResponse(403, status, { verb: 'get', resource: '', path: '/metrics' }));
    const err = await scrapeError(createSource('apiserver', { client }).scrape());
    expect(err.kind).toBe('forbidden');
    expect(err.message).toBe('apiserver: 403 Forbidden: forbidden: User "dev" cannot get path "/metrics"');
    expect(err.hint).toBe('confirm with: kubectl auth can-i get /metrics');
    expect(err.exitCode).toBe(ExitCode.Cluster);
  });

  it('reports a refused connection as unreachable', async () => {
    const client = new FakeClient(() => new ApiError('connect ECONNREFUSED', { code: 0, networkCode: 'ECONNREFUSED' }));
    const err = await scrapeError(createSource('apiserver', { client }).scrape());
    expect(err.kind).toBe('unreachable');
    expect(err.reason).toBe('cannot reach the API server: connection refused (ECONNREFUSED)');
  });
});

describe('pod and service sources (through the API server proxy)', () => {
  it('tries https first, falls back to http, and remembers what worked', async () => {
    const client = new FakeClient((path) =>
      path.includes('/https:') ? errorFromResponse(503, 'error trying to reach service: tls: first record does not look like a TLS handshake') : ok(KCM),
    );
    const source = createSource('pod/demo/operator-0:8080', { client });
    expect(source.name).toBe('pod/demo/operator-0:8080');
    await source.scrape();
    await source.scrape();
    expect(client.calls.map((c) => c.path)).toEqual([
      '/api/v1/namespaces/demo/pods/https:operator-0:8080/proxy/metrics',
      '/api/v1/namespaces/demo/pods/http:operator-0:8080/proxy/metrics',
      '/api/v1/namespaces/demo/pods/http:operator-0:8080/proxy/metrics',
    ]);
    expect(client.calls[0]!.init?.describe).toEqual({ verb: 'get', resource: 'pods/proxy', namespace: 'demo', name: 'operator-0' });
  });

  it('builds service proxy paths, with an empty port when none is given', async () => {
    const client = new FakeClient(() => ok(KCM));
    await createSource('svc/monitoring/operator', { client }).scrape();
    expect(client.calls[0]!.path).toBe('/api/v1/namespaces/monitoring/services/https:operator:/proxy/metrics');
  });

  it('does not try http when the API server itself refused, and says how to check', async () => {
    const status = JSON.stringify({
      kind: 'Status',
      status: 'Failure',
      message: 'pods "kcm" is forbidden: User "dev" cannot get resource "pods/proxy" in API group "" in the namespace "kube-system"',
      reason: 'Forbidden',
      code: 403,
    });
    const client = new FakeClient(() => errorFromResponse(403, status));
    const err = await scrapeError(createSource('pod/kube-system/kcm:10257', { client }).scrape());
    expect(client.calls).toHaveLength(1);
    expect(err.kind).toBe('forbidden');
    expect(err.hint).toBe('confirm with: kubectl auth can-i get pods --subresource=proxy -n kube-system');
  });

  it("explains a component refusing the proxy's anonymous request", async () => {
    const status = JSON.stringify({
      kind: 'Status',
      status: 'Failure',
      message: 'forbidden: User "system:anonymous" cannot get path "/metrics"',
      reason: 'Forbidden',
      code: 403,
    });
    const client = new FakeClient(() => errorFromResponse(403, status));
    const err = await scrapeError(createSource('pod/kube-system/kube-scheduler-node1:10259', { client }).scrape());
    expect(err.reason).toBe('403 Forbidden: forbidden: User "system:anonymous" cannot get path "/metrics"');
    expect(err.hint).toMatch(/sends no credentials; scrape it directly \(https:\/\/NODE:PORT\/metrics\)/);
  });

  it('says so when the API server refuses to proxy to the destination, without an RBAC hint', async () => {
    const client = new FakeClient(() => errorFromResponse(403, 'resolve_deny: denied destination'));
    const err = await scrapeError(createSource('pod/default/web-768bcd6cb5-c9jzd:8080', { client }).scrape());
    expect(err.reason).toBe('403 Forbidden: resolve_deny: denied destination');
    expect(err.hint).toMatch(/^the API server refused to proxy to this target/);
  });

  it('reports the same failure of both schemes once', async () => {
    const client = new FakeClient(() => errorFromResponse(503, 'no endpoints available for service "kubernetes"'));
    const err = await scrapeError(createSource('svc/default/kubernetes:443', { client }).scrape());
    expect(err.reason).toBe('https and http: the API server\'s proxy answered 503: no endpoints available for service "kubernetes"');
    expect(client.calls).toHaveLength(2);
  });

  it('reports both attempts when neither scheme works, and tries both again next time', async () => {
    const client = new FakeClient((path) =>
      path.includes('/https:')
        ? errorFromResponse(503, 'error trying to reach service: dial tcp 10.244.0.7:9090: connect: connection refused')
        : errorFromResponse(502, 'error trying to reach service: EOF'),
    );
    const source = createSource('pod/demo/web:9090', { client });
    const err = await scrapeError(source.scrape());
    expect(err.reason).toBe(
      "https: the API server's proxy answered 503: error trying to reach service: dial tcp 10.244.0.7:9090: connect: connection refused; " +
        "http: the API server's proxy answered 502: error trying to reach service: EOF",
    );
    expect(err.kind).toBe('http');
    await scrapeError(source.scrape());
    expect(client.calls).toHaveLength(4);
  });

  it('refuses an HTML answer with the content type in the message', async () => {
    const client = new FakeClient(() => ok(fixture('login-page.html'), 'text/html; charset=utf-8'));
    const err = await scrapeError(createSource('svc/monitoring/grafana:3000', { client }).scrape());
    expect(err.kind).toBe('not-metrics');
    expect(err.message).toMatch(/^svc\/monitoring\/grafana:3000: https and http: answered text\/html, not Prometheus metrics/);
  });
});

/** An HttpGet stand-in that records requests. */
function fakeHttp(answer: (req: HttpGetRequest) => HttpGetResponse | Error) {
  const requests: HttpGetRequest[] = [];
  const get = async (req: HttpGetRequest): Promise<HttpGetResponse> => {
    requests.push(req);
    const a = answer(req);
    if (a instanceof Error) throw a;
    return a;
  };
  return { get, requests };
}

describe('direct URL sources', () => {
  it('sends the bearer token, skips TLS verification when asked, and parses the answer', async () => {
    const http = fakeHttp(() => ({ status: 200, headers: { 'content-type': TEXT }, body: KCM }));
    const source = createSource('https://127.0.0.1:10257/metrics', {
      httpGet: http.get,
      direct: { bearerToken: 'tok', insecureSkipTlsVerify: true },
      timeoutMs: 1500,
    });
    const exp = await source.scrape();
    expect(exp.families.length).toBeGreaterThan(10);
    const req = http.requests[0]!;
    expect(req.url.href).toBe('https://127.0.0.1:10257/metrics');
    expect(req.headers.authorization).toBe('Bearer tok');
    expect(req.tls?.insecureSkipTlsVerify).toBe(true);
    expect(req.timeoutMs).toBe(1500);
  });

  it("asks for the caller's credentials on every scrape; an explicit token wins", async () => {
    const http = fakeHttp(() => ({ status: 200, headers: {}, body: 'a 1\n' }));
    let asked = 0;
    const credentials = async () => {
      asked++;
      return { headers: { Authorization: `Bearer from-kubeconfig-${asked}` }, cert: 'CERT', key: 'KEY' };
    };
    const source = createSource('https://10.0.0.1:10259', { httpGet: http.get, direct: { credentials } });
    await source.scrape();
    await source.scrape();
    expect(asked).toBe(2);
    expect(http.requests[1]!.headers.Authorization).toBe('Bearer from-kubeconfig-2');
    expect(http.requests[1]!.tls).toMatchObject({ cert: 'CERT', key: 'KEY' });
    const withToken = createSource('https://10.0.0.1:10259', { httpGet: http.get, direct: { credentials, bearerToken: 'mine' } });
    await withToken.scrape();
    expect(http.requests[2]!.headers).toMatchObject({ authorization: 'Bearer mine' });
    expect(http.requests[2]!.headers.Authorization).toBeUndefined();
  });

  it.each([
    [{ status: 401, headers: {}, body: 'Unauthorized' }, 'unauthorized', '401 Unauthorized: Unauthorized'],
    [
      {
        status: 403,
        headers: { 'content-type': 'application/json' },
        body: '{"kind":"Status","message":"forbidden: User \\"system:anonymous\\" cannot get path \\"/metrics\\"","code":403}',
      },
      'forbidden',
      '403 Forbidden: forbidden: User "system:anonymous" cannot get path "/metrics"',
    ],
    [{ status: 404, headers: {}, body: '404 page not found' }, 'not-found', '404 Not Found: 404 page not found'],
    [{ status: 500, headers: {}, body: 'boom\nstack' }, 'http', 'answered 500: boom'],
    [
      { status: 400, headers: {}, body: 'Client sent an HTTP request to an HTTPS server.\n' },
      'http',
      'answered 400: Client sent an HTTP request to an HTTPS server.',
    ],
    [
      { status: 302, headers: { location: 'https://sso.example/login' }, body: '' },
      'http',
      'answered 302, a redirect to https://sso.example/login (not followed)',
    ],
    [
      { status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>hi</body></html>' },
      'not-metrics',
      'answered text/html, not Prometheus metrics (starts "<html><body>hi</body></html>")',
    ],
    [
      { status: 200, headers: { 'content-type': TEXT }, body: 'a{b="c} 1\n' },
      'parse',
      'the answer is not valid Prometheus text: line 1: unterminated label value (missing closing quote)',
    ],
  ])('turns %j into a %s failure', async (answer, kind, reason) => {
    const http = fakeHttp(() => answer);
    const err = await scrapeError(createSource('https://127.0.0.1:10257/metrics', { httpGet: http.get }).scrape());
    expect(err.kind).toBe(kind);
    expect(err.reason).toBe(reason);
    expect(err.source).toBe('https://127.0.0.1:10257/metrics');
  });

  it('says to use https when a component answers that it speaks only https', async () => {
    const http = fakeHttp(() => ({ status: 400, headers: {}, body: 'Client sent an HTTP request to an HTTPS server.\n' }));
    const err = await scrapeError(createSource('http://127.0.0.1:10257/metrics', { httpGet: http.get }).scrape());
    expect(err.hint).toMatch(/^the endpoint speaks https: use https:\/\//);
  });

  it('says how to get past a self-signed certificate', async () => {
    const http = fakeHttp(() => Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }));
    const err = await scrapeError(createSource('https://127.0.0.1:10257/metrics', { httpGet: http.get }).scrape());
    expect(err.kind).toBe('tls');
    expect(err.reason).toBe('TLS with https://127.0.0.1:10257/metrics failed (DEPTH_ZERO_SELF_SIGNED_CERT)');
    expect(err.hint).toMatch(/--insecure-skip-tls-verify/);
  });

  it('reports a refused connection', async () => {
    const http = fakeHttp(() => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    const err = await scrapeError(createSource('http://127.0.0.1:1/metrics', { httpGet: http.get }).scrape());
    expect(err.kind).toBe('unreachable');
    expect(err.reason).toBe('cannot reach http://127.0.0.1:1/metrics: connection refused (ECONNREFUSED)');
  });
});
