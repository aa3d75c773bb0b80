/**
 * The live state behind `kubectl lease-watch`: an informer handler feeds a LeaseObserver; holder
 * changes go to a bounded change log and to subscribers; a timer re-judges every lease (valid →
 * expiring → expired) when no event arrives, so subscribers hear of state changes that only the
 * passing of time causes. `view()` returns the plain LeaseWatchView every output renders.
 *
 * - Acquisitions seen in the initial list are the state at start, not changes: they are not logged
 *   or streamed (the tenure is still in the history, marked heldAtStart).
 * - A holder that renews after we judged its lease expired is reported as `resumed` (the observer
 *   reports no acquisition, since the holder did not change).
 * - Time comes from the injected Clock; handlers use the informer's receive time.
 * - LeaseCandidates come through a second handler (candidateHandler) from an informer of their
 *   own, started only when the API server serves them (src/live/lease-candidates.ts);
 *   setCandidatesStatus says whether they are watched. An acquisition carries the Lease's strategy
 *   and its candidates at that moment.
 */
import { realClock, type Clock, type Timer } from '../clock.js';
import { isDeletedFinalStateUnknown, splitMetaNamespaceKey, type NotificationInfo, type SyncResourceEventHandler } from '../informer/index.js';
import type { KubeObject, Lease, LeaseCandidate } from '../kube/index.js';
import { candidateRecord, judgeElection, LeaseObserver, type CandidateRecord, type LeaseEvent, type LeaseState } from '../lease/index.js';
import {
  buildLeaseView,
  candidateRows,
  changeFromEvent,
  leaseKey,
  leaseRole,
  resumedChange,
  type CandidatesStatus,
  type LeaseChange,
  type LeaseRole,
  type LeaseWatchView,
  type MetricsSourceInput,
} from '../view/lease-view.js';

export const DEFAULT_TICK_MS = 1_000;
export const DEFAULT_CHANGE_LIMIT = 1_000;

export interface LeaseWatchModelOptions {
  clock?: Clock;
  scope?: LeaseWatchView['scope'];
  /** Bounds the history and the change log shown (ms); null for everything kept. */
  sinceMs?: number | null;
  /** Tenures kept per lease by the observer. Default 100. */
  historyLimit?: number;
  /** Changes kept in the log. Default 1000. */
  changeLimit?: number;
  /** How often states are re-judged without events. Default 1 s. */
  tickMs?: number;
}

export class LeaseWatchModel {
  readonly handler: SyncResourceEventHandler;
  /** Feeds coordination.k8s.io LeaseCandidates (any namespace); see setCandidatesStatus. */
  readonly candidateHandler: SyncResourceEventHandler;
  private readonly candidates = new Map<string, CandidateRecord>();
  private candidatesStatus: CandidatesStatus = { access: 'unknown', error: null };
  private readonly clock: Clock;
  private readonly observer: LeaseObserver;
  private readonly roles = new Map<string, LeaseRole>();
  private readonly heldAtStart = new Set<string>();
  /** Leases whose current holder we judged expired, with when. */
  private readonly expiredAt = new Map<string, { holder: string; at: number }>();
  private readonly changes: LeaseChange[] = [];
  private readonly changeListeners = new Set<(c: LeaseChange) => void>();
  private readonly updateListeners = new Set<() => void>();
  private readonly scope: LeaseWatchView['scope'];
  private readonly sinceMs: number | null;
  private readonly changeLimit: number;
  private readonly tickMs: number;
  private metrics: MetricsSourceInput[] | null = null;
  private synced = false;
  private inInitialList = false;
  private seq = 0;
  private tickTimer: Timer | undefined;
  private lastStates = '';
  private closed = false;

  constructor(options: LeaseWatchModelOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.scope = options.scope ?? { namespace: null, name: null, selector: null };
    this.sinceMs = options.sinceMs ?? null;
    this.changeLimit = options.changeLimit ?? DEFAULT_CHANGE_LIMIT;
    this.tickMs = options.tickMs ?? DEFAULT_TICK_MS;
    this.observer = new LeaseObserver({ clock: this.clock, historyLimit: options.historyLimit ?? 100, onEvent: (e) => this.onObserverEvent(e) });
    this.handler = {
      onAdd: (obj, isInInitialList, info) => this.observe(obj, isInInitialList, info),
      onUpdate: (_old, obj, info) => this.observe(obj, false, info),
      onDelete: (obj, info) => {
        const key = isDeletedFinalStateUnknown(obj) ? obj.key : leaseKey(obj.metadata.namespace ?? '', obj.metadata.name ?? '');
        const { namespace, name } = splitMetaNamespaceKey(key);
        this.observer.observeDeleted(namespace, name, info.receivedAt);
        this.roles.delete(key);
        this.heldAtStart.delete(key);
        this.expiredAt.delete(key);
        this.notify();
      },
    };
    const putCandidate = (obj: KubeObject): void => {
      const c = candidateRecord(obj as LeaseCandidate);
      this.candidates.set(leaseKey(c.namespace, c.name), c);
      this.notify();
    };
    this.candidateHandler = {
      onAdd: (obj) => putCandidate(obj),
      onUpdate: (_old, obj) => putCandidate(obj),
      onDelete: (obj) => {
        this.candidates.delete(isDeletedFinalStateUnknown(obj) ? obj.key : leaseKey(obj.metadata.namespace ?? '', obj.metadata.name ?? ''));
        this.notify();
      },
    };
  }

