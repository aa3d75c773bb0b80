/**
 * The controller behind a custom resource: who writes its status, the Lease it elects its leader
 * through, and what its workqueue did during the trace. kube-controller-manager's workload
 * controllers are known by name; an operator is found from what it leaves behind:
 *
 * - the manager: the field manager of the newest status write in managedFields (controller-runtime
 *   and client-go name it after the program, e.g. `kuberay-operator`);
 * - the Lease: from the operator's metrics when they are given (`leader_election_master_status{name}`
 *   names its Lease, value 1 on the leader), else a Lease of the target's namespace, or of any
 *   namespace we may list, whose name matches the manager's (`ray-operator-leader` for
 *   `kuberay-operator`: the name without a -leader/-lock/-election ending is part of the other);
 * - the queue: controller-runtime's `workqueue_*{controller}` and `controller_runtime_reconcile_total
 *   {controller,result}` of the controller named after the kind (its default name, the kind in lower
 *   case), else the only one whose queue took adds during the trace; the increase between a scrape
 *   at the start and one at the end, from the leader's metrics.
 *
 * What cannot be found says why (`unseen`), never a guess. readControllerBehind does the I/O;
 * the rest is pure.
 */
import { toCliError, type Kube, type KubeObject, type Lease, type ResourceInfo } from '../kube/index.js';
import {
  computeQueueStats,
  counterIncrease,
  discoverTargets,
  SampleIndex,
  sourceForTarget,
  sourceOptions,
  type MetricsAccess,
  type MetricsSource,
  type QueueRow,
  type QueueStatsSnapshot,
  type TimedScrape,
} from '../metrics/index.js';
import { operatorName } from './operator-observed.js';
import type { ControllerBehind, ControllerQueue, LeaseInput, ObjectReconciles, Seen } from './types.js';

/** Managers that are people or this tool, never the controller. */
const NOT_CONTROLLERS = /^(kubectl|kubectl-[a-z-]+|helm|kustomize-controller|argocd-controller|before-first-apply)$/;

/** The field manager of the newest status write, else of the newest write by something other than a person's client. */
export function statusManager(obj: KubeObject): string | undefined {
  let best: { manager?: string; time?: string } | undefined;
  let fallback: { manager?: string; time?: string } | undefined;
  for (const m of obj.metadata.managedFields ?? []) {
    if (!m.manager || NOT_CONTROLLERS.test(m.manager)) continue;
    if (m.subresource === 'status' && (!best || (m.time ?? '') >= (best.time ?? ''))) best = m;
    if (!fallback || (m.time ?? '') >= (fallback.time ?? '')) fallback = m;
  }
  return (best ?? fallback)?.manager;
}

const LEASE_ENDINGS = /[-.](leader-election|leader-elect|leader|lock|election|lease)$/;

/** Whether a Lease's name is the one a program of that field manager's name would choose. */
export function leaseMatchesManager(leaseName: string, manager: string): boolean {
  const lease = leaseName.toLowerCase().replace(LEASE_ENDINGS, '');
  const m = manager.toLowerCase();
  return lease.length >= 3 && (m.includes(lease) || lease.includes(m));
}

const increase = (rate: number | null, windowS: number | null): number | null => (rate === null || windowS === null ? null : Math.round(rate * windowS));

/** What the queue is looked for by: the traced kind's names, and the object, for per-object metrics. */
export interface QueueTarget {
  kind: string;
  /** The plural resource name: `rollouts`. */
  resource?: string | undefined;
  singularName?: string | undefined;
  namespace?: string | undefined;
  name?: string | undefined;
}

const squash = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Whether a queue's or a controller's name is the kind's: its kind, plural or singular name in any
 * case and spelling, with or without a `controller`/`queue` ending (`Rollouts`, `rollout`,
 * `rollouts-controller`, `RayCluster`).
 */
export function queueNamedFor(name: string, t: QueueTarget): boolean {
  const n = squash(name).replace(/(controller|queue)$/, '');
  return n !== '' && [t.kind, t.resource, t.singularName].some((w) => w !== undefined && squash(w) === n);
}

interface Candidate {
  source: string;
  s: QueueStatsSnapshot;
  row: QueueRow;
  adds: number | null;
}

/** The queues of one source that match `how`. */
function matching(how: ControllerQueue['matchedBy'], s: QueueStatsSnapshot, t: QueueTarget): QueueRow[] {
  if (how === 'kind') return s.queues.filter((q) => q.controller !== null && queueNamedFor(q.controller, t));
  if (how === 'queue-name') return s.queues.filter((q) => q.controller === null && queueNamedFor(q.name, t));
  const moved = s.queues.filter((q) => (increase(q.addsPerSecond, s.windowSeconds) ?? 0) > 0);
  return moved.length === 1 ? moved : [];
}

