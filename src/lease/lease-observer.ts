/**
 * Watches Leases from the outside and judges them the way a client-go candidate would, without
 * taking part. Fed Lease objects (from an informer or by polling) with the local time each was
 * received.
 *
 * The judgement is client-go's (tools/leaderelection/leaderelection.go): observedTime is our
 * clock when the record's raw bytes last changed (rawRecord, the same bytes LeaseLock.get
 * yields), and the lease is valid while observedTime + leaseDurationSeconds > now. The holder's
 * renewTime is never compared with our clock for validity; the difference between renewTime and
 * the time we received a renew is only *reported*, as the skew (plus delivery latency) we see.
 *
 * On top of that it keeps a history of holders: when each was first and last seen renewing, how
 * long it held, and the failover gap before it (the time with no valid leader, from the previous
 * holder's expiry as we judged it, or its release, to the new holder's first observation).
 *
 * A release is what client-go's ReleaseOnCancel (and controller-runtime's
 * LeaderElectionReleaseOnCancel, and kube-controller-manager's release on exit behind its
 * ControllerManagerReleaseLeaderElectionLockOnExit gate) writes when the leader stops: the holder's
 * own update with an empty holderIdentity (leaseDurationSeconds 1,
 * acquireTime = renewTime = the release, leaseTransitions unchanged). It ends the tenure at once,
 * as released, not expired: no expiry is reported for a Lease nobody holds, and the next holder's
 * gap runs from the release. A holder replaced without an empty record between (the release and
 * the next acquisition coalesced into one watch event, or a takeover) cannot be told from a
 * takeover and is reported as replaced or expired, by the old holder's lease as we judged it.
 */
import { realClock, type Clock, type Timer } from '../clock.js';
import type { Lease } from '../kube/types.js';
import { leaseSpecToRecord, rawRecord, type LeaderElectionRecord } from './leader-election-record.js';
import { parseMicroTime } from './micro-time.js';

export type LeaseState = 'valid' | 'expiring' | 'expired' | 'released';

export interface LeaseRef {
  namespace: string;
  name: string;
}

/** Observed difference receive time − renewTime, in ms: positive when the holder's clock is behind ours (or delivery was slow). */
export interface SkewReport {
  lastMs: number;
  minMs: number;
  maxMs: number;
  samples: number;
}

/** One holder's time with the lease, as we saw it. Times are our clock (ms) unless named *Time. */
export interface HolderTenure {
  holder: string;
  /** acquireTime as the holder wrote it (its clock). */
  acquireTime: string | null;
  /** leaseTransitions when we first saw this holder. */
  transitions: number;
  /** When we first saw this holder in the record. */
  firstSeenAt: number;
  /** renewTime as written, first and last seen (holder's clock). */
  firstRenewTime: string | null;
  lastRenewTime: string | null;
  /** When we received the first and the last renewal (see renewsSeen) while this holder held the lease. */
  firstRenewSeenAt: number;
  lastRenewSeenAt: number;
  /**
   * Renewals received: versions of the Lease, after the one we first saw this holder in, in which it
   * wrote a new renewTime (compared at its full, microsecond precision). A watch delivers every
   * version, so each renewal made while we watch is counted once; those made before our first List,
   * or between the versions a relist skips, are not. Validity is judged apart, as client-go judges it:
   * observedTime moves only when the record's bytes change, and its times marshal at second
   * precision, so several renewals within one second count here and refresh observedTime once.
   */
  renewsSeen: number;
  /** Time held so far (current holder) or in total (ended), judged on our clock. */
  heldForMs: number;
  /** Holder before this one, null if none was seen. */
  previousHolder: string | null;
  /** How the previous holder's tenure ended (released, expired, replaced); null without one. */
  previousEndReason: 'released' | 'expired' | 'replaced' | null;
  /** No-valid-leader time before this holder; null when there was no previous holder to measure from. */
  failoverGapMs: number | null;
  /** Set once the tenure has ended. */
  endedAt: number | null;
  /**
   * released: it wrote an empty holder; expired: it lapsed (as we judged) before the next holder
   * appeared; replaced: the next holder appeared while it was still valid to us; deleted: the
   * Lease went away.
   */
  endReason: 'released' | 'expired' | 'replaced' | 'deleted' | null;
  skew: SkewReport | null;
}

