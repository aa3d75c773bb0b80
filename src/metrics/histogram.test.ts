import { describe, expect, it } from 'vitest';
import { bucketDelta, collectHistograms, histogramQuantile, mergeBuckets } from './histogram.js';
import { parseExposition } from './parse.js';
import { SampleIndex } from './series.js';

const b = (pairs: [number, number][]) => pairs.map(([le, count]) => ({ le, count }));

describe('histogramQuantile (as Prometheus histogram_quantile)', () => {
  it('interpolates linearly inside the bucket the rank falls in', () => {
    // 10 observations <= 1, 10 more in (1, 2]: the median is at the top of the first bucket,
    // the 75th percentile halfway through the second.
    const buckets = b([
      [1, 10],
      [2, 20],
      [Infinity, 20],
    ]);
    expect(histogramQuantile(0.5, buckets)).toBe(1);
    expect(histogramQuantile(0.75, buckets)).toBe(1.5);
    expect(histogramQuantile(0.25, buckets)).toBe(0.5);
  });

  it('gives the highest finite bound when the rank falls in the +Inf bucket', () => {
    expect(
      histogramQuantile(
        0.99,
        b([
          [0.1, 1],
          [1, 2],
          [Infinity, 100],
        ]),
      ),
    ).toBe(1);
  });

  it('starts the first bucket at zero, or returns its bound when that is not positive', () => {
    expect(
      histogramQuantile(
        0.5,
        b([
          [4, 2],
          [Infinity, 2],
        ]),
      ),
    ).toBe(2);
    expect(
      histogramQuantile(
        0.5,
        b([
          [-1, 2],
          [Infinity, 2],
        ]),
      ),
    ).toBe(-1);
  });

  it('is NaN when it cannot be told', () => {
    expect(
      histogramQuantile(
        0.5,
        b([
          [1, 10],
          [2, 20],
        ]),
      ),
    ).toBeNaN(); // no +Inf bucket
    expect(histogramQuantile(0.5, b([[Infinity, 3]]))).toBeNaN(); // a single bucket
    expect(
      histogramQuantile(
        0.5,
        b([
          [1, 0],
          [Infinity, 0],
        ]),
      ),
    ).toBeNaN(); // no observations
    expect(
      histogramQuantile(
        NaN,
        b([
          [1, 1],
          [Infinity, 1],
        ]),
      ),
    ).toBeNaN();
  });

  it('answers ±Inf outside [0, 1] and sorts and fixes non-monotonic buckets', () => {
    expect(
      histogramQuantile(
        -0.1,
        b([
          [1, 1],
          [Infinity, 1],
        ]),
      ),
    ).toBe(-Infinity);
    expect(
      histogramQuantile(
        1.1,
        b([
          [1, 1],
          [Infinity, 1],
        ]),
      ),
    ).toBe(Infinity);
    // Out of order, and the 2-bucket dips below the 1-bucket (a non-atomic scrape).
    expect(
      histogramQuantile(
        0.5,
        b([
          [Infinity, 10],
          [2, 4],
          [1, 5],
        ]),
      ),
    ).toBe(1);
  });
});

describe('bucket deltas', () => {
  const prev = b([
    [1, 5],
    [2, 8],
    [Infinity, 9],
  ]);

  it('subtracts the previous scrape bucket by bucket', () => {
    expect(
      bucketDelta(
        b([
          [1, 7],
          [2, 12],
          [Infinity, 15],
        ]),
        prev,
      ),
    ).toEqual(
      b([
        [1, 2],
        [2, 4],
        [Infinity, 6],
      ]),
    );
  });

  it('takes the current buckets whole after a reset (a bucket went down)', () => {
    const curr = b([
      [1, 1],
      [2, 3],
      [Infinity, 3],
    ]);
    expect(bucketDelta(curr, prev)).toEqual(curr);
  });

  it('counts from zero without a previous scrape, and for buckets the previous scrape lacked', () => {
    expect(
      bucketDelta(
        b([
          [1, 1],
          [Infinity, 2],
        ]),
        undefined,
      ),
    ).toEqual(
      b([
        [1, 1],
        [Infinity, 2],
      ]),
    );
    expect(
      bucketDelta(
        b([
          [0.5, 3],
          [1, 6],
          [2, 8],
          [Infinity, 9],
        ]),
        prev,
      ),
    ).toEqual(
      b([
        [0.5, 3],
        [1, 1],
        [2, 0],
        [Infinity, 0],
      ]),
    );
  });

  it('merges bucket lists on equal bounds', () => {
    expect(
      mergeBuckets([
        b([
          [1, 1],
          [Infinity, 2],
        ]),
        b([
          [1, 3],
          [Infinity, 5],
        ]),
        b([[0.5, 1]]),
      ]),
    ).toEqual(
      b([
        [0.5, 1],
        [1, 4],
        [Infinity, 7],
      ]),
    );
  });
});

describe('collectHistograms', () => {
  it('groups _bucket, _sum and _count by their labels without le', () => {
    const exp = parseExposition(
      [
        '# TYPE h histogram',
        'h_bucket{q="a",le="+Inf"} 3',
        'h_bucket{q="a",le="0.1"} 1',
        'h_bucket{q="b",le="0.1"} 0',
        'h_bucket{q="b",le="+Inf"} 0',
        'h_sum{q="a"} 0.7',
        'h_count{q="a"} 3',
        '',
      ].join('\n'),
    );
    const hs = collectHistograms(new SampleIndex(exp.families), 'h');
    expect([...hs.values()].map((h) => ({ labels: { ...h.labels }, buckets: h.buckets, sum: h.sum, count: h.count }))).toEqual([
      {
        labels: { q: 'a' },
        buckets: b([
          [0.1, 1],
          [Infinity, 3],
        ]),
        sum: 0.7,
        count: 3,
      },
      {
        labels: { q: 'b' },
        buckets: b([
          [0.1, 0],
          [Infinity, 0],
        ]),
        sum: undefined,
        count: undefined,
      },
    ]);
  });
});
