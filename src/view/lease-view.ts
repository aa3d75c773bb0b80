/**
 * The lease-watch view model: plain, serialisable data built from LeaseObserver snapshots, the
 * change log and (optionally) leader_election_master_status scrapes. Every output (the ink TUI, the
 * table, json, ndjson) renders this and nothing else, so they cannot disagree.
 *
 * - Roles: a Lease in kube-node-lease is a node heartbeat (holder = node name); one labelled
 *   apiserver.kubernetes.io/identity is an API server identity heartbeat; every other Lease is
 *   treated as a leader-election lease. Heartbeats are summarised apart.
 * - Times we measured are our clock (ms, or ISO strings for instants); times a holder wrote
 *   (acquireTime, renewTime) are passed through as written.
 * - Severity follows the observer's state: valid → ok, expiring (renew older than half the
 *   duration) → warn, expired → bad, released → idle.
 * - `--since` bounds history rows and changes to those that ended (or happened) in the window;
 *   the current tenure is always kept.
 * - Coordinated leader election: a Lease's LeaseCandidates (same namespace, spec.leaseName = its
 *   name), best first by the strategy, and one line on why the holder holds or what the Lease
 *   waits for (src/lease/coordinated-election.ts). Only when the API server serves LeaseCandidates
 *   and we may list them: otherwise `candidates` is null on every row and `candidates.access`
 *   says why, once, for the whole view.
 * - A release (the holder wrote an empty holder on exit) is a change of its own, and the next
 *   acquisition names how the previous tenure ended, so a release's gap is never an expiry's.
 */
import type { CandidateRecord, CandidateState, Election, HolderTenure, LeaseEvent, LeaseSnapshot, LeaseState } from '../lease/index.js';
import { candidateState, judgeElection, parseMicroTime, rankCandidates } from '../lease/index.js';
import { shortDuration } from '../util/duration.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
export const APISERVER_IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';

export type LeaseRole = 'leader' | 'node' | 'apiserver';
export type Severity = 'ok' | 'warn' | 'bad' | 'idle';

/** What kind of Lease this is, from where it lives and how it is labelled. */
export function leaseRole(namespace: string, labels: Record<string, string> | undefined): LeaseRole {
  if (namespace === NODE_LEASE_NAMESPACE) return 'node';
  if (labels && APISERVER_IDENTITY_LABEL in labels) return 'apiserver';
  return 'leader';
}

export function severityOf(state: LeaseState): Severity {
  switch (state) {
    case 'valid':
      return 'ok';
    case 'expiring':
      return 'warn';
    case 'expired':
      return 'bad';
    case 'released':
      return 'idle';
  }
}

/** leader_election_master_status of one scraped component for one lease name. */
export interface MasterStatus {
  /** The metrics source as the user wrote it. */
  source: string;
  /** 1 → true, 0 → false, anything else (or absent) → null. */
  isLeader: boolean | null;
  value: number | null;
  /** The last scrape of this source failed; the value (if any) is from an earlier scrape. */
  stale: boolean;
  error: string | null;
}

/** What the command hands in per metrics source (decoupled from src/metrics' own shapes). */
export interface MetricsSourceInput {
  source: string;
  ok: boolean;
  stale: boolean;
  error: string | null;
  /** leader_election_master_status rows by lease name; null before the first good scrape. */
  leaderElection: { name: string; isLeader: boolean | null; value: number | null }[] | null;
}

/** One holder's time with a lease. */
export interface TenureRow {
  holder: string;
  /** acquireTime as the holder wrote it. */
  acquireTime: string | null;
  /** Our clock: first seen holding, and when the tenure ended (null while it lasts). */
  firstSeenAt: string;
  endedAt: string | null;
  endReason: HolderTenure['endReason'];
  heldForMs: number;
  renewsSeen: number;
  previousHolder: string | null;
  /** How the previous holder's tenure ended: released (on exit), expired, replaced; null without one. */
  previousEndReason: HolderTenure['previousEndReason'];
  /** Time with no valid leader before this holder (from the previous holder's judged expiry or release). */
  failoverGapMs: number | null;
  /** From the previous holder's last renew we saw to this holder's first sighting: for an expiry, about leaseDuration plus a retry. */
  sinceLastRenewMs: number | null;
  /** True for a holder that already held the lease when we started watching. */
  heldAtStart: boolean;
}

