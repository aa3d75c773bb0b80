/**
 * When a trace ends, and how: asked by the tracer's worker after each reconcile of the target
 * (check()), told by its owner when time is up or the user interrupts (stop()), and by the trigger
 * when an apply changed nothing (applyUnchanged()).
 *
 * Contract:
 * - Nothing is decided before the trigger. The outcome is set once, and the end is said once.
 * - Once the target has converged it stays converged, whether the trace then follows terminating
 *   objects to their deletion, times out or is interrupted.
 * - It ends converged or failed only once every child informer has caught up with the server
 *   (chain-currency.ts) and the reconcile that check asked for has run: a watch gone silent
 *   unnoticed delays the end until it is replaced and its hops are in, rather than cutting the
 *   chain short.
 * - A change that brings no rollout (no new pod template or replica count) ends 'no-rollout' once
 *   the controller has seen it and the settle window has passed without a change of spec.
 */
import type { Clock, Timer } from '../clock.js';
import type { ChainCurrency } from './chain-currency.js';
import type { ChainTracker, ReconcileView } from './chain-tracker.js';
import type { Hop, TraceEvent, TraceOutcome, TraceTrigger } from './types.js';

/** What the decision reads of the chain tracker. */
export type EndTracker = Pick<ChainTracker, 'converged' | 'isTargetDeleted' | 'specChanged' | 'expectsRollout' | 'hops'>;

/** Whether the chain's informers caught up with the server (a ChainCurrency). */
export type Currency = Pick<ChainCurrency, 'check' | 'behind' | 'close'>;

export interface EndDecisionOptions {
  clock: Clock;
  tracker: EndTracker;
  /** The target as the messages name it: `Kind/name`. */
  targetLabel: string;
  /** After a metadata-only change, how long to watch for a rollout before saying none follows. */
  settleMs: number;
  /** End as soon as the status converged, instead of following terminating objects to their deletion. */
  stopWhenConverged: boolean;
  /** The trace's trigger, once set. */
  trigger: () => TraceTrigger | undefined;
  /** The target's uid, once known. */
  targetUid: () => string | undefined;
  /** How many objects of the chain are terminating now. */
  terminating: () => number;
  /** Made the first time the decision asks whether the chain caught up (its Lists start then). */
  currency: () => Currency;
  /** Whether a reconcile of the target is queued: the hops it would bring are not in yet. */
  reconcilePending: () => boolean;
  /** Where the decision's notes and the end go. */
  emit: (e: TraceEvent) => void;
}

export class EndDecision {
  /** Resolves once the trace ended. */
  readonly ended: Promise<void>;
  private resolveEnded: (() => void) | undefined;
  private decided: { outcome: TraceOutcome; message: string } | undefined;
  private settleTimer: Timer | undefined;
  private waitingForDeletes = false;
  private currency: Currency | undefined;

