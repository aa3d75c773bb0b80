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
import { toCliError, type Kube, type KubeObject, type Lease } from '../kube/index.js';
import { computeQueueStats, type QueueStatsSnapshot, type TimedScrape } from '../metrics/index.js';
import { operatorName } from './diagnose.js';
import type { ControllerBehind, ControllerQueue, LeaseInput, Seen } from './types.js';

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

/**
 * The queue of the controller behind `kind`, from scrapes at the trace's start and end of each
 * source (by source name). The leader's source is preferred (leader_election_master_status 1).
 */
export function controllerQueue(
  kind: string,
  before: ReadonlyMap<string, TimedScrape>,
  after: ReadonlyMap<string, TimedScrape>,
): { queue: ControllerQueue; leaseNames: string[] } | { queue: null; leaseNames: string[]; why: string } {
  const wanted = kind.toLowerCase();
  const stats: { source: string; s: QueueStatsSnapshot }[] = [];
  for (const [source, a] of after) stats.push({ source, s: computeQueueStats(a, before.get(source)) });
  const leaseNames = [...new Set(stats.flatMap(({ s }) => s.leaderElection.map((l) => l.name)))];
  if (stats.length === 0) return { queue: null, leaseNames, why: 'no metrics source answered' };
  const leaders = stats.filter(({ s }) => s.leaderElection.some((l) => l.isLeader === true));
  const ordered = [...leaders, ...stats.filter((x) => !leaders.includes(x))];
  for (const matchedBy of ['kind', 'activity'] as const) {
    for (const { source, s } of ordered) {
      const rows = s.queues.filter((q) => q.controller !== null);
      const row =
        matchedBy === 'kind'
          ? rows.find((q) => q.controller!.toLowerCase() === wanted)
          : (() => {
              const active = rows.filter((q) => (increase(q.addsPerSecond, s.windowSeconds) ?? 0) > 0);
              return active.length === 1 ? active[0] : undefined;
            })();
      if (!row) continue;
      const c = s.controllers.find((x) => x.controller === row.controller);
      const reconciles: Record<string, number> = {};
      for (const [result, rate] of Object.entries(c?.resultsPerSecond ?? {})) {
        const n = increase(rate, s.windowSeconds);
        if (n) reconciles[result] = n;
      }
      return {
        leaseNames,
        queue: {
          source,
          controller: row.controller!,
          matchedBy,
          depth: row.depth,
          adds: increase(row.addsPerSecond, s.windowSeconds),
          retries: increase(row.retriesPerSecond, s.windowSeconds),
          reconciles,
          windowMs: s.windowSeconds === null ? null : Math.round(s.windowSeconds * 1000),
        },
      };
    }
  }
  const names = [...new Set(stats.flatMap(({ s }) => s.queues.map((q) => q.controller).filter((c): c is string => c !== null)))];
  return {
    queue: null,
    leaseNames,
    why:
      names.length === 0
        ? 'the metrics have no controller-runtime workqueue (workqueue_*{controller})'
        : `no controller named ${wanted} among ${names.join(', ')}, and none took adds during the trace`,
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

export interface ReadControllerOptions {
  /** Scrapes of the --metrics sources at the trace's start and end; absent when none were given. */
  scrapes?: { before: ReadonlyMap<string, TimedScrape>; after: ReadonlyMap<string, TimedScrape> } | undefined;
  signal?: AbortSignal | undefined;
}

/** The controller behind the target as it is now: its manager, its Lease (one LIST), its queue. */
export async function readControllerBehind(
  kube: Kube,
  kind: string,
  target: KubeObject | undefined,
  o: ReadControllerOptions = {},
): Promise<{ behind: ControllerBehind; lease: Lease | undefined }> {
  const unseen: string[] = [];
  const manager = target ? statusManager(target) : undefined;
  const joined = o.scrapes ? controllerQueue(kind, o.scrapes.before, o.scrapes.after) : undefined;
  if (!joined) unseen.push('its workqueue: no --metrics given');
  else if (joined.queue === null) unseen.push(`its workqueue: ${joined.why}`);
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
      queue: joined?.queue ?? null,
      unseen,
    },
  };
}
