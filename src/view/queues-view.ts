/**
 * The controllers' work queues as every output shows them: `kubectl informer-trace queues` (table,
 * json, ndjson) and the queues pane of both TUIs. Built from a MetricsSnapshot; pure.
 *
 * - A source is pending (no scrape yet), ok, stale (the latest scrape failed; older numbers shown)
 *   or failed; a failure is one line: the reason, then the hint in parentheses.
 * - Absent is not zero: a number the target does not expose stays null, and its cell is "-".
 * - Idle queues (nothing queued, in progress or added between the two scrapes; before there are
 *   two, never took an item) are counted, and left out of the table and the pane unless asked for
 *   (--all, or by naming them); the json keeps every row.
 */
import type { ControllerRow, LeaderElectionRow, MetricsSnapshot, QueueRow, SourceStatus } from '../metrics/index.js';
import { formatDuration } from '../util/duration.js';

export type SourceState = 'pending' | 'ok' | 'stale' | 'failed';

export interface QueuesSourceView {
  source: string;
  state: SourceState;
  /** "answered text/html, not Prometheus metrics (is … the metrics endpoint? …)"; null when the latest scrape worked. */
  error: string | null;
  /** Seconds the rates cover; null before two good scrapes. */
  windowSeconds: number | null;
  /** "leader", "standby", or null when the source exports no leader_election_master_status. */
  leader: 'leader' | 'standby' | null;
  leaderElection: LeaderElectionRow[];
  /** The rows to show (filtered). */
  queues: QueueRow[];
  controllers: ControllerRow[];
  /** Every queue the source exports, shown or not. */
  queueCount: number;
  /** Queues left out because they were idle. */
  hiddenIdle: number;
}

export interface QueuesView {
  atMs: number;
  intervalMs: number;
  sources: QueuesSourceView[];
  /** Sources whose latest scrape worked. */
  okSources: number;
  failedSources: number;
}

export interface QueuesFilter {
  /** Queue or controller names to keep (`*` matches anything); empty keeps all. */
  names?: readonly string[];
  /** Keep idle queues (naming queues keeps them too). */
  includeIdle?: boolean;
}

/**
 * True for a queue with nothing to see: nothing queued, nothing in progress, no retries, and no
 * adds between the two scrapes (with one scrape only: no adds ever).
 */
export function isIdleQueue(q: QueueRow): boolean {
  const zeroOrAbsent = (v: number | null): boolean => v === null || v === 0;
  if (!zeroOrAbsent(q.depth) || !zeroOrAbsent(q.unfinishedWorkSeconds) || !zeroOrAbsent(q.retriesPerSecond)) return false;
  return q.addsPerSecond !== null ? q.addsPerSecond === 0 : zeroOrAbsent(q.addsTotal);
}

