import type { Clock, Timer } from '../../src/clock.js';

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
  done: boolean;
}

/**
 * A clock that only moves when a test says so. `step(ms)` fires every timer due within the step in
 * time order, letting promise callbacks run between timers, so async code driven by timers advances
 * the way it would in real time.
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private pending: Pending[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(ms: number, fn: () => void): Timer {
    const entry: Pending = { at: this.current + Math.max(0, ms), seq: this.seq++, fn, done: false };
    this.pending.push(entry);
    return {
      stop: () => {
        if (entry.done) return false;
        entry.done = true;
        this.pending = this.pending.filter((p) => p !== entry);
        return true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = this.setTimer(ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      const onAbort = (): void => {
        timer.stop();
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Number of timers waiting to fire. */
  pendingTimers(): number {
    return this.pending.length;
  }

  /** Time of the next timer, or undefined. */
  nextTimerAt(): number | undefined {
    let min: number | undefined;
    for (const p of this.pending) if (min === undefined || p.at < min) min = p.at;
    return min;
  }

  /** Advances time by `ms`, firing due timers in order and flushing microtasks between them. */
  async step(ms: number): Promise<void> {
    const target = this.current + ms;
    await flushMicrotasks();
    for (;;) {
      const next = this.popDue(target);
      if (!next) break;
      this.current = Math.max(this.current, next.at);
      next.fn();
      await flushMicrotasks();
    }
    this.current = target;
    await flushMicrotasks();
  }

  /** Sets the time without firing anything (a jump of the wall clock). */
  set(ms: number): void {
    this.current = ms;
  }

  private popDue(target: number): Pending | undefined {
    let best: Pending | undefined;
    for (const p of this.pending) {
      if (p.at > target) continue;
      if (!best || p.at < best.at || (p.at === best.at && p.seq < best.seq)) best = p;
    }
    if (best) {
      best.done = true;
      this.pending = this.pending.filter((p) => p !== best);
    }
    return best;
  }
}

/** Lets pending promise callbacks run (several turns, since callbacks chain). */
export async function flushMicrotasks(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await Promise.resolve();
  await new Promise<void>((resolve) => setImmediate(resolve));
}
