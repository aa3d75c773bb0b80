import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import { Throttle } from './throttle.js';

describe('Throttle', () => {
  it('runs the first request at once and coalesces the rest of the interval into one trailing call', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const t = new Throttle(() => calls++, 100, clock);
    t.request();
    expect(calls).toBe(1);
    for (let i = 0; i < 50; i++) t.request();
    expect(calls).toBe(1);
    await clock.step(99);
    expect(calls).toBe(1);
    await clock.step(1);
    expect(calls).toBe(2);
    await clock.step(1_000);
    expect(calls).toBe(2); // nothing asked since
    t.request();
    expect(calls).toBe(3);
  });

  it('at most ten calls a second under a constant stream of requests', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const t = new Throttle(() => calls++, 100, clock);
    for (let ms = 0; ms < 1_000; ms += 5) {
      t.request();
      await clock.step(5);
    }
    expect(calls).toBeLessThanOrEqual(11);
    expect(calls).toBeGreaterThanOrEqual(9);
  });

  it('stop() cancels a pending trailing call', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const t = new Throttle(() => calls++, 100, clock);
    t.request();
    t.request();
    t.stop();
    await clock.step(200);
    expect(calls).toBe(1);
  });
});
