/**
 * Finds controllers' metrics endpoints without flags, the way Prometheus users find targets, and
 * says for each how it was found:
 *
 *   1. the API server itself;
 *   2. Services in kube-system labelled as kube-prometheus labels them
 *      (`app.kubernetes.io/name` or, in its older manifests, `k8s-app` = kube-controller-manager /
 *      kube-scheduler), through their EndpointSlices (`kubernetes.io/service-name`): every ready
 *      endpoint address on the port named `https-metrics` (or `http-metrics`);
 *   3. kubeadm's static Pods in kube-system (discoverControlPlane);
 *   4. Pods, in every namespace, with a container port named `metrics`, `https-metrics` or
 *      `http-metrics`, or annotated `prometheus.io/scrape: "true"` (with `prometheus.io/port`,
 *      `path`, `scheme`);
 *   5. the Pod a leader Lease's holder identity names (client-go writes `hostname_uuid`, and a
 *      Pod's hostname is its name), and the Pods of the same owner (its other replicas): each is
 *      tied to that Lease; so is each endpoint of an EndpointSlice in the Lease's namespace that
 *      names one of those Pods, on its metrics port (a Service that selects them), or on the port,
 *      path and scheme a prometheus-operator ServiceMonitor there names for that Service; and each
 *      of those Pods a PodMonitor there selects, on the container port it names.
 *
 * How a target is reached: directly (https://ADDRESS:PORT/PATH) and through the API server's pod or
 * service proxy; loopback addresses only directly (the API server's proxy refuses them), Pod and
 * node addresses through the proxy first (from outside the cluster they are rarely routable). A
 * source that fails both ways says why for each.
 *
 * Trust: the control-plane components serve certificates they signed themselves, which no CA the
 * kubeconfig knows has signed. Certificate verification is skipped for one case only: an endpoint
 * on a loopback address found through the cluster's own EndpointSlices or Pods while the API server
 * itself is on a loopback address, i.e. a process of this machine that the cluster on this machine
 * published. Every other endpoint is verified unless --metrics-insecure-skip-tls-verify says
 * otherwise. No credentials are sent to a discovered endpoint unless asked for (--metrics-token,
 * --metrics-kubeconfig-credentials).
 *
 * A list that is refused (403) or fails is one line in `errors`; the other steps go on. With
 * `leasesOnly`, step 5 alone, over the Pods of the Leases' namespaces.
 */
import { realClock } from '../clock.js';
import type { KubeObject } from '../kube/types.js';
import { abortable } from '../util/abort.js';
import { isNotFound } from '../kube/api-error.js';
import { toCliError } from '../kube/cli-errors.js';
import { discoverControlPlane, CONTROL_PLANE_PORTS } from './discovery.js';
import type { Exposition } from './parse.js';
import { fartherFailure, ScrapeError } from './scrape-error.js';
import { createSource, formatMetricsSpec, parseMetricsSpec, type DirectAuth, type MetricsSource, type RawGetter, type SourceOptions } from './sources.js';

/** What kube-prometheus' ServiceMonitors select on, and the components it names so. */
export const KUBE_PROMETHEUS_LABELS = ['app.kubernetes.io/name', 'k8s-app'] as const;
export const METRICS_PORT_NAMES = ['https-metrics', 'http-metrics', 'metrics'] as const;

export interface DiscoveredTarget {
  /** The name the source goes by (its first route). */
  source: string;
  component: string | null;
  namespace: string | null;
  pod: string | null;
  host: string | null;
  /** "NAMESPACE/NAME" of the Lease it was tied to by holder identity, or null. */
  lease: string | null;
  foundBy: string[];
  /** Ways to reach it, tried in order. */
  routes: Route[];
}

export type Route = { kind: 'direct'; url: string; insecureSkipTlsVerify: boolean } | { kind: 'proxy'; spec: string } | { kind: 'apiserver' };

export interface LeaseHolder {
  namespace: string;
  name: string;
  holder: string | null;
}

export interface DiscoverTargetsOptions {
  /** The API server's URL: whether it is on loopback decides the trust of loopback endpoints. */
  server: string;
  /** Leader Leases, for step 5. */
  leases?: readonly LeaseHolder[];
  /**
   * Step 5 alone, for the Leases' namespaces only: the metrics of one operator, found from its
   * Lease, without listing the control plane's Services or every Pod of the cluster.
   */
  leasesOnly?: boolean;
  signal?: AbortSignal;
}

