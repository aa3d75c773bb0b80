// Behaviours of client-go util/workqueue/default_rate_limiters_test.go (test names in brackets),
// plus the token bucket of golang.org/x/time/rate that BucketRateLimiter wraps.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../tools/testing/fake-clock.js';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  type RateLimiter,
} from './default-rate-limiters.js';
import { TokenBucket } from './token-bucket.js';

describe('ItemExponentialFailureRateLimiter', () => {
  it('[TestItemExponentialFailureRateLimiter] doubles per item from the base, Forget restarts', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    expect([1, 2, 3, 4, 5].map(() => limiter.when('one'))).toEqual([1, 2, 4, 8, 16]);
    expect(limiter.numRequeues('one')).toBe(5);

    expect([limiter.when('two'), limiter.when('two')]).toEqual([1, 2]);
    expect(limiter.numRequeues('two')).toBe(2);

    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.when('one')).toBe(1);
  });

  it('[TestItemExponentialFailureRateLimiterOverflow] huge exponents give the cap', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, 1000 * 1000);
    for (let i = 0; i < 5; i++) limiter.when('one');
    expect(limiter.when('one')).toBe(32);
    for (let i = 0; i < 1000; i++) limiter.when('overflow1');
    expect(limiter.when('overflow1')).toBe(1000 * 1000);

    const minutes = new ItemExponentialFailureRateLimiter<string>(60_000, 1000 * 3_600_000);
    for (let i = 0; i < 2; i++) minutes.when('two');
    expect(minutes.when('two')).toBe(4 * 60_000);
    for (let i = 0; i < 1100; i++) minutes.when('overflow2'); // 2^1100 is Infinity in a double
    expect(minutes.when('overflow2')).toBe(1000 * 3_600_000);
  });

  it('caps at max before overflowing', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 30);
    expect([0, 1, 2, 3].map(() => limiter.when('x'))).toEqual([5, 10, 20, 30]);
  });
});

describe('ItemFastSlowRateLimiter', () => {
  it('[TestItemFastSlowRateLimiter] fast for maxFastAttempts, then slow; per item; Forget restarts', () => {
    const limiter = new ItemFastSlowRateLimiter<string>(5, 10_000, 3);
    expect([1, 2, 3, 4, 5].map(() => limiter.when('one'))).toEqual([5, 5, 5, 10_000, 10_000]);
    expect(limiter.numRequeues('one')).toBe(5);
    expect([limiter.when('two'), limiter.when('two')]).toEqual([5, 5]);
    expect(limiter.numRequeues('two')).toBe(2);
    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.when('one')).toBe(5);
  });
});

describe('MaxOfRateLimiter', () => {
  it('[TestMaxOfRateLimiter] fast/slow with exponential: 5 ms ×3, then 3 s', () => {
    const limiter = new MaxOfRateLimiter<string>(new ItemFastSlowRateLimiter<string>(5, 3000, 3), new ItemExponentialFailureRateLimiter<string>(1, 1000));
    expect([1, 2, 3, 4, 5].map(() => limiter.when('one'))).toEqual([5, 5, 5, 3000, 3000]);
    expect(limiter.numRequeues('one')).toBe(5);
    expect([limiter.when('two'), limiter.when('two')]).toEqual([5, 5]);
    expect(limiter.numRequeues('two')).toBe(2);
    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.when('one')).toBe(5);
  });

  it("calls every child's when, even when an earlier child already gives the maximum", () => {
    const calls: string[] = [];
    const spy = (name: string, delay: number): RateLimiter<string> => ({
      when: () => (calls.push(name), delay),
      forget: () => void calls.push(`forget:${name}`),
      numRequeues: () => (name === 'a' ? 3 : 7),
    });
    const limiter = new MaxOfRateLimiter(spy('a', 100), spy('b', 1));
    expect(limiter.when('x')).toBe(100);
    expect(calls).toEqual(['a', 'b']);
    expect(limiter.numRequeues('x')).toBe(7);
    limiter.forget('x');
    expect(calls.slice(2)).toEqual(['forget:a', 'forget:b']);
  });
});

