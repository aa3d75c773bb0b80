/**
 * Finds the control-plane components that run as pods (kubeadm's static pods in kube-system) and
 * names a metrics source for each: kube-controller-manager on 10257 and kube-scheduler on 10259,
 * both https with self-signed certificates, or the --secure-port the pod's command sets.
 *
 * Reached through the API server's pod proxy, these components usually answer 403 to the proxy
 * (it sends no credentials and /metrics is not in --authorization-always-allow-paths); the
 * source's error says so and suggests scraping the node's port directly.
 */
import type { KubeObject } from '../kube/types.js';
import { toCliError } from '../kube/cli-errors.js';
import type { RawGetter } from './sources.js';

/** Default secure ports, as kubeadm sets them up. */
export const CONTROL_PLANE_PORTS: Readonly<Record<string, number>> = {
  'kube-controller-manager': 10257,
  'kube-scheduler': 10259,
};

export interface DiscoveredComponent {
  /** kube-controller-manager or kube-scheduler. */
  component: string;
  namespace: string;
  pod: string;
  node: string | null;
  /** Pod phase; sources for pods that are not Running will fail. */
  phase: string | null;
  /** The Pod's IP (the node's, for a host-network static Pod), for a direct scrape. */
  podIP: string | null;
  port: number;
  /** A --metrics spec for it: pod/kube-system/NAME:PORT. */
  spec: string;
}

export interface DiscoverOptions {
  namespace?: string;
  signal?: AbortSignal;
}

interface PodList {
  items?: KubeObject[];
}

/**
 * Lists pods labelled component=kube-controller-manager / kube-scheduler, and tier=control-plane
 * pods whose component label or name says which they are. Errors (403 on pods, unreachable) are
 * thrown as CliErrors: discovery is asked for on purpose, so its failure is the command's.
 */
export async function discoverControlPlane(client: RawGetter, options: DiscoverOptions = {}): Promise<DiscoveredComponent[]> {
  const namespace = options.namespace ?? 'kube-system';
  const components = Object.keys(CONTROL_PLANE_PORTS);
  const selectors = [`component in (${components.join(',')})`, 'tier=control-plane'];
  const found = new Map<string, DiscoveredComponent>();
  for (const selector of selectors) {
    const pods = await listPods(client, namespace, selector, options.signal);
    for (const pod of pods) {
      const d = describe(pod, namespace);
      if (d && !found.has(d.pod)) found.set(d.pod, d);
    }
  }
  return [...found.values()].sort((a, b) => a.component.localeCompare(b.component) || a.pod.localeCompare(b.pod));
}

async function listPods(client: RawGetter, namespace: string, labelSelector: string, signal: AbortSignal | undefined): Promise<KubeObject[]> {
  const path = `/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(labelSelector)}`;
  try {
    const res = await client.raw(path, { signal, describe: { verb: 'list', resource: 'pods', namespace } });
    return (JSON.parse(res.body) as PodList).items ?? [];
  } catch (err) {
    throw toCliError(err);
  }
}

function describe(pod: KubeObject, namespace: string): DiscoveredComponent | undefined {
  const name = pod.metadata.name ?? '';
  const labels = pod.metadata.labels ?? {};
  const component =
    labels.component && Object.hasOwn(CONTROL_PLANE_PORTS, labels.component)
      ? labels.component
      : Object.keys(CONTROL_PLANE_PORTS).find((c) => name.startsWith(`${c}-`) || name === c);
  if (!component || !name) return undefined;
  const spec = pod.spec as { nodeName?: string; containers?: { command?: string[]; args?: string[] }[] } | undefined;
  const status = pod.status as { phase?: string; podIP?: string } | undefined;
  const port = securePort(spec?.containers ?? []) ?? CONTROL_PLANE_PORTS[component]!;
  return {
    component,
    namespace,
    pod: name,
    node: spec?.nodeName ?? null,
    phase: status?.phase ?? null,
    podIP: status?.podIP ?? null,
    port,
    spec: `pod/${namespace}/${name}:${port}`,
  };
}

/** --secure-port=N (or "--secure-port N") from a container's command and args; 0 means off. */
function securePort(containers: readonly { command?: string[]; args?: string[] }[]): number | undefined {
  for (const c of containers) {
    const argv = [...(c.command ?? []), ...(c.args ?? [])];
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i]!;
      const value = a.startsWith('--secure-port=') ? a.slice('--secure-port='.length) : a === '--secure-port' ? argv[i + 1] : undefined;
      if (value !== undefined && /^\d+$/.test(value) && Number(value) > 0 && Number(value) <= 65535) return Number(value);
    }
  }
  return undefined;
}