/** One LeaseCandidate of a Lease. Times as written (the candidate's and the API server's clocks). */
export interface CandidateRow {
  /** metadata.name: the identity it stands as, and the Lease's holderIdentity when elected. */
  identity: string;
  binaryVersion: string | null;
  emulationVersion: string | null;
  strategy: string | null;
  /** When the election controller last asked it to answer, and when it last renewed. */
  pingTime: string | null;
  renewTime: string | null;
  /** Their ages on our clock (so they include the writers' clock skew); null when unset. */
  pingAgeMs: number | null;
  renewAgeMs: number | null;
  state: CandidateState;
  /** It holds the Lease / the Lease names it as preferredHolder / the strategy puts it first. */
  holder: boolean;
  preferred: boolean;
  first: boolean;
}

/** Whether LeaseCandidates are watched; said once for the whole view. */
export interface CandidatesStatus {
  /**
   * watched: listed and watched; not served: the API server does not serve them (coordinated
   * leader election is off); not permitted: RBAC refused to list them; failed: another error;
   * unknown: not looked up (yet).
   */
  access: 'watched' | 'not served' | 'not permitted' | 'failed' | 'unknown';
  /** What was refused or failed, as the API server said it. */
  error: string | null;
}

/** The fields of a Lease's snapshot that its row shows as they are (renewAgeMs: since the record last changed, on our clock). */
type SnapshotFields =
  | 'namespace'
  | 'name'
  | 'holder'
  | 'state'
  | 'renewAgeMs'
  | 'expiresInMs'
  | 'leaseDurationSeconds'
  | 'acquireTime'
  | 'renewTime'
  | 'transitions'
  | 'heldForMs'
  | 'strategy'
  | 'preferredHolder';

export interface LeaderLeaseRow extends Pick<LeaseSnapshot, SnapshotFields> {
  severity: Severity;
  /** Time since renewTime as the holder wrote it (includes clock skew); null without renewTime. */
  renewTimeAgeMs: number | null;
  /** now − acquireTime (the holder's clock): the time held for a holder that held it before we looked. */
  acquiredAgeMs: number | null;
  /**
   * Its LeaseCandidates, the strategy's first first (those an election would count before the
   * rest); null when LeaseCandidates are not watched (see LeaseWatchView.candidates).
   */
  candidates: CandidateRow[] | null;
  /** Why the holder holds, or what the Lease waits for, under coordinated leader election; null outside it. */
  election: Election | null;
  /** With no holder: who held it last while we watched, how that ended, and for how long there has been no leader. */
  vacancy: { lastHolder: string; endReason: 'released' | 'expired' | 'replaced'; since: string; forMs: number } | null;
  /** Oldest first; the last is the current holder's when held. */
  history: TenureRow[];
  /** null when no metrics source was given. */
  masterStatus: MasterStatus[] | null;
}

export interface HeartbeatRow {
  namespace: string;
  /** The node's name for a node lease (kubelets name the lease after the node), the API server id otherwise. */
  name: string;
  /** The holder as written: the node name for a kubelet, the controller's identity for kwok. */
  holder: string | null;
  stale: boolean;
  state: LeaseState;
  renewAgeMs: number;
  renewTimeAgeMs: number | null;
  leaseDurationSeconds: number;
  renewTime: string | null;
}

export interface HeartbeatSummary {
  total: number;
  staleCount: number;
  /** Stale first (longest without a renew first), then by name. */
  leases: HeartbeatRow[];
}

export type ChangeType = LeaseEvent['type'] | 'resumed';

