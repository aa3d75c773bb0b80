/**
 * One trace from start to end: the one way a command runs a Tracer (the CLI trace and its TUI,
 * `check`'s rollout checks, the probe, and a reader that wants a trace's caches: `diagnose`, whose
 * session has no trigger and stops after start()).
 *
 *   start()  runs the informers until their caches synced; what exists then is the baseline.
 *   fire()   makes the trigger (a write, or watching for someone else's change) and starts the
 *            timeout, on the injected clock.
 *   finish() resolves once the trace ended — converged, no rollout, deleted, failed, timed out or
 *            interrupted — and Events that arrived late had their chance to attach to their hops.
 *   close()  stops the informers.
 *
 * Hooks: subscribe() to every TraceEvent, onStall() when no hop arrived for a while, snapshot()
 * for the trace so far, caches() for the informers' stores.
 */
import { realClock, type Clock, type Timer } from '../clock.js';
import { CheckFailedError } from '../errors.js';
import { runUntilSynced, type InformerEvent, type SharedIndexInformer, type SyncOptions } from '../informer/index.js';
import { groupResource, ResourceListerWatcher, type KubeObject, type ListerWatcher, type ResourceInfo } from '../kube/index.js';
import { formatDuration } from '../util/duration.js';
import { closest } from '../util/suggest.js';
import { Tracer } from './tracer.js';
import type { TriggerRequest } from './triggers.js';
import type { Hop, TraceCaches, TraceEvent, TracerOptions, TraceSnapshot, TraceTrigger } from './types.js';

interface SessionOptions extends Omit<TracerOptions, 'clock'> {
  syncTimeoutMs: number;
  /** Aborts on an interrupt (SIGINT, SIGTERM): the trace ends 'interrupted' and the informers stop. */
  signal: AbortSignal;
  /** With a watch trigger, a target that does not exist yet is waited for: its creation is the change. */
  waitForTarget?: boolean;
  /** Read the namespace's Events for the hops (the default); false when they may not be read. */
  events?: boolean;
  /** Informer news while the caches sync ('sync') and afterwards ('trace'): relists, watch restarts, errors. */
  onInformerEvent?: (event: InformerEvent, phase: 'sync' | 'trace') => void;
  clock?: Clock;
  /** How the informers run until synced: runUntilSynced against the API server, unless a test gives its own. */
  sync?: (informers: SharedIndexInformer[], options: SyncOptions) => Promise<void>;
}

/**
 * A trace's session: with a trigger, fired once the caches synced and ended by its timeout at the
 * latest; without one, the caches only, synced for a reader that judges the chain as it stands (a
 * diagnosis): nothing is fired, and a target that does not exist is what that reader finds.
 */
export type TraceSessionOptions = SessionOptions & ({ trigger: TriggerRequest; timeoutMs: number } | { trigger?: undefined; timeoutMs?: undefined });

export interface Stall {
  /** Time since the last hop arrived (or since the change was seen, when no hop has yet). */
  sinceMs: number;
  lastHop: Hop | undefined;
}

/**
 * Events are written by the controllers after the change they report, so some reach us after the
 * hop they explain, even after the trace ended. Before the final report the session waits until
 * the events informer has been quiet for this long (nothing new, nothing queued), at most the max.
 */
export const LATE_EVENTS_QUIET_MS = 200;
export const LATE_EVENTS_MAX_MS = 1_000;

export class TraceSession {
  readonly tracer: Tracer;
  /** Resolves when the trace ended (before late Events settled). */
  readonly ended: Promise<void>;
  /** The clock of every wait and timestamp of the trace (the injected one in tests). */
  readonly clock: Clock;
  private readonly controller = new AbortController();
  private timeout: Timer | undefined;
  private endedAtMs: number | undefined;
  private readonly cleanups: (() => void)[] = [];

  constructor(private readonly options: TraceSessionOptions) {
    this.clock = options.clock ?? realClock;
    this.tracer = new Tracer({ ...options, clock: this.clock });
    this.ended = this.tracer.ended;
    this.cleanups.push(
      this.tracer.subscribe((e) => {
        if (e.type !== 'end') return;
        this.endedAtMs = e.at;
        this.timeout?.stop();
      }),
    );
    const onAbort = (): void => {
      this.controller.abort();
      this.tracer.stop('interrupted', 'interrupted');
    };
    if (options.signal.aborted) onAbort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    this.cleanups.push(() => options.signal.removeEventListener('abort', onAbort));
  }

  /** Aborts when the session is closed or interrupted: for work that lives as long as the trace. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Our clock (ms) when the trace ended, once it has. */
  get endedAt(): number | undefined {
    return this.endedAtMs;
  }

  /**
   * Runs the informers until synced and takes the baseline. A target that does not exist is an
   * error (with close names), unless the trigger creates it (apply) or waits for its creation.
   */
  async start(): Promise<void> {
    await this.tracer.discoverChildren();
    if (this.options.events !== false) await this.tracer.addEventsInformer();
    const sync = this.options.sync ?? this.options.pool?.sync ?? ((informers, o) => runUntilSynced(this.options.kube, informers, o));
    const onEvent = this.options.onInformerEvent;
    await this.tracer.start(this.controller.signal, (informers) =>
      sync(informers, {
        signal: this.controller.signal,
        timeoutMs: this.options.syncTimeoutMs,
        clock: this.clock,
        ...(onEvent ? { onEvent: (e) => onEvent(e, 'sync') } : {}),
      }),
    );
    // Informer trouble after sync (a watch broke, a 410, the API server restarted) is passed on.
    if (onEvent) for (const inf of this.tracer.informers()) this.cleanups.push(inf.onEvent((e) => onEvent(e, 'trace')));
    const { trigger } = this.options;
    const creates = !trigger || trigger.kind === 'apply' || (trigger.kind === 'watch' && this.options.waitForTarget);
    if (!this.targetExists() && !creates) throw await this.notFound();
  }

