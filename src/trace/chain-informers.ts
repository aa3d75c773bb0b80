/**
 * The informers a trace runs for its chain: one for the target (by name) and one per descendant
 * kind down the owner chain, each watching the whole namespace once, with the owner-uid index the
 * chain view and the tree walk.
 *
 * Contract:
 * - The descendant kinds are the known ones (kinds.ts) below the target's kind, plus the kinds
 *   given as extra (for kinds the tool does not know) and the known kinds below those, plus those
 *   discovered for a kind the tool does not know (see child-discovery.ts), added before the sync;
 *   those whose first LIST was refused are taken out after it (dropLeftOut()).
 * - ownable(gk) names the child informers that can hold what an object of a group and kind owns,
 *   and is the one answer the chain view and the tree both use.
 * - Handlers are the caller's: this only builds and holds the informers.
 */
import type { Clock } from '../clock.js';
import { OwnerUIDIndex, runUntilSynced, SharedIndexInformer, chainTransforms, ownerUIDIndexFunc, type InformerEvent } from '../informer/index.js';
import { type GroupKind, groupKindKey, type Kube, type KubeObject, type ListerWatcher, ResourceListerWatcher, type ResourceInfo } from '../kube/index.js';
import { FirstListGate, leftOut } from './child-discovery.js';
import { InformerPool } from './informer-pool.js';
import { builtinKind, type ChildKind } from './kinds.js';
import { slimManagedFields, stampReceivedAt } from './received-at.js';
import type { ListerWatcherFactory } from './types.js';

export interface ChildInformer {
  info: ResourceInfo;
  informer: SharedIndexInformer;
  /** Given as an extra child kind rather than known: any kind may own its objects. */
  extra: boolean;
  /** Watched as PartialObjectMetadata: ownerReferences, creation, finalizers, deletion; no spec or status. */
  metadataOnly: boolean;
}

export class ChainInformers {
  readonly target: SharedIndexInformer;
  readonly children: ChildInformer[] = [];
  /** Per group and kind (groupKindKey), the child informers that can hold objects it owns: see ownable(). */
  private readonly ownableByKind = new Map<string, ChildInformer[]>();

  constructor(
    private readonly namespace: string | undefined,
    private readonly listerWatcher: ListerWatcherFactory,
    private readonly clock: Clock,
    target: { info: ResourceInfo; name: string },
    extra: ResourceInfo[],
    /** Informers shared with other traces: the target's is then its kind's in the whole namespace. */
    private readonly pool?: InformerPool,
  ) {
    this.target = this.newInformer(target.info, { fieldSelector: `metadata.name=${target.name}` });
    for (const info of descendantKinds(target.info, extra)) {
      this.children.push({ info, informer: this.newInformer(info), extra: extra.includes(info), metadataOnly: false });
    }
  }

  /**
   * Child informers for discovered kinds not watched yet (one per group and kind). Only a kind the
   * tool does not know can own their objects, unless they are of a known child kind. Returns the new ones.
   */
  addDiscovered(kinds: { info: ResourceInfo; metadataOnly: boolean }[]): ChildInformer[] {
    const added: ChildInformer[] = [];
    for (const { info, metadataOnly } of kinds) {
      if (this.children.some((c) => c.info.kind === info.kind && c.info.group === info.group)) continue;
      const child: ChildInformer = { info, informer: this.newInformer(info, { metadataOnly, leaveOutIfRefused: true }), extra: false, metadataOnly };
      this.children.push(child);
      added.push(child);
    }
    this.ownableByKind.clear();
    return added;
  }

  /**
   * Takes the discovered kinds whose informer's first LIST was refused out of the chain (their
   * informers have stopped); returns them with why ('forbidden', 'not listable'). After the sync.
   */
  dropLeftOut(): { info: ResourceInfo; why: string }[] {
    const out: { info: ResourceInfo; why: string }[] = [];
    for (let i = this.children.length - 1; i >= 0; i--) {
      const child = this.children[i]!;
      const why = leftOut(child.informer.getListerWatcher());
      if (!why) continue;
      this.children.splice(i, 1);
      out.push({ info: child.info, why });
    }
    if (out.length) this.ownableByKind.clear();
    return out;
  }

