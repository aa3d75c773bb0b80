/**
 * Lease-based leader election. Mirrors client-go tools/leaderelection/leaderelection.go
 * (LeaderElector, including the fast-path renew and coordinated election's tryCoordinatedRenew).
 *
 * As in client-go, only timestamps taken on our own clock decide anything: `observedTime` is when
 * we last saw the record's bytes change, and the lease counts as held while
 * observedTime + leaseDurationSeconds is in the future. The holder's renewTime is never compared
 * with our clock, so clock skew between machines is harmless (skew *rate* is not).
 *
 * Deliberate differences:
 * - Durations are milliseconds; defaults are client-go's usual 15 s / 10 s / 2 s.
 * - Every API call is raced against its deadline (abortable), so a client that ignores the signal
 *   cannot hold a renew attempt past RenewDeadline; the late write, if any, is made harmless by
 *   the resourceVersion check.
 * - The onStartedLeading signal aborts as soon as renewing stops, before any release. (client-go
 *   cancels it before the release when the parent is cancelled, but after it when a renew fails.)
 * - release() retries conflicts the way retry.RetryOnConflict(DefaultRetry) does (5 tries, ~10 ms
 *   apart), and releases only if the freshly read record still names us, so it never clears a
 *   lease that someone else took over meanwhile.
 * - No event recorder or leader metrics; failures go to the optional onError hook.
 * - run() refuses to start while already running.
 */
import { realClock, type Clock } from '../clock.js';
import { isConflict } from '../kube/api-error.js';
import { abortable } from '../util/abort.js';
import { ChildSignal } from './abort.js';
import { emptyRecord, type LeaderElectionRecord } from './leader-election-record.js';
import type { ObservedRecord, ResourceLock } from './lease-lock.js';
import { formatMicroTime } from './micro-time.js';

export const JITTER_FACTOR = 1.2;
export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;

/** retry.DefaultRetry, which release uses against conflicts. */
const RELEASE_RETRY = { steps: 5, durationMs: 10, jitter: 0.1 } as const;

export interface LeaderCallbacks {
  /** Called (asynchronously) once we lead. `signal` aborts when we stop renewing. */
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called whenever run() ends, whether or not we ever led; run() resolves after it returns. */
  onStoppedLeading: () => void | Promise<void>;
  /** Called (asynchronously) when the holder we observe changes, including the first one seen. */
  onNewLeader?: (identity: string) => void | Promise<void>;
}

export interface LeaderElectionConfig {
  lock: ResourceLock;
  /** How long others wait, from the last change they observed, before taking over. Default 15 s. */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a renew before giving up leadership. Default 10 s. */
  renewDeadlineMs?: number;
  /** Wait between attempts. Default 2 s; acquiring adds jitter up to JITTER_FACTOR times it. */
  retryPeriodMs?: number;
  callbacks: LeaderCallbacks;
  /** Write an empty holder when run() is cancelled while leading. */
  releaseOnCancel?: boolean;
  /** For messages. Defaults to the lock's description. */
  name?: string;
  /** Coordinated leader election (alpha): never create the Lease; renew only while the holder. */
  coordinated?: boolean;
  clock?: Clock;
  /** Uniform in [0, 1); for the acquire jitter. */
  random?: () => number;
  /** Failed API calls and callback errors; leader election itself just retries. */
  onError?: (err: unknown, during: string) => void;
}

export class LeaderElector {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  private readonly lock: ResourceLock;
  private readonly callbacks: LeaderCallbacks;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly name: string;

  private observedRecord: LeaderElectionRecord = emptyRecord();
  private observedRawRecord: string | undefined;
  /** Our clock when we last saw the record change (or wrote it). Go's zero time: long ago. */
  private observedTime = -Infinity;
  /** The holder last passed to onNewLeader. */
  private reportedLeader = '';
  private running = false;

  constructor(private readonly config: LeaderElectionConfig) {
    this.leaseDurationMs = config.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = config.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = config.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    validate(config, this.leaseDurationMs, this.renewDeadlineMs, this.retryPeriodMs);
    this.lock = config.lock;
    this.callbacks = config.callbacks;
    this.clock = config.clock ?? realClock;
    this.random = config.random ?? Math.random;
    this.name = config.name ?? config.lock.describe();
  }