/**
 * The operator's own per-object metrics that name the traced object (a family with `reconcile` in
 * its name and samples labelled with its name and namespace), as increases over the window.
 */
export function objectReconciles(after: TimedScrape, before: TimedScrape | undefined, t: QueueTarget): ObjectReconciles[] {
  if (!t.name) return [];
  const names = (l: Record<string, string>): boolean => l.name === t.name && (l.namespace ?? '') === (t.namespace ?? '');
  const now = new SampleIndex(after.families);
  const then = before ? new SampleIndex(before.families) : undefined;
  const total = (index: SampleIndex | undefined, sample: string): number | undefined => {
    const xs = index?.samples(sample).filter((x) => names(x.labels));
    return xs && xs.length > 0 ? xs.reduce((a, x) => a + x.value, 0) : undefined;
  };
  // A series first seen at the end was born during the window: all of it is the increase.
  const grown = (curr: number, prev: number | undefined): number => counterIncrease(prev ?? 0, curr) ?? curr;
  const out: ObjectReconciles[] = [];
  for (const f of after.families) {
    if (!/reconcile/.test(f.name) || /^(workqueue_|controller_runtime_)/.test(f.name)) continue;
    const timed = f.type === 'histogram' || f.type === 'summary';
    const countName = timed ? `${f.name}_count` : f.samples.some((x) => x.name === `${f.name}_total`) ? `${f.name}_total` : f.name;
    const count = total(now, countName);
    if (count === undefined) continue;
    const n = grown(count, total(then, countName));
    const sum = timed ? total(now, `${f.name}_sum`) : undefined;
    const dSum = sum === undefined ? undefined : grown(sum, total(then, `${f.name}_sum`));
    out.push({ metric: f.name, count: Math.round(n), meanSeconds: dSum !== undefined && n > 0 ? dSum / n : null });
  }
  return out;
}

/**
 * The queue of the controller behind the target, from scrapes at the trace's start and end of each
 * source (by source name). Matched, in this order: a controller-runtime controller named for the
 * kind (`workqueue_*{controller}`), a client-go queue named for it (`workqueue_*{name}` without a
 * controller label: `Rollouts`), else the only queue of a source that took adds during the trace.
 * The source is the leader's (leader_election_master_status 1), else the one whose matching queue
 * moved most; two matching queues on it: the one that took more adds, the other named in
 * `alsoMatched`.
 */
export function controllerQueue(
  target: QueueTarget,
  before: ReadonlyMap<string, TimedScrape>,
  after: ReadonlyMap<string, TimedScrape>,
): { queue: ControllerQueue; leaseNames: string[] } | { queue: null; leaseNames: string[]; why: string } {
  const stats: { source: string; s: QueueStatsSnapshot }[] = [];
  for (const [source, a] of after) stats.push({ source, s: computeQueueStats(a, before.get(source)) });
  const leaseNames = [...new Set(stats.flatMap(({ s }) => s.leaderElection.map((l) => l.name)))];
  if (stats.length === 0) return { queue: null, leaseNames, why: 'no metrics source answered' };
  const leads = (s: QueueStatsSnapshot): boolean => s.leaderElection.some((l) => l.isLeader === true);
  const byAdds = (a: Candidate, b: Candidate): number => (b.adds ?? -1) - (a.adds ?? -1);
  for (const how of ['kind', 'queue-name', 'activity'] as const) {
    const found: Candidate[] = stats.flatMap(({ source, s }) =>
      matching(how, s, target).map((row) => ({ source, s, row, adds: increase(row.addsPerSecond, s.windowSeconds) })),
    );
    if (found.length === 0) continue;
    const leader = found.filter((c) => leads(c.s)).sort(byAdds)[0];
    const moved = found.filter((c) => (c.adds ?? 0) > 0).sort(byAdds)[0];
    const best = leader ?? moved ?? found[0]!;
    const sourceIs: ControllerQueue['sourceIs'] = stats.length === 1 ? 'only' : leader ? 'leader' : moved ? 'moved' : 'only';
    const row = best.row;
    const s = best.s;
    const alsoMatched = found.filter((c) => c.source === best.source && c.row !== row).map((c) => c.row.name);
    const c = row.controller === null ? undefined : s.controllers.find((x) => x.controller === row.controller);
    const reconciles: Record<string, number> = {};
    for (const [result, rate] of Object.entries(c?.resultsPerSecond ?? {})) {
      const n = increase(rate, s.windowSeconds);
      if (n) reconciles[result] = n;
    }
    return {
      leaseNames,
      queue: {
        source: best.source,
        sourceIs,
        foundBy: [],
        queue: row.name,
        controller: row.controller ?? row.name,
        matchedBy: how,
        alsoMatched,
        depth: row.depth,
        adds: best.adds,
        retries: increase(row.retriesPerSecond, s.windowSeconds),
        reconciles,
        workTime: row.workTime.observations === null ? null : { p50: row.workTime.p50, p99: row.workTime.p99, observations: row.workTime.observations },
        objectReconciles: objectReconciles(after.get(best.source)!, before.get(best.source), target),
        windowMs: s.windowSeconds === null ? null : Math.round(s.windowSeconds * 1000),
      },
    };
  }
  const names = [...new Set(stats.flatMap(({ s }) => s.queues.map((q) => q.controller ?? q.name)))];
  const wanted = [target.kind, target.resource].filter(Boolean).join(' or ');
  return {
    queue: null,
    leaseNames,
    why:
      names.length === 0
        ? 'the metrics have no workqueue (workqueue_*{name} or workqueue_*{controller})'
        : `no queue named for ${wanted} among ${names.join(', ')}, and none took adds during the trace`,
  };
}