export interface DiscoveryResult {
  targets: DiscoveredTarget[];
  /** One line per step that could not be done, e.g. "Pods in all namespaces: 403 Forbidden: …". */
  errors: string[];
}

interface Port {
  name?: string;
  appProtocol?: string;
  port?: number;
  containerPort?: number;
  protocol?: string;
}
interface Slice {
  metadata: KubeObject['metadata'];
  addressType?: string;
  endpoints?:
    | {
        addresses?: string[];
        conditions?: { ready?: boolean | null };
        nodeName?: string;
        hostname?: string;
        targetRef?: { kind?: string; name?: string; namespace?: string };
      }[]
    | null;
  ports?: Port[] | null;
}
interface PodLike extends KubeObject {
  spec?: { nodeName?: string; hostNetwork?: boolean; containers?: { name?: string; ports?: Port[] }[] };
  status?: { phase?: string; podIP?: string };
}

/** 127.0.0.0/8, ::1, and `localhost` with the names under it (RFC 6761 reserves them for loopback). */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/**
 * Where to connect for an endpoint address. EndpointSlices may not hold loopback IPs, so a
 * cluster publishing a process of its own machine names it under `.localhost` (an FQDN slice);
 * that is dialled as 127.0.0.1, as RFC 6761 says such names resolve, without asking a resolver
 * that may not know the convention.
 */
