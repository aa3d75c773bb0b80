/**
 * Mirrors apimachinery pkg/util/wait backoff.go as the Reflector uses it
 * (`Backoff{Duration: 800ms, Factor: 2, Jitter: 1, Cap: 30s}.DelayWithReset(clock, 2m)`):
 * each step returns the current delay with jitter and doubles it up to the cap; the sequence
 * restarts from the initial delay when more than `resetAfter` has passed since the last restart
 * (or since construction), not since the last failure.
 *
 * Deliberate differences: milliseconds instead of time.Duration; the random source is injected so
 * tests can fix it; Steps is unlimited.
 */
import type { Clock } from '../clock.js';

export interface BackoffOptions {
  /** First delay (ms). Default 800. */
  initialMs?: number;
  /** Largest delay before jitter (ms). Default 30 000. */
  capMs?: number;
  /** Multiplier per step. Default 2. */
  factor?: number;
  /** A delay d becomes d + random·jitter·d. Default 1, so [d, 2d). */
  jitter?: number;
  /** Restart from initialMs when this long (ms) has passed since the last restart. Default 120 000. */
  resetAfterMs?: number;
}

export const DEFAULT_REFLECTOR_BACKOFF: Required<BackoffOptions> = {
  initialMs: 800,
  capMs: 30_000,
  factor: 2,
  jitter: 1,
  resetAfterMs: 120_000,
};

/** d + random()·maxFactor·d (wait.Jitter); maxFactor ≤ 0 means 1. */
export function jitter(durationMs: number, maxFactor: number, random: () => number): number {
  const f = maxFactor <= 0 ? 1 : maxFactor;
  return durationMs + random() * f * durationMs;
}

export class BackoffManager {
  private readonly opts: Required<BackoffOptions>;
  private current: number;
  private lastStart: number;

  constructor(
    private readonly clock: Clock,
    private readonly random: () => number,
    options: BackoffOptions = {},
  ) {
    this.opts = { ...DEFAULT_REFLECTOR_BACKOFF, ...options };
    this.current = this.opts.initialMs;
    this.lastStart = clock.now();
  }

  /** The next delay (ms), jittered. */
  step(): number {
    const now = this.clock.now();
    if (now - this.lastStart > this.opts.resetAfterMs) {
      this.current = this.opts.initialMs;
      this.lastStart = now;
    }
    const d = this.current;
    if (this.opts.factor !== 0) {
      this.current = Math.min(this.current * this.opts.factor, this.opts.capMs > 0 ? this.opts.capMs : Infinity);
    }
    return this.opts.jitter > 0 ? jitter(d, this.opts.jitter, this.random) : d;
  }
}