  /** Whether the last record we saw or wrote names us. */
  isLeader(): boolean {
    return this.observedRecord.holderIdentity === this.lock.identity();
  }

  /** The holder in the last record we saw or wrote; empty if none yet. Informational. */
  getLeader(): string {
    return this.observedRecord.holderIdentity;
  }

  /** The last record seen or written, and when (our clock) it was last seen to change. */
  observed(): { record: LeaderElectionRecord; observedTime: number } {
    return { record: { ...this.observedRecord }, observedTime: this.observedTime };
  }

  /**
   * Healthz check (client-go's Check): an error if we think we lead but have not renewed for
   * longer than leaseDuration + maxTolerableExpiredLeaseMs.
   */
  check(maxTolerableExpiredLeaseMs: number): Error | undefined {
    if (!this.isLeader()) return undefined;
    if (this.clock.now() - this.observedTime > this.leaseDurationMs + maxTolerableExpiredLeaseMs) {
      return new Error(`failed election to renew leadership on lease ${this.name}`);
    }
    return undefined;
  }

  /**
   * Campaigns until we lead, then renews until a renew fails for RenewDeadline or `signal`
   * aborts. Resolves after onStoppedLeading has returned.
   */
  async run(signal?: AbortSignal): Promise<void> {
    if (this.running) throw new Error(`leader election for ${this.name} is already running`);
    this.running = true;
    try {
      if (!(await this.acquire(signal))) return;
      const leading = new ChildSignal(signal);
      this.callAsync('onStartedLeading', () => this.callbacks.onStartedLeading(leading.signal));
      try {
        await this.renew(leading.signal);
      } finally {
        leading.dispose();
      }
      if (this.config.releaseOnCancel) await this.release();
    } finally {
      this.running = false;
      await this.callbacks.onStoppedLeading();
    }
  }

  /**
   * One attempt to acquire or renew (client-go's tryAcquireOrRenew). Resolves true when the
   * record now names us. Exposed for tools and tests; run() is the normal entry point.
   */
  async tryAcquireOrRenew(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return false;
    const nowMs = this.clock.now();
    const record = this.ourRecord(nowMs);

    // 1. Fast path: we hold a valid lease, so assume our last write is the current version.
    if (this.isLeader() && this.isLeaseValid(nowMs)) {
      record.acquireTime = this.observedRecord.acquireTime;
      record.leaderTransitions = this.observedRecord.leaderTransitions;
      try {
        await abortable(this.lock.update(record, signal), signal);
        this.setObservedRecord(record);
        return true;
      } catch (err) {
        if (signal?.aborted) return false;
        this.report(err, `optimistic update of lease ${this.name}, falling back to the slow path`);
      }
    }

    // 2. Get, or create if it does not exist.
    const current = await this.readLease(signal);
    if (current === null) return false;
    if (!current) {
      try {
        await abortable(this.lock.create(record, signal), signal);
      } catch (err) {
        this.report(err, `create lease ${this.name}`);
        return false;
      }
      this.setObservedRecord(record);
      return true;
    }

    // 3. Note any change, then check the holder and our view of its expiry.
    this.observe(current);
    if (current.record.holderIdentity.length > 0 && this.isLeaseValid(nowMs) && !this.isLeader()) {
      return false;
    }

    // 4. Write ourselves as holder: a renew keeps acquireTime and the count, a takeover counts one.
    if (this.isLeader()) {
      record.acquireTime = current.record.acquireTime;
      record.leaderTransitions = current.record.leaderTransitions;
    } else {
      record.leaderTransitions = current.record.leaderTransitions + 1;
    }
    return this.writeRecord(record, signal);
  }

