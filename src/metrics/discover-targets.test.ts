import { describe, expect, it } from 'vitest';
import { ApiError } from '../kube/api-error.js';
import type { RawResponse, RequestInit } from '../kube/client.js';
import { UsageError } from '../errors.js';
import { discoverTargets, isLoopbackHost, mergeUserSpecs, RoutedSource, sourceForTarget, type DiscoveredTarget } from './discover-targets.js';
import { parseExposition, type Exposition } from './parse.js';
import { ScrapeError } from './scrape-error.js';
import type { MetricsSource, RawGetter } from './sources.js';

/** Answers list paths from a table; a path not in it is a 404, an Error is thrown as is. */
class FakeApi implements RawGetter {
  paths: string[] = [];
  constructor(private readonly answers: Record<string, unknown[] | Error>) {}
  async raw(path: string, _init?: RequestInit): Promise<RawResponse> {
    this.paths.push(path);
    const p = decodeURIComponent(path);
    const a = this.answers[p];
    if (a instanceof Error) throw a;
    if (a === undefined) return { status: 200, headers: {}, body: JSON.stringify({ items: [] }) };
    return { status: 200, headers: {}, body: JSON.stringify({ items: a }) };
  }
}

const forbidden = (what: string) => new ApiError(`pods is forbidden: User "bob" cannot list resource "pods" in API group "" ${what}`, { code: 403 });

const SVC = '/api/v1/namespaces/kube-system/services?labelSelector=';
const kcmService = {
  metadata: { name: 'kube-controller-manager', namespace: 'kube-system', labels: { 'app.kubernetes.io/name': 'kube-controller-manager' } },
  spec: { ports: [{ name: 'https-metrics', port: 10257 }] },
};
const kcmSlice = (name: string, port: number, address = 'kube-controller-manager.localhost') => ({
  metadata: { name, namespace: 'kube-system', labels: { 'kubernetes.io/service-name': 'kube-controller-manager' } },
  addressType: address.endsWith('.localhost') ? 'FQDN' : 'IPv4',
  endpoints: [{ addresses: [address], conditions: { ready: true } }],
  ports: [{ name: 'https-metrics', port, protocol: 'TCP' }],
});

function operatorPod(name: string, extra: { ports?: unknown[]; annotations?: Record<string, string>; ip?: string } = {}) {
  return {
    metadata: {
      name,
      namespace: 'shop',
      labels: { 'app.kubernetes.io/name': 'webapp-operator' },
      annotations: extra.annotations ?? {},
      ownerReferences: [{ controller: true, uid: 'rs-1', kind: 'ReplicaSet', name: 'op-7d9f' }],
    },
    spec: { containers: [{ name: 'manager', ports: extra.ports ?? [{ name: 'https-metrics', containerPort: 8443 }] }] },
    status: { phase: 'Running', podIP: extra.ip ?? '10.244.0.7' },
  };
}

