/**
 * Leases judged with client-go's leader-election semantics (tools/leaderelection); the whole
 * picture, with where we differ, is docs/design/clientgo-semantics.md §6. The contract:
 *
 * - Local time only: a lease is judged valid while (our clock when its record's bytes last
 *   changed) + leaseDurationSeconds is in the future. The holder's own timestamps are never
 *   compared with our clock, so skew between machines does not matter; only skew rate does.
 * - The observer takes no part: it reports validity, skew, holder history and failover gaps.
 *   A holder that releases the Lease on exit (an empty holderIdentity written by the holder) ends
 *   its tenure as released, and the next holder's gap runs from the release.
 * - Coordinated leader election (coordinated-election.ts): LeaseCandidates ranked and judged by
 *   the API server's election controller's rules, to say why the holder holds or what the Lease
 *   waits for.
 *
 * The candidate side, LeaderElector (leader-elector.ts) over LeaseLock (lease-lock.ts), is not
 * exported: the plugins only observe Leases, so it is built for its tests only (unit tests of
 * client-go's election rules, and the e2e test whose real failovers the observer judges) and kept
 * out of dist/ (§7 of the same page). Its own contract: every write goes over the resourceVersion
 * last read or written; no fencing, so LeaseDuration > RenewDeadline is what keeps the next leader
 * from starting before the last one stopped; onStoppedLeading always runs when run() ends and
 * onStartedLeading's signal aborts when renewing stops.
 */
export type { LeaderElectionRecord } from './leader-election-record.js';
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
export { formatMicroTime, parseMicroTime } from './micro-time.js';
export {
  bestCandidate,
  CANDIDATE_VALID_MS,
  candidateRecord,
  candidateState,
  compareCandidates,
  compareVersions,
  ELECTION_DURATION_MS,
  judgeElection,
  OLDEST_EMULATION_VERSION,
  rankCandidates,
  type CandidateRecord,
  type CandidateState,
  type Election,
  type ElectionLease,
  type ElectionVerdict,
} from './coordinated-election.js';