  /**
   * An informer of the namespace's objects of one kind, with the owner-uid index; with
   * leaveOutIfRefused, one that stops if its first LIST is refused (a discovered kind's).
   */
  newInformer(info: ResourceInfo, options: { fieldSelector?: string; metadataOnly?: boolean; leaveOutIfRefused?: boolean } = {}): SharedIndexInformer {
    const { leaveOutIfRefused = false, ...selectors } = options;
    if (this.pool) return this.pool.informer({ info, namespace: this.namespace, metadataOnly: selectors.metadataOnly === true, leaveOutIfRefused });
    return chainInformer(this.listerWatcher(info, { namespace: this.namespace, ...selectors }), this.clock, { leaveOutIfRefused });
  }

  /**
   * The child informers that can hold what an object of a group and kind owns. For a kind the tool knows
   * (kinds.ts), its known child kinds and the kinds given as extra (what those are owned by is not
   * known); for any other kind (a CRD), every child informer. A Pod owns nothing, so the 2,000 Pods
   * of a large rollout cost no owner-index lookups each time the tree or a reconcile walks the chain.
   */
  ownable(gk: GroupKind): ChildInformer[] {
    const key = groupKindKey(gk);
    let found = this.ownableByKind.get(key);
    if (!found) {
      const known = builtinKind(gk)?.owns;
      found = known ? this.children.filter((c) => c.extra || known.some((k) => k.kind === c.info.kind && k.group === c.info.group)) : this.children;
      this.ownableByKind.set(key, found);
    }
    return found;
  }

  /** The objects in one child informer's cache that `ownerUid` owns. */
  ownedBy(informer: ChildInformer, ownerUid: string): KubeObject[] {
    return informer.informer.getIndexer().byIndex(OwnerUIDIndex, ownerUid) as KubeObject[];
  }
}

/**
 * An informer as a chain's are: the owner-uid index, managedFields slimmed, the time each version
 * was received stamped; with leaveOutIfRefused, behind a FirstListGate that stops it.
 */
export function chainInformer(lw: ListerWatcher, clock: Clock, options: { leaveOutIfRefused?: boolean } = {}): SharedIndexInformer {
  const gate = options.leaveOutIfRefused ? new FirstListGate(lw) : undefined;
  return new SharedIndexInformer(gate ?? lw, {
    clock,
    indexers: { [OwnerUIDIndex]: ownerUIDIndexFunc },
    transform: chainTransforms(slimManagedFields, stampReceivedAt(clock)),
    ...(gate ? { signal: gate.signal } : {}),
  });
}

/**
 * A pool of chain informers against the cluster, run under `signal` (closed when it aborts): the
 * one a set of traces shares, or the probe's rounds one after another. `onEvent` hears every pooled
 * informer's trouble while it syncs.
 */
export function clusterInformerPool(kube: Kube, clock: Clock, signal: AbortSignal, onEvent?: (e: InformerEvent) => void): InformerPool {
  return new InformerPool(
    (k) =>
      chainInformer(
        new ResourceListerWatcher(kube.client, k.info, {
          namespace: k.namespace,
          metadataOnly: k.metadataOnly,
          ...(k.labelSelector ? { labelSelector: k.labelSelector } : {}),
        }),
        clock,
        { leaveOutIfRefused: k.leaveOutIfRefused === true },
      ),
    (informers, options) => runUntilSynced(kube, informers, { ...options, ...(onEvent ? { onEvent } : {}) }),
    signal,
  );
}

/** The descendant kinds of a group and kind down the owner chain, each once: known ones, then extra ones and theirs. */
function descendantKinds(target: GroupKind, extra: ResourceInfo[]): ResourceInfo[] {
  const kinds: ChildKind[] = [];
  const has = (k: GroupKind): boolean => kinds.some((x) => x.kind === k.kind && x.group === k.group);
  const walk = (owner: GroupKind): void => {
    for (const c of builtinKind(owner)?.owns ?? []) {
      if (has(c)) continue;
      kinds.push(c);
      walk(c);
    }
  };
  walk(target);
  for (const e of extra) {
    if (has(e)) continue;
    kinds.push({ group: e.group, kind: e.kind, resource: e.resource });
    walk(e);
  }
  return kinds.map(
    (k) =>
      extra.find((e) => e.kind === k.kind && e.group === k.group) ?? {
        group: k.group,
        version: 'v1',
        resource: k.resource,
        kind: k.kind,
        namespaced: true,
        shortNames: [],
        singularName: k.kind.toLowerCase(),
        verbs: ['list', 'watch'],
      },
  );
}
