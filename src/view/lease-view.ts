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
 */
import type { HolderTenure, LeaseEvent, LeaseSnapshot, LeaseState } from '../lease/index.js';
import { parseMicroTime } from '../lease/index.js';
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
  /** Time with no valid leader before this holder (from the previous holder's judged expiry or release). */
  failoverGapMs: number | null;
  /** From the previous holder's last renew we saw to this holder's first sighting: for an expiry, about leaseDuration plus a retry. */
  sinceLastRenewMs: number | null;
  /** True for a holder that already held the lease when we started watching. */
  heldAtStart: boolean;
}

export interface LeaderLeaseRow {
  namespace: string;
  name: string;
  holder: string | null;
  state: LeaseState;
  severity: Severity;
  /** Time since the record last changed, on our clock. */
  renewAgeMs: number;
  /** Time since renewTime as the holder wrote it (includes clock skew); null without renewTime. */
  renewTimeAgeMs: number | null;
  expiresInMs: number;
  leaseDurationSeconds: number;
  acquireTime: string | null;
  renewTime: string | null;
  transitions: number;
  heldForMs: number | null;
  /** now − acquireTime (the holder's clock): the time held for a holder that held it before we looked. */
  acquiredAgeMs: number | null;
  strategy: string | null;
  preferredHolder: string | null;
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
  sinceLastRenewMs: number | null;
  transitions: number | null;
  acquireTime: string | null;
  heldForMs: number | null;
  /** expired: when we last saw the holder renew. */
  lastRenewAt: string | null;
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
  for (const s of input.snapshots) {
    const key = leaseKey(s.namespace, s.name);
    const role = input.roles.get(key) ?? leaseRole(s.namespace, undefined);
    if (role === 'leader') {
      leases.push(leaderRow(s, now, windowStart, input.heldAtStart?.has(key) ?? false, input.metrics));
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
  };
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
      failoverGapMs: h.failoverGapMs,
      sinceLastRenewMs,
      heldAtStart: heldAtStart && i === 0 && h.previousHolder === null,
    };
  });
}

function leaderRow(s: LeaseSnapshot, now: number, windowStart: number, heldAtStart: boolean, metrics: readonly MetricsSourceInput[] | null): LeaderLeaseRow {
  const rows = tenureRows(s.history, heldAtStart);
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

/** An observer event as a change record; `sinceLastRenewMs` is measured by the caller for acquisitions. */
export function changeFromEvent(seq: number, event: LeaseEvent, role: LeaseRole, sinceLastRenewMs: number | null = null): LeaseChange {
  const base: LeaseChange = {
    seq,
    type: event.type,
    role,
    namespace: event.lease.namespace,
    name: event.lease.name,
    at: iso(event.at),
    holder: event.holder,
    previousHolder: null,
    failoverGapMs: null,
    sinceLastRenewMs: null,
    transitions: null,
    acquireTime: null,
    heldForMs: null,
    lastRenewAt: null,
  };
  switch (event.type) {
    case 'acquired':
      return {
        ...base,
        previousHolder: event.previousHolder,
        failoverGapMs: event.failoverGapMs,
        sinceLastRenewMs,
        transitions: event.transitions,
        acquireTime: event.acquireTime,
      };
    case 'released':
      return { ...base, heldForMs: event.heldForMs };
    case 'expired':
      return { ...base, lastRenewAt: iso(event.lastRenewSeenAt) };
    case 'deleted':
      return base;
  }
}

/** A holder renewed again after we had judged its lease expired (same holder, so no acquisition). */
export function resumedChange(seq: number, role: LeaseRole, namespace: string, name: string, at: number, holder: string, expiredAt: number): LeaseChange {
  return {
    seq,
    type: 'resumed',
    role,
    namespace,
    name,
    at: iso(at),
    holder,
    previousHolder: null,
    failoverGapMs: at - expiredAt,
    sinceLastRenewMs: null,
    transitions: null,
    acquireTime: null,
    heldForMs: null,
    lastRenewAt: null,
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
      if (c.previousHolder) parts.push(`after ${c.previousHolder}`);
      if (c.failoverGapMs !== null) parts.push(`gap ${shortDuration(c.failoverGapMs)}`);
      if (c.sinceLastRenewMs !== null) parts.push(`(${shortDuration(c.sinceLastRenewMs)} since its last renew)`);
      if (c.transitions !== null) parts.push(`transitions ${c.transitions}`);
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