  /** Whether LeaseCandidates are watched (their rows are shown only then). */
  setCandidatesStatus(status: CandidatesStatus): void {
    this.candidatesStatus = { ...status };
    this.notify();
  }

  private watchedCandidates(): CandidateRecord[] | null {
    return this.candidatesStatus.access === 'watched' ? [...this.candidates.values()] : null;
  }

  /** Starts re-judging states every tick. */
  start(): void {
    if (this.tickTimer || this.closed) return;
    const arm = (): void => {
      this.tickTimer = this.clock.setTimer(this.tickMs, () => {
        this.tick();
        if (!this.closed) arm();
      });
    };
    arm();
  }

  /** Re-judges every lease now; tells subscribers when any state changed. */
  tick(): void {
    const states = this.stateSignature();
    if (states !== this.lastStates) {
      this.lastStates = states;
      this.notify();
    }
  }

  close(): void {
    this.closed = true;
    this.tickTimer?.stop();
    this.tickTimer = undefined;
    this.observer.close();
    this.changeListeners.clear();
    this.updateListeners.clear();
  }

  markSynced(): void {
    this.synced = true;
    this.lastStates = this.stateSignature();
    this.notify();
  }

  isSynced(): boolean {
    return this.synced;
  }

  setMetrics(metrics: MetricsSourceInput[] | null): void {
    this.metrics = metrics;
    this.notify();
  }

  has(namespace: string, name: string): boolean {
    return this.observer.snapshotOf(namespace, name) !== undefined;
  }

  /** Holder changes as they happen (not the state found at start). Returns an unsubscribe. */
  onChange(listener: (change: LeaseChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Anything shown may have changed (data, a state, metrics). Returns an unsubscribe. */
  onUpdate(listener: () => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  /** Every change still in the log, oldest first. */
  changeLog(): readonly LeaseChange[] {
    return this.changes;
  }

  view(now: number = this.clock.now()): LeaseWatchView {
    return buildLeaseView({
      now,
      snapshots: this.observer.snapshot(now),
      roles: this.roles,
      heldAtStart: this.heldAtStart,
      changes: this.changes,
      scope: this.scope,
      synced: this.synced,
      sinceMs: this.sinceMs,
      metrics: this.metrics,
      candidates: this.watchedCandidates(),
      candidatesStatus: this.candidatesStatus,
    });
  }

  private observe(obj: KubeObject, isInInitialList: boolean, info: NotificationInfo): void {
    const lease = obj as Lease;
    const namespace = lease.metadata.namespace ?? '';
    const name = lease.metadata.name ?? '';
    const key = leaseKey(namespace, name);
    this.roles.set(key, leaseRole(namespace, lease.metadata.labels));
    const firstSight = !this.has(namespace, name);
    this.inInitialList = isInInitialList;
    try {
      this.observer.observe(lease, info.receivedAt);
    } finally {
      this.inInitialList = false;
    }
    if (firstSight && isInInitialList && lease.spec?.holderIdentity) this.heldAtStart.add(key);
    const expired = this.expiredAt.get(key);
    if (expired) {
      const snap = this.observer.snapshotOf(namespace, name, info.receivedAt);
      if (snap && snap.holder === expired.holder && snap.state !== 'expired') {
        this.expiredAt.delete(key);
        this.log(resumedChange(++this.seq, this.roleOf(namespace, name), namespace, name, info.receivedAt, expired.holder, expired.at));
      }
    }
    this.notify();
  }

  private onObserverEvent(e: LeaseEvent): void {
    const { namespace, name } = e.lease;
    const key = leaseKey(namespace, name);
    const role = this.roleOf(namespace, name);
    if (e.type === 'expired') this.expiredAt.set(key, { holder: e.holder, at: e.at });
    else this.expiredAt.delete(key);
    // The holders found by the initial list are the starting state, not changes.
    if (this.inInitialList && e.type === 'acquired') return;
    let context = null;
    if (e.type === 'acquired') {
      const snap = this.observer.snapshotOf(namespace, name, e.at);
      let sinceLastRenewMs: number | null = null;
      const prev = snap?.history.at(-2);
      if (e.previousHolder !== null && prev && prev.holder === e.previousHolder) sinceLastRenewMs = e.at - prev.lastRenewSeenAt;
      const all = this.watchedCandidates();
      const mine = all?.filter((c) => c.namespace === namespace && c.leaseName === name);
      const election = snap && mine ? judgeElection(snap, mine, e.at) : null;
      context = {
        sinceLastRenewMs,
        strategy: snap?.strategy ?? null,
        candidates: snap && mine ? candidateRows(mine, snap, election?.first ?? null, e.at) : null,
      };
    }
    this.log(changeFromEvent(++this.seq, e, role, context));
    // Expiries come from the observer's timers, outside any handler call.
    if (e.type === 'expired') this.notify();
  }

  private roleOf(namespace: string, name: string): LeaseRole {
    return this.roles.get(leaseKey(namespace, name)) ?? leaseRole(namespace, undefined);
  }

  private log(change: LeaseChange): void {
    this.changes.push(change);
    if (this.changes.length > this.changeLimit) this.changes.splice(0, this.changes.length - this.changeLimit);
    for (const l of [...this.changeListeners]) l(change);
  }

  private notify(): void {
    for (const l of [...this.updateListeners]) l();
  }

  private stateSignature(): string {
    const states: string[] = [];
    for (const s of this.observer.snapshot()) states.push(`${s.namespace}/${s.name}=${s.state satisfies LeaseState}`);
    return states.join(',');
  }
}