  constructor(private readonly options: EndDecisionOptions) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
  }

  get outcome(): TraceOutcome | undefined {
    return this.decided?.outcome;
  }

  get message(): string | undefined {
    return this.decided?.message;
  }

  /** After a reconcile of the target, with the view it read: ends the trace when the chain shows its end. */
  check(view: ReconcileView): void {
    const trigger = this.options.trigger();
    if (this.decided || !trigger) return;
    const { tracker } = this.options;
    const uid = this.options.targetUid();
    if (tracker.isTargetDeleted() || (!view.target && uid && view.deletions.has(uid))) {
      this.end('deleted', `${this.options.targetLabel} was deleted`);
      return;
    }
    const converged = tracker.converged();
    if (converged) {
      this.checkConverged(converged);
      return;
    }
    // No new pod template or replica count: once the controller has seen the change (or there was
    // no new generation to see), watch a settle window for anything to follow, then say none did.
    const seen = trigger.kind !== 'watch' ? view.triggerSeenAt !== undefined : true;
    const observed = !tracker.specChanged() || tracker.hops().some((h) => h.kind === 'controller-observed');
    const terminating = Boolean(view.target?.obj.metadata.deletionTimestamp);
    if (!tracker.expectsRollout() && seen && observed && !terminating && !this.settleTimer) this.settle(view.target?.obj.metadata.generation);
  }

  /** The target's status converged (or failed): end, unless terminating objects are still followed or the chain is behind. */
  private checkConverged(converged: Hop): void {
    // Status converges while old Pods may still be terminating: follow them to their deletion.
    const terminating = this.options.terminating();
    if (terminating > 0 && converged.kind !== 'failed' && !this.options.stopWhenConverged) {
      if (!this.waitingForDeletes)
        this.options.emit({
          type: 'note',
          at: this.options.clock.now(),
          level: 'info',
          message: `${this.options.targetLabel} converged; following ${terminating} terminating object(s) to their deletion`,
        });
      this.waitingForDeletes = true;
      return;
    }
    if (!this.chainCaughtUp()) return;
    this.end(
      converged.kind === 'failed' ? 'failed' : 'converged',
      this.convergedMessage(converged, terminating > 0 ? ` (${terminating} object(s) still terminating)` : ''),
    );
  }

  /** Starts the settle window: at its end, no rollout followed, unless a change of spec came meanwhile. */
  private settle(gen: number | undefined): void {
    const { tracker, settleMs } = this.options;
    const specChanged = tracker.specChanged();
    this.settleTimer = this.options.clock.setTimer(settleMs, () => {
      if (this.decided) return;
      // A change of spec came within the window (a --watch trace that began on a status write,
      // then saw the spec change): a rollout follows after all, and the reconciles judge it.
      if (tracker.expectsRollout()) {
        this.settleTimer = undefined;
        return;
      }
      const uid = this.options.targetUid();
      const changedChildren = tracker.hops().filter((h) => h.object.uid !== uid).length;
      this.end(
        'no-rollout',
        `metadata-only change: ${specChanged ? `generation ${gen} observed by the controller, spec unchanged` : `generation unchanged (${gen ?? '-'})`}; ${changedChildren === 0 ? 'no ReplicaSet or Pod changed' : `${changedChildren} child hop(s)`} within ${settleMs / 1000}s: no rollout follows`,
      );
    });
  }

  /**
   * Whether every child informer has caught up with the server (chain-currency.ts) and the hops it
   * brought have been reconciled: asked before the trace ends converged or failed, so that a watch
   * that went silent unnoticed cannot cut the chain short.
   */
  private chainCaughtUp(): boolean {
    this.currency ??= this.options.currency();
    return this.currency.check() && !this.options.reconcilePending();
  }

  /** For an end before the chain caught up: which informers had not, and what that means. */
  private notCaughtUp(): string {
    const behind = this.currency?.behind() ?? [];
    return behind.length ? `; ${behind.join(', ')} had not caught up with the server: hops not yet received are missing` : '';
  }

  private convergedMessage(hop: Hop, extra = ''): string {
    return `${this.options.targetLabel} ${hop.kind === 'failed' ? 'failed' : 'converged'}: ${hop.detail ?? ''}${extra}`;
  }

  /** The server stored nothing new for an apply: no watch event, no hop will follow. */
  applyUnchanged(): void {
    this.end('no-rollout', `the manifest matches ${this.options.targetLabel}: the apply changed nothing`);
  }

  /**
   * Ends the trace from outside (timeout, interrupt). A target that has converged, with the trace
   * following its terminating objects to their deletion, ends converged either way.
   */
  stop(outcome: 'timeout' | 'interrupted', message: string): void {
    const converged = this.options.tracker.converged();
    if (converged && converged.kind !== 'failed') {
      const left = this.options.terminating();
      this.end('converged', this.convergedMessage(converged, `${left > 0 ? ` (${left} object(s) still terminating)` : ''}${this.notCaughtUp()}`));
      return;
    }
    this.end(outcome, message);
  }

  private end(outcome: TraceOutcome, message: string): void {
    if (this.decided) return;
    this.decided = { outcome, message };
    this.settleTimer?.stop();
    this.currency?.close();
    const at = this.options.clock.now();
    const trigger = this.options.trigger();
    this.options.emit({ type: 'end', outcome, at, elapsedMs: trigger ? at - trigger.at : 0, message });
    this.resolveEnded?.();
  }
}