describe('discoverTargets', () => {
  it('finds the API server and the loopback kube-controller-manager endpoints of a local cluster, trusting them as published', async () => {
    const api = new FakeApi({
      [`${SVC}app.kubernetes.io/name in (kube-controller-manager,kube-scheduler)`]: [kcmService],
      '/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices?labelSelector=kubernetes.io/service-name=kube-controller-manager': [
        kcmSlice('kube-controller-manager-1', 40001),
        kcmSlice('kube-controller-manager-2', 40002),
      ],
    });
    const { targets, errors } = await discoverTargets(api, { server: 'https://127.0.0.1:6443' });
    expect(errors).toEqual([]);
    expect(targets.map((t) => [t.source, t.component])).toEqual([
      ['apiserver', 'kube-apiserver'],
      ['https://127.0.0.1:40001/metrics', 'kube-controller-manager'],
      ['https://127.0.0.1:40002/metrics', 'kube-controller-manager'],
    ]);
    const kcm = targets[1]!;
    expect(kcm.routes).toEqual([{ kind: 'direct', url: 'https://127.0.0.1:40001/metrics', insecureSkipTlsVerify: true }]);
    expect(kcm.foundBy[0]).toBe(
      'EndpointSlice kube-system/kube-controller-manager-1 of Service kube-system/kube-controller-manager (app.kubernetes.io/name=kube-controller-manager), port https-metrics; loopback on a local cluster: certificate not verified',
    );
  });

  it('verifies a loopback endpoint when the API server is elsewhere, and goes through the proxy first for other addresses', async () => {
    const api = new FakeApi({
      [`${SVC}k8s-app in (kube-controller-manager,kube-scheduler)`]: [
        { ...kcmService, metadata: { ...kcmService.metadata, labels: { 'k8s-app': 'kube-controller-manager' } } },
      ],
      '/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices?labelSelector=kubernetes.io/service-name=kube-controller-manager': [
        kcmSlice('a', 10257),
        kcmSlice('b', 10257, '10.0.0.5'),
      ],
    });
    const { targets } = await discoverTargets(api, { server: 'https://cluster.example.com:6443' });
    expect(targets[1]!.routes).toEqual([{ kind: 'direct', url: 'https://127.0.0.1:10257/metrics', insecureSkipTlsVerify: false }]);
    expect(targets[2]!.routes).toEqual([
      { kind: 'proxy', spec: 'svc/kube-system/kube-controller-manager:https-metrics' },
      { kind: 'direct', url: 'https://10.0.0.5:10257/metrics', insecureSkipTlsVerify: false },
    ]);
    expect(targets[2]!.foundBy[0]).toContain('(k8s-app=kube-controller-manager)');
  });

  it('finds Pods by metrics port and by prometheus.io annotations, and ties replicas to the Lease whose holder names one of them', async () => {
    const api = new FakeApi({
      '/api/v1/pods': [
        operatorPod('op-7d9f-abcde'),
        operatorPod('op-7d9f-fghij'),
        {
          ...operatorPod('annotated', {
            ports: [{ containerPort: 9100 }],
            annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9102', 'prometheus.io/path': '/stats' },
          }),
          metadata: {
            name: 'annotated',
            namespace: 'mon',
            annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9102', 'prometheus.io/path': '/stats' },
          },
        },
        { ...operatorPod('no-port', { ports: [{ name: 'http', containerPort: 80 }] }) },
        { ...operatorPod('pending'), status: { phase: 'Pending' } },
      ],
    });
    const { targets } = await discoverTargets(api, {
      server: 'https://k8s:6443',
      leases: [{ namespace: 'shop', name: 'op-lock', holder: 'op-7d9f-fghij_3b1c' }],
    });
    const bySource = new Map(targets.map((t) => [t.source, t]));
    expect([...bySource.keys()]).toEqual(['apiserver', 'pod/shop/op-7d9f-abcde:8443', 'pod/shop/op-7d9f-fghij:8443', 'http://10.244.0.7:9102/stats']);
    const holder = bySource.get('pod/shop/op-7d9f-fghij:8443')!;
    expect(holder).toMatchObject({ component: 'webapp-operator', namespace: 'shop', pod: 'op-7d9f-fghij', lease: 'shop/op-lock' });
    expect(holder.foundBy).toEqual([
      'Pod shop/op-7d9f-fghij: container manager port https-metrics 8443',
      'Lease shop/op-lock holder op-7d9f-fghij_3b1c names this Pod',
    ]);
    expect(bySource.get('pod/shop/op-7d9f-abcde:8443')!.lease).toBe('shop/op-lock');
    expect(holder.routes).toEqual([
      { kind: 'proxy', spec: 'pod/shop/op-7d9f-fghij:8443' },
      { kind: 'direct', url: 'https://10.244.0.7:8443/metrics', insecureSkipTlsVerify: false },
    ]);
    expect(bySource.get('http://10.244.0.7:9102/stats')!.foundBy).toEqual(['Pod mon/annotated: annotated prometheus.io/scrape=true, port 9102, path /stats']);
  });

  it("ties the endpoints of a Service's EndpointSlices that name the holder's Pods to its Lease, one per address, loopback ones directly", async () => {
    const slice = (name: string, port: number, pod: string, address: string, portName = 'metrics') => ({
      metadata: { name, namespace: 'shop', labels: { 'kubernetes.io/service-name': 'op-metrics' } },
      addressType: address.endsWith('.localhost') ? 'FQDN' : 'IPv4',
      endpoints: [{ addresses: [address], conditions: { ready: true }, targetRef: { kind: 'Pod', name: pod, namespace: 'shop' } }],
      ports: [{ name: portName, port, protocol: 'TCP' }],
    });
    // No metrics port on the Pods: only the Service says where their metrics are.
    const pods = [
      operatorPod('op-7d9f-abcde', { ports: [] }),
      operatorPod('op-7d9f-fghij', { ports: [] }),
      { ...operatorPod('other', { ports: [] }), metadata: { name: 'other', namespace: 'shop' } },
    ];
    const leases = [{ namespace: 'shop', name: 'op-lock', holder: 'op-7d9f-fghij_3b1c' }];
    const slices = {
      '/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices': [
        slice('op-metrics-a', 18500, 'op-7d9f-fghij', 'op-a.localhost'),
        slice('op-metrics-b', 18502, 'op-7d9f-fghij', 'op-b.localhost'),
        slice('op-metrics-c', 8080, 'op-7d9f-abcde', '10.244.0.8', 'http'),
        slice('web', 8080, 'other', '10.244.0.9'),
      ],
    };
    const api = new FakeApi({ '/api/v1/pods': pods, ...slices });
    const { targets } = await discoverTargets(api, { server: 'https://127.0.0.1:6443', leases });
    const tied = targets.filter((t) => t.lease === 'shop/op-lock');
    expect(tied.map((t) => t.source)).toEqual(['http://127.0.0.1:18500/metrics', 'http://127.0.0.1:18502/metrics', 'http://10.244.0.8:8080/metrics']);
    expect(tied[0]!.foundBy).toEqual([
      "EndpointSlice shop/op-metrics-a of Service shop/op-metrics, port metrics: an endpoint of Pod op-7d9f-fghij, which Lease shop/op-lock's holder op-7d9f-fghij_3b1c names",
    ]);
    expect(tied[0]!.routes).toEqual([{ kind: 'direct', url: 'http://127.0.0.1:18500/metrics', insecureSkipTlsVerify: true }]);
    expect(tied[2]!.routes[0]).toEqual({ kind: 'proxy', spec: 'pod/shop/op-7d9f-abcde:8080' });
    expect(tied[2]!.foundBy[0]).toContain('a replica of the Pod');
    // A Service of another Pod is not the operator's.
    expect(targets.some((t) => t.source.includes('10.244.0.9'))).toBe(false);
    // One operator's Lease alone: the same targets, from its namespace's lists only.
    const narrow = new FakeApi({ '/api/v1/namespaces/shop/pods': pods, ...slices });
    const only = await discoverTargets(narrow, { server: 'https://127.0.0.1:6443', leases, leasesOnly: true });
    expect(only.targets.map((t) => t.source)).toEqual(tied.map((t) => t.source));
    expect(narrow.paths.every((x) => x.includes('/namespaces/shop/'))).toBe(true);
  });

  it("reads the port, path and scheme a ServiceMonitor or PodMonitor names for the Lease holder's Pods; no error when prometheus-operator is not installed", async () => {
    const slice = {
      metadata: { name: 'op-svc-1', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'op-svc' } },
      addressType: 'FQDN',
      endpoints: [{ addresses: ['op.localhost'], conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'op-7d9f-fghij', namespace: 'shop' } }],
      // Two ports, neither named for metrics: only a monitor says which one.
      ports: [
        { name: 'healthz', port: 18501, protocol: 'TCP' },
        { name: 'http-prom', port: 18500, protocol: 'TCP' },
      ],
    };
    const pods = [operatorPod('op-7d9f-fghij', { ports: [{ name: 'prom', containerPort: 9200 }] })];
    const answers = {
      '/api/v1/pods': pods,
      '/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices': [slice],
      '/apis/monitoring.coreos.com/v1/namespaces/shop/servicemonitors': [
        {
          metadata: { name: 'op', namespace: 'shop' },
          spec: {
            selector: { matchLabels: { app: 'op' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['control'] }] },
            endpoints: [{ port: 'http-prom', path: '/stats' }],
          },
        },
      ],
      '/api/v1/namespaces/shop/services?labelSelector=app=op,tier in (control)': [{ metadata: { name: 'op-svc', namespace: 'shop' } }],
      '/apis/monitoring.coreos.com/v1/namespaces/shop/podmonitors': [
        {
          metadata: { name: 'op-pods', namespace: 'shop' },
          spec: { selector: { matchLabels: { 'app.kubernetes.io/name': 'webapp-operator' } }, podMetricsEndpoints: [{ port: 'prom' }] },
        },
      ],
      '/api/v1/namespaces/shop/pods?labelSelector=app.kubernetes.io/name=webapp-operator': pods,
    };
    const leases = [{ namespace: 'shop', name: 'op-lock', holder: 'op-7d9f-fghij_3b1c' }];
    const { targets, errors } = await discoverTargets(new FakeApi(answers), { server: 'https://127.0.0.1:6443', leases });
    const tied = new Map(targets.filter((t) => t.lease === 'shop/op-lock').map((t) => [t.source, t]));
    expect([...tied.keys()]).toEqual(['http://127.0.0.1:18500/stats', 'pod/shop/op-7d9f-fghij:9200']);
    expect(tied.get('http://127.0.0.1:18500/stats')!.foundBy).toEqual([
      "ServiceMonitor shop/op: EndpointSlice shop/op-svc-1 of Service shop/op-svc, port http-prom: an endpoint of Pod op-7d9f-fghij, which Lease shop/op-lock's holder op-7d9f-fghij_3b1c names",
    ]);
    expect(tied.get('pod/shop/op-7d9f-fghij:9200')!.routes).toEqual([
      { kind: 'proxy', spec: 'pod/shop/op-7d9f-fghij:9200' },
      { kind: 'direct', url: 'http://10.244.0.7:9200/metrics', insecureSkipTlsVerify: false },
    ]);
    expect(tied.get('pod/shop/op-7d9f-fghij:9200')!.foundBy[0]).toMatch(/^PodMonitor shop\/op-pods, port prom: Pod op-7d9f-fghij, which Lease/);
    expect(errors).toEqual([]);
    // Without prometheus-operator's CRDs (the lists answer 404): the same, minus what the monitors said, and no error line.
    const notServed = new FakeApi({
      ...answers,
      '/apis/monitoring.coreos.com/v1/namespaces/shop/servicemonitors': new ApiError('the server could not find the requested resource', { code: 404 }),
      '/apis/monitoring.coreos.com/v1/namespaces/shop/podmonitors': new ApiError('the server could not find the requested resource', { code: 404 }),
    });
    const bare = await discoverTargets(notServed, { server: 'https://127.0.0.1:6443', leases });
    expect(bare.errors).toEqual([]);
    expect(bare.targets.filter((t) => t.lease === 'shop/op-lock')).toEqual([]);
  });

  it("kubeadm static Pods: through the pod proxy, then directly at the node's address", async () => {
    const staticPod = {
      metadata: { name: 'kube-scheduler-cp-1', namespace: 'kube-system', labels: { component: 'kube-scheduler', tier: 'control-plane' } },
      spec: { nodeName: 'cp-1', hostNetwork: true, containers: [{ name: 'kube-scheduler', command: ['kube-scheduler'] }] },
      status: { phase: 'Running', podIP: '10.0.0.11' },
    };
    const api = new FakeApi({ '/api/v1/namespaces/kube-system/pods?labelSelector=component in (kube-controller-manager,kube-scheduler)': [staticPod] });
    const { targets } = await discoverTargets(api, { server: 'https://10.0.0.11:6443' });
    expect(targets[1]).toMatchObject({
      source: 'pod/kube-system/kube-scheduler-cp-1:10259',
      component: 'kube-scheduler',
      pod: 'kube-scheduler-cp-1',
      host: 'cp-1',
      foundBy: ['Pod kube-system/kube-scheduler-cp-1 (kubeadm static Pod, kube-scheduler), port 10259'],
    });
    expect(targets[1]!.routes).toEqual([
      { kind: 'proxy', spec: 'pod/kube-system/kube-scheduler-cp-1:10259' },
      { kind: 'direct', url: 'https://10.0.0.11:10259/metrics', insecureSkipTlsVerify: false },
    ]);
  });

  it("a refused list is one line; the other steps still run (Pods then from the Leases' namespaces)", async () => {
    const api = new FakeApi({
      '/api/v1/pods': forbidden('at the cluster scope'),
      '/api/v1/namespaces/shop/pods': [operatorPod('op-7d9f-abcde')],
      [`${SVC}app.kubernetes.io/name in (kube-controller-manager,kube-scheduler)`]: new ApiError('services is forbidden', { code: 403 }),
    });
    const { targets, errors } = await discoverTargets(api, {
      server: 'https://k8s:6443',
      leases: [{ namespace: 'shop', name: 'op-lock', holder: 'op-7d9f-abcde_1' }],
    });
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^Services labelled app\.kubernetes\.io\/name in \(kube-controller-manager,kube-scheduler\) in kube-system: .*forbidden/);
    expect(errors[1]).toMatch(/^Pods in all namespaces: .*forbidden/);
    expect(targets.map((t) => t.source)).toEqual(['apiserver', 'pod/shop/op-7d9f-abcde:8443']);
    expect(targets[1]!.lease).toBe('shop/op-lock');
  });
});