/** A plain, serialisable view of one Lease. */
export interface LeaseSnapshot {
  namespace: string;
  name: string;
  /** null when nobody holds it. */
  holder: string | null;
  state: LeaseState;
  /** Time since we saw the record change (our clock). */
  renewAgeMs: number;
  /** observedTime + leaseDuration − now; negative once expired. */
  expiresInMs: number;
  leaseDurationSeconds: number;
  acquireTime: string | null;
  renewTime: string | null;
  transitions: number;
  /** Current holder's time held so far; null when nobody holds it. */
  heldForMs: number | null;
  strategy: string | null;
  preferredHolder: string | null;
  /**
   * With a preferred holder other than the holder: whether the holder wrote a new renewTime since
   * we saw that preferred holder appear (client-go's holder stops renewing once it sees it); null
   * without one, or when it was already set when we started watching and no renew came since.
   */
  renewedSincePreferred: boolean | null;
  /** With no holder: who held it last as we saw, and when their tenure ended (released or expired, our clock). */
  lastHolder: { holder: string; endedAt: number; endReason: 'released' | 'expired' | 'replaced' } | null;
  /** Our clock when the record's bytes last changed. */
  observedTime: number;
  lastReceivedAt: number;
  resourceVersion: string | null;
  /** Skew seen for the current holder. */
  skew: SkewReport | null;
  /** Oldest first; the last entry is the current holder's if the lease is held. */
  history: HolderTenure[];
}

/** Holder changes, for streaming (one ndjson line each). `at` is our clock, in ms. */
export type LeaseEvent =
  | {
      type: 'acquired';
      lease: LeaseRef;
      at: number;
      holder: string;
      previousHolder: string | null;
      failoverGapMs: number | null;
      transitions: number;
      acquireTime: string | null;
      /** How the previous holder's tenure ended; null without a previous holder. */
      previousEndReason: 'released' | 'expired' | 'replaced' | null;
    }
  | { type: 'released'; lease: LeaseRef; at: number; holder: string; heldForMs: number; transitions: number }
  | { type: 'expired'; lease: LeaseRef; at: number; holder: string; lastRenewSeenAt: number }
  | { type: 'deleted'; lease: LeaseRef; at: number; holder: string | null };

export interface LeaseObserverOptions {
  clock?: Clock;
  onEvent?: (event: LeaseEvent) => void;
  /** Tenures kept per Lease (oldest dropped first). Default 100. */
  historyLimit?: number;
}

interface Tracked {
  ref: LeaseRef;
  record: LeaderElectionRecord;
  raw: string;
  observedTime: number;
  lastReceivedAt: number;
  resourceVersion: string | null;
  history: HolderTenure[];
  /** The tenure of record.holderIdentity, if held. */
  current: HolderTenure | undefined;
  /** The last holder that was seen and when it stopped counting (release or judged expiry). */
  previous: { holder: string; endedAt: number; endReason: 'released' | 'expired' | 'replaced' } | undefined;
  /** See LeaseSnapshot.renewedSincePreferred. */
  renewedSincePreferred: boolean | null;
  expiryTimer: Timer | undefined;
  expiredReported: boolean;
}

export class LeaseObserver {
  private readonly clock: Clock;
  private readonly historyLimit: number;
  private readonly leases = new Map<string, Tracked>();

  constructor(private readonly options: LeaseObserverOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.historyLimit = options.historyLimit ?? 100;
  }

  /** Feeds one Lease as received at `receivedAt` (our clock; now by default). */
  observe(lease: Lease, receivedAt: number = this.clock.now()): void {
    const ref = { namespace: lease.metadata.namespace ?? '', name: lease.metadata.name ?? '' };
    const key = keyOf(ref);
    const record = leaseSpecToRecord(lease.spec);
    const raw = rawRecord(record);
    const resourceVersion = lease.metadata.resourceVersion ?? null;
    let t = this.leases.get(key);
    if (!t) {
      t = {
        ref,
        record,
        raw,
        observedTime: receivedAt,
        lastReceivedAt: receivedAt,
        resourceVersion,
        history: [],
        current: undefined,
        previous: undefined,
        renewedSincePreferred: null,
        expiryTimer: undefined,
        expiredReported: false,
      };
      this.leases.set(key, t);
      // Already held when we started looking: its renewTime may be a whole RetryPeriod old, so it
      // is no skew sample.
      if (record.holderIdentity) this.startTenure(t, record, receivedAt, false);
      this.armExpiry(t);
      return;
    }
    t.lastReceivedAt = receivedAt;
    t.resourceVersion = resourceVersion;
    if (raw === t.raw) {
      // The same record as client-go compares it (a renewal within the second of the last one
      // changes no byte): observedTime stays, but a new renewTime is still a renewal received.
      if (t.current && record.holderIdentity === t.current.holder && record.renewTime !== t.current.lastRenewTime)
        this.noteRenew(t.current, record, receivedAt);
      return;
    }

    const before = t.record;
    const observedBefore = t.observedTime;
    t.record = record;
    t.raw = raw;
    t.observedTime = receivedAt;
    t.expiredReported = false;

    const holder = record.holderIdentity;
    this.notePreferred(t, before, record);
    if (holder === before.holderIdentity) {
      if (holder && t.current) this.noteRenew(t.current, record, receivedAt);
    } else {
      if (t.current) this.endTenure(t, before, observedBefore, receivedAt, holder ? undefined : 'released');
      if (holder) this.startTenure(t, record, receivedAt, true);
    }
    this.armExpiry(t);
  }

