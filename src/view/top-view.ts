/**
 * The `top` view model: per controller component (kube-controller-manager, kube-scheduler, the
 * API server, any controller manager found), its leader Lease joined with the work queues of the
 * process that holds it, and one word for its health. Every output (TUI, json, yaml, ndjson)
 * renders this and nothing else.
 *
 * The join. A metrics source (a "replica") belongs to the Lease that
 *   1. discovery tied it to (a Lease holder identity `hostname_uuid` whose hostname is the Pod's
 *      name), or whose name equals its component's (`--metrics NAME=SPEC` names it): the Lease in
 *      the source's namespace, then kube-system, then the only Lease of that name,
 *   2. else the Lease its own `leader_election_master_status{name}` names (the namespace it was
 *      found in first, then kube-system, then the only Lease of that name);
 * a source joined to no Lease is a component of its own (the API server runs no leader election).
 * Which replica leads: a good scrape's leader_election_master_status (1 leads, 0 stands by), else
 * the holder identity's hostname equal to the replica's Pod or host name; once one replica is
 * known to lead, the others of that Lease stand by. The queues shown are the leader's (standbys
 * run no controllers); when no replica is known to lead, those of the first replica that has any.
 *
 * The state, the first rule that holds (written down so the screen can be argued with):
 *   no leader    the component has a leader Lease and it has no valid holder (expired or released,
 *                judged on our clock as client-go judges it)
 *   unreachable  the leading replica's latest scrape failed; when no replica is known to lead,
 *                every replica's did (a component with no metrics source at all is not unreachable:
 *                it says that no source was found)
 *   stuck        a queue's longest running item has run for `stuckAfterSeconds` (default 60 s), or
 *                a queue held items (depth > 0) through a whole window in which no item was taken
 *                from it
 *   retrying     a queue retried items (retries/s > 0) or a controller-runtime controller returned
 *                errors (errors/s > 0) in the latest window
 *   backlog      a queue's depth is at least `backlogDepth` (default 100) or its queue-time p99 is
 *                at least `backlogWaitSeconds` (default 5 s)
 *   ok           none of the above
 * Components are sorted by that order (unhealthy first), then by name.
 *
 * A Lease under coordinated leader election also carries its LeaseCandidates and why its holder
 * holds (or what it waits for), as lease-watch shows them (lease-view.ts); a Lease nobody holds
 * says who released it (or expired) and for how long there has been no leader.
 */
import type { ControllerRow, DiscoveredTarget, MetricsSnapshot, QueueRow, SourceStatus } from '../metrics/index.js';
import type { LeaseState } from '../lease/index.js';
import { isIdleQueue, queueLabel, sourceState, type SourceState } from './queues-view.js';
import type { Election } from '../lease/index.js';
import type { CandidateRow, CandidatesStatus, LeaderLeaseRow, TenureRow } from './lease-view.js';

export type ComponentState = 'no leader' | 'unreachable' | 'stuck' | 'retrying' | 'backlog' | 'ok';
export type QueueState = 'stuck' | 'retrying' | 'backlog' | 'ok' | 'idle';

/** Worst first: the order components are sorted in. */
export const COMPONENT_STATES: readonly ComponentState[] = ['no leader', 'unreachable', 'stuck', 'retrying', 'backlog', 'ok'];
const QUEUE_STATES: readonly QueueState[] = ['stuck', 'retrying', 'backlog', 'ok', 'idle'];

