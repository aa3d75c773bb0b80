/**
 * The leader-election record and its mapping to a Lease spec. Mirrors LeaderElectionRecord in
 * client-go tools/leaderelection/resourcelock/interface.go and the LeaseSpecToLeaderElectionRecord
 * / LeaderElectionRecordToLeaseSpec pair in leaselock.go.
 *
 * Deliberate differences:
 * - Times are MicroTime strings (null for Go's zero time) rather than metav1.Time values.
 * - rawRecord() reproduces Go's json.Marshal of the record, including its quirk that the times
 *   are metav1.Time and so marshal at second precision: two records that differ only below the
 *   second have the same raw bytes, as in client-go.
 */
import type { LeaseSpec } from '../kube/types.js';
import { normalizeMicroTime, toRfc3339Seconds } from './micro-time.js';

export interface LeaderElectionRecord {
  /** Empty when nobody holds the lease. */
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** MicroTime, or null when unset. Written by the holder with the holder's clock. */
  acquireTime: string | null;
  renewTime: string | null;
  /** Lease.spec.leaseTransitions. */
  leaderTransitions: number;
  /** Coordinated leader election strategy; empty when not coordinated. */
  strategy: string;
  /** Set by the coordinated election controller to ask the holder to step down; empty otherwise. */
  preferredHolder: string;
}

export function emptyRecord(): LeaderElectionRecord {
  return {
    holderIdentity: '',
    leaseDurationSeconds: 0,
    acquireTime: null,
    renewTime: null,
    leaderTransitions: 0,
    strategy: '',
    preferredHolder: '',
  };
}

export function leaseSpecToRecord(spec: LeaseSpec | undefined): LeaderElectionRecord {
  const r = emptyRecord();
  if (!spec) return r;
  if (spec.holderIdentity != null) r.holderIdentity = spec.holderIdentity;
  if (spec.leaseDurationSeconds != null) r.leaseDurationSeconds = Math.trunc(spec.leaseDurationSeconds);
  if (spec.leaseTransitions != null) r.leaderTransitions = Math.trunc(spec.leaseTransitions);
  if (spec.acquireTime != null) r.acquireTime = normalizeMicroTime(spec.acquireTime);
  if (spec.renewTime != null) r.renewTime = normalizeMicroTime(spec.renewTime);
  if (spec.preferredHolder != null) r.preferredHolder = spec.preferredHolder;
  if (spec.strategy != null) r.strategy = spec.strategy;
  return r;
}

export function recordToLeaseSpec(record: LeaderElectionRecord): LeaseSpec {
  const spec: LeaseSpec = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    // Go always sets both pointers; a zero time marshals as null.
    acquireTime: record.acquireTime,
    renewTime: record.renewTime,
    leaseTransitions: record.leaderTransitions,
  };
  if (record.preferredHolder !== '') spec.preferredHolder = record.preferredHolder;
  if (record.strategy !== '') spec.strategy = record.strategy;
  return spec;
}

/**
 * The record's JSON as client-go's LeaseLock.Get returns it: field order of the Go struct, times
 * at second precision, and HTML-sensitive characters escaped as encoding/json does. Leader
 * election compares these bytes to decide whether the holder has written since last seen.
 */
export function rawRecord(record: LeaderElectionRecord): string {
  const json = JSON.stringify({
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: record.acquireTime === null ? null : toRfc3339Seconds(record.acquireTime),
    renewTime: record.renewTime === null ? null : toRfc3339Seconds(record.renewTime),
    leaderTransitions: record.leaderTransitions,
    strategy: record.strategy,
    preferredHolder: record.preferredHolder,
  });
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
