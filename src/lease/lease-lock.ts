/**
 * The resource lock leader election writes through: a Lease read and written with optimistic
 * concurrency. Mirrors client-go tools/leaderelection/resourcelock/{interface,leaselock}.go.
 *
 * Deliberate differences:
 * - get() resolves undefined when the Lease does not exist, instead of returning a NotFound error.
 * - update() sends a copy of the cached Lease and replaces the cache only on success (Go mutates
 *   the cached spec before sending), so overlapping calls never share an object.
 * - No event recorder: callers observe outcomes through LeaderElector callbacks.
 */
import { isNotFound } from '../kube/api-error.js';
import type { Lease, LeaseClient } from '../kube/types.js';
import { leaseSpecToRecord, rawRecord, recordToLeaseSpec, type LeaderElectionRecord } from './leader-election-record.js';

export interface ObservedRecord {
  record: LeaderElectionRecord;
  /** rawRecord(record): compared byte for byte to notice any write by anyone. */
  rawRecord: string;
}

/** client-go's resourcelock.Interface. */
export interface ResourceLock {
  /** Reads the record and caches the object for the next update; undefined if it does not exist. */
  get(signal?: AbortSignal): Promise<ObservedRecord | undefined>;
  /** Creates the object with this record; rejects if it already exists. */
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /**
   * Writes the record over the object last read or created (its resourceVersion), so a write by
   * someone else in between is rejected as a conflict. Rejects if there was no get or create.
   */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** Who we are: the holderIdentity we write. */
  identity(): string;
  /** "namespace/name", for messages. */
  describe(): string;
}

export interface LeaseLockConfig {
  namespace: string;
  name: string;
  identity: string;
  client: LeaseClient;
  /** Labels set on the Lease at create and update (others are left alone). */
  labels?: Record<string, string>;
}

export class LeaseLock implements ResourceLock {
  private lease: Lease | undefined;

  constructor(private readonly config: LeaseLockConfig) {}

  async get(signal?: AbortSignal): Promise<ObservedRecord | undefined> {
    let lease: Lease | undefined;
    try {
      lease = await this.config.client.get(this.config.namespace, this.config.name, signal);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    if (!lease) return undefined;
    this.lease = lease;
    const record = leaseSpecToRecord(lease.spec);
    return { record, rawRecord: rawRecord(record) };
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    const labels = this.config.labels ? { ...this.config.labels } : undefined;
    this.lease = await this.config.client.create(
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { namespace: this.config.namespace, name: this.config.name, ...(labels ? { labels } : {}) },
        spec: recordToLeaseSpec(record),
      },
      signal,
    );
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    if (!this.lease) throw new Error('lease not initialized, call get or create first');
    const next: Lease = structuredClone(this.lease);
    next.spec = recordToLeaseSpec(record);
    if (this.config.labels) next.metadata.labels = { ...next.metadata.labels, ...this.config.labels };
    this.lease = await this.config.client.update(next, signal);
  }

  identity(): string {
    return this.config.identity;
  }

  describe(): string {
    return `${this.config.namespace}/${this.config.name}`;
  }

  /** The Lease as last read or written (a copy), for views. */
  cached(): Lease | undefined {
    return this.lease && structuredClone(this.lease);
  }
}
