/**
 * Mirrors sharedProcessor of client-go tools/cache/shared_informer.go: the set of listeners of one
 * informer, which notifications go to which listener, and the per-listener resync bookkeeping.
 *
 * - distribute(n, sync): a non-sync notification goes to every listener; a sync one (an update
 *   with an unchanged resourceVersion) only to the listeners flagged by the last shouldResync().
 *   A new listener starts flagged.
 * - shouldResync(): flags the listeners whose nextResync ≤ now, moves their nextResync one
 *   period on, and answers whether any was flagged (the Reflector then resyncs the FIFO).
 *
 * Deliberate differences: stop() resolves once every listener's handler call in progress has
 * returned; listeners are kept in insertion order (Go iterates a map).
 */
import type { Clock } from '../clock.js';
import type { Notification, ProcessorListener } from './processor-listener.js';

/** Resync periods below this are raised to it (client-go minimumResyncPeriod). */
export const MINIMUM_RESYNC_PERIOD_MS = 1000;

/**
 * The effective resync period of a handler: 0 if it asked for none or the informer does not
 * resync; otherwise at least the informer's check period.
 */
export function determineResyncPeriod(desired: number, check: number): number {
  if (desired === 0) return 0;
  if (check === 0) return 0;
  return Math.max(desired, check);
}

export class SharedProcessor {
  /** listener → due for resync (client-go's map[*processorListener]bool). */
  private listeners = new Map<ProcessorListener, boolean>();
  private listenersStarted = false;

  constructor(private readonly clock: Clock) {}

  addListener(listener: ProcessorListener): void {
    this.listeners.set(listener, true);
    if (this.listenersStarted) listener.run();
  }

  /** Removes and stops the listener; resolves when its handler call in progress has returned. */
  removeListener(listener: ProcessorListener): Promise<void> {
    if (!this.listeners.delete(listener)) return Promise.resolve();
    return listener.stop();
  }

  distribute(n: Notification, sync: boolean): void {
    // forEach rather than for-of over entries: no [listener, flag] pair made per listener per notification.
    this.listeners.forEach((isSyncing, listener) => {
      if (!sync || isSyncing) listener.add(n);
    });
  }

  run(): void {
    for (const listener of this.listeners.keys()) listener.run();
    this.listenersStarted = true;
  }

  /** Stops every listener (their buffers are dropped) and forgets them. */
  async stop(): Promise<void> {
    const stopping: Promise<void>[] = [];
    for (const listener of this.listeners.keys()) stopping.push(listener.stop());
    this.listeners = new Map();
    this.listenersStarted = false;
    await Promise.all(stopping);
  }

  shouldResync(): boolean {
    let resyncNeeded = false;
    const now = this.clock.now();
    for (const listener of this.listeners.keys()) {
      const due = listener.shouldResync(now);
      this.listeners.set(listener, due);
      if (due) {
        resyncNeeded = true;
        listener.determineNextResync(now);
      }
    }
    return resyncNeeded;
  }

  resyncCheckPeriodChanged(resyncCheckPeriod: number): void {
    for (const listener of this.listeners.keys()) {
      listener.setResyncPeriod(determineResyncPeriod(listener.requestedResyncPeriod, resyncCheckPeriod));
    }
  }

  /** Notifications waiting in every listener's buffer. */
  backlog(): number {
    let n = 0;
    for (const l of this.listeners.keys()) n += l.backlog();
    return n;
  }

  getListeners(): ProcessorListener[] {
    return [...this.listeners.keys()];
  }

  isSyncing(listener: ProcessorListener): boolean {
    return this.listeners.get(listener) ?? false;
  }
}
