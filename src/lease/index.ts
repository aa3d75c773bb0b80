/**
 * Lease leader election and Lease watching, with client-go's semantics
 * (tools/leaderelection). The contract:
 *
 * - Local time only: a lease is judged valid while (our clock when its record's bytes last
 *   changed) + leaseDurationSeconds is in the future. The holder's own timestamps are never
 *   compared with our clock, so skew between machines does not matter; only skew rate does.
 * - Optimistic concurrency: every write goes over the resourceVersion last read or written, so
 *   two candidates can never both win the same transition.
 * - No fencing: a leader that stops renewing keeps acting until its RenewDeadline has passed;
 *   LeaseDuration > RenewDeadline is what keeps the next leader from starting before that.
 * - Callbacks: onStoppedLeading always runs when run() ends; onStartedLeading's signal aborts
 *   when renewing stops; onNewLeader reports each change of observed holder.
 * - The observer takes no part: it reports validity, skew, holder history and failover gaps.
 */
export {
  emptyRecord,
  leaseSpecToRecord,
  rawRecord,
  recordToLeaseSpec,
  type LeaderElectionRecord,
} from './leader-election-record.js';
export { LeaseLock, type LeaseLockConfig, type ObservedRecord, type ResourceLock } from './lease-lock.js';
export {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  JITTER_FACTOR,
  LeaderElector,
  type LeaderCallbacks,
  type LeaderElectionConfig,
} from './leader-elector.js';
export {
  LeaseObserver,
  type HolderTenure,
  type LeaseEvent,
  type LeaseObserverOptions,
  type LeaseRef,
  type LeaseSnapshot,
  type LeaseState,
  type SkewReport,
} from './lease-observer.js';
export { formatMicroTime, normalizeMicroTime, parseMicroTime, toRfc3339Seconds } from './micro-time.js';