/** The operator's Lease as the diagnosis reads it. */
export function operatorLeaseInput(b: ControllerBehind, lease: Lease | undefined): LeaseInput | undefined {
  if (!b.lease) return undefined;
  return { component: operatorName(b), namespace: b.lease.namespace, name: b.lease.name, lease: { seen: true, value: lease } };
}

function why(kube: Kube, err: unknown): string {
  const e = toCliError(err, { server: kube.connection.server, user: kube.connection.userName });
  return e instanceof Error ? e.message : String(e);
}

interface LeaseList {
  items?: Lease[];
}

/** Leases we may see that match: by name from the metrics, else by the manager's name. */
async function findLease(
  kube: Kube,
  manager: string | undefined,
  namespace: string | undefined,
  leaseNames: string[],
  signal?: AbortSignal,
): Promise<Seen<{ lease: Lease; foundBy: 'metrics' | 'name' } | undefined>> {
  const list = async (ns: string | undefined): Promise<Lease[]> =>
    (
      await kube.client.json<LeaseList>(
        ns ? `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(ns)}/leases` : '/apis/coordination.k8s.io/v1/leases',
        { signal, describe: { verb: 'list', resource: 'leases.coordination.k8s.io', namespace: ns } },
      )
    ).items ?? [];
  let leases: Lease[];
  try {
    // Every namespace when we may (an operator's Lease is usually in its own namespace), else the target's.
    leases = await list(undefined).catch(async (err: unknown) => {
      if (!namespace) throw err;
      return list(namespace);
    });
  } catch (err) {
    return { seen: false, why: why(kube, err) };
  }
  leases = leases.filter((l) => l.metadata.namespace !== 'kube-node-lease');
  const near = (l: Lease): number => (l.metadata.namespace === namespace ? 0 : 1);
  const byMetrics = leases.filter((l) => leaseNames.includes(l.metadata.name ?? '')).sort((a, b) => near(a) - near(b));
  if (byMetrics[0]) return { seen: true, value: { lease: byMetrics[0], foundBy: 'metrics' } };
  const byName = manager ? leases.filter((l) => leaseMatchesManager(l.metadata.name ?? '', manager)).sort((a, b) => near(a) - near(b)) : [];
  return { seen: true, value: byName[0] ? { lease: byName[0], foundBy: 'name' } : undefined };
}

/** The operator's replicas' metrics, found without --metrics from the Lease it leads through. */
export interface FoundOperatorMetrics {
  /** "NAMESPACE/NAME" of the Lease they were found through. */
  lease: string;
  sources: MetricsSource[];
  /** How each source was found, by its name. */
  foundBy: ReadonlyMap<string, readonly string[]>;
}