  /** Whether the holder keeps renewing while a preferred holder other than itself is named. */
  private notePreferred(t: Tracked, before: LeaderElectionRecord, record: LeaderElectionRecord): void {
    const asked = record.preferredHolder !== '' && record.preferredHolder !== record.holderIdentity;
    if (!asked || record.holderIdentity !== before.holderIdentity || record.preferredHolder !== before.preferredHolder) {
      t.renewedSincePreferred = asked ? false : null;
    } else if (record.renewTime !== before.renewTime) {
      t.renewedSincePreferred = true;
    }
  }

  /** The Lease was deleted. */
  observeDeleted(namespace: string, name: string, receivedAt: number = this.clock.now()): void {
    const key = keyOf({ namespace, name });
    const t = this.leases.get(key);
    if (!t) return;
    t.expiryTimer?.stop();
    const holder = t.current?.holder ?? null;
    if (t.current) {
      t.current.endedAt = Math.min(receivedAt, this.expiryOf(t));
      t.current.endReason = 'deleted';
      t.current.heldForMs = t.current.endedAt - t.current.firstSeenAt;
    }
    this.leases.delete(key);
    this.emit({ type: 'deleted', lease: { ...t.ref }, at: receivedAt, holder });
  }

  /** Whether the Lease has a holder whose lease has not expired as we judge it. */
  isValid(namespace: string, name: string, now: number = this.clock.now()): boolean {
    const t = this.leases.get(keyOf({ namespace, name }));
    return !!t && t.record.holderIdentity !== '' && this.expiryOf(t) > now;
  }

  snapshotOf(namespace: string, name: string, now: number = this.clock.now()): LeaseSnapshot | undefined {
    const t = this.leases.get(keyOf({ namespace, name }));
    return t && this.view(t, now);
  }

  /** Every Lease seen, sorted by namespace/name. */
  snapshot(now: number = this.clock.now()): LeaseSnapshot[] {
    return [...this.leases.keys()].sort().map((k) => this.view(this.leases.get(k)!, now));
  }

  /** Stops the expiry timers. */
  close(): void {
    for (const t of this.leases.values()) t.expiryTimer?.stop();
  }

  private view(t: Tracked, now: number): LeaseSnapshot {
    const r = t.record;
    const durationMs = r.leaseDurationSeconds * 1000;
    const age = now - t.observedTime;
    let state: LeaseState;
    if (!r.holderIdentity) state = 'released';
    else if (t.observedTime + durationMs <= now) state = 'expired';
    else if (age > durationMs / 2) state = 'expiring';
    else state = 'valid';
    const current = t.current;
    const heldForMs = current ? Math.max(0, Math.min(now, this.expiryOf(t)) - current.firstSeenAt) : null;
    return {
      namespace: t.ref.namespace,
      name: t.ref.name,
      holder: r.holderIdentity || null,
      state,
      renewAgeMs: age,
      expiresInMs: t.observedTime + durationMs - now,
      leaseDurationSeconds: r.leaseDurationSeconds,
      acquireTime: r.acquireTime,
      renewTime: r.renewTime,
      transitions: r.leaderTransitions,
      heldForMs,
      strategy: r.strategy || null,
      preferredHolder: r.preferredHolder || null,
      renewedSincePreferred: t.renewedSincePreferred,
      lastHolder: current || !t.previous ? null : { ...t.previous },
      observedTime: t.observedTime,
      lastReceivedAt: t.lastReceivedAt,
      resourceVersion: t.resourceVersion,
      skew: current?.skew ? { ...current.skew } : null,
      history: t.history.map((h) => ({
        ...h,
        heldForMs: h === current ? heldForMs! : h.heldForMs,
        skew: h.skew && { ...h.skew },
      })),
    };
  }

