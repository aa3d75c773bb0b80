/**
 * Go contexts with deadlines for the leader elector: AbortSignals whose timeouts run on the
 * injected Clock. (Racing a call against a signal is util/abort.ts's abortable.)
 */
import type { Clock } from '../clock.js';

/** A child signal: aborts with its parent, after `timeoutMs` on `clock` if given, or by hand. */
export class ChildSignal {
  private readonly controller = new AbortController();
  private readonly onParentAbort: () => void;
  private readonly timer: { stop(): boolean } | undefined;

  constructor(
    private readonly parent: AbortSignal | undefined,
    timeout?: { clock: Clock; ms: number; reason: string },
  ) {
    this.onParentAbort = () => this.controller.abort(parent?.reason);
    if (parent?.aborted) this.controller.abort(parent.reason);
    else parent?.addEventListener('abort', this.onParentAbort, { once: true });
    this.timer = timeout?.clock.setTimer(timeout.ms, () => this.controller.abort(new TimeoutError(timeout.reason)));
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    this.controller.abort(reason);
  }

  /** Detaches from the parent and stops the timer; the signal is aborted if it was not yet. */
  dispose(): void {
    this.parent?.removeEventListener('abort', this.onParentAbort);
    this.timer?.stop();
    if (!this.controller.signal.aborted) this.controller.abort(new Error('done'));
  }
}

export class TimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}