/** One holder change, as streamed by -o ndjson; every key is always present (null when it does not apply). */
export interface LeaseChange {
  seq: number;
  type: ChangeType;
  role: LeaseRole;
  namespace: string;
  name: string;
  /** Our clock, ISO. */
  at: string;
  holder: string | null;
  previousHolder: string | null;
  failoverGapMs: number | null;
  /** acquired: how the previous holder's tenure ended (released, expired, replaced). */
  previousEndReason: 'released' | 'expired' | 'replaced' | null;
  sinceLastRenewMs: number | null;
  transitions: number | null;
  acquireTime: string | null;
  heldForMs: number | null;
  /** expired: when we last saw the holder renew. */
  lastRenewAt: string | null;
  /** acquired: the Lease's strategy (coordinated leader election) when the holder was seen. */
  strategy: string | null;
  /** acquired: the Lease's LeaseCandidates at that moment; null when they are not watched. */
  candidates: CandidateRow[] | null;
}

export interface LeaseWatchView {
  /** Our clock, ISO. */
  at: string;
  scope: { namespace: string | null; name: string | null; selector: string | null };
  synced: boolean;
  sinceMs: number | null;
  leases: LeaderLeaseRow[];
  nodes: HeartbeatSummary;
  apiservers: HeartbeatSummary;
  /** Holder changes seen since we started (within --since), oldest first. */
  changes: LeaseChange[];
  /** Metrics sources that failed on their last scrape. */
  metricsErrors: { source: string; error: string }[];
  /** Whether LeaseCandidates are watched (the rows' `candidates` are null unless they are). */
  candidates: CandidatesStatus;
}

export interface ViewInput {
  now: number;
  snapshots: LeaseSnapshot[];
  roles: ReadonlyMap<string, LeaseRole>;
  /** Leases that were already held when the watch started (first seen in the initial list). */
  heldAtStart?: ReadonlySet<string>;
  changes: readonly LeaseChange[];
  scope: LeaseWatchView['scope'];
  synced: boolean;
  sinceMs: number | null;
  metrics: readonly MetricsSourceInput[] | null;
  /** Every LeaseCandidate seen; null when they are not watched. */
  candidates?: readonly CandidateRecord[] | null;
  candidatesStatus?: CandidatesStatus;
}

export function leaseKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Builds the whole view; pure. */
export function buildLeaseView(input: ViewInput): LeaseWatchView {
  const { now } = input;
  const windowStart = input.sinceMs === null ? -Infinity : now - input.sinceMs;
  const leases: LeaderLeaseRow[] = [];
  const nodes: HeartbeatRow[] = [];
  const apiservers: HeartbeatRow[] = [];
  const byLease = candidatesByLease(input.candidates ?? null);
  for (const s of input.snapshots) {
    const key = leaseKey(s.namespace, s.name);
    const role = input.roles.get(key) ?? leaseRole(s.namespace, undefined);
    if (role === 'leader') {
      leases.push(leaderRow(s, now, windowStart, input.heldAtStart?.has(key) ?? false, input.metrics, byLease && (byLease.get(key) ?? [])));
    } else {
      (role === 'node' ? nodes : apiservers).push(heartbeatRow(s, now));
    }
  }
  return {
    at: new Date(now).toISOString(),
    scope: input.scope,
    synced: input.synced,
    sinceMs: input.sinceMs,
    leases,
    nodes: summarise(nodes),
    apiservers: summarise(apiservers),
    changes: input.changes.filter((c) => Date.parse(c.at) >= windowStart),
    metricsErrors: (input.metrics ?? []).filter((m) => !m.ok && m.error).map((m) => ({ source: m.source, error: m.error! })),
    candidates: input.candidatesStatus ?? { access: input.candidates ? 'watched' : 'unknown', error: null },
  };
}

function candidatesByLease(all: readonly CandidateRecord[] | null): Map<string, CandidateRecord[]> | null {
  if (all === null) return null;
  const out = new Map<string, CandidateRecord[]>();
  for (const c of all) {
    const key = leaseKey(c.namespace, c.leaseName);
    let list = out.get(key);
    if (!list) out.set(key, (list = []));
    list.push(c);
  }
  return out;
}