function nameMatcher(names: readonly string[] | undefined): (q: { name: string; controller: string | null }) => boolean {
  if (!names || names.length === 0) return () => true;
  const patterns = names.map(
    (n) =>
      new RegExp(
        `^${n
          .split('*')
          .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      ),
  );
  return (q) => patterns.some((p) => p.test(q.name) || (q.controller !== null && p.test(q.controller)));
}

export function sourceState(s: SourceStatus): SourceState {
  if (s.ok) return 'ok';
  if (s.error === null) return 'pending';
  return s.stale ? 'stale' : 'failed';
}

export function buildQueuesView(snapshot: MetricsSnapshot, filter: QueuesFilter = {}): QueuesView {
  const matches = nameMatcher(filter.names);
  const sources = snapshot.sources.map((s): QueuesSourceView => {
    const stats = s.stats;
    const all = stats?.queues ?? [];
    const named = all.filter(matches);
    const keepIdle = Boolean(filter.includeIdle) || (filter.names?.length ?? 0) > 0;
    const shown = keepIdle ? named : named.filter((q) => !isIdleQueue(q));
    const leaderElection = stats?.leaderElection ?? [];
    return {
      source: s.source,
      state: sourceState(s),
      error: s.error === null ? null : `${s.error}${s.hint ? ` (${s.hint})` : ''}`,
      windowSeconds: stats?.windowSeconds ?? null,
      leader: leaderElection.length === 0 ? null : leaderElection.some((r) => r.isLeader === true) ? 'leader' : 'standby',
      leaderElection,
      queues: shown,
      controllers: (stats?.controllers ?? []).filter((c) => matches({ name: c.controller, controller: c.controller })),
      queueCount: all.length,
      hiddenIdle: named.length - shown.length,
    };
  });
  return {
    atMs: snapshot.atMs,
    intervalMs: snapshot.intervalMs,
    sources,
    okSources: snapshot.sources.filter((s) => s.ok).length,
    failedSources: snapshot.sources.filter((s) => !s.ok && s.error !== null).length,
  };
}

/** One JSON document per snapshot: every row that matches the names (idle ones too), nulls kept. */
export function queuesJson(snapshot: MetricsSnapshot, filter: QueuesFilter = {}): unknown {
  const view = buildQueuesView(snapshot, { ...filter, includeIdle: true });
  return {
    at: new Date(snapshot.atMs).toISOString(),
    intervalMs: snapshot.intervalMs,
    sources: view.sources.map((v, i) => {
      const s = snapshot.sources[i]!;
      return {
        source: v.source,
        ok: s.ok,
        state: v.state,
        error: s.error,
        kind: s.kind,
        hint: s.hint,
        windowSeconds: v.windowSeconds,
        leader: v.leader,
        leaderElection: v.leaderElection,
        totals: s.stats?.totals ?? null,
        queues: v.queues,
        controllers: v.controllers,
      };
    }),
  };
}

/** "-" for absent; a count as an integer. */
export function countCell(v: number | null): string {
  return v === null ? '-' : String(Math.round(v));
}

/** Per-second rates: "-" absent, "0", "0.35", "12.5", "1.2k". */
export function rateCell(v: number | null): string {
  if (v === null) return '-';
  if (v === 0) return '0';
  if (v >= 1000) return `${(v / 1000).toFixed(1)}k`;
  if (v >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

/** Seconds as a short duration: "-", "0", "85µs", "3.2ms", "410ms", "1.25s", "2m5s". */
export function secondsCell(v: number | null): string {
  if (v === null) return '-';
  if (v === 0) return '0';
  if (v < 1e-3) return `${Math.max(1, Math.round(v * 1e6))}µs`;
  if (v < 0.01) return `${(v * 1e3).toFixed(1)}ms`;
  return formatDuration(v * 1000);
}

export function queueLabel(q: Pick<QueueRow, 'name' | 'controller'>): string {
  return q.controller !== null && q.controller !== q.name ? `${q.controller}/${q.name}` : q.name;
}

/** The cells of one queue row, in the order of QUEUE_COLUMNS. */
export function queueCells(q: QueueRow): string[] {
  return [
    queueLabel(q),
    countCell(q.depth),
    rateCell(q.addsPerSecond),
    rateCell(q.retriesPerSecond),
    secondsCell(q.queueTime.p50),
    secondsCell(q.queueTime.p99),
    secondsCell(q.workTime.p50),
    secondsCell(q.workTime.p99),
    secondsCell(q.unfinishedWorkSeconds),
    secondsCell(q.longestRunningProcessorSeconds),
  ];
}

export const QUEUE_COLUMNS = ['queue', 'depth', 'adds/s', 'retries/s', 'queue p50', 'queue p99', 'work p50', 'work p99', 'unfinished', 'longest'] as const;

export const CONTROLLER_COLUMNS = ['controller', 'reconciles/s', 'errors/s', 'results/s', 'reconcile p50', 'reconcile p99', 'workers'] as const;

export function controllerCells(c: ControllerRow): string[] {
  const results = Object.entries(c.resultsPerSecond)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${rateCell(v)}`)
    .join(' · ');
  const workers =
    c.activeWorkers === null && c.maxConcurrentReconciles === null ? '-' : `${countCell(c.activeWorkers)}/${countCell(c.maxConcurrentReconciles)}`;
  return [
    c.controller,
    rateCell(c.reconcilesPerSecond),
    rateCell(c.errorsPerSecond),
    results || '-',
    secondsCell(c.reconcileTime.p50),
    secondsCell(c.reconcileTime.p99),
    workers,
  ];
}

/** "ok · leader · rates over 2.0s · 54 queues (38 idle hidden)", or the error. */
export function sourceSummary(v: QueuesSourceView): string {
  if (v.state === 'pending') return 'waiting for the first scrape';
  const parts: string[] = [v.state];
  if (v.leader) parts.push(v.leader);
  parts.push(v.windowSeconds === null ? 'no rates yet (one scrape)' : `rates over ${formatDuration(v.windowSeconds * 1000)}`);
  parts.push(`${v.queueCount} queue${v.queueCount === 1 ? '' : 's'}${v.hiddenIdle > 0 ? ` (${v.hiddenIdle} idle hidden)` : ''}`);
  if (v.controllers.length > 0) parts.push(`${v.controllers.length} controller${v.controllers.length === 1 ? '' : 's'}`);
  return parts.join(' · ');
}
