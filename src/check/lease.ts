/**
 * Lease checks: watch one Lease for the window with the LeaseObserver (client-go's judgement of
 * validity) and hold its renew age and its holder changes to their limits.
 *
 * - Renew age: how long the record went without a change (a renewal, a new holder, a release), on
 *   our clock, sampled four times a second. Until the first change is seen, the holder's own
 *   renewTime is all there is to go by (a Lease nobody renewed for an hour must not pass for its
 *   first leaseDuration), so its age counts too; that one includes clock skew.
 * - Transitions: holder changes seen during the window; leaseTransitions' increase counts too, so a
 *   change missed between two events (a relist) is not lost.
 * - Both only grow, so once either is over its limit the check has failed and ends early; the
 *   other limit is then reported over the part of the window that was watched.
 */
import type { Clock } from '../clock.js';
import { isDeletedFinalStateUnknown, runUntilSynced, SharedIndexInformer, splitMetaNamespaceKey, waitForCacheSync } from '../informer/index.js';
import { LEASES, ResourceListerWatcher, type Kube, type Lease, type ListerWatcher } from '../kube/index.js';
import { LeaseObserver, parseMicroTime, type LeaseEvent, type LeaseSnapshot } from '../lease/index.js';
import { formatDuration } from '../util/duration.js';
import type { RunContext } from './context.js';
import { checked, type CheckResult, type LeaseCheckSpec } from './types.js';

export const SAMPLE_MS = 250;

interface Change {
  at: number;
  holder: string;
  previousHolder: string | null;
}

/** What one lease did over the window; fed samples and holder changes, it gives the results. */
export class LeaseWindow {
  private maxAge: { value: number; holder: string | null; state: string; since: number } | undefined;
  private readonly changes: Change[] = [];
  private firstTransitions: number | undefined;
  private lastTransitions: number | undefined;
  private initialObservedTime: number | undefined;
  private deletedAt: number | undefined;
  private lastHolder: string | null = null;

  constructor(
    private readonly spec: LeaseCheckSpec,
    private readonly startedAt: number,
  ) {}

  /** The lease as the observer judges it now. */
  sample(snap: LeaseSnapshot, now: number): void {
    this.initialObservedTime ??= snap.observedTime;
    this.firstTransitions ??= snap.transitions;
    this.lastTransitions = snap.transitions;
    this.lastHolder = snap.holder;
    let age = snap.renewAgeMs;
    let since = snap.observedTime;
    if (snap.observedTime === this.initialObservedTime && snap.renewTime) {
      const written = parseMicroTime(snap.renewTime);
      if (written !== undefined && now - written > age) {
        age = now - written;
        since = written;
      }
    }
    if (!this.maxAge || age > this.maxAge.value) this.maxAge = { value: age, holder: snap.holder, state: snap.state, since };
  }

  acquired(e: Extract<LeaseEvent, { type: 'acquired' }>): void {
    this.changes.push({ at: e.at, holder: e.holder, previousHolder: e.previousHolder });
  }

  deleted(at: number): void {
    this.deletedAt ??= at;
  }

  private transitions(): number {
    const counted = this.firstTransitions !== undefined && this.lastTransitions !== undefined ? this.lastTransitions - this.firstTransitions : 0;
    return Math.max(this.changes.length, counted);
  }

  /** Over a limit already: waiting for the rest of the window cannot make the check pass. */
  exceeded(): string | undefined {
    if (this.deletedAt !== undefined) return 'the lease was deleted';
    if (this.spec.maxRenewAgeMs !== undefined && this.maxAge && this.maxAge.value > this.spec.maxRenewAgeMs) return 'the renew age limit was exceeded';
    if (this.spec.maxTransitions !== undefined && this.transitions() > this.spec.maxTransitions) return 'the transitions limit was exceeded';
    return undefined;
  }

  results(now: number): CheckResult[] {
    const watched = now - this.startedAt;
    const cut =
      watched + 500 < this.spec.windowMs
        ? ` (watched ${formatDuration(watched)} of the ${formatDuration(this.spec.windowMs)} window: ${this.exceeded() ?? 'interrupted'})`
        : '';
    const out: CheckResult[] = [];
    const gone = this.deletedAt !== undefined ? `the lease was deleted at ${new Date(this.deletedAt).toISOString()}` : undefined;
    if (this.spec.maxRenewAgeMs !== undefined) {
      const limit = this.spec.maxRenewAgeMs;
      const m = this.maxAge;
      const passed = !gone && m !== undefined && m.value <= limit;
      let message: string;
      if (gone) message = gone;
      else if (!m) message = 'the lease was never seen';
      else if (passed) message = `longest without a renewal: ${formatDuration(m.value)} (holder ${m.holder ?? 'none'})`;
      else
        message = `no renewal for ${formatDuration(m.value)} since ${new Date(m.since).toISOString()}, over the ${formatDuration(limit)} limit (holder ${m.holder ?? 'none'}, ${m.state})`;
      out.push(checked('renew age', gone ? null : (m?.value ?? null), limit, 'ms', passed, message + cut));
    }
    if (this.spec.maxTransitions !== undefined) {
      const limit = this.spec.maxTransitions;
      const n = this.transitions();
      const passed = !gone && n <= limit;
      const list = this.changes.map((c) => `${c.previousHolder ?? 'none'} → ${c.holder} at ${new Date(c.at).toISOString()}`).join(', ');
      const seen =
        n === 0
          ? `no holder change in ${formatDuration(watched)} (holder ${this.lastHolder ?? 'none'})`
          : `${n} holder change${n === 1 ? '' : 's'} in ${formatDuration(watched)}${list ? `: ${list}` : ''}`;
      out.push(checked('transitions', n, limit, 'count', passed, (gone ?? (passed ? seen : `${seen}, over the limit of ${limit}`)) + cut));
    }
    return out;
  }
}

