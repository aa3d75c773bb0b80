/**
 * An in-memory LeaseClient that behaves like the API server where leader election cares: each
 * write bumps a resourceVersion, an update with a stale resourceVersion is a 409 Conflict, a
 * create of an existing Lease is 409 AlreadyExists, an update of a missing one is 404.
 *
 * For tests it also records every call, and can fail, delay (on the injected clock) or block
 * calls. A blocked call waits until the test releases it and is then applied as the server would
 * apply it at that moment, whether or not the caller has given up meanwhile (like client-go's fake
 * clientset, which ignores the context): that is how "cancelled during Update/Get" is staged.
 */
import type { Clock } from '../../src/clock.js';
import { ApiError } from '../../src/kube/api-error.js';
import type { Lease, LeaseClient, LeaseSpec } from '../../src/kube/types.js';

export type LeaseOp = 'get' | 'create' | 'update';

export interface LeaseCall {
  op: LeaseOp;
  namespace: string;
  name: string;
  /** Clock time the call arrived (0 without a clock). */
  at: number;
  /** update: the resourceVersion sent. */
  resourceVersion?: string | undefined;
  /** create/update: the holder written. */
  holder?: string | null | undefined;
  /** How it ended; 'pending' while blocked or delayed. */
  outcome: 'pending' | 'ok' | 'not-found' | 'conflict' | 'already-exists' | 'injected-error' | 'aborted';
}

/** Holds one call until release(). */
export interface CallGate {
  /** Resolves when the call reaches the gate. */
  readonly reached: Promise<LeaseCall>;
  /** Lets the call go on; it is then applied. */
  release(): void;
}

interface Gate {
  reachedResolve: (call: LeaseCall) => void;
  released: Promise<void>;
  rejectOnAbort: boolean;
}

export type WriteListener = (type: 'ADDED' | 'MODIFIED' | 'DELETED', lease: Lease) => void;