  private startTenure(t: Tracked, record: LeaderElectionRecord, at: number, seenWritten: boolean): void {
    const prev = t.previous;
    const tenure: HolderTenure = {
      holder: record.holderIdentity,
      acquireTime: record.acquireTime,
      transitions: record.leaderTransitions,
      firstSeenAt: at,
      firstRenewTime: record.renewTime,
      lastRenewTime: record.renewTime,
      firstRenewSeenAt: at,
      lastRenewSeenAt: at,
      renewsSeen: 0,
      heldForMs: 0,
      previousHolder: prev?.holder ?? null,
      previousEndReason: prev?.endReason ?? null,
      failoverGapMs: prev ? Math.max(0, at - prev.endedAt) : null,
      endedAt: null,
      endReason: null,
      skew: null,
    };
    if (seenWritten) this.sampleSkew(tenure, record, at);
    t.current = tenure;
    t.history.push(tenure);
    if (t.history.length > this.historyLimit) t.history.splice(0, t.history.length - this.historyLimit);
    this.emit({
      type: 'acquired',
      lease: { ...t.ref },
      at,
      holder: tenure.holder,
      previousHolder: tenure.previousHolder,
      failoverGapMs: tenure.failoverGapMs,
      transitions: record.leaderTransitions,
      acquireTime: record.acquireTime,
      previousEndReason: tenure.previousEndReason,
    });
  }

  /**
   * Ends the current tenure. `before` is the record as it was and `observedBefore` the observedTime
   * that was current until now: its expiry is judged from them, as a client-go candidate judges it.
   */
  private endTenure(t: Tracked, before: LeaderElectionRecord, observedBefore: number, at: number, reason: 'released' | undefined): void {
    const tenure = t.current!;
    if (reason === 'released') {
      tenure.endedAt = at;
      tenure.endReason = 'released';
    } else {
      const expiry = observedBefore + before.leaseDurationSeconds * 1000;
      tenure.endedAt = Math.min(expiry, at);
      tenure.endReason = expiry <= at ? 'expired' : 'replaced';
    }
    tenure.heldForMs = Math.max(0, tenure.endedAt - tenure.firstSeenAt);
    t.previous = { holder: tenure.holder, endedAt: tenure.endedAt, endReason: tenure.endReason! as 'released' | 'expired' | 'replaced' };
    t.current = undefined;
    if (reason === 'released') {
      this.emit({ type: 'released', lease: { ...t.ref }, at, holder: tenure.holder, heldForMs: tenure.heldForMs, transitions: t.record.leaderTransitions });
    }
  }

  /** A renewal received (see HolderTenure.renewsSeen), or another change of the record by its holder. */
  private noteRenew(tenure: HolderTenure, record: LeaderElectionRecord, at: number): void {
    if (record.renewTime === tenure.lastRenewTime) return;
    tenure.lastRenewSeenAt = at;
    tenure.lastRenewTime = record.renewTime;
    tenure.renewsSeen++;
    this.sampleSkew(tenure, record, at);
  }

  private sampleSkew(tenure: HolderTenure, record: LeaderElectionRecord, at: number): void {
    const renewMs = record.renewTime === null ? undefined : parseMicroTime(record.renewTime);
    if (renewMs === undefined) return;
    const d = at - renewMs;
    const s = tenure.skew;
    tenure.skew = s
      ? { lastMs: d, minMs: Math.min(s.minMs, d), maxMs: Math.max(s.maxMs, d), samples: s.samples + 1 }
      : { lastMs: d, minMs: d, maxMs: d, samples: 1 };
  }

  private expiryOf(t: Tracked): number {
    return t.observedTime + t.record.leaseDurationSeconds * 1000;
  }

  /** Reports an expiry when our judgement says the holder's lease ran out with no further write. */
  private armExpiry(t: Tracked): void {
    t.expiryTimer?.stop();
    t.expiryTimer = undefined;
    if (!t.record.holderIdentity || t.expiredReported) return;
    const raw = t.raw;
    const expiry = this.expiryOf(t);
    t.expiryTimer = this.clock.setTimer(Math.max(0, expiry - this.clock.now()), () => {
      t.expiryTimer = undefined;
      if (t.raw !== raw || t.expiredReported || !t.current) return;
      t.expiredReported = true;
      this.emit({
        type: 'expired',
        lease: { ...t.ref },
        at: expiry,
        holder: t.current.holder,
        lastRenewSeenAt: t.current.lastRenewSeenAt,
      });
    });
  }

  private emit(event: LeaseEvent): void {
    this.options.onEvent?.(event);
  }
}

function keyOf(ref: LeaseRef): string {
  return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
}