/** Resolves after `ms`, when `signal` aborts, or when `tick()` says so (asked every SAMPLE_MS). */
async function watchFor(clock: Clock, ms: number, signal: AbortSignal, tick: () => boolean): Promise<void> {
  const end = clock.now() + ms;
  while (!signal.aborted && clock.now() < end) {
    if (tick()) return;
    await clock.sleep(Math.min(SAMPLE_MS, end - clock.now()), signal);
  }
  tick();
}

/** Starts the informer and resolves once its cache has synced; rejects with why it could not. */
export type StartInformer = (informer: SharedIndexInformer, signal: AbortSignal) => Promise<void>;

export async function runLeaseCheck(kube: Kube, spec: LeaseCheckSpec, ctx: RunContext): Promise<CheckResult[]> {
  const namespace = spec.namespace ?? kube.connection.namespace;
  const lw = new ResourceListerWatcher(kube.client, LEASES, { namespace, fieldSelector: `metadata.name=${spec.lease}` });
  return watchLease(lw, namespace, spec, ctx, (informer, signal) =>
    runUntilSynced(kube, [informer], {
      signal,
      timeoutMs: ctx.syncTimeoutMs,
      clock: ctx.clock,
      onEvent: (e) => {
        if (e.level === 'warning' || e.level === 'error') ctx.log(`${e.level}: ${e.message}`);
      },
    }),
  );
}

/** The lease check over any ListerWatcher of the one Lease: sync, then sample it for the window. */
export async function watchLease(lw: ListerWatcher, namespace: string, spec: LeaseCheckSpec, ctx: RunContext, start: StartInformer): Promise<CheckResult[]> {
  const { clock } = ctx;
  const informer = new SharedIndexInformer(lw, { clock });
  let synced = false;
  let window: LeaseWindow | undefined;
  const observer = new LeaseObserver({
    clock,
    onEvent: (e) => {
      if (synced && e.type === 'acquired') window?.acquired(e);
    },
  });
  const registration = informer.addEventHandler(
    {
      onAdd: (obj, _initial, info) => observer.observe(obj as Lease, info.receivedAt),
      onUpdate: (_old, obj, info) => observer.observe(obj as Lease, info.receivedAt),
      onDelete: (obj, info) => {
        const key = isDeletedFinalStateUnknown(obj) ? obj.key : `${obj.metadata.namespace}/${obj.metadata.name}`;
        const { namespace: ns, name } = splitMetaNamespaceKey(key);
        observer.observeDeleted(ns, name, info.receivedAt);
        window?.deleted(info.receivedAt);
      },
    },
    { name: 'lease-check' },
  );
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  ctx.signal.addEventListener('abort', stop, { once: true });
  try {
    await start(informer, controller.signal);
    // The informer has synced; wait until our handler has seen the initial list too.
    await waitForCacheSync(controller.signal, [() => registration.hasSynced()], clock);
    synced = true;
    const startedAt = clock.now();
    const first = observer.snapshotOf(namespace, spec.lease, startedAt);
    if (!first) {
      const message = `lease ${namespace}/${spec.lease} not found`;
      return [
        ...(spec.maxRenewAgeMs !== undefined
          ? [{ name: 'renew age', passed: false, status: 'failed' as const, measured: null, limit: spec.maxRenewAgeMs, unit: 'ms' as const, message }]
          : []),
        ...(spec.maxTransitions !== undefined
          ? [{ name: 'transitions', passed: false, status: 'failed' as const, measured: null, limit: spec.maxTransitions, unit: 'count' as const, message }]
          : []),
      ];
    }
    const w = new LeaseWindow(spec, startedAt);
    window = w;
    ctx.log(`holder ${first.holder ?? 'none'} (${first.state}); watching for ${formatDuration(spec.windowMs)}`);
    let reported = false;
    await watchFor(clock, spec.windowMs, controller.signal, () => {
      const now = clock.now();
      const snap = observer.snapshotOf(namespace, spec.lease, now);
      if (snap) w.sample(snap, now);
      const over = w.exceeded();
      if (over && !reported) {
        reported = true;
        ctx.log(`${over}: ending early`);
      }
      return over !== undefined;
    });
    return w.results(clock.now());
  } finally {
    ctx.signal.removeEventListener('abort', stop);
    controller.abort();
    observer.close();
  }
}