  /** Whether the target is in the cache; false while a watched target is awaited. */
  targetExists(): boolean {
    return this.tracer.targetObject() !== undefined;
  }

  /**
   * The target as its own informer first synced it (undefined: it does not exist), once that
   * informer has, during start(): the children's may still be listing. Undefined too when start()
   * fails first.
   */
  async targetWhenSynced(started: Promise<void>): Promise<KubeObject | undefined> {
    const first = await Promise.race([
      this.tracer.targetSynced().then(() => true),
      started.then(
        () => true,
        () => false,
      ),
    ]);
    return first ? this.tracer.targetObject() : undefined;
  }

  /**
   * Makes the trigger and starts the timeout (the options', or what is left of a set's deadline).
   * Returns what was written (undefined when watching).
   */
  async fire(timeoutMs = this.options.timeoutMs): Promise<TraceTrigger | undefined> {
    if (!this.options.trigger || timeoutMs === undefined) throw new Error('a session without a trigger has nothing to fire');
    const fired = await this.tracer.fire(this.options.trigger, this.controller.signal);
    if (this.endedAtMs === undefined) {
      this.timeout = this.clock.setTimer(timeoutMs, () => this.tracer.stop('timeout', `no convergence within ${formatDuration(timeoutMs)}`));
    }
    return fired;
  }

  /** Ends the trace from outside (the TUI's quit). */
  stop(outcome: 'timeout' | 'interrupted', message: string): void {
    this.tracer.stop(outcome, message);
  }

  /** Waits for the end and for late Events; the final snapshot. */
  async finish(): Promise<TraceSnapshot> {
    await this.ended;
    await this.lateEventsSettled();
    await this.tracer.prepareArrived();
    return this.tracer.snapshot();
  }

  private async lateEventsSettled(): Promise<void> {
    const signal = this.controller.signal;
    const deadline = this.clock.now() + LATE_EVENTS_MAX_MS;
    let seen = this.tracer.eventsSeen();
    while (!signal.aborted && this.clock.now() < deadline) {
      await this.clock.sleep(LATE_EVENTS_QUIET_MS, signal);
      const now = this.tracer.eventsSeen();
      if (now === seen && this.tracer.idle()) return;
      seen = now;
    }
  }

  subscribe(fn: (e: TraceEvent) => void): () => void {
    return this.tracer.subscribe(fn);
  }

  snapshot(): TraceSnapshot {
    return this.tracer.snapshot();
  }

  /** The hops so far, in the trace's order (the live list, not a copy). */
  hops(): readonly Hop[] {
    return this.tracer.hops();
  }

  caches(): TraceCaches {
    return this.tracer.caches();
  }

  /**
   * Calls `fn` when no new hop has arrived for `ms` since the change was seen (or since the last
   * hop) and the trace has not ended; again after each further quiet stretch of `ms`.
   */
  onStall(ms: number, fn: (stall: Stall) => void): () => void {
    let timer: Timer | undefined;
    let since: number | undefined;
    let lastHop: Hop | undefined;
    const arm = (): void => {
      timer?.stop();
      since = this.clock.now();
      timer = this.clock.setTimer(ms, () => {
        timer = undefined;
        fn({ sinceMs: this.clock.now() - (since ?? 0), lastHop });
      });
    };
    const unsubscribe = this.tracer.subscribe((e) => {
      if (e.type === 'trigger') arm();
      else if (e.type === 'hop' && since !== undefined) {
        lastHop = e.hop;
        arm();
      } else if (e.type === 'end') timer?.stop();
    });
    const snap = this.tracer.snapshot();
    if (snap.trigger && !snap.outcome) {
      lastHop = snap.hops.at(-1);
      arm();
    }
    const off = (): void => {
      unsubscribe();
      timer?.stop();
    };
    this.cleanups.push(off);
    return off;
  }

  /** Stops the informers (takes its handlers away from a pool's, which outlive it) and every timer the session set. */
  close(): void {
    this.tracer.detach();
    this.controller.abort();
    this.timeout?.stop();
    for (const c of this.cleanups.splice(0)) c();
  }

  private async notFound(): Promise<CheckFailedError> {
    const { info, namespace, name } = this.options.target;
    const all = await this.listerWatcherFor(info, namespace)
      .list({ limit: 500 }, this.controller.signal)
      .catch(() => undefined);
    const near = closest(
      name,
      (all?.items ?? []).map((o) => o.metadata.name ?? ''),
      3,
    );
    return new CheckFailedError(`${groupResource(info)} "${name}" not found${namespace ? ` in namespace ${namespace}` : ''}`, {
      hint: near.length
        ? `did you mean ${near.map((n) => `"${n}"`).join(', ')}?`
        : `kubectl get ${groupResource(info)}${namespace ? ` -n ${namespace}` : ''} lists what there is`,
    });
  }

  private listerWatcherFor(info: ResourceInfo, namespace: string | undefined): ListerWatcher {
    return this.options.listerWatcher?.(info, { namespace }) ?? new ResourceListerWatcher(this.options.kube.client, info, { namespace });
  }
}