export async function findOperatorMetrics(
  kube: Kube,
  target: KubeObject | undefined,
  access: MetricsAccess,
  signal?: AbortSignal,
): Promise<{ found: FoundOperatorMetrics } | { found: null; why: string }> {
  const hint = "give --metrics with its replicas' endpoints";
  const manager = target ? statusManager(target) : undefined;
  if (!manager) return { found: null, why: `no --metrics given, and no status write names its controller yet to find its Lease by (${hint})` };
  const r = await findLease(kube, manager, target?.metadata.namespace, [], signal);
  if (!r.seen) return { found: null, why: `no --metrics given, and its Lease could not be read: ${r.why} (${hint})` };
  if (!r.value) return { found: null, why: `no --metrics given, and no Lease is named like ${manager} to find its replicas by (${hint})` };
  const l = r.value.lease;
  const lease = { namespace: l.metadata.namespace ?? '', name: l.metadata.name ?? '', holder: l.spec?.holderIdentity || null };
  const key = `${lease.namespace}/${lease.name}`;
  const d = await discoverTargets(kube.client, { server: kube.connection.server, leases: [lease], leasesOnly: true, signal });
  const tied = d.targets.filter((t) => t.lease === key);
  if (tied.length === 0) {
    const host = lease.holder ? ` (holder ${lease.holder})` : ' (held by nobody)';
    const errs = d.errors.length ? `; ${d.errors.join('; ')}` : '';
    return {
      found: null,
      why: `no --metrics given, and none found for Lease ${key}${host}: no Pod in ${lease.namespace} named for its holder with a metrics port or prometheus.io annotations, nor an EndpointSlice, ServiceMonitor or PodMonitor naming one${errs} (${hint})`,
    };
  }
  const options = sourceOptions(access, kube);
  return { found: { lease: key, sources: tied.map((t) => sourceForTarget(t, options)), foundBy: new Map(tied.map((t) => [t.source, t.foundBy])) } };
}

export interface ReadControllerOptions {
  /** Scrapes of the --metrics sources at the trace's start and end; absent when none were given. */
  scrapes?: { before: ReadonlyMap<string, TimedScrape>; after: ReadonlyMap<string, TimedScrape> } | undefined;
  /** How each source was found, when discovery found them (by source name); none for --metrics. */
  foundBy?: ReadonlyMap<string, readonly string[]> | undefined;
  /** Without scrapes: why there are none (no --metrics, and what discovery tried). */
  noMetrics?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** The controller behind the target as it is now: its manager, its Lease (one LIST), its queue. */
export async function readControllerBehind(
  kube: Kube,
  info: Pick<ResourceInfo, 'kind' | 'resource' | 'singularName'>,
  target: KubeObject | undefined,
  o: ReadControllerOptions = {},
): Promise<{ behind: ControllerBehind; lease: Lease | undefined }> {
  const unseen: string[] = [];
  const manager = target ? statusManager(target) : undefined;
  const queueTarget: QueueTarget = { ...info, namespace: target?.metadata.namespace, name: target?.metadata.name };
  const joined = o.scrapes ? controllerQueue(queueTarget, o.scrapes.before, o.scrapes.after) : undefined;
  if (!joined) unseen.push(`its workqueue: ${o.noMetrics ?? 'no --metrics given'}`);
  else if (joined.queue === null)
    unseen.push(
      `its workqueue: ${joined.why}${o.foundBy && o.foundBy.size > 0 && o.scrapes!.after.size === 0 ? ` (tried the replicas found through its Lease: ${[...o.foundBy.keys()].join(', ')}; give --metrics with their endpoints)` : ''}`,
    );
  let found: { lease: Lease; foundBy: 'metrics' | 'name' } | undefined;
  const leaseNames = joined?.leaseNames ?? [];
  if (!manager) unseen.push('its controller: no status write names a field manager yet');
  // Without a manager, only the metrics can name the Lease.
  if (manager || leaseNames.length > 0) {
    const r = await findLease(kube, manager, target?.metadata.namespace, leaseNames, o.signal);
    if (!r.seen) unseen.push(`its Lease: ${r.why}`);
    else if (!r.value) unseen.push(`its Lease: none of the Leases we may list is named like ${[manager, ...leaseNames].filter(Boolean).join(' or ')}`);
    found = r.seen ? r.value : undefined;
  }
  const spec = found?.lease.spec ?? {};
  return {
    lease: found?.lease,
    behind: {
      manager: manager ?? null,
      lease: found
        ? {
            namespace: found.lease.metadata.namespace ?? '',
            name: found.lease.metadata.name ?? '',
            holder: spec.holderIdentity || null,
            renewTime: spec.renewTime ?? null,
            leaseDurationSeconds: spec.leaseDurationSeconds ?? null,
            transitions: spec.leaseTransitions ?? null,
            foundBy: found.foundBy,
          }
        : null,
      queue: joined?.queue ? { ...joined.queue, foundBy: [...(o.foundBy?.get(joined.queue.source) ?? [])] } : null,
      unseen,
    },
  };
}