  /**
   * Coordinated election's attempt (client-go's tryCoordinatedRenew): the election controller
   * picks the holder, so never create, renew only while we are the holder and the lease is valid,
   * keep the strategy, and stop renewing once a preferredHolder is named.
   */
  async tryCoordinatedRenew(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return false;
    const nowMs = this.clock.now();
    const record = this.ourRecord(nowMs);

    const current = await this.readLease(signal);
    if (current === null) return false;
    if (!current) return false;

    this.observe(current);
    const hasExpired = this.observedTime + current.record.leaseDurationSeconds * 1000 < nowMs;
    if (hasExpired) return false;
    if (!this.isLeader()) return false;
    // "End of term": the controller prefers someone else; let the lease run out.
    if (current.record.preferredHolder !== '') return false;

    record.acquireTime = current.record.acquireTime;
    record.leaderTransitions = current.record.leaderTransitions;
    record.strategy = current.record.strategy;
    return this.writeRecord(record, signal);
  }

  /** Retries every RetryPeriod (with jitter) until an attempt succeeds or `signal` aborts. */
  private async acquire(signal: AbortSignal | undefined): Promise<boolean> {
    while (!signal?.aborted) {
      const ok = await this.attempt(signal);
      this.maybeReportTransition();
      if (ok) return true;
      await this.clock.sleep(jitter(this.retryPeriodMs, JITTER_FACTOR, this.random), signal);
    }
    return false;
  }

  /** Renews every RetryPeriod until a renew fails for a whole RenewDeadline or `signal` aborts. */
  private async renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const ok = await this.renewWithinDeadline(signal);
      this.maybeReportTransition();
      if (!ok) return;
      await this.clock.sleep(this.retryPeriodMs, signal);
    }
  }

  /**
   * wait.PollUntilContextTimeout(ctx, RetryPeriod, RenewDeadline, immediate): attempts at once,
   * then at most every RetryPeriod measured from each attempt's start, until RenewDeadline.
   */
  private async renewWithinDeadline(parent: AbortSignal): Promise<boolean> {
    const deadline = new ChildSignal(parent, {
      clock: this.clock,
      ms: this.renewDeadlineMs,
      reason: `failed to renew lease ${this.name}: timed out after ${this.renewDeadlineMs} ms`,
    });
    try {
      for (;;) {
        if (deadline.signal.aborted) return false;
        const started = this.clock.now();
        if (await this.attempt(deadline.signal)) return true;
        if (deadline.signal.aborted) return false;
        const wait = started + this.retryPeriodMs - this.clock.now();
        if (wait > 0) await this.clock.sleep(wait, deadline.signal);
      }
    } finally {
      deadline.dispose();
    }
  }

  private attempt(signal: AbortSignal | undefined): Promise<boolean> {
    return this.config.coordinated ? this.tryCoordinatedRenew(signal) : this.tryAcquireOrRenew(signal);
  }

  /**
   * Gives the lease up if we hold it: Get (to learn the current resourceVersion, which a renew
   * cancelled mid-flight may have moved), then write an empty holder with a 1 s duration. Uses its
   * own RenewDeadline, not the cancelled run signal.
   */
  private async release(): Promise<boolean> {
    const deadline = new ChildSignal(undefined, {
      clock: this.clock,
      ms: this.renewDeadlineMs,
      reason: `failed to release lease ${this.name}: timed out after ${this.renewDeadlineMs} ms`,
    });
    const signal = deadline.signal;
    try {
      for (let step = 1; ; step++) {
        let current: Awaited<ReturnType<typeof this.lock.get>>;
        try {
          current = await abortable(this.lock.get(signal), signal);
        } catch (err) {
          this.report(err, `release: get lease ${this.name}`);
          return false;
        }
        if (!current) {
          this.report(new Error(`lease ${this.name} not found`), 'release');
          return false;
        }
        if (!this.isLeader() || current.record.holderIdentity !== this.lock.identity()) return true;

        const now = formatMicroTime(this.clock.now());
        const record: LeaderElectionRecord = {
          ...emptyRecord(),
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaderTransitions: current.record.leaderTransitions,
        };
        try {
          await abortable(this.lock.update(record, signal), signal);
          this.setObservedRecord(record);
          return true;
        } catch (err) {
          if (!isConflict(err) || step >= RELEASE_RETRY.steps || signal.aborted) {
            this.report(err, `release lease ${this.name}`);
            return false;
          }
          await this.clock.sleep(jitter(RELEASE_RETRY.durationMs, RELEASE_RETRY.jitter, this.random), signal);
        }
      }
    } finally {
      deadline.dispose();
    }
  }

  /** The record naming us as holder from `nowMs`; a renew then carries over what it keeps. */
  private ourRecord(nowMs: number): LeaderElectionRecord {
    const now = formatMicroTime(nowMs);
    return {
      ...emptyRecord(),
      holderIdentity: this.lock.identity(),
      leaseDurationSeconds: Math.floor(this.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
    };
  }

  /** The lease as stored (undefined when there is none); null when reading it failed, reported. */
  private async readLease(signal: AbortSignal | undefined): Promise<ObservedRecord | undefined | null> {
    try {
      return await abortable(this.lock.get(signal), signal);
    } catch (err) {
      this.report(err, `get lease ${this.name}`);
      return null;
    }
  }

  /** Takes note of the stored record when it changed: observedTime counts from each change. */
  private observe(current: ObservedRecord): void {
    if (this.observedRawRecord === current.rawRecord) return;
    this.setObservedRecord(current.record);
    this.observedRawRecord = current.rawRecord;
  }

  /** Writes `record` over the lease; false when that failed, reported. */
  private async writeRecord(record: LeaderElectionRecord, signal: AbortSignal | undefined): Promise<boolean> {
    try {
      await abortable(this.lock.update(record, signal), signal);
    } catch (err) {
      this.report(err, `update lease ${this.name}`);
      return false;
    }
    this.setObservedRecord(record);
    return true;
  }

  private isLeaseValid(now: number): boolean {
    return this.observedTime + this.observedRecord.leaseDurationSeconds * 1000 > now;
  }

  private setObservedRecord(record: LeaderElectionRecord): void {
    this.observedRecord = { ...record };
    this.observedTime = this.clock.now();
  }

  private maybeReportTransition(): void {
    const holder = this.observedRecord.holderIdentity;
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    const onNewLeader = this.callbacks.onNewLeader;
    if (onNewLeader) this.callAsync('onNewLeader', () => onNewLeader(holder));
  }

  /** Go's `go callback()`: runs after the current turn; errors are reported, not thrown. */
  private callAsync(what: string, fn: () => void | Promise<void>): void {
    void Promise.resolve()
      .then(fn)
      .catch((err: unknown) => this.report(err, what));
  }

  private report(err: unknown, during: string): void {
    this.config.onError?.(err, during);
  }
}