const found: DiscoveredTarget[] = [
  { source: 'apiserver', component: 'kube-apiserver', namespace: null, pod: null, host: null, lease: null, foundBy: ['x'], routes: [{ kind: 'apiserver' }] },
  {
    source: 'https://127.0.0.1:1/metrics',
    component: 'kube-scheduler',
    namespace: 'kube-system',
    pod: null,
    host: null,
    lease: null,
    foundBy: ['y'],
    routes: [],
  },
];

describe('mergeUserSpecs', () => {
  it('adds plain specs, replaces a component given as COMPONENT=SPEC, and checks specs as --metrics does', () => {
    const merged = mergeUserSpecs(found, ['kube-scheduler=https://10.0.0.9:10259/metrics', 'svc/shop/op-metrics:8443']);
    expect(merged.map((t) => [t.source, t.component, t.foundBy[0]])).toEqual([
      ['apiserver', 'kube-apiserver', 'x'],
      ['https://10.0.0.9:10259/metrics', 'kube-scheduler', '--metrics kube-scheduler=https://10.0.0.9:10259/metrics'],
      ['svc/shop/op-metrics:8443', null, '--metrics svc/shop/op-metrics:8443'],
    ]);
    expect(() => mergeUserSpecs(found, ['ftp://x'])).toThrow(UsageError);
  });
});

