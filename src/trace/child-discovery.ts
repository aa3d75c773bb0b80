/**
 * The child kinds of a kind the tool does not know (a custom resource), found without flags: every
 * resource the server serves that can be listed and watched in the target's scope, as kubectl-tree
 * finds the children of any kind through ownerReferences, but watched, so the chain is live.
 *
 * Contract:
 * - A namespaced target: the namespaced resources (watched in its namespace); a cluster-scoped
 *   one: the cluster-scoped resources. One version of each group and resource, the preferred.
 * - Events are not children; the tracer reads them apart.
 * - Full objects only where the chain needs them for readiness or hops: the built-in kinds with
 *   a status to follow and custom resources (their conditions). Everything else is watched
 *   metadata-only (PartialObjectMetadata, as client-go's metadata informers): ownerReferences,
 *   creation, finalizers and deletion are all the chain reads of a ConfigMap. Secrets are always
 *   metadata-only: their data is never cached.
 * - A kind the user may not list or watch there (403), or that the server cannot list after all
 *   (404, 405), is left out, and named in `refused`, rather than failing the trace.
 */
import { ApiError, type Discovery, type ListerWatcher, type ResourceInfo } from '../kube/index.js';
import type { DiscoveredChildKinds } from './types.js';

export interface DiscoveredKind {
  info: ResourceInfo;
  /** Watched as PartialObjectMetadata. */
  metadataOnly: boolean;
}

export interface DiscoveredChildren {
  kinds: DiscoveredKind[];
  /** group/resource of the kinds left out, with why. */
  refused: string[];
}

/** What discovery found, as the snapshot names it: group/resource names, watched whole or metadata-only, and those left out. */
export function discoveredKinds(found: DiscoveredChildren): DiscoveredChildKinds {
  const name = (i: ResourceInfo): string => (i.group ? `${i.resource}.${i.group}` : i.resource);
  return {
    full: found.kinds.filter((k) => !k.metadataOnly).map((k) => name(k.info)),
    metadataOnly: found.kinds.filter((k) => k.metadataOnly).map((k) => name(k.info)),
    refused: found.refused,
  };
}

/** Built-in groups: a kind outside them is a custom resource (or an aggregated API's). */
const BUILT_IN_GROUPS = new Set([
  '',
  'apps',
  'batch',
  'autoscaling',
  'policy',
  'networking.k8s.io',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'node.k8s.io',
  'scheduling.k8s.io',
  'certificates.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'resource.k8s.io',
  'internal.apiserver.k8s.io',
  'storagemigration.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
]);

/** A custom resource (or an aggregated API's kind): its controller is an operator, not one the tool knows. */
export function isCustomResource(r: Pick<ResourceInfo, 'group'>): boolean {
  return !BUILT_IN_GROUPS.has(r.group);
}

/** Built-in kinds whose status the chain follows (group/resource). */
const FULL_BUILT_INS = new Set([
  'apps/deployments',
  'apps/replicasets',
  'apps/statefulsets',
  'apps/daemonsets',
  'batch/jobs',
  'batch/cronjobs',
  '/pods',
  '/services',
  '/persistentvolumeclaims',
  '/replicationcontrollers',
  'apiextensions.k8s.io/customresourcedefinitions',
]);

const NOT_CHILDREN = new Set(['/events', 'events.k8s.io/events']);

const key = (r: ResourceInfo): string => `${r.group}/${r.resource}`;

/** Whether a kind is watched whole (see the contract). */
export function wantsFullObjects(r: ResourceInfo): boolean {
  if (r.group === '' && r.resource === 'secrets') return false;
  return FULL_BUILT_INS.has(key(r)) || isCustomResource(r);
}

/** The resources the chain of a `target` of an unknown kind is looked for in. */
export function childCandidates(all: ResourceInfo[], target: ResourceInfo): DiscoveredKind[] {
  const seen = new Set<string>();
  const out: DiscoveredKind[] = [];
  for (const r of all) {
    const k = key(r);
    if (seen.has(k)) continue;
    seen.add(k);
    if (r.namespaced !== target.namespaced || NOT_CHILDREN.has(k)) continue;
    if (!r.verbs.includes('list') || !r.verbs.includes('watch')) continue;
    out.push({ info: r, metadataOnly: !wantsFullObjects(r) });
  }
  return out;
}

/**
 * The child kinds of `target`: the candidates the user can list in `namespace`, each asked once
 * for one object's metadata, all at once.
 */
export async function discoverChildren(
  discovery: Pick<Discovery, 'resources'>,
  target: ResourceInfo,
  namespace: string | undefined,
  listerWatcher: (info: ResourceInfo, options: { namespace: string | undefined; metadataOnly: boolean }) => ListerWatcher,
  signal?: AbortSignal,
): Promise<DiscoveredChildren> {
  const candidates = childCandidates(await discovery.resources(), target);
  const refused: string[] = [];
  const kinds: DiscoveredKind[] = [];
  await Promise.all(
    candidates.map(async (c) => {
      try {
        await listerWatcher(c.info, { namespace, metadataOnly: true }).list({ limit: 1 }, signal);
        kinds.push(c);
      } catch (err) {
        if (!(err instanceof ApiError) || ![403, 404, 405].includes(err.code)) throw err;
        refused.push(`${c.info.group ? `${c.info.resource}.${c.info.group}` : c.info.resource} (${err.code === 403 ? 'forbidden' : 'not listable'})`);
      }
    }),
  );
  // In discovery's order, whatever order the answers came in.
  const order = new Map(candidates.map((c, i) => [c, i]));
  kinds.sort((a, b) => order.get(a)! - order.get(b)!);
  return { kinds, refused: refused.sort() };
}
