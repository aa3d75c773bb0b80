/**
 * A token bucket that hands out reservations: the arithmetic of golang.org/x/time/rate's Limiter
 * (reserveN / advance), which client-go's BucketRateLimiter wraps.
 *
 * Deliberate differences: times are Clock milliseconds (floats) instead of nanoseconds, and only
 * single-token reservations exist (the only kind the work queue makes).
 */
import { realClock, type Clock } from '../clock.js';

export class TokenBucket {
  private tokens: number;
  /** Last time tokens were computed; undefined until the first reservation (Go's zero time). */
  private last: number | undefined;
  private burst: number;

  /**
   * @param qps tokens added per second (Infinity: no limit; 0: only the initial burst)
   * @param burst bucket size; the bucket starts full
   */
  constructor(
    private readonly qps: number,
    burst: number,
    private readonly clock: Clock = realClock,
  ) {
    this.burst = burst;
    this.tokens = burst;
  }

  /**
   * Takes one token and returns how long the caller must wait before acting, in ms. A
   * reservation that can never be honoured (burst 0, or qps 0 with the burst used up) returns
   * Infinity, as rate.Reservation.Delay returns InfDuration.
   */
  reserve(): number {
    if (this.qps === Infinity) return 0;
    const now = this.clock.now();
    if (this.qps <= 0) {
      if (this.burst >= 1) {
        this.burst -= 1;
        return 0;
      }
      return Infinity;
    }
    const tokens = this.advance(now) - 1;
    const wait = tokens < 0 ? (-tokens / this.qps) * 1000 : 0;
    if (this.burst < 1) return Infinity;
    this.last = now;
    this.tokens = tokens;
    return wait;
  }

  /** Tokens available at `now`, capped at burst (x/time/rate's advance). */
  private advance(now: number): number {
    if (this.last === undefined) return this.burst;
    const last = Math.min(now, this.last);
    const tokens = this.tokens + ((now - last) / 1000) * this.qps;
    return Math.min(tokens, this.burst);
  }
}
