/**
 * Looking samples up by name across families, and the two pieces of PromQL arithmetic the stats
 * need: a counter's increase between two scrapes (with reset handling, as rate() does) and
 * `sum by (labels)`.
 *
 * Samples are found by their own name (workqueue_adds_total), not their family's, because the
 * family name differs between Prometheus text (foo_total) and OpenMetrics (foo).
 */
import type { Labels, MetricFamily, Sample } from './parse.js';

export class SampleIndex {
  private readonly byName = new Map<string, Sample[]>();

  constructor(families: readonly MetricFamily[]) {
    for (const family of families) {
      for (const sample of family.samples) {
        let list = this.byName.get(sample.name);
        if (!list) this.byName.set(sample.name, (list = []));
        list.push(sample);
      }
    }
  }

  /** Every sample with this name, in exposition order; empty when the series is absent. */
  samples(name: string): readonly Sample[] {
    return this.byName.get(name) ?? [];
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  names(): IterableIterator<string> {
    return this.byName.keys();
  }
}

/** A stable identity for a label set: sorted name=value pairs, `omit` left out. */
export function labelKey(labels: Labels, omit: readonly string[] = []): string {
  const names = Object.keys(labels)
    .filter((n) => !omit.includes(n))
    .sort();
  return JSON.stringify(names.map((n) => [n, labels[n]]));
}

/** The labels `by` that the sample has, as a plain object (missing ones left out). */
export function pickLabels(labels: Labels, by: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of by) {
    const v = labels[n];
    if (v !== undefined) out[n] = v;
  }
  return out;
}

/**
 * How much a counter grew from `prev` to `curr`. A drop means the process restarted and the
 * counter began again from zero, so the whole current value is the increase (Prometheus's rate()
 * does the same). Undefined without a previous value: one point gives no rate.
 */
export function counterIncrease(prev: number | undefined, curr: number): number | undefined {
  if (prev === undefined || Number.isNaN(prev) || Number.isNaN(curr)) return undefined;
  return curr < prev ? curr : curr - prev;
}

export interface Group<T> {
  labels: Record<string, string>;
  value: T;
}

/** Groups samples by the labels `by` (PromQL `by (...)`), keeping every sample of a group. */
export function groupBy(samples: readonly Sample[], by: readonly string[]): Map<string, Group<Sample[]>> {
  const out = new Map<string, Group<Sample[]>>();
  for (const s of samples) {
    const labels = pickLabels(s.labels, by);
    const key = labelKey(labels);
    let g = out.get(key);
    if (!g) out.set(key, (g = { labels, value: [] }));
    g.value.push(s);
  }
  return out;
}

/** `sum by (...)` of the current values. */
export function sumBy(samples: readonly Sample[], by: readonly string[]): Map<string, Group<number>> {
  const out = new Map<string, Group<number>>();
  for (const [key, g] of groupBy(samples, by)) out.set(key, { labels: g.labels, value: g.value.reduce((a, s) => a + s.value, 0) });
  return out;
}

/**
 * `sum by (...) (increase(counter))` between two scrapes: each series' increase (reset-aware),
 * summed per group. Without a previous scrape every group gets undefined (one point gives no
 * rate). A series missing from the previous scrape was created since, so it counts from zero:
 * controller-runtime creates `reconcile_total{result="error"}` at the first error, and that first
 * error is an increase.
 */
export function increaseBy(prev: readonly Sample[] | undefined, curr: readonly Sample[], by: readonly string[]): Map<string, Group<number | undefined>> {
  const before = new Map<string, number>();
  for (const s of prev ?? []) before.set(labelKey(s.labels), s.value);
  const out = new Map<string, Group<number | undefined>>();
  for (const [key, g] of groupBy(curr, by)) {
    let total: number | undefined;
    if (prev) {
      for (const s of g.value) {
        const inc = counterIncrease(before.get(labelKey(s.labels)) ?? 0, s.value);
        if (inc !== undefined) total = (total ?? 0) + inc;
      }
    }
    out.set(key, { labels: g.labels, value: total });
  }
  return out;
}
