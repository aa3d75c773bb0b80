/**
 * A diagnosis of a traced chain: the trace's informer caches (target, descendants, Events) plus
 * what the caches do not hold, read once — the Nodes the Pods are bound to and the leader Leases of
 * kube-controller-manager and kube-scheduler. Anything that cannot be read is passed on as unseen,
 * with why, never as empty.
 */
import { diagnose } from './diagnose.js';
import type { ControllerBehind, DiagnoseInput, Diagnosis, LeaseInput, Seen } from './types.js';
import { OwnerUIDIndex } from '../informer/index.js';
import { ApiLeaseClient, isNotFound, toCliError, type Kube, type KubeObject } from '../kube/index.js';
import type { QueueRow } from '../metrics/index.js';
import type { Readiness } from '../readiness/index.js';
import { isCustomResource, type TraceCaches, type TraceTarget } from '../trace/index.js';
import { operatorLeaseInput, readControllerBehind, type ReadControllerOptions } from './operator.js';

/** The leader Leases a workload's chain depends on. */
export const CONTROL_PLANE_LEASES: readonly Pick<LeaseInput, 'component' | 'namespace' | 'name'>[] = [
  { component: 'kube-controller-manager', namespace: 'kube-system', name: 'kube-controller-manager' },
  { component: 'kube-scheduler', namespace: 'kube-system', name: 'kube-scheduler' },
];

/** At most this many Nodes are read (one GET each): those the chain's Pods are bound to. */
const MAX_NODES = 20;

function why(kube: Kube, err: unknown): string {
  const e = toCliError(err, { server: kube.connection.server, user: kube.connection.userName });
  return e instanceof Error ? e.message : String(e);
}

/** The target, its descendants down the owner chain and the Events, as the caches hold them now. */
export function chainFromCaches(
  caches: TraceCaches,
  target: TraceTarget,
  eventsUnseen?: string,
): Pick<DiagnoseInput, 'target' | 'object' | 'descendants' | 'events'> {
  const key = target.namespace && target.info.namespaced ? `${target.namespace}/${target.name}` : target.name;
  const object = caches.target.store.getByKey(key) as KubeObject | undefined;
  const descendants: DiagnoseInput['descendants'] = [];
  const seen = new Set<string>();
  let frontier = object?.metadata.uid ? [object.metadata.uid] : [];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const uid of frontier) {
      for (const c of caches.children) {
        for (const obj of c.store.byIndex(OwnerUIDIndex, uid)) {
          const u = obj.metadata.uid ?? '';
          if (seen.has(u)) continue;
          seen.add(u);
          descendants.push({ kind: c.info.kind, obj });
          next.push(u);
        }
      }
    }
    frontier = next;
  }
  const events: Seen<KubeObject[]> = caches.events
    ? { seen: true, value: caches.events.store.list() }
    : { seen: false, why: eventsUnseen ?? 'the API server does not serve events.k8s.io/v1' };
  return { target: { kind: target.info.kind, namespace: target.namespace, name: target.name }, object, descendants, events };
}

/** The Nodes the Pods are bound to, each read once; a 404 is a Node that does not exist. */
export async function readNodes(kube: Kube, pods: KubeObject[], signal?: AbortSignal): Promise<Seen<KubeObject[]>> {
  const names = [...new Set(pods.map((p) => (p.spec as { nodeName?: string } | undefined)?.nodeName).filter((n): n is string => Boolean(n)))].slice(
    0,
    MAX_NODES,
  );
  const nodes: KubeObject[] = [];
  for (const name of names) {
    try {
      nodes.push(
        await kube.client.json<KubeObject>(`/api/v1/nodes/${encodeURIComponent(name)}`, { signal, describe: { verb: 'get', resource: 'nodes', name } }),
      );
    } catch (err) {
      if (isNotFound(err)) continue;
      return { seen: false, why: why(kube, err) };
    }
  }
  return { seen: true, value: nodes };
}

export async function readLeases(kube: Kube, signal?: AbortSignal): Promise<LeaseInput[]> {
  const client = new ApiLeaseClient(kube.client);
  return Promise.all(
    CONTROL_PLANE_LEASES.map(async (l): Promise<LeaseInput> => {
      try {
        return { ...l, lease: { seen: true, value: await client.get(l.namespace, l.name, signal) } };
      } catch (err) {
        return { ...l, lease: { seen: false, why: why(kube, err) } };
      }
    }),
  );
}

export interface DiagnoseChainOptions {
  now?: number;
  /** For a custom resource: scrapes of its operator's metrics at the trace's start and now (--metrics). */
  scrapes?: ReadControllerOptions['scrapes'];
  /** How those sources were found, and why there are none (ReadControllerOptions). */
  foundBy?: ReadControllerOptions['foundBy'];
  noMetrics?: ReadControllerOptions['noMetrics'];
  graceMs?: number;
  /** Why the Events could not be watched, when the caches have none. */
  eventsUnseen?: string;
  queues?: Seen<QueueRow[]>;
  signal?: AbortSignal;
  /** The command's readiness engine. */
  readiness: Readiness;
}

/** Reads the Nodes and Leases and diagnoses the chain the caches hold. */
export async function diagnoseChain(kube: Kube, caches: TraceCaches, target: TraceTarget, options: DiagnoseChainOptions): Promise<Diagnosis> {
  return (await diagnoseChainWithController(kube, caches, target, options)).diagnosis;
}

/** diagnoseChain, and for a custom resource the controller behind it it read on the way (undefined for other kinds). */
export async function diagnoseChainWithController(
  kube: Kube,
  caches: TraceCaches,
  target: TraceTarget,
  options: DiagnoseChainOptions,
): Promise<{ diagnosis: Diagnosis; controller: ControllerBehind | undefined }> {
  const chain = chainFromCaches(caches, target, options.eventsUnseen);
  const pods = chain.descendants.filter((d) => d.kind === 'Pod').map((d) => d.obj);
  const custom = isCustomResource(target.info);
  const [nodes, , leases, operator] = await Promise.all([
    readNodes(kube, pods, options.signal),
    // Every kind the caches hold objects of can be judged (a trace prepares them as they arrive).
    options.readiness.prepare([caches.target.info, ...caches.children.filter((c) => c.store.size() > 0).map((c) => c.info)]),
    readLeases(kube, options.signal),
    custom
      ? readControllerBehind(kube, target.info, chain.object, {
          scrapes: options.scrapes,
          foundBy: options.foundBy,
          noMetrics: options.noMetrics,
          signal: options.signal,
        })
      : undefined,
  ]);
  const operatorLease = operator ? operatorLeaseInput(operator.behind, operator.lease) : undefined;
  const diagnosis = diagnose({
    ...chain,
    nodes,
    leases: operatorLease ? [...leases, operatorLease] : leases,
    queues: options.queues,
    operator: operator?.behind,
    graceMs: options.graceMs,
    now: options.now ?? Date.now(),
    readiness: options.readiness,
  });
  return { diagnosis, controller: operator?.behind };
}
