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
 * - Every candidate's informer starts at once, with no LIST ahead of it to ask whether the user
 *   may list the kind: a first LIST refused (403), or that the server cannot serve after all (404,
 *   405), leaves the kind out, named in `refused`, rather than failing the trace (FirstListGate).
 *   A left-out kind's informer stops; a refusal after a LIST succeeded is the informer's to retry.
 */
import {
  ApiError,
  groupResource,
  type Discovery,
  type ListDecodeOptions,
  type ListerWatcher,
  type ListOptions,
  type ListResult,
  type ResourceInfo,
  type Watch,
  type WatchOptions,
} from '../kube/index.js';
import type { DiscoveredChildKinds } from './types.js';

export interface DiscoveredKind {
  info: ResourceInfo;
  /** Watched as PartialObjectMetadata. */
  metadataOnly: boolean;
}

/**
 * What discovery found, as the snapshot names it: group/resource names watched whole or
 * metadata-only, and those left out (their first LIST refused) with why. After the sync.
 */
export function discoveredKinds(kinds: DiscoveredKind[], leftOut: { info: ResourceInfo; why: string }[]): DiscoveredChildKinds {
  const out = new Set(leftOut.map((l) => `${l.info.group}/${l.info.kind}`));
  const kept = kinds.filter((k) => !out.has(`${k.info.group}/${k.info.kind}`));
  return {
    full: kept.filter((k) => !k.metadataOnly).map((k) => groupResource(k.info)),
    metadataOnly: kept.filter((k) => k.metadataOnly).map((k) => groupResource(k.info)),
    refused: leftOut.map((l) => `${groupResource(l.info)} (${l.why})`).sort(),
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
 * The child kinds of `target`: every candidate, none asked yet (see FirstListGate), from the
 * server's answer rather than one kept from an earlier run, which may lack a kind defined since.
 */
export async function discoverChildren(discovery: Pick<Discovery, 'served'>, target: ResourceInfo): Promise<DiscoveredKind[]> {
  return childCandidates(await discovery.served(), target);
}

/** Codes a first LIST answers that leave a kind out: forbidden, or not listable after all. */
const LEFT_OUT: Record<number, string> = { 403: 'forbidden', 404: 'not listable', 405: 'not listable' };

/**
 * A discovered kind's ListerWatcher: until a LIST has succeeded, a LIST refused with 403 (404,
 * 405) leaves the kind out. The refusal is kept and `signal` aborts, which stops the informer the
 * gate is given to (SharedIndexInformerOptions.signal) where its reflector would back off and
 * list again for ever; the LIST's own error is thrown on. Once a LIST has succeeded, every error is
 * passed through as it is: the informer retries as it would anyway.
 */
export class FirstListGate implements ListerWatcher {
  private listed = false;
  private readonly stop = new AbortController();
  private refusedWith: ApiError | undefined;

  constructor(private readonly lw: ListerWatcher) {}

  get description(): string {
    return this.lw.description;
  }

  get resource(): ResourceInfo | undefined {
    return this.lw.resource;
  }

  /** Aborts once the kind is left out. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** The first LIST's refusal, when the kind is left out. */
  get refusal(): ApiError | undefined {
    return this.refusedWith;
  }

  async list(options: ListOptions, signal?: AbortSignal, decode?: ListDecodeOptions): Promise<ListResult> {
    try {
      const result = await this.lw.list(options, signal, decode);
      this.listed = true;
      return result;
    } catch (err) {
      if (!this.listed && !signal?.aborted && err instanceof ApiError && LEFT_OUT[err.code]) {
        this.refusedWith ??= err;
        this.stop.abort();
      }
      throw err;
    }
  }

  watch(options: WatchOptions, signal?: AbortSignal, decode?: ListDecodeOptions): Promise<Watch> {
    return this.lw.watch(options, signal, decode);
  }
}

/** Why a discovered kind was left out ('forbidden', 'not listable'), when its first LIST was refused. */
export function leftOut(lw: ListerWatcher): string | undefined {
  const refusal = lw instanceof FirstListGate ? lw.refusal : undefined;
  return refusal ? LEFT_OUT[refusal.code] : undefined;
}