/** wait.Jitter: d plus up to maxFactor·d. */
function jitter(d: number, maxFactor: number, random: () => number): number {
  return d + random() * (maxFactor > 0 ? maxFactor : 1) * d;
}

function validate(config: LeaderElectionConfig, leaseDuration: number, renewDeadline: number, retryPeriod: number): void {
  const positive = (value: number, field: string): void => {
    if (!(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
      throw new Error(`leader election: ${field} must be a positive number of milliseconds, got ${String(value)}`);
    }
  };
  positive(leaseDuration, 'leaseDurationMs');
  positive(renewDeadline, 'renewDeadlineMs');
  positive(retryPeriod, 'retryPeriodMs');
  if (leaseDuration <= renewDeadline) {
    throw new Error(`leader election: leaseDurationMs (${leaseDuration}) must be greater than renewDeadlineMs (${renewDeadline})`);
  }
  if (renewDeadline <= JITTER_FACTOR * retryPeriod) {
    throw new Error(
      `leader election: renewDeadlineMs (${renewDeadline}) must be greater than retryPeriodMs × ${JITTER_FACTOR} (${JITTER_FACTOR * retryPeriod})`,
    );
  }
  if (typeof config.callbacks?.onStartedLeading !== 'function') {
    throw new Error('leader election: callbacks.onStartedLeading must be set');
  }
  if (typeof config.callbacks?.onStoppedLeading !== 'function') {
    throw new Error('leader election: callbacks.onStoppedLeading must be set');
  }
  if (!config.lock) throw new Error('leader election: lock must be set');
  if (!config.lock.identity()) throw new Error('leader election: the lock identity must not be empty');
}
