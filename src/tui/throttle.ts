/**
 * Coalesces bursts of "something changed" into at most one call per interval, leading and
 * trailing: the first request runs at once, later ones within the interval run once at its end.
 * The TUI uses it to redraw at most ~10 times a second however fast Leases change.
 */
import { realClock, type Clock, type Timer } from '../clock.js';

export class Throttle {
  private last = -Infinity;
  private timer: Timer | undefined;
  private stopped = false;

  constructor(
    private readonly fn: () => void,
    private readonly intervalMs: number,
    private readonly clock: Clock = realClock,
  ) {}

  request(): void {
    if (this.stopped || this.timer) return;
    const wait = this.last + this.intervalMs - this.clock.now();
    if (wait <= 0) {
      this.run();
      return;
    }
    this.timer = this.clock.setTimer(wait, () => {
      this.timer = undefined;
      if (!this.stopped) this.run();
    });
  }

  stop(): void {
    this.stopped = true;
    this.timer?.stop();
    this.timer = undefined;
  }

  private run(): void {
    this.last = this.clock.now();
    this.fn();
  }
}