function dialAddress(address: string): string {
  const h = address.replace(/\.$/, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') ? '127.0.0.1' : address;
}

function hostPort(address: string, port: number): string {
  return `${address.includes(':') ? `[${address}]` : address}:${port}`;
}

/** The client-go identity's hostname part: everything before the last `_`. */
function holderHost(identity: string): string {
  const i = identity.lastIndexOf('_');
  return i > 0 ? identity.slice(0, i) : identity;
}

/**
 * What the steps have found, merged by source and by Pod, and a line for each list that failed;
 * the lists the steps make go through here, so that a refused one is a line and not a throw.
 */
class Found {
  readonly targets = new Map<string, DiscoveredTarget>();
  readonly errors: string[] = [];
  /** Pod "ns/name" → target key, to merge what several steps found about one Pod. */
  private readonly byPod = new Map<string, string>();

  constructor(
    readonly client: RawGetter,
    readonly signal: AbortSignal | undefined,
    /** Whether the API server is on loopback: loopback endpoints are then trusted. */
    readonly local: boolean,
  ) {}

  /** A target found by a step; one found already (by source, or by its Pod) takes what it adds. */
  add(t: DiscoveredTarget): DiscoveredTarget {
    const podKey = t.pod && t.namespace ? `${t.namespace}/${t.pod}` : undefined;
    const existing = this.targets.get(t.source) ?? (podKey && this.byPod.has(podKey) ? this.targets.get(this.byPod.get(podKey)!) : undefined);
    if (existing) {
      for (const f of t.foundBy) if (!existing.foundBy.includes(f)) existing.foundBy.push(f);
      existing.component ??= t.component;
      existing.lease ??= t.lease;
      return existing;
    }
    this.targets.set(t.source, t);
    if (podKey) this.byPod.set(podKey, t.source);
    return t;
  }

  /** A target tied to a Lease: one with the same source takes its Lease and reasons. */
  tie(t: DiscoveredTarget): void {
    const existing = this.targets.get(t.source);
    if (existing) {
      existing.lease ??= t.lease;
      for (const f of t.foundBy) if (!existing.foundBy.includes(f)) existing.foundBy.push(f);
    } else this.targets.set(t.source, t);
  }

  /**
   * The items of a list, or undefined when it failed (a line in `errors`). `ifServed`: a kind that
   * may not be served (a CRD not installed) gives nothing, without a line.
   */
  async list<T>(what: string, path: string, describe: { resource: string; namespace?: string }, ifServed = false): Promise<T[] | undefined> {
    try {
      const res = await this.client.raw(path, { signal: this.signal, describe: { verb: 'list', ...describe } });
      return ((JSON.parse(res.body) as { items?: T[] }).items ?? []) as T[];
    } catch (err) {
      if (this.signal?.aborted || !(ifServed && isNotFound(err))) this.failed(what, err);
      return undefined;
    }
  }

  /** A step that failed is a line; an abort ends the discovery. */
  failed(what: string, err: unknown): void {
    if (this.signal?.aborted) throw err;
    this.errors.push(`${what}: ${messageOf(err)}`);
  }
}

/** Runs every step; never throws for a refused list. */
export async function discoverTargets(client: RawGetter, options: DiscoverTargetsOptions): Promise<DiscoveryResult> {
  const found = new Found(client, options.signal, isLoopbackHost(safeHost(options.server)));
  if (!options.leasesOnly) {
    found.add({
      source: 'apiserver',
      component: 'kube-apiserver',
      namespace: null,
      pod: null,
      host: null,
      lease: null,
      foundBy: ['the API server of the kubeconfig'],
      routes: [{ kind: 'apiserver' }],
    });
    await addKubePrometheusTargets(found);
    await addStaticPodTargets(found);
  }

  // 4 and 5. Pods with metrics ports or annotations, and the Pods Lease holders name.
  const running = (await listPods(found, options)).filter((p) => p.status?.phase === 'Running' && p.metadata.name && p.metadata.namespace);
  const podTargets = new Map<string, DiscoveredTarget>();
  for (const p of running) {
    const t = podTarget(p, found.local);
    if (t) podTargets.set(`${p.metadata.namespace}/${p.metadata.name}`, found.add(t));
  }
  for (const l of options.leases ?? []) await addHolderTargets(found, l, running, podTargets);
  return { targets: [...found.targets.values()], errors: found.errors };
}

/** 2. kube-prometheus Services and their EndpointSlices: every ready endpoint on the metrics port. */
async function addKubePrometheusTargets(found: Found): Promise<void> {
  const components = Object.keys(CONTROL_PLANE_PORTS);
  const services = new Map<string, { labels: string; component: string; ports: Port[] }>();
  for (const label of KUBE_PROMETHEUS_LABELS) {
    const selector = `${label} in (${components.join(',')})`;
    const items = await found.list<KubeObject & { spec?: { ports?: Port[] } }>(
      `Services labelled ${selector} in kube-system`,
      `/api/v1/namespaces/kube-system/services?labelSelector=${encodeURIComponent(selector)}`,
      { resource: 'services', namespace: 'kube-system' },
    );
    for (const s of items ?? []) {
      const name = s.metadata.name ?? '';
      const component = s.metadata.labels?.[label] ?? '';
      if (name && !services.has(name)) services.set(name, { labels: `${label}=${component}`, component, ports: s.spec?.ports ?? [] });
    }
  }
  const local = found.local;
  for (const [service, svc] of services) {
    const selector = `kubernetes.io/service-name=${service}`;
    const slices = await found.list<Slice>(
      `EndpointSlices of Service kube-system/${service}`,
      `/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices?labelSelector=${encodeURIComponent(selector)}`,
      { resource: 'endpointslices.discovery.k8s.io', namespace: 'kube-system' },
    );
    for (const slice of slices ?? []) {
      const port = pickPort(slice.ports ?? []) ?? pickPort(svc.ports);
      if (!port?.port) continue;
      const scheme = port.name === 'http-metrics' ? 'http' : 'https';
      for (const ep of slice.endpoints ?? []) {
        if (ep.conditions?.ready === false) continue;
        for (const address of ep.addresses ?? []) {
          const loopback = isLoopbackHost(address);
          const url = `${scheme}://${hostPort(dialAddress(address), port.port)}/metrics`;
          const pod = ep.targetRef?.kind === 'Pod' && ep.targetRef.name ? ep.targetRef.name : null;
          const proxy: Route[] = loopback
            ? []
            : [{ kind: 'proxy', spec: pod ? `pod/kube-system/${pod}:${port.port}` : `svc/kube-system/${service}${port.name ? `:${port.name}` : ''}` }];
          const direct: Route = { kind: 'direct', url, insecureSkipTlsVerify: loopback && local };
          found.add({
            source: url,
            component: svc.component,
            namespace: 'kube-system',
            pod,
            host: pod ?? ep.nodeName ?? ep.hostname ?? null,
            lease: null,
            foundBy: [
              `EndpointSlice kube-system/${slice.metadata.name} of Service kube-system/${service} (${svc.labels}), port ${port.name ?? port.port}${loopback && local ? '; loopback on a local cluster: certificate not verified' : ''}`,
            ],
            routes: loopback ? [direct] : [...proxy, direct],
          });
        }
      }
    }
  }
}

/** 3. kubeadm's static Pods in kube-system. */
async function addStaticPodTargets(found: Found): Promise<void> {
  try {
    for (const d of await discoverControlPlane(found.client, { signal: found.signal })) {
      found.add({
        source: d.spec,
        component: d.component,
        namespace: d.namespace,
        pod: d.pod,
        host: d.node ?? d.pod,
        lease: null,
        foundBy: [`Pod ${d.namespace}/${d.pod} (kubeadm static Pod, ${d.component}), port ${d.port}`],
        // The proxy first; the components often refuse it (anonymous), and the node's address
        // may be reachable from here.
        routes: [
          { kind: 'proxy', spec: d.spec },
          ...(d.podIP
            ? [{ kind: 'direct' as const, url: `https://${hostPort(d.podIP, d.port)}/metrics`, insecureSkipTlsVerify: isLoopbackHost(d.podIP) && found.local }]
            : []),
        ],
      });
    }
  } catch (err) {
    found.failed('control-plane Pods in kube-system', err);
  }
}

/** The Pods of every namespace; where that is refused (or only the Leases are wanted), those of the Leases' namespaces. */
async function listPods(found: Found, options: DiscoverTargetsOptions): Promise<PodLike[]> {
  const all = options.leasesOnly ? undefined : await found.list<PodLike>('Pods in all namespaces', '/api/v1/pods', { resource: 'pods' });
  if (all !== undefined) return all;
  const pods: PodLike[] = [];
  for (const ns of new Set((options.leases ?? []).map((l) => l.namespace))) {
    pods.push(
      ...((await found.list<PodLike>(`Pods in ${ns}`, `/api/v1/namespaces/${encodeURIComponent(ns)}/pods`, { resource: 'pods', namespace: ns })) ?? []),
    );
  }
  return pods;
}

/**
 * 5. The Pod a Lease's holder names and its replicas (the Pods of its owner), tied to the Lease;
 * then the endpoints of the EndpointSlices there that name them, and what monitors there select.
 */
async function addHolderTargets(found: Found, l: LeaseHolder, running: PodLike[], podTargets: Map<string, DiscoveredTarget>): Promise<void> {
  if (!l.holder) return;
  const host = holderHost(l.holder);
  const holderPod = running.find((p) => p.metadata.namespace === l.namespace && p.metadata.name === host);
  if (!holderPod) return;
  const owner = holderPod.metadata.ownerReferences?.find((o) => o.controller)?.uid;
  const replicas = owner
    ? running.filter((p) => p.metadata.namespace === l.namespace && p.metadata.ownerReferences?.some((o) => o.controller && o.uid === owner))
    : [holderPod];
  for (const p of replicas) {
    const t = podTargets.get(`${l.namespace}/${p.metadata.name}`);
    if (!t) continue;
    t.lease ??= `${l.namespace}/${l.name}`;
    const why =
      p === holderPod
        ? `Lease ${l.namespace}/${l.name} holder ${l.holder} names this Pod`
        : `a replica (same owner) of Pod ${holderPod.metadata.name}, which Lease ${l.namespace}/${l.name}'s holder names`;
    if (!t.foundBy.includes(why)) t.foundBy.push(why);
  }
  // 5b. The endpoints of EndpointSlices (a Service's) that name those Pods, on a metrics port.
  const slices =
    (await found.list<Slice>(`EndpointSlices in ${l.namespace}`, `/apis/discovery.k8s.io/v1/namespaces/${encodeURIComponent(l.namespace)}/endpointslices`, {
      resource: 'endpointslices.discovery.k8s.io',
      namespace: l.namespace,
    })) ?? [];
  const names = new Set(replicas.map((p) => p.metadata.name));
  for (const t of leaseSliceTargets(slices, l, holderPod.metadata.name!, names, found.local)) found.tie(t);
  await addMonitorTargets(found, l, slices, holderPod.metadata.name!, replicas);
}

/** 5c. prometheus-operator's ServiceMonitors and PodMonitors in the Lease's namespace (when served) that select its holder's Pods. */
async function addMonitorTargets(found: Found, l: LeaseHolder, slices: Slice[], holderPod: string, replicas: PodLike[]): Promise<void> {
  const names = new Set(replicas.map((p) => p.metadata.name));
  const ns = encodeURIComponent(l.namespace);
  const nsPath = `/apis/monitoring.coreos.com/v1/namespaces/${ns}`;
  const byLabels = async (resource: string, path: string, selector: LabelSelector | undefined): Promise<KubeObject[]> =>
    (await found.list<KubeObject>(`${resource} in ${l.namespace} a monitor selects`, `${path}?labelSelector=${encodeURIComponent(selectorText(selector))}`, {
      resource,
      namespace: l.namespace,
    })) ?? [];
  const monitors = async (kind: string, resource: string): Promise<Monitor[]> =>
    (await found.list<Monitor>(`${kind}s in ${l.namespace}`, `${nsPath}/${resource.split('.')[0]}`, { resource }, true)) ?? [];
  for (const m of await monitors('ServiceMonitor', 'servicemonitors.monitoring.coreos.com')) {
    const services = new Set((await byLabels('services', `/api/v1/namespaces/${ns}/services`, m.spec?.selector)).map((x) => x.metadata.name));
    const selected = slices.filter((x) => services.has(x.metadata.labels?.['kubernetes.io/service-name']));
    for (const e of m.spec?.endpoints ?? []) {
      for (const t of leaseSliceTargets(selected, l, holderPod, names, found.local, { monitor: `ServiceMonitor ${l.namespace}/${m.metadata.name}`, ...e }))
        found.tie(t);
    }
  }
  for (const m of await monitors('PodMonitor', 'podmonitors.monitoring.coreos.com')) {
    const selected = new Set((await byLabels('pods', `/api/v1/namespaces/${ns}/pods`, m.spec?.selector)).map((x) => x.metadata.name));
    for (const p of replicas.filter((x) => selected.has(x.metadata.name))) {
      for (const e of m.spec?.podMetricsEndpoints ?? []) {
        const t = podMonitorTarget(p, e, `PodMonitor ${l.namespace}/${m.metadata.name}`, l, holderPod, found.local);
        if (t) found.tie(t);
      }
    }
  }
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}
/** A ServiceMonitor's or PodMonitor's endpoint: the port it scrapes (by name, or by number), and how. */
interface MonitorEndpoint {
  port?: string;
  targetPort?: number | string;
  portNumber?: number;
  path?: string;
  scheme?: string;
}
interface Monitor extends KubeObject {
  spec?: { selector?: LabelSelector; endpoints?: MonitorEndpoint[]; podMetricsEndpoints?: MonitorEndpoint[] };
}

/** A LabelSelector as the API server's labelSelector parameter reads it; an empty one selects everything. */
export function selectorText(s: LabelSelector | undefined): string {
  const parts = Object.entries(s?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of s?.matchExpressions ?? []) {
    const values = `(${(e.values ?? []).join(',')})`;
    if (e.operator === 'In') parts.push(`${e.key} in ${values}`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin ${values}`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

/** A Pod a PodMonitor selects, scraped as its endpoint says: the container port it names, its path and scheme. */
function podMonitorTarget(p: PodLike, e: MonitorEndpoint, monitor: string, l: LeaseHolder, holderPod: string, local: boolean): DiscoveredTarget | undefined {
  const ports = p.spec?.containers?.flatMap((c) => c.ports ?? []) ?? [];
  const port =
    e.port !== undefined
      ? ports.find((x) => x.name === e.port)?.containerPort
      : (e.portNumber ?? (typeof e.targetPort === 'number' ? e.targetPort : undefined));
  if (!port) return undefined;
  const address = p.status?.podIP;
  const ns = p.metadata.namespace!;
  const name = p.metadata.name!;
  const path = e.path ?? '/metrics';
  const scheme = e.scheme === 'https' ? 'https' : 'http';
  const loopback = address !== undefined && isLoopbackHost(address);
  const routes: Route[] = [];
  // The pod proxy only reaches /metrics.
  if (!loopback && path === '/metrics') routes.push({ kind: 'proxy', spec: `pod/${ns}/${name}:${port}` });
  if (address) routes.push({ kind: 'direct', url: `${scheme}://${hostPort(address, port)}${path}`, insecureSkipTlsVerify: loopback && local });
  if (routes.length === 0) return undefined;
  return {
    source: routes[0]!.kind === 'proxy' ? routes[0]!.spec : (routes[0] as { url: string }).url,
    component: null,
    namespace: ns,
    pod: name,
    host: name,
    lease: `${l.namespace}/${l.name}`,
    foundBy: [
      `${monitor}, port ${e.port ?? port}: Pod ${name}, ${name === holderPod ? `which Lease ${l.namespace}/${l.name}'s holder ${l.holder} names` : `a replica of the Pod Lease ${l.namespace}/${l.name}'s holder names`}`,
    ],
    routes,
  };
}

/**
 * Targets from the endpoints of EndpointSlices that name a Pod of a Lease's holder (its own, or a
 * replica's), on the slice's metrics port (`metrics`, `http-metrics`, `https-metrics`, or its only
 * port): each one tied to the Lease. One per endpoint address: replicas that share a Pod name (one
 * host) stay apart.
 */
function leaseSliceTargets(
  slices: readonly Slice[],
  l: LeaseHolder,
  holderPod: string,
  pods: ReadonlySet<string | undefined>,
  local: boolean,
  monitor?: MonitorEndpoint & { monitor: string },
): DiscoveredTarget[] {
  const out: DiscoveredTarget[] = [];
  for (const slice of slices) {
    // A ServiceMonitor's endpoint names the port (a slice carries its Service's port names) and says how to scrape it.
    const port = monitor
      ? (slice.ports ?? []).find((x) => (monitor.port !== undefined ? x.name === monitor.port : x.port === monitor.targetPort))
      : pickPort(slice.ports ?? []);
    if (!port?.port) continue;
    const scheme = monitor ? (monitor.scheme === 'https' ? 'https' : 'http') : port.name === 'https-metrics' || port.appProtocol === 'https' ? 'https' : 'http';
    const path = monitor?.path ?? '/metrics';
    const service = slice.metadata.labels?.['kubernetes.io/service-name'];
    for (const ep of slice.endpoints ?? []) {
      const pod = ep.targetRef?.kind === 'Pod' ? ep.targetRef.name : undefined;
      if (!pod || !pods.has(pod) || ep.conditions?.ready === false) continue;
      for (const address of ep.addresses ?? []) {
        const loopback = isLoopbackHost(address);
        const url = `${scheme}://${hostPort(dialAddress(address), port.port)}${path}`;
        const direct: Route = { kind: 'direct', url, insecureSkipTlsVerify: loopback && local };
        out.push({
          source: url,
          component: null,
          namespace: l.namespace,
          pod,
          host: pod,
          lease: `${l.namespace}/${l.name}`,
          foundBy: [
            `${monitor ? `${monitor.monitor}: ` : ''}EndpointSlice ${l.namespace}/${slice.metadata.name}${service ? ` of Service ${l.namespace}/${service}` : ''}, port ${port.name ?? port.port}: an endpoint of Pod ${pod}, ${pod === holderPod ? `which Lease ${l.namespace}/${l.name}'s holder ${l.holder} names` : `a replica of the Pod Lease ${l.namespace}/${l.name}'s holder names`}`,
          ],
          routes: loopback || path !== '/metrics' ? [direct] : [{ kind: 'proxy', spec: `pod/${l.namespace}/${pod}:${port.port}` }, direct],
        });
      }
    }
  }
  return out;
}

function messageOf(err: unknown): string {
  const e = toCliError(err);
  return e instanceof Error ? e.message : String(e);
}

function safeHost(server: string): string {
  try {
    return new URL(server).hostname;
  } catch {
    return '';
  }
}

function pickPort(ports: readonly Port[]): Port | undefined {
  for (const name of METRICS_PORT_NAMES) {
    const p = ports.find((x) => x.name === name);
    if (p) return p;
  }
  return ports.length === 1 ? ports[0] : undefined;
}

/** A Pod with a metrics port or prometheus.io annotations, as a target; undefined otherwise. */
function podTarget(p: PodLike, local: boolean): DiscoveredTarget | undefined {
  const ns = p.metadata.namespace!;
  const name = p.metadata.name!;
  const a = p.metadata.annotations ?? {};
  let port: number | undefined;
  let scheme: 'https' | 'http' | undefined;
  let path = '/metrics';
  let why: string | undefined;
  if (a['prometheus.io/scrape'] === 'true') {
    const declared = p.spec?.containers?.flatMap((c) => c.ports ?? []) ?? [];
    port = /^\d+$/.test(a['prometheus.io/port'] ?? '') ? Number(a['prometheus.io/port']) : (pickPort(declared)?.containerPort ?? declared[0]?.containerPort);
    scheme = a['prometheus.io/scheme'] === 'https' ? 'https' : 'http';
    if (a['prometheus.io/path']?.startsWith('/')) path = a['prometheus.io/path'];
    why = `Pod ${ns}/${name}: annotated prometheus.io/scrape=true${a['prometheus.io/port'] ? `, port ${a['prometheus.io/port']}` : ''}${a['prometheus.io/path'] ? `, path ${a['prometheus.io/path']}` : ''}${a['prometheus.io/scheme'] ? `, scheme ${a['prometheus.io/scheme']}` : ''}`;
  } else {
    for (const c of p.spec?.containers ?? []) {
      const named = pickNamed(c.ports ?? []);
      if (named?.containerPort) {
        port = named.containerPort;
        scheme = named.name === 'http-metrics' ? 'http' : named.name === 'https-metrics' ? 'https' : undefined;
        why = `Pod ${ns}/${name}: container ${c.name ?? ''} port ${named.name} ${named.containerPort}`;
        break;
      }
    }
  }
  if (!port || !why) return undefined;
  const address = p.status?.podIP;
  const loopback = address !== undefined && isLoopbackHost(address);
  const routes: Route[] = [];
  // The pod proxy tries https then http by itself, and only reaches /metrics.
  if (!loopback && path === '/metrics') routes.push({ kind: 'proxy', spec: `pod/${ns}/${name}:${port}` });
  if (address) {
    for (const s of scheme ? [scheme] : (['https', 'http'] as const))
      routes.push({ kind: 'direct', url: `${s}://${hostPort(address, port)}${path}`, insecureSkipTlsVerify: loopback && local });
  }
  if (routes.length === 0) return undefined;
  const component = p.metadata.labels?.['app.kubernetes.io/name'] ?? p.metadata.labels?.app ?? p.metadata.labels?.component ?? null;
  return {
    source: routes[0]!.kind === 'proxy' ? routes[0]!.spec : (routes[0] as { url: string }).url,
    component,
    namespace: ns,
    pod: name,
    host: name,
    lease: null,
    foundBy: [why],
    routes,
  };
}

function pickNamed(ports: readonly Port[]): Port | undefined {
  for (const name of METRICS_PORT_NAMES) {
    const p = ports.find((x) => x.name === name);
    if (p) return p;
  }
  return undefined;
}

/**
 * One source over several routes: the first that answers is kept for the next scrapes; when all
 * fail, the error says why for each ("direct: …; through the proxy: …") with the kind of the one
 * that got furthest.
 */
export class RoutedSource implements MetricsSource {
  readonly timeoutMs: number;
  private preferred = 0;

  constructor(
    readonly name: string,
    private readonly routes: readonly { label: string; source: MetricsSource }[],
  ) {
    this.timeoutMs = routes.reduce((s, r) => s + r.source.timeoutMs, 0);
  }

  async scrape(signal?: AbortSignal): Promise<Exposition> {
    const order = [this.preferred, ...this.routes.map((_, i) => i).filter((i) => i !== this.preferred)];
    const failures: { label: string; error: ScrapeError }[] = [];
    for (const i of order) {
      const r = this.routes[i]!;
      try {
        const e = await withTimeout(r.source, signal);
        this.preferred = i;
        return e;
      } catch (err) {
        if (signal?.aborted) throw err;
        const e = err instanceof ScrapeError ? err : new ScrapeError(this.name, 'error', err instanceof Error ? err.message : String(err));
        failures.push({ label: r.label, error: e });
      }
    }
    if (failures.length === 1)
      throw new ScrapeError(this.name, failures[0]!.error.kind, failures[0]!.error.reason, { hint: failures[0]!.error.hint, cause: failures[0]!.error });
    const best = failures.reduce((a, b) => (fartherFailure(b.error, a.error) ? b : a));
    throw new ScrapeError(this.name, best.error.kind, failures.map((f) => `${f.label}: ${f.error.reason}`).join('; '), {
      hint: best.error.hint,
      cause: best.error,
    });
  }
}

/** A route gets its own share of the time, so a hanging first route leaves time for the next. */
async function withTimeout(source: MetricsSource, signal: AbortSignal | undefined): Promise<Exposition> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const timer = realClock.setTimer(source.timeoutMs, () =>
    controller.abort(new ScrapeError(source.name, 'timeout', `no answer within ${source.timeoutMs / 1000}s`)),
  );
  try {
    return await abortable(source.scrape(controller.signal), controller.signal);
  } finally {
    timer.stop();
    signal?.removeEventListener('abort', onAbort);
  }
}

/** The MetricsSource for a discovered target; `direct` is the auth the user asked for on direct endpoints. */
export function sourceForTarget(t: DiscoveredTarget, options: SourceOptions): MetricsSource {
  const routes = t.routes.map((r) => {
    switch (r.kind) {
      case 'apiserver':
        return { label: "the API server's /metrics", source: createSource({ kind: 'apiserver' }, options) };
      case 'proxy':
        return { label: `through the API server's proxy (${r.spec})`, source: createSource(r.spec, options) };
      case 'direct': {
        const direct: DirectAuth = {
          ...(options.direct ?? {}),
          insecureSkipTlsVerify: r.insecureSkipTlsVerify || Boolean(options.direct?.insecureSkipTlsVerify),
        };
        return { label: `directly (${r.url})`, source: createSource(r.url, { ...options, direct }) };
      }
      default: {
        const never: never = r;
        throw new Error(`unknown route ${JSON.stringify(never)}`);
      }
    }
  });
  if (routes.length === 1) {
    const only = routes[0]!.source;
    return only.name === t.source ? only : { name: t.source, timeoutMs: only.timeoutMs, scrape: (s) => only.scrape(s) };
  }
  return new RoutedSource(t.source, routes);
}

/**
 * `--metrics` specs merged into the discovered targets: a spec `COMPONENT=SPEC` replaces whatever
 * was discovered for that component; a plain spec is added (or replaces a discovered source of the
 * same name).
 */
export function mergeUserSpecs(found: readonly DiscoveredTarget[], specs: readonly string[]): DiscoveredTarget[] {
  const user = specs.map(parseUserSpec);
  const replaced = new Set(user.map((u) => u.component).filter((c): c is string => c !== null));
  const names = new Set(user.map((u) => u.source));
  const kept = found.filter((t) => !names.has(t.source) && !(t.component !== null && replaced.has(t.component)));
  return [...kept, ...user];
}

/** `SPEC` or `COMPONENT=SPEC`; the spec is checked as --metrics checks it (UsageError). */
export function parseUserSpec(text: string): DiscoveredTarget {
  const eq = text.indexOf('=');
  const prefix = eq > 0 && !text.slice(0, eq).includes('/') && !text.slice(0, eq).includes(':') ? text.slice(0, eq) : null;
  const spec = parseMetricsSpec(prefix ? text.slice(eq + 1) : text);
  const name = formatMetricsSpec(spec);
  const route: Route =
    spec.kind === 'apiserver'
      ? { kind: 'apiserver' }
      : spec.kind === 'url'
        ? { kind: 'direct', url: name, insecureSkipTlsVerify: false }
        : { kind: 'proxy', spec: name };
  return {
    source: name,
    component: prefix ?? (spec.kind === 'apiserver' ? 'kube-apiserver' : null),
    namespace: spec.kind === 'pod' || spec.kind === 'service' ? spec.namespace : null,
    pod: spec.kind === 'pod' ? spec.name : null,
    host: spec.kind === 'pod' ? spec.name : null,
    lease: null,
    foundBy: [`--metrics ${text}`],
    routes: [route],
  };
}