describe('WithMaxWaitRateLimiter', () => {
  it('[TestWithMaxWaitRateLimiter] caps the wrapped delay and passes the rest through', () => {
    const limiter = new WithMaxWaitRateLimiter(new ItemExponentialFailureRateLimiter<string>(100, 100_000), 250);
    expect([1, 2, 3, 4].map(() => limiter.when('x'))).toEqual([100, 200, 250, 250]);
    expect(limiter.numRequeues('x')).toBe(4);
    limiter.forget('x');
    expect(limiter.numRequeues('x')).toBe(0);
    expect(limiter.when('x')).toBe(100);
  });
});

describe('BucketRateLimiter', () => {
  it('allows the burst at once, then spaces reservations at 1/qps, shared by all items', () => {
    const clock = new FakeClock(0);
    const limiter = new BucketRateLimiter<string>(10, 3, clock);
    expect(['a', 'b', 'c'].map((i) => limiter.when(i))).toEqual([0, 0, 0]);
    expect(limiter.when('d')).toBeCloseTo(100, 9);
    expect(limiter.when('a')).toBeCloseTo(200, 9);
    expect(limiter.numRequeues('a')).toBe(0);
  });

  it('refills with time, up to the burst', async () => {
    const clock = new FakeClock(0);
    const limiter = new BucketRateLimiter<string>(10, 3, clock);
    for (let i = 0; i < 5; i++) limiter.when('x'); // tokens now -2
    await clock.step(250); // +2.5 tokens → 0.5
    expect(limiter.when('x')).toBeCloseTo(50, 9);
    await clock.step(10_000); // refilled, capped at 3
    expect([1, 2, 3].map(() => limiter.when('x'))).toEqual([0, 0, 0]);
    expect(limiter.when('x')).toBeCloseTo(100, 9);
  });

  it('forget does not give tokens back', () => {
    const clock = new FakeClock(0);
    const limiter = new BucketRateLimiter<string>(1, 1, clock);
    expect(limiter.when('x')).toBe(0);
    limiter.forget('x');
    expect(limiter.when('x')).toBeCloseTo(1000, 9);
  });
});

describe('TokenBucket', () => {
  it('infinite qps never waits; zero burst never succeeds', () => {
    const clock = new FakeClock(0);
    expect(new TokenBucket(Infinity, 0, clock).reserve()).toBe(0);
    expect(new TokenBucket(10, 0, clock).reserve()).toBe(Infinity);
  });

  it('qps 0 hands out only the burst', () => {
    const clock = new FakeClock(0);
    const b = new TokenBucket(0, 2, clock);
    expect([b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, Infinity]);
  });

  it('a clock that goes backwards adds no tokens', () => {
    const clock = new FakeClock(10_000);
    const b = new TokenBucket(10, 1, clock);
    expect(b.reserve()).toBe(0);
    clock.set(5_000);
    expect(b.reserve()).toBeCloseTo(100, 9);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('is exponential from 5 ms per item until the 10 qps / 100 burst bucket dominates', () => {
    const clock = new FakeClock(0);
    const limiter = defaultControllerRateLimiter<string>(clock);
    expect(limiter.when('a')).toBe(5);
    expect(limiter.when('a')).toBe(10);
    expect(limiter.when('a')).toBe(20);
    expect(limiter.numRequeues('a')).toBe(3);
    for (let i = 0; i < 97; i++) limiter.when(`k${i}`); // burst of 100 used up
    expect(limiter.when('fresh')).toBeCloseTo(100, 9); // bucket wait beats 5 ms
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
  });

  it('caps the exponential part at 1000 s', () => {
    const clock = new FakeClock(0);
    const limiter = defaultControllerRateLimiter<string>(clock);
    let last = 0;
    for (let i = 0; i < 40; i++) {
      last = limiter.when('x');
      clock.set(clock.now() + 1_000_000); // keep the bucket full
    }
    expect(last).toBe(1_000_000);
  });
});