export function conflictError(name: string): ApiError {
  return new ApiError(
    `Operation cannot be fulfilled on leases.coordination.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { code: 409, reason: 'Conflict' },
  );
}

export function notFoundError(name: string): ApiError {
  return new ApiError(`leases.coordination.k8s.io "${name}" not found`, { code: 404, reason: 'NotFound' });
}

export function alreadyExistsError(name: string): ApiError {
  return new ApiError(`leases.coordination.k8s.io "${name}" already exists`, { code: 409, reason: 'AlreadyExists' });
}

export function internalError(message = 'etcdserver: request timed out'): ApiError {
  return new ApiError(message, { code: 500, reason: 'InternalError' });
}

export class FakeLeaseClient implements LeaseClient {
  readonly calls: LeaseCall[] = [];
  private readonly store = new Map<string, Lease>();
  private rv = 100;
  private uid = 0;
  private readonly failures = new Map<LeaseOp, Error[]>();
  private readonly latency = new Map<LeaseOp, number>();
  private readonly gates = new Map<LeaseOp, Gate[]>();
  private readonly listeners = new Set<WriteListener>();

  constructor(private readonly clock?: Clock) {}

  // ---- the server side, for tests ----

  /** Writes a Lease as another client would (create or overwrite, bumping resourceVersion). */
  put(lease: Lease): Lease {
    const key = keyOf(lease.metadata.namespace ?? '', lease.metadata.name ?? '');
    const existed = this.store.has(key);
    const stored = this.stamp(structuredClone(lease), this.store.get(key));
    this.store.set(key, stored);
    this.notify(existed ? 'MODIFIED' : 'ADDED', stored);
    return structuredClone(stored);
  }

  /** Changes spec fields of a stored Lease as another client would. */
  patchSpec(namespace: string, name: string, spec: Partial<LeaseSpec>): Lease {
    const current = this.store.get(keyOf(namespace, name));
    if (!current) throw new Error(`FakeLeaseClient: no lease ${namespace}/${name}`);
    const next = structuredClone(current);
    next.spec = { ...next.spec, ...spec };
    return this.put(next);
  }

  delete(namespace: string, name: string): void {
    const key = keyOf(namespace, name);
    const current = this.store.get(key);
    if (!current) return;
    this.store.delete(key);
    this.notify('DELETED', current);
  }

  /** A copy of the stored Lease. */
  peek(namespace: string, name: string): Lease | undefined {
    const l = this.store.get(keyOf(namespace, name));
    return l && structuredClone(l);
  }

  /** Called after every successful write, by anyone. Returns an unsubscribe function. */
  onWrite(listener: WriteListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- fault injection ----

  /** The next `times` calls of `op` fail with `error` (a 500 by default) before touching the store. */
  failNext(op: LeaseOp, error: Error = internalError(), times = 1): void {
    const list = this.failures.get(op) ?? [];
    for (let i = 0; i < times; i++) list.push(error);
    this.failures.set(op, list);
  }

  /** Every call of `op` waits `ms` on the clock before it is applied (0 to turn off). */
  setLatency(op: LeaseOp, ms: number): void {
    if (ms > 0 && !this.clock) throw new Error('FakeLeaseClient: latency needs a clock');
    this.latency.set(op, ms);
  }

  /**
   * The next call of `op` waits until the gate is released. With `rejectOnAbort`, an abort of the
   * caller's signal while waiting rejects the call without applying it (a request never sent).
   */
  blockNext(op: LeaseOp, options: { rejectOnAbort?: boolean } = {}): CallGate {
    let reachedResolve!: (call: LeaseCall) => void;
    const reached = new Promise<LeaseCall>((r) => (reachedResolve = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const list = this.gates.get(op) ?? [];
    list.push({ reachedResolve, released, rejectOnAbort: options.rejectOnAbort ?? false });
    this.gates.set(op, list);
    return { reached, release };
  }

  /** Calls of `op` (all calls without one). */
  callsOf(op?: LeaseOp): LeaseCall[] {
    return op ? this.calls.filter((c) => c.op === op) : [...this.calls];
  }

  /** The ops in call order, e.g. ['get', 'update']. */
  ops(): LeaseOp[] {
    return this.calls.map((c) => c.op);
  }

  clearCalls(): void {
    this.calls.length = 0;
  }

  // ---- LeaseClient ----

  async get(namespace: string, name: string, signal?: AbortSignal): Promise<Lease | undefined> {
    const call = this.record({ op: 'get', namespace, name });
    await this.intercept(call, signal);
    const l = this.store.get(keyOf(namespace, name));
    call.outcome = l ? 'ok' : 'not-found';
    return l && structuredClone(l);
  }

  async create(lease: Lease, signal?: AbortSignal): Promise<Lease> {
    const namespace = lease.metadata.namespace ?? '';
    const name = lease.metadata.name ?? '';
    const call = this.record({ op: 'create', namespace, name, holder: lease.spec?.holderIdentity });
    await this.intercept(call, signal);
    const key = keyOf(namespace, name);
    if (this.store.has(key)) {
      call.outcome = 'already-exists';
      throw alreadyExistsError(name);
    }
    const stored = this.stamp(structuredClone(lease), undefined);
    this.store.set(key, stored);
    call.outcome = 'ok';
    this.notify('ADDED', stored);
    return structuredClone(stored);
  }

  async update(lease: Lease, signal?: AbortSignal): Promise<Lease> {
    const namespace = lease.metadata.namespace ?? '';
    const name = lease.metadata.name ?? '';
    const call = this.record({
      op: 'update',
      namespace,
      name,
      resourceVersion: lease.metadata.resourceVersion,
      holder: lease.spec?.holderIdentity,
    });
    await this.intercept(call, signal);
    const key = keyOf(namespace, name);
    const current = this.store.get(key);
    if (!current) {
      call.outcome = 'not-found';
      throw notFoundError(name);
    }
    // Leases allow unconditional updates: an empty resourceVersion is not checked.
    const sent = lease.metadata.resourceVersion;
    if (sent && sent !== current.metadata.resourceVersion) {
      call.outcome = 'conflict';
      throw conflictError(name);
    }
    const stored = this.stamp(structuredClone(lease), current);
    this.store.set(key, stored);
    call.outcome = 'ok';
    this.notify('MODIFIED', stored);
    return structuredClone(stored);
  }

  private record(call: Omit<LeaseCall, 'at' | 'outcome'>): LeaseCall {
    const full: LeaseCall = { ...call, at: this.clock?.now() ?? 0, outcome: 'pending' };
    this.calls.push(full);
    return full;
  }

  /** Gate, latency and injected failure, in that order. */
  private async intercept(call: LeaseCall, signal: AbortSignal | undefined): Promise<void> {
    const gate = this.gates.get(call.op)?.shift();
    if (gate) {
      gate.reachedResolve(call);
      if (gate.rejectOnAbort && signal) {
        await new Promise<void>((resolve, reject) => {
          if (signal.aborted) return reject(new Error('aborted'));
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
          void gate.released.then(resolve);
        }).catch((err: unknown) => {
          call.outcome = 'aborted';
          throw err;
        });
      } else {
        await gate.released;
      }
    }
    const delay = this.latency.get(call.op) ?? 0;
    if (delay > 0 && this.clock) await this.clock.sleep(delay);
    const failure = this.failures.get(call.op)?.shift();
    if (failure) {
      call.outcome = 'injected-error';
      throw failure;
    }
  }

  private stamp(lease: Lease, previous: Lease | undefined): Lease {
    lease.apiVersion ??= 'coordination.k8s.io/v1';
    lease.kind ??= 'Lease';
    lease.metadata.resourceVersion = String(++this.rv);
    lease.metadata.uid = previous?.metadata.uid ?? `uid-${++this.uid}`;
    if (previous?.metadata.creationTimestamp) lease.metadata.creationTimestamp = previous.metadata.creationTimestamp;
    else lease.metadata.creationTimestamp ??= new Date(this.clock?.now() ?? 0).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return lease;
  }

  private notify(type: 'ADDED' | 'MODIFIED' | 'DELETED', lease: Lease): void {
    for (const l of this.listeners) l(type, structuredClone(lease));
  }
}

function keyOf(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
