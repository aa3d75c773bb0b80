/**
 * Synthetic traces for the waterfall's tests and bench/waterfall.mjs: hops as the ChainTracker makes
 * them (ids, owners, previousId links by the tracker's rule), without a cluster.
 *
 * No runtime imports, so that the bench can load this file directly with Node's type stripping.
 */
import type { Hop, HopKind, ObjectRef, TraceSnapshot, TreeNode } from '../../src/trace/index.js';

export type SyntheticTrace = Pick<TraceSnapshot, 'target' | 'trigger' | 'hops' | 'tree' | 'outcome'>;

export interface HopSpec {
  /** ms since the trigger. */
  t: number;
  kind: HopKind;
  object: ObjectRef;
  owner?: ObjectRef | undefined;
  detail?: string | undefined;
  /** Id suffix for repeatable kinds: `scaled-3`. */
  key?: string | undefined;
}

export const TRIGGER_AT = 1_790_000_000_000;

/**
 * Hops from specs, linked as the tracker links them: a Pod's hop follows its own latest hop, else
 * its owner's (up the chain), else the target's; any other object's hop follows the latest hop
 * anywhere in the chain.
 */
export function linkHops(specs: readonly HopSpec[], targetUid: string, owners: ReadonlyMap<string, string> = new Map()): Hop[] {
  const sorted = [...specs].sort((a, b) => a.t - b.t);
  const latestOf = new Map<string, Hop>();
  let latest: Hop | undefined;
  const ownerOf = new Map(owners);
  for (const s of sorted) if (s.owner) ownerOf.set(s.object.uid, s.owner.uid);
  const hops: Hop[] = [];
  for (const s of sorted) {
    let prev: Hop | undefined;
    if (s.object.kind !== 'Pod') prev = latest;
    else {
      for (let uid: string | undefined = s.object.uid; uid && !prev; uid = ownerOf.get(uid)) prev = latestOf.get(uid);
      prev ??= latestOf.get(targetUid);
    }
    const hop: Hop = {
      id: `${s.key ?? s.kind}/${s.object.uid}`,
      kind: s.kind,
      object: s.object,
      owner: s.owner,
      detail: s.detail,
      observedAt: TRIGGER_AT + s.t,
      reconciledAt: TRIGGER_AT + s.t + 1,
      sinceTriggerMs: s.t,
      previousId: prev?.id,
      sincePreviousMs: s.t - (prev ? prev.sinceTriggerMs : 0),
      events: [],
    };
    hops.push(hop);
    latestOf.set(s.object.uid, hop);
    latest = hop;
  }
  return hops;
}

export function ref(kind: string, name: string, uid = `${kind.toLowerCase()}-${name}`): ObjectRef {
  return { kind, namespace: 'demo', name, uid };
}

function node(r: ObjectRef, children: TreeNode[] = [], ready = true): TreeNode {
  return { ref: r, status: ready ? 'Running' : 'Pending', ready, deleting: false, children };
}

/** A deterministic spread in [0, 1) for member i: no randomness, same picture every run. */
function spread(i: number, salt: number): number {
  return (((i + 1) * 2654435761 + salt * 40503) % 4294967296) / 4294967296;
}

export interface SyntheticRolloutOptions {
  /** Name of the Deployment; its ReplicaSets are `<name>-old` and `<name>-new`. */
  name?: string;
  /** Pods per wave: as a rolling update with maxSurge 25%. Default ceil(replicas / 4). */
  surge?: number;
}

/**
 * A rolling update of a Deployment with `replicas` Pods, in waves: the new ReplicaSet scales up by
 * the surge, its Pods go created → scheduled → initialized → containers ready → ready over about
 * two seconds, then the old ReplicaSet scales down as much and its Pods terminate and go; the
 * Deployment converges after the last wave.
 */
export function syntheticRollout(replicas: number, options: SyntheticRolloutOptions = {}): SyntheticTrace {
  const name = options.name ?? 'web';
  const surge = Math.max(1, options.surge ?? Math.ceil(replicas / 4));
  const dep = ref('Deployment', name);
  const oldRs = ref('ReplicaSet', `${name}-old`);
  const newRs = ref('ReplicaSet', `${name}-new`);
  const oldPods = Array.from({ length: replicas }, (_, i) => ref('Pod', `${name}-old-${i}`));
  const newPods = Array.from({ length: replicas }, (_, i) => ref('Pod', `${name}-new-${i}`));
  const specs: HopSpec[] = [
    { t: 15, kind: 'target-modified', object: dep, detail: 'resourceVersion 1000' },
    { t: 40, kind: 'controller-observed', object: dep, detail: 'observedGeneration 2' },
  ];
  let t = 60;
  let up = 0;
  let down = replicas;
  while (up < replicas) {
    const to = Math.min(replicas, up + surge);
    specs.push(
      up === 0
        ? { t, kind: 'created', object: newRs, owner: dep, detail: `${to} replicas` }
        : { t, kind: 'scaled', object: newRs, owner: dep, detail: `${up}→${to} replicas`, key: `scaled-${to}` },
    );
    let waveReady = t;
    for (let i = up; i < to; i++) {
      const p = newPods[i]!;
      const created = t + 5 + (i - up) * 0.25;
      const scheduled = created + 3 + spread(i, 1) * 20;
      const initialized = scheduled + 900 + spread(i, 2) * 300;
      const containersReady = initialized + 700 + spread(i, 3) * 500;
      const ready = containersReady + 5 + spread(i, 4) * 10;
      waveReady = Math.max(waveReady, ready);
      specs.push(
        { t: created, kind: 'created', object: p, owner: newRs },
        { t: scheduled, kind: 'scheduled', object: p, owner: newRs, detail: `node kwok-node-${i % 2}` },
        { t: initialized, kind: 'initialized', object: p, owner: newRs },
        { t: containersReady, kind: 'containers-ready', object: p, owner: newRs },
        { t: ready, kind: 'ready', object: p, owner: newRs },
      );
    }
    t = waveReady + 20;
    const downTo = Math.max(0, down - (to - up));
    specs.push({ t, kind: 'scaled-down', object: oldRs, owner: dep, detail: `${down}→${downTo} replicas`, key: `scaled-${downTo}` });
    for (let i = downTo; i < down; i++) {
      const p = oldPods[i]!;
      const terminating = t + 8 + (down - 1 - i) * 0.25;
      specs.push(
        { t: terminating, kind: 'terminating', object: p, owner: oldRs },
        { t: terminating + 30 + spread(i, 5) * 40, kind: 'deleted', object: p, owner: oldRs },
      );
    }
    up = to;
    down = downTo;
    t += 25;
  }
  specs.push({
    t: t + 10,
    kind: 'converged',
    object: dep,
    detail: `${replicas} updated, ${replicas} ready, ${replicas} available of ${replicas}; Progressing NewReplicaSetAvailable`,
  });
  const hops = linkHops(specs, dep.uid);
  const tree = node(dep, [
    node(
      newRs,
      newPods.map((p) => node(p)),
    ),
    node(oldRs),
  ]);
  return {
    target: { kind: 'Deployment', namespace: 'demo', name },
    trigger: { kind: 'restart', wrote: `restarted deployments.apps/${name} in demo`, at: TRIGGER_AT, resourceVersion: '1000', generation: 2, writes: 1 },
    hops,
    tree,
    outcome: 'converged',
  };
}