describe('RoutedSource', () => {
  const expo: Exposition = parseExposition('# TYPE workqueue_depth gauge\nworkqueue_depth{name="q"} 1\n');
  const failing = (name: string, kind: 'unreachable' | 'forbidden', reason: string): MetricsSource & { calls: number } => ({
    name,
    timeoutMs: 1_000,
    calls: 0,
    async scrape() {
      this.calls++;
      throw new ScrapeError(name, kind, reason, { hint: `${kind} hint` });
    },
  });
  const answering = (name: string): MetricsSource & { calls: number } => ({
    name,
    timeoutMs: 1_000,
    calls: 0,
    async scrape() {
      this.calls++;
      return expo;
    },
  });

  it('falls back to the next route, and keeps the one that answered first in line', async () => {
    const a = failing('a', 'forbidden', '403 Forbidden: anonymous');
    const b = answering('b');
    const s = new RoutedSource('x', [
      { label: 'through the proxy', source: a },
      { label: 'directly', source: b },
    ]);
    expect((await s.scrape()).families[0]!.name).toBe('workqueue_depth');
    expect(await s.scrape()).toBe(expo);
    expect([a.calls, b.calls]).toEqual([1, 2]);
  });

  it('when every route fails: why for each, and the kind of the one that got furthest', async () => {
    const s = new RoutedSource('x', [
      { label: 'through the proxy', source: failing('a', 'forbidden', '403 Forbidden: anonymous') },
      { label: 'directly', source: failing('b', 'unreachable', 'connection refused') },
    ]);
    const err = await s.scrape().then(
      () => undefined,
      (e: unknown) => e as ScrapeError,
    );
    expect(err).toBeInstanceOf(ScrapeError);
    expect(err!.kind).toBe('forbidden');
    expect(err!.reason).toBe('through the proxy: 403 Forbidden: anonymous; directly: connection refused');
    expect(err!.hint).toBe('forbidden hint');
  });

  it('sourceForTarget names the source after the target and routes a loopback endpoint directly', () => {
    const s = sourceForTarget({ ...found[1]!, routes: [{ kind: 'direct', url: 'https://127.0.0.1:1/metrics', insecureSkipTlsVerify: true }] }, {});
    expect(s.name).toBe('https://127.0.0.1:1/metrics');
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('kube-scheduler.localhost.')).toBe(true);
    expect(isLoopbackHost('localhost.example.com')).toBe(false);
    expect(isLoopbackHost('10.0.0.1')).toBe(false);
  });
});
