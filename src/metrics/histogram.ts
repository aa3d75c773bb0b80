/**
 * Classic (bucketed) histograms: collecting `_bucket` / `_sum` / `_count` samples into series,
 * the bucket deltas between two scrapes, and quantile estimation by linear interpolation inside
 * the bucket, as Prometheus's histogram_quantile does (promql/quantile.go, bucketQuantile).
 */
import { parseFloatStrict, type Labels } from './parse.js';
import { labelKey, pickLabels, type SampleIndex } from './series.js';

export interface Bucket {
  /** Upper bound (the `le` label); the last one is +Inf. */
  le: number;
  /** Cumulative count of observations <= le. */
  count: number;
}

export interface HistogramSeries {
  /** The series' labels without `le`. */
  labels: Labels;
  /** Sorted by `le`. */
  buckets: Bucket[];
  sum: number | undefined;
  count: number | undefined;
}

/** Every series of histogram `name` (the name without `_bucket`), keyed by labelKey(labels). */
export function collectHistograms(index: SampleIndex, name: string): Map<string, HistogramSeries> {
  const out = new Map<string, HistogramSeries>();
  const get = (labels: Labels): HistogramSeries => {
    const key = labelKey(labels, ['le']);
    let h = out.get(key);
    if (!h) {
      const own: Labels = Object.create(null) as Labels;
      for (const [k, v] of Object.entries(labels)) if (k !== 'le') own[k] = v;
      out.set(key, (h = { labels: own, buckets: [], sum: undefined, count: undefined }));
    }
    return h;
  };
  for (const s of index.samples(`${name}_bucket`)) {
    const le = s.labels.le === undefined ? undefined : parseFloatStrict(s.labels.le);
    if (le === undefined) continue;
    get(s.labels).buckets.push({ le, count: s.value });
  }
  for (const s of index.samples(`${name}_sum`)) get(s.labels).sum = s.value;
  for (const s of index.samples(`${name}_count`)) get(s.labels).count = s.value;
  for (const h of out.values()) h.buckets.sort((a, b) => a.le - b.le);
  return out;
}

/**
 * Observations that fell into each bucket between two scrapes. When any bucket went down the
 * process restarted: everything it holds now is new, so the current buckets are the delta.
 */
export function bucketDelta(curr: readonly Bucket[], prev: readonly Bucket[] | undefined): Bucket[] {
  if (!prev) return curr.map((b) => ({ ...b }));
  const before = new Map(prev.map((b) => [b.le, b.count]));
  const reset = curr.some((b) => {
    const p = before.get(b.le);
    return p !== undefined && b.count < p;
  });
  if (reset) return curr.map((b) => ({ ...b }));
  return curr.map((b) => ({ le: b.le, count: b.count - (before.get(b.le) ?? 0) }));
}

/** Adds bucket lists bucket by bucket (same `le`), as `sum by (le)` would. */
export function mergeBuckets(lists: readonly (readonly Bucket[])[]): Bucket[] {
  const byLe = new Map<number, number>();
  for (const list of lists) for (const b of list) byLe.set(b.le, (byLe.get(b.le) ?? 0) + b.count);
  return [...byLe.entries()].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count }));
}

/**
 * The q-quantile of the observations in cumulative `buckets`, by linear interpolation inside the
 * bucket the rank falls in. NaN when it cannot be told: no +Inf bucket, fewer than two buckets,
 * or no observations. A rank in the +Inf bucket gives the highest finite bound.
 */
export function histogramQuantile(q: number, buckets: readonly Bucket[]): number {
  if (Number.isNaN(q)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const sorted = mergeBuckets([buckets]);
  const last = sorted[sorted.length - 1];
  if (!last || last.le !== Infinity || sorted.length < 2) return NaN;
  // Counts scraped non-atomically can dip; force them monotonic as Prometheus does.
  let max = -Infinity;
  for (const b of sorted) {
    if (b.count < max) b.count = max;
    else max = b.count;
  }
  const observations = last.count;
  if (!(observations > 0)) return NaN;
  let rank = q * observations;
  let b = sorted.length - 1;
  for (let i = 0; i < sorted.length - 1; i++) {
    if (sorted[i]!.count >= rank) {
      b = i;
      break;
    }
  }
  if (b === sorted.length - 1) return sorted[sorted.length - 2]!.le;
  const bucket = sorted[b]!;
  if (b === 0 && bucket.le <= 0) return bucket.le;
  let start = 0;
  let count = bucket.count;
  if (b > 0) {
    const below = sorted[b - 1]!;
    start = below.le;
    count -= below.count;
    rank -= below.count;
  }
  return start + (bucket.le - start) * (rank / count);
}

/** Groups histogram series by `by` labels and merges their buckets (sum by (by, le)). */
export function mergeHistogramsBy(
  series: Iterable<{ labels: Labels; buckets: readonly Bucket[] }>,
  by: readonly string[],
): Map<string, { labels: Record<string, string>; buckets: Bucket[] }> {
  const lists = new Map<string, { labels: Record<string, string>; lists: (readonly Bucket[])[] }>();
  for (const s of series) {
    const labels = pickLabels(s.labels, by);
    const key = labelKey(labels);
    let g = lists.get(key);
    if (!g) lists.set(key, (g = { labels, lists: [] }));
    g.lists.push(s.buckets);
  }
  const out = new Map<string, { labels: Record<string, string>; buckets: Bucket[] }>();
  for (const [key, g] of lists) out.set(key, { labels: g.labels, buckets: mergeBuckets(g.lists) });
  return out;
}