/** A Lease's candidates as rows, the strategy's first first; pure. */
export function candidateRows(
  candidates: readonly CandidateRecord[],
  lease: Pick<LeaseSnapshot, 'holder' | 'preferredHolder'>,
  first: string | null,
  now: number,
): CandidateRow[] {
  return rankCandidates(candidates, now).map((c) => ({
    identity: c.name,
    binaryVersion: c.binaryVersion,
    emulationVersion: c.emulationVersion,
    strategy: c.strategy,
    pingTime: c.pingTime,
    renewTime: c.renewTime,
    pingAgeMs: writtenAge(c.pingTime, now),
    renewAgeMs: writtenAge(c.renewTime, now),
    state: candidateState(c, now),
    holder: lease.holder === c.name,
    preferred: lease.preferredHolder === c.name,
    first: first === c.name,
  }));
}

/** Age of a time the holder wrote, on our clock (so it includes the holder's clock skew). */
function writtenAge(time: string | null, now: number): number | null {
  const t = time === null ? undefined : parseMicroTime(time);
  return t === undefined ? null : Math.round(now - t);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** History rows of one snapshot, with the time from each predecessor's last renew to the handover. */
export function tenureRows(history: readonly HolderTenure[], heldAtStart: boolean): TenureRow[] {
  return history.map((h, i) => {
    const prev = i > 0 ? history[i - 1] : undefined;
    const sinceLastRenewMs = prev && prev.holder === h.previousHolder ? h.firstSeenAt - prev.lastRenewSeenAt : null;
    return {
      holder: h.holder,
      acquireTime: h.acquireTime,
      firstSeenAt: iso(h.firstSeenAt),
      endedAt: h.endedAt === null ? null : iso(h.endedAt),
      endReason: h.endReason,
      heldForMs: h.heldForMs,
      renewsSeen: h.renewsSeen,
      previousHolder: h.previousHolder,
      previousEndReason: h.previousEndReason,
      failoverGapMs: h.failoverGapMs,
      sinceLastRenewMs,
      heldAtStart: heldAtStart && i === 0 && h.previousHolder === null,
    };
  });
}

function leaderRow(
  s: LeaseSnapshot,
  now: number,
  windowStart: number,
  heldAtStart: boolean,
  metrics: readonly MetricsSourceInput[] | null,
  candidates: readonly CandidateRecord[] | null,
): LeaderLeaseRow {
  const rows = tenureRows(s.history, heldAtStart);
  const election = candidates === null ? null : judgeElection(s, candidates, now);
  const history = rows.filter((r, i) => r.endedAt === null || i === rows.length - 1 || Date.parse(r.endedAt) >= windowStart);
  return {
    namespace: s.namespace,
    name: s.name,
    holder: s.holder,
    state: s.state,
    severity: severityOf(s.state),
    renewAgeMs: s.renewAgeMs,
    renewTimeAgeMs: writtenAge(s.renewTime, now),
    expiresInMs: s.expiresInMs,
    leaseDurationSeconds: s.leaseDurationSeconds,
    acquireTime: s.acquireTime,
    renewTime: s.renewTime,
    transitions: s.transitions,
    heldForMs: s.heldForMs,
    acquiredAgeMs: writtenAge(s.acquireTime, now),
    strategy: s.strategy,
    preferredHolder: s.preferredHolder,
    candidates: candidates === null ? null : candidateRows(candidates, s, election?.first ?? null, now),
    election,
    vacancy:
      s.holder === null && s.lastHolder
        ? {
            lastHolder: s.lastHolder.holder,
            endReason: s.lastHolder.endReason,
            since: iso(s.lastHolder.endedAt),
            forMs: Math.max(0, now - s.lastHolder.endedAt),
          }
        : null,
    history,
    masterStatus: metrics === null ? null : masterStatusFor(s.name, metrics),
  };
}

/**
 * leader_election_master_status carries the lease's name but not its namespace, so a source is
 * matched to every lease of that name; a source that does not report the name is left out.
 */
export function masterStatusFor(leaseName: string, metrics: readonly MetricsSourceInput[]): MasterStatus[] {
  const out: MasterStatus[] = [];
  for (const m of metrics) {
    const row = m.leaderElection?.find((r) => r.name === leaseName);
    if (row) out.push({ source: m.source, isLeader: row.isLeader, value: row.value, stale: m.stale || !m.ok, error: m.ok ? null : m.error });
  }
  return out;
}

function heartbeatRow(s: LeaseSnapshot, now: number): HeartbeatRow {
  return {
    namespace: s.namespace,
    name: s.name,
    holder: s.holder,
    // Judged on our clock, like the observer: not renewed within its own leaseDurationSeconds.
    stale: s.state === 'expired' || s.state === 'released',
    state: s.state,
    renewAgeMs: s.renewAgeMs,
    renewTimeAgeMs: writtenAge(s.renewTime, now),
    leaseDurationSeconds: s.leaseDurationSeconds,
    renewTime: s.renewTime,
  };
}

function summarise(rows: HeartbeatRow[]): HeartbeatSummary {
  const sorted = [...rows].sort((a, b) => Number(b.stale) - Number(a.stale) || (a.stale ? b.renewAgeMs - a.renewAgeMs : 0) || a.name.localeCompare(b.name));
  return { total: rows.length, staleCount: rows.filter((r) => r.stale).length, leases: sorted };
}

/** What an acquisition carries of coordinated leader election: the Lease's strategy and its candidates then. */
export interface AcquisitionContext {
  sinceLastRenewMs: number | null;
  strategy: string | null;
  candidates: CandidateRow[] | null;
}

/** An observer event as a change record; the caller measures `sinceLastRenewMs` and reads the election for acquisitions. */
export function changeFromEvent(seq: number, event: LeaseEvent, role: LeaseRole, context: AcquisitionContext | null = null): LeaseChange {
  const base = blankChange(seq, event.type, role, event.lease.namespace, event.lease.name, event.at, event.holder);
  switch (event.type) {
    case 'acquired':
      return {
        ...base,
        previousHolder: event.previousHolder,
        failoverGapMs: event.failoverGapMs,
        previousEndReason: event.previousEndReason,
        sinceLastRenewMs: context?.sinceLastRenewMs ?? null,
        transitions: event.transitions,
        acquireTime: event.acquireTime,
        strategy: context?.strategy ?? null,
        candidates: context?.candidates ?? null,
      };
    case 'released':
      return { ...base, heldForMs: event.heldForMs, transitions: event.transitions };
    case 'expired':
      return { ...base, lastRenewAt: iso(event.lastRenewSeenAt) };
    case 'deleted':
      return base;
  }
}

/** A holder renewed again after we had judged its lease expired (same holder, so no acquisition). */
export function resumedChange(seq: number, role: LeaseRole, namespace: string, name: string, at: number, holder: string, expiredAt: number): LeaseChange {
  return { ...blankChange(seq, 'resumed', role, namespace, name, at, holder), failoverGapMs: at - expiredAt };
}

/** A change with only what every change has; the kinds fill in their own fields. */
function blankChange(seq: number, type: LeaseChange['type'], role: LeaseRole, namespace: string, name: string, at: number, holder: string | null): LeaseChange {
  return {
    seq,
    type,
    role,
    namespace,
    name,
    at: iso(at),
    holder,
    previousHolder: null,
    failoverGapMs: null,
    previousEndReason: null,
    sinceLastRenewMs: null,
    transitions: null,
    acquireTime: null,
    heldForMs: null,
    lastRenewAt: null,
    strategy: null,
    candidates: null,
  };
}

// ---- formatters shared by the table and the TUI ------------------------------------------------

/** The age of a time the holder wrote, relative to our now; "-" when absent. */
export function ageOf(time: string | null, now: number): string {
  const t = time === null ? undefined : parseMicroTime(time);
  return t === undefined ? '-' : shortDuration(now - t);
}

/** HH:MM:SS of an ISO instant, in UTC (as Kubernetes writes times). */
export function clockTime(isoTime: string): string {
  return isoTime.slice(11, 19);
}

/** "1.2s / 15s": renew age over lease duration. */
export function renewCell(row: Pick<LeaderLeaseRow, 'renewAgeMs' | 'leaseDurationSeconds'>): string {
  return `${shortDuration(row.renewAgeMs)}/${row.leaseDurationSeconds}s`;
}

/**
 * Time held: measured on our clock since we first saw the holder; for a holder that already held
 * the lease when we started, from its acquireTime ("~", the holder's clock).
 */
export function heldCell(row: Pick<LeaderLeaseRow, 'heldForMs' | 'acquiredAgeMs' | 'history'>): string {
  if (row.heldForMs === null) return '-';
  if (row.history.at(-1)?.heldAtStart)
    return row.acquiredAgeMs !== null && row.acquiredAgeMs >= row.heldForMs ? `~${shortDuration(row.acquiredAgeMs)}` : `≥${shortDuration(row.heldForMs)}`;
  return shortDuration(row.heldForMs);
}

/** "2: 2 ready", "3: 1 ready, 2 unresponsive"; "" when not watched, "-" with none. */
export function candidatesCell(row: Pick<LeaderLeaseRow, 'candidates'>): string {
  if (row.candidates === null) return '';
  if (row.candidates.length === 0) return '-';
  const counts = new Map<CandidateState, number>();
  for (const c of row.candidates) counts.set(c.state, (counts.get(c.state) ?? 0) + 1);
  const order: CandidateState[] = ['ready', 'pinged', 'unresponsive', 'expired'];
  return `${row.candidates.length}: ${order
    .filter((s) => counts.has(s))
    .map((s) => `${counts.get(s)} ${s}`)
    .join(', ')}`;
}

/** "1/3": candidates that answer the election controller (ready or pinged) of those registered; "-" with none, "" when not watched. */
export function candidatesCount(row: Pick<LeaderLeaseRow, 'candidates'>): string {
  if (row.candidates === null) return '';
  if (row.candidates.length === 0) return '-';
  return `${row.candidates.filter((c) => c.state === 'ready' || c.state === 'pinged').length}/${row.candidates.length}`;
}

/** One candidate on one line: identity, versions, strategy, state and the ping and renew ages. */
export function candidateLine(c: CandidateRow): string {
  const marks = [c.holder ? 'holder' : '', c.preferred ? 'preferred holder' : '', c.first && !c.holder ? 'first by the strategy' : ''].filter(Boolean);
  return [
    c.identity,
    `binary ${c.binaryVersion ?? '-'}`,
    `emulation ${c.emulationVersion ?? '-'}`,
    c.strategy ?? '-',
    c.state,
    `pinged ${c.pingAgeMs === null ? 'never' : `${shortDuration(c.pingAgeMs)} ago`}`,
    `renewed ${c.renewAgeMs === null ? 'never' : `${shortDuration(c.renewAgeMs)} ago`}`,
    ...(marks.length ? [`(${marks.join(', ')})`] : []),
  ].join(' · ');
}

/** "no leader since 12:00:01 (a released, 3.2s ago)" for a Lease nobody holds; null otherwise. */
export function vacancyText(row: Pick<LeaderLeaseRow, 'vacancy'>): string | null {
  const v = row.vacancy;
  if (!v) return null;
  return `no leader for ${shortDuration(v.forMs)}: ${v.lastHolder} ${v.endReason === 'released' ? 'released it' : v.endReason} at ${clockTime(v.since)}`;
}

/**
 * A Lease's coordinated-election lines, for the table, the TUIs' details and top: how long it has
 * had no leader, why the holder holds (or what it waits for), and each candidate on a line.
 * Nothing for a Lease outside coordinated leader election that has a holder.
 */
export function electionLines(l: Pick<LeaderLeaseRow, 'election' | 'candidates' | 'vacancy'>): string[] {
  const out: string[] = [];
  const vacancy = vacancyText(l);
  if (vacancy) out.push(vacancy);
  if (l.election) out.push(`election: ${l.election.reason}`);
  if (l.candidates && l.candidates.length > 0) {
    out.push(`candidates (${l.candidates.length}):`);
    for (const c of l.candidates) out.push(`  ${candidateLine(c)}`);
  }
  return out;
}

/** The line said once when LeaseCandidates cannot be shown although the server serves them; null otherwise. */
export function candidatesNote(status: CandidatesStatus): string | null {
  switch (status.access) {
    case 'not permitted':
      return `candidates: not permitted${status.error ? ` (${status.error})` : ''}`;
    case 'failed':
      return `candidates: not shown${status.error ? ` (${status.error})` : ''}`;
    default:
      return null;
  }
}

export function strategyCell(row: Pick<LeaderLeaseRow, 'strategy' | 'preferredHolder'>): string {
  if (!row.strategy && !row.preferredHolder) return '-';
  return [row.strategy ?? '', row.preferredHolder ? `preferred ${row.preferredHolder}` : ''].filter(Boolean).join(', ');
}

export function masterCell(statuses: MasterStatus[] | null): string {
  if (statuses === null) return '';
  if (statuses.length === 0) return 'not reported';
  return statuses.map((m) => `${m.source}=${m.value === null ? '?' : m.value}${m.stale ? ' (stale)' : ''}`).join(' ');
}

/** One line describing a change, for -o table --watch and the TUI's log. */
export function describeChange(c: LeaseChange): string {
  const lease = leaseKey(c.namespace, c.name);
  const who = c.holder ?? '<none>';
  switch (c.type) {
    case 'acquired': {
      if (c.role !== 'leader') {
        // A heartbeat lease with a new holder (kwok restarted, a kubelet re-registered): the heartbeat is back.
        return c.previousHolder === null
          ? `${lease}: new, held by ${who}`
          : `${lease}: renewing again, now held by ${who}${c.failoverGapMs !== null ? `, after ${shortDuration(c.failoverGapMs)} stale` : ''}`;
      }
      const parts = [`${lease}: ${who} acquired`];
      if (c.previousHolder) parts.push(`after ${c.previousHolder}${c.previousEndReason === 'released' ? ' (released)' : ''}`);
      if (c.failoverGapMs !== null) parts.push(`gap ${shortDuration(c.failoverGapMs)}`);
      if (c.sinceLastRenewMs !== null) parts.push(`(${shortDuration(c.sinceLastRenewMs)} since its last renew)`);
      if (c.transitions !== null) parts.push(`transitions ${c.transitions}`);
      if (c.strategy) parts.push(`(elected: ${c.strategy})`);
      return parts.join(' ');
    }
    case 'released':
      return `${lease}: ${who} released after ${shortDuration(c.heldForMs)}`;
    case 'expired': {
      const since = `no renew since ${c.lastRenewAt ? clockTime(c.lastRenewAt) : '-'}`;
      // A heartbeat lease is named after its node (or API server); its holder adds nothing.
      return c.role === 'leader' ? `${lease}: ${who} expired (${since})` : `${lease}: stale (${since})`;
    }
    case 'deleted':
      return `${lease}: deleted${c.holder ? ` (held by ${c.holder})` : ''}`;
    case 'resumed':
      return `${lease}: ${c.role === 'leader' ? `${who} ` : ''}renewing again after ${shortDuration(c.failoverGapMs)} expired`;
  }
}

export function changeSeverity(c: LeaseChange): Severity {
  switch (c.type) {
    case 'acquired':
    case 'resumed':
      return 'ok';
    case 'released':
      return 'idle';
    case 'expired':
    case 'deleted':
      return 'bad';
  }
}