export interface Thresholds {
  stuckAfterSeconds: number;
  backlogDepth: number;
  backlogWaitSeconds: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = { stuckAfterSeconds: 60, backlogDepth: 100, backlogWaitSeconds: 5 };

/** A metrics source as discovery (or --metrics) found it; how to reach it is not the view's. */
export type TopTarget = Omit<DiscoveredTarget, 'routes'>;

export interface TopReplica {
  source: string;
  pod: string | null;
  role: 'leader' | 'standby' | null;
  /** Why the role: "leader_election_master_status 1", "holder identity names this pod". */
  roleBecause: string | null;
  state: SourceState;
  error: string | null;
  /** Seconds the rates cover; null before two good scrapes. */
  windowSeconds: number | null;
  foundBy: string[];
}

export interface TopQueue extends QueueRow {
  state: QueueState;
  /** controller-runtime: its controller's reconciles/s, errors/s and workers; null for client-go queues. */
  reconcile: {
    reconcilesPerSecond: number | null;
    errorsPerSecond: number | null;
    activeWorkers: number | null;
    maxConcurrentReconciles: number | null;
  } | null;
  /** Depth and retries/s at each scrape of the session, oldest first (null where absent). */
  depthSeries: (number | null)[];
  retrySeries: (number | null)[];
}

export interface TopFailover {
  /** Our clock, ISO: when the new holder was first seen. */
  at: string;
  from: string | null;
  to: string;
  /** Time with no valid leader before the new holder. */
  gapMs: number | null;
  /** How the previous holder's tenure ended: released (on exit), expired, replaced. */
  fromEnded: TenureRow['previousEndReason'];
}

export interface TopLease {
  namespace: string;
  name: string;
  holder: string | null;
  state: LeaseState;
  renewAgeMs: number;
  leaseDurationSeconds: number;
  transitions: number;
  heldForMs: number | null;
  lastFailover: TopFailover | null;
  strategy: string | null;
  preferredHolder: string | null;
  /** Its LeaseCandidates, the strategy's first first; null when they are not watched (TopView.candidates says why). */
  candidates: CandidateRow[] | null;
  /** Why the holder holds, or what the Lease waits for, under coordinated leader election; null outside it. */
  election: Election | null;
  /** With no holder: who held it last, how that ended, and since when. */
  vacancy: LeaderLeaseRow['vacancy'];
  /** Oldest first. */
  history: TenureRow[];
}

export interface TopComponent {
  /** "NAMESPACE/LEASE" for a component with a Lease, else "source:NAME". */
  key: string;
  name: string;
  state: ComponentState;
  /** Why the state, one line each (empty for ok). */
  reasons: string[];
  lease: TopLease | null;
  /** The replica that leads (its source), when known. */
  leader: string | null;
  replicas: TopReplica[];
  /** The leader's queues, unhealthy first, then the busiest. */
  queues: TopQueue[];
  controllers: ControllerRow[];
  /** Sum over the queues shown; null when none reports it. */
  depth: number | null;
  addsPerSecond: number | null;
  retriesPerSecond: number | null;
  errorsPerSecond: number | null;
  depthSeries: (number | null)[];
  retrySeries: (number | null)[];
  /** When the scrape behind the queues shown started (ISO, our clock); null before one. */
  sampledAt: string | null;
  /** Said when there are no queues to show: "no metrics source found", "waiting for the first scrape". */
  note: string | null;
}

export interface TopView {
  /** Our clock, ISO. */
  at: string;
  intervalMs: number | null;
  components: TopComponent[];
  /** Leases could not be read (RBAC, unreachable): why; the queues are still shown. */
  leaseError: string | null;
  /** Discovery steps that failed (one line each); what they would have found is missing. */
  discoveryErrors: string[];
  /** Whether LeaseCandidates are watched. */
  candidates: CandidatesStatus;
  /** Every source and how it was found. */
  targets: TopTarget[];
}

/** Depth and retry rate so far, per component and queue (src/live/top-history.ts keeps them over a session). */
export interface TopSeries {
  /** A component's series (queue '') or one queue's, oldest first. */
  series(component: string, queue: string, what: 'depth' | 'retries'): (number | null)[];
}

export interface TopInput {
  now: number;
  /** Leader-election leases (node and API server heartbeats left out). */
  leases: readonly LeaderLeaseRow[];
  leaseError?: string | null;
  candidates?: CandidatesStatus;
  metrics: MetricsSnapshot | null;
  targets: readonly TopTarget[];
  discoveryErrors?: readonly string[];
  history?: TopSeries;
  thresholds?: Thresholds;
}

const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;

/** The hostname part of a client-go identity `hostname_uuid` (the whole identity when it has no `_`). */
export function identityHost(identity: string): string {
  const i = identity.lastIndexOf('_');
  return i > 0 ? identity.slice(0, i) : identity;
}

/** Which Lease a target belongs to, by the rules in the header; undefined for none. */
export function leaseFor(target: TopTarget, status: SourceStatus | undefined, leases: readonly LeaderLeaseRow[]): LeaderLeaseRow | undefined {
  const byKey = new Map(leases.map((l) => [keyOf(l.namespace, l.name), l]));
  if (target.lease && byKey.has(target.lease)) return byKey.get(target.lease);
  const named = (name: string): LeaderLeaseRow | undefined => {
    const candidates = leases.filter((l) => l.name === name);
    return (
      candidates.find((l) => target.namespace !== null && l.namespace === target.namespace) ??
      candidates.find((l) => l.namespace === 'kube-system') ??
      (candidates.length === 1 ? candidates[0] : undefined)
    );
  };
  if (target.component) {
    const l = named(target.component);
    if (l) return l;
  }
  for (const row of status?.stats?.leaderElection ?? []) {
    const l = named(row.name);
    if (l) return l;
  }
  return undefined;
}

function queueState(q: QueueRow, t: Thresholds): QueueState {
  if ((q.longestRunningProcessorSeconds ?? 0) >= t.stuckAfterSeconds) return 'stuck';
  if ((q.depth ?? 0) > 0 && q.queueTime.basis === 'interval' && q.queueTime.observations === 0) return 'stuck';
  if ((q.retriesPerSecond ?? 0) > 0) return 'retrying';
  if ((q.depth ?? 0) >= t.backlogDepth || (q.queueTime.p99 ?? 0) >= t.backlogWaitSeconds) return 'backlog';
  return isIdleQueue(q) ? 'idle' : 'ok';
}

function sum(values: readonly (number | null)[]): number | null {
  let total: number | null = null;
  for (const v of values) if (v !== null) total = (total ?? 0) + v;
  return total;
}

function topLease(l: LeaderLeaseRow): TopLease {
  const last = [...l.history].reverse().find((h) => h.previousHolder !== null);
  return {
    namespace: l.namespace,
    name: l.name,
    holder: l.holder,
    state: l.state,
    renewAgeMs: l.renewAgeMs,
    leaseDurationSeconds: l.leaseDurationSeconds,
    transitions: l.transitions,
    heldForMs: l.heldForMs,
    lastFailover: last
      ? { at: last.firstSeenAt, from: last.previousHolder, to: last.holder, gapMs: last.failoverGapMs, fromEnded: last.previousEndReason }
      : null,
    strategy: l.strategy,
    preferredHolder: l.preferredHolder,
    candidates: l.candidates,
    election: l.election,
    vacancy: l.vacancy,
    history: l.history,
  };
}

interface Group {
  key: string;
  name: string;
  lease: LeaderLeaseRow | null;
  members: { target: TopTarget; status: SourceStatus | undefined }[];
}

/** The whole view; pure. */
export function buildTopView(input: TopInput): TopView {
  const t = input.thresholds ?? DEFAULT_THRESHOLDS;
  const statuses = new Map((input.metrics?.sources ?? []).map((s) => [s.source, s]));
  const groups = new Map<string, Group>();
  for (const l of input.leases) groups.set(keyOf(l.namespace, l.name), { key: keyOf(l.namespace, l.name), name: l.name, lease: l, members: [] });
  for (const target of input.targets) {
    const status = statuses.get(target.source);
    const lease = leaseFor(target, status, input.leases);
    const key = lease ? keyOf(lease.namespace, lease.name) : `source:${target.component ?? target.source}`;
    let g = groups.get(key);
    if (!g) {
      g = { key, name: target.component ?? target.source, lease: null, members: [] };
      groups.set(key, g);
    }
    g.members.push({ target, status });
  }
  const components = [...groups.values()].map((g) => component(g, t, input.history));
  components.sort(
    (a, b) => COMPONENT_STATES.indexOf(a.state) - COMPONENT_STATES.indexOf(b.state) || a.name.localeCompare(b.name) || a.key.localeCompare(b.key),
  );
  return {
    at: new Date(input.now).toISOString(),
    intervalMs: input.metrics?.intervalMs ?? null,
    components,
    leaseError: input.leaseError ?? null,
    discoveryErrors: [...(input.discoveryErrors ?? [])],
    candidates: input.candidates ?? { access: 'unknown', error: null },
    targets: input.targets.map((x) => ({ ...x, foundBy: [...x.foundBy] })),
  };
}

function replicaRole(g: Group, target: TopTarget, status: SourceStatus | undefined, staleCounts: boolean): Pick<TopReplica, 'role' | 'roleBecause'> {
  const lease = g.lease;
  if (!lease) return { role: null, roleBecause: null };
  if (status?.stats && (status.ok || staleCounts)) {
    const row = status.stats.leaderElection.find((r) => r.name === lease.name);
    const when = status.ok ? '' : ' (its last good scrape)';
    if (row?.isLeader === true) return { role: 'leader', roleBecause: `leader_election_master_status 1${when}` };
    if (row?.isLeader === false) return { role: 'standby', roleBecause: `leader_election_master_status 0${when}` };
  }
  if (lease.holder && lease.state !== 'expired') {
    const host = identityHost(lease.holder);
    const names = [target.pod, target.host].filter((x): x is string => x !== null);
    // Replicas on one host (several processes of one machine) cannot be told apart by host name.
    const distinct = new Set(g.members.map((m) => m.target.pod ?? m.target.host)).size === g.members.length;
    if (distinct && names.includes(host)) return { role: 'leader', roleBecause: `holder identity ${lease.holder} names ${host}` };
  }
  return { role: null, roleBecause: null };
}

function component(g: Group, t: Thresholds, history: TopSeries | undefined): TopComponent {
  const heldValid = g.lease !== null && g.lease.holder !== null && g.lease.state !== 'expired' && g.lease.state !== 'released';
  // A replica whose scrape fails keeps the role its last good scrape reported, while the Lease is
  // still held and no replica that answers now reports leading: a leader that stops answering holds
  // the Lease until it expires, and that is what makes the component unreachable.
  const freshLeader = g.members.some(
    ({ target, status }) => status?.ok && replicaRole(g, target, status, false).roleBecause?.startsWith('leader_election_master_status 1'),
  );
  const replicas: TopReplica[] = g.members.map(({ target, status }) => ({
    source: target.source,
    pod: target.pod,
    ...replicaRole(g, target, status, !freshLeader && heldValid),
    state: status ? sourceState(status) : 'pending',
    error: status?.error ? `${status.error}${status.hint ? ` (${status.hint})` : ''}` : null,
    windowSeconds: status?.stats?.windowSeconds ?? null,
    foundBy: [...target.foundBy],
  }));
  const leaderIndex = replicas.findIndex((r) => r.role === 'leader');
  if (leaderIndex >= 0 && heldValid) {
    for (const r of replicas) if (r.role === null) r.role = 'standby';
  }
  const statusOf = (i: number): SourceStatus | undefined => g.members[i]?.status;
  let shownIndex = leaderIndex;
  if (shownIndex < 0) shownIndex = g.members.findIndex((m) => (m.status?.stats?.queues.length ?? 0) > 0 || (m.status?.stats?.controllers.length ?? 0) > 0);
  const shown = shownIndex >= 0 ? statusOf(shownIndex) : undefined;
  const stats = shown?.stats ?? null;

  const queues = componentQueues(g.key, stats, t, history);
  const controllers = stats?.controllers ?? [];

  const { state, reasons } = judge(g, t, heldValid, leaderIndex, queues, controllers, shown);

  let note: string | null = null;
  if (g.members.length === 0) note = 'no metrics source found for it (add one with --metrics)';
  else if (!stats) note = replicas.every((r) => r.state === 'pending') ? 'waiting for the first scrape' : 'no metrics read yet';
  else if (queues.length === 0 && controllers.length === 0) note = 'exports no workqueue metrics';

  return {
    key: g.key,
    name: g.name,
    state,
    reasons,
    lease: g.lease ? topLease(g.lease) : null,
    leader: leaderIndex >= 0 ? replicas[leaderIndex]!.source : null,
    replicas,
    queues,
    controllers,
    depth: sum(queues.map((q) => q.depth)),
    addsPerSecond: sum(queues.map((q) => q.addsPerSecond)),
    retriesPerSecond: sum(queues.map((q) => q.retriesPerSecond)),
    errorsPerSecond: sum(controllers.map((c) => c.errorsPerSecond)),
    depthSeries: history?.series(g.key, '', 'depth') ?? [],
    retrySeries: history?.series(g.key, '', 'retries') ?? [],
    sampledAt: stats ? new Date(stats.atMs).toISOString() : null,
    note,
  };
}

/** The queues of the replica shown, each with its state, its controller's numbers and its series; the least healthy first. */
function componentQueues(key: string, stats: SourceStatus['stats'] | null, t: Thresholds, history: TopSeries | undefined): TopQueue[] {
  const queues: TopQueue[] = (stats?.queues ?? []).map((q) => {
    const label = queueLabel(q);
    const ctl = q.controller === null ? undefined : stats?.controllers.find((x) => x.controller === q.controller);
    return {
      ...q,
      state: queueState(q, t),
      reconcile: ctl
        ? {
            reconcilesPerSecond: ctl.reconcilesPerSecond,
            errorsPerSecond: ctl.errorsPerSecond,
            activeWorkers: ctl.activeWorkers,
            maxConcurrentReconciles: ctl.maxConcurrentReconciles,
          }
        : null,
      depthSeries: history?.series(key, label, 'depth') ?? [],
      retrySeries: history?.series(key, label, 'retries') ?? [],
    };
  });
  queues.sort(
    (a, b) =>
      QUEUE_STATES.indexOf(a.state) - QUEUE_STATES.indexOf(b.state) ||
      (b.depth ?? 0) - (a.depth ?? 0) ||
      (b.addsPerSecond ?? 0) - (a.addsPerSecond ?? 0) ||
      queueLabel(a).localeCompare(queueLabel(b)),
  );
  return queues;
}

/** The component's state by the rule in the header, and every reason that held. */
function judge(
  g: Group,
  t: Thresholds,
  heldValid: boolean,
  leaderIndex: number,
  queues: readonly TopQueue[],
  controllers: readonly ControllerRow[],
  shown: SourceStatus | undefined,
): { state: ComponentState; reasons: string[] } {
  const statusOf = (i: number): SourceStatus | undefined => g.members[i]?.status;
  const reasons: string[] = [];
  let state: ComponentState = 'ok';
  const set = (s: ComponentState, why: string): void => {
    if (COMPONENT_STATES.indexOf(s) < COMPONENT_STATES.indexOf(state)) state = s;
    reasons.push(why);
  };
  if (g.lease && !heldValid) {
    set(
      'no leader',
      g.lease.holder === null
        ? g.lease.vacancy
          ? `Lease ${g.key} has no holder: ${g.lease.vacancy.lastHolder} ${g.lease.vacancy.endReason === 'released' ? 'released it' : g.lease.vacancy.endReason} ${Math.round(g.lease.vacancy.forMs / 1000)}s ago`
          : `Lease ${g.key} is released: no holder`
        : `Lease ${g.key}: ${g.lease.holder} expired, ${Math.round(-g.lease.expiresInMs / 1000)}s ago`,
    );
  }
  const failed = (s: SourceStatus | undefined): boolean => s !== undefined && !s.ok && s.error !== null;
  if (leaderIndex >= 0 ? failed(statusOf(leaderIndex)) : g.members.length > 0 && g.members.every((m) => failed(m.status))) {
    const which = leaderIndex >= 0 ? [g.members[leaderIndex]!] : g.members;
    for (const m of which) set('unreachable', `${m.target.source}: ${m.status!.error}`);
  }
  for (const q of queues) {
    if (q.state === 'stuck') {
      set(
        'stuck',
        (q.longestRunningProcessorSeconds ?? 0) >= t.stuckAfterSeconds
          ? `queue ${queueLabel(q)}: an item has been worked on for ${Math.round(q.longestRunningProcessorSeconds!)}s`
          : `queue ${queueLabel(q)}: ${q.depth} waiting, none taken in ${shown?.stats?.windowSeconds?.toFixed(1) ?? '?'}s`,
      );
    } else if (q.state === 'retrying') set('retrying', `queue ${queueLabel(q)}: ${q.retriesPerSecond!.toFixed(2)} retries/s`);
    else if (q.state === 'backlog')
      set('backlog', `queue ${queueLabel(q)}: depth ${q.depth ?? '-'}, queue p99 ${q.queueTime.p99 === null ? '-' : `${q.queueTime.p99.toFixed(1)}s`}`);
  }
  for (const c of controllers) if ((c.errorsPerSecond ?? 0) > 0) set('retrying', `controller ${c.controller}: ${c.errorsPerSecond!.toFixed(2)} errors/s`);
  return { state, reasons };
}

const BARS = '▁▂▃▄▅▆▇█';

/** A sparkline of the last `width` points, scaled to their maximum; absent points are spaces. */
export function sparkline(points: readonly (number | null)[], width = 20): string {
  const tail = points.slice(-width);
  const max = Math.max(0, ...tail.map((v) => v ?? 0));
  return tail.map((v) => (v === null ? ' ' : max === 0 ? BARS[0] : BARS[Math.min(BARS.length - 1, Math.round((v / max) * (BARS.length - 1)))])).join('');
}

/** How each source was found, one block per source, for --explain-discovery. */
export function explainDiscovery(view: Pick<TopView, 'targets' | 'discoveryErrors'>): string {
  const lines: string[] = [];
  for (const t of view.targets) {
    lines.push(`${t.source}${t.component ? ` (${t.component})` : ''}`);
    for (const f of t.foundBy) lines.push(`  found: ${f}`);
    if (t.lease) lines.push(`  lease: ${t.lease}`);
  }
  for (const e of view.discoveryErrors) lines.push(`not searched: ${e}`);
  return `${lines.join('\n')}\n`;
}

// ---- cells shared by the table and the TUI ------------------------------------------------------

export const COMPONENT_COLUMNS = [
  'component',
  'state',
  'holder',
  'renew',
  'trans',
  'last failover',
  'replicas',
  'depth',
  'adds/s',
  'retries/s',
  'depth ~',
  'retries ~',
] as const;
export const TOP_QUEUE_COLUMNS = [
  '  queue',
  'state',
  'depth',
  'adds/s',
  'retries/s',
  'queue p99',
  'work p99',
  'unfinished',
  'longest',
  'depth ~',
  'retries ~',
  'reconciles/s',
  'errors/s',
  'workers',
] as const;
/** The controller-runtime columns of TOP_QUEUE_COLUMNS (left out when no queue has them). */
export const RECONCILE_COLUMNS = [11, 12, 13] as const;

function shortMs(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '-';
  const a = Math.abs(ms);
  if (a < 1000) return `${Math.round(ms)}ms`;
  if (a < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return `${Math.floor(ms / 60_000)}m${Math.round((a % 60_000) / 1000)}s`;
}

function rate(v: number | null): string {
  if (v === null) return '-';
  if (v === 0) return '0';
  return v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

function secs(v: number | null): string {
  return v === null ? '-' : shortMs(v * 1000);
}

/** "a leads (1 standby)", "2 replicas, leader unknown", "1 failed". */
export function replicasCell(c: TopComponent): string {
  if (c.replicas.length === 0) return '-';
  const failed = c.replicas.filter((r) => r.state === 'failed' || r.state === 'stale').length;
  const standby = c.replicas.filter((r) => r.role === 'standby').length;
  const parts = [`${c.replicas.length}`];
  if (c.leader) parts.push(`1 leads${standby ? `, ${standby} standby` : ''}`);
  if (failed) parts.push(`${failed} unreachable`);
  return parts.join(': ');
}

export function failoverCell(l: TopLease | null): string {
  if (!l?.lastFailover) return '-';
  const f = l.lastFailover;
  return `${f.at.slice(11, 19)} gap ${shortMs(f.gapMs)}${f.fromEnded === 'released' ? ' (release)' : ''}`;
}

export function componentCells(c: TopComponent): string[] {
  const l = c.lease;
  return [
    c.name,
    c.state,
    l ? (l.holder ?? '<none>') : 'no lease',
    l ? `${shortMs(l.renewAgeMs)}/${l.leaseDurationSeconds}s` : '-',
    l ? String(l.transitions) : '-',
    failoverCell(l),
    replicasCell(c),
    c.depth === null ? '-' : String(Math.round(c.depth)),
    rate(c.addsPerSecond),
    rate(c.retriesPerSecond),
    sparkline(c.depthSeries, 12),
    sparkline(c.retrySeries, 12),
  ];
}

export function topQueueCells(q: TopQueue): string[] {
  return [
    `  ${queueLabel(q)}`,
    q.state,
    q.depth === null ? '-' : String(Math.round(q.depth)),
    rate(q.addsPerSecond),
    rate(q.retriesPerSecond),
    secs(q.queueTime.p99),
    secs(q.workTime.p99),
    secs(q.unfinishedWorkSeconds),
    secs(q.longestRunningProcessorSeconds),
    sparkline(q.depthSeries, 12),
    sparkline(q.retrySeries, 12),
    q.reconcile ? rate(q.reconcile.reconcilesPerSecond) : '-',
    q.reconcile ? rate(q.reconcile.errorsPerSecond) : '-',
    q.reconcile ? `${q.reconcile.activeWorkers ?? '-'}/${q.reconcile.maxConcurrentReconciles ?? '-'}` : '-',
  ];
}

/** The queues worth a line under a component: all but the idle ones, unless asked. */
export function shownQueues(c: TopComponent, all = false): TopQueue[] {
  return all ? c.queues : c.queues.filter((q) => q.state !== 'idle');
}
