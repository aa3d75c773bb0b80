import { queueLabel } from '../view/queues-view.js';
import type { TopSeries, TopView } from '../view/top-view.js';

/**
 * Depth and retry rate per component and per queue over the session: one point per scrape of the
 * replica whose queues are shown (a component's own scrapes, not every source's), the newest
 * `limit` kept. A queue missing from a scrape gets null there, so a component's series line up.
 * TopModel records each view it builds; buildTopView reads the series back through TopSeries.
 */
export class TopHistory implements TopSeries {
  private readonly points = new Map<string, { depth: (number | null)[]; retries: (number | null)[] }>();
  /** Per component: the scrape time of its last point, and how many points it has. */
  private readonly last = new Map<string, { at: string; count: number }>();

  constructor(private readonly limit = 120) {}

  /** Appends a point per component of `view` whose shown scrape is newer than its last point. */
  record(view: TopView): void {
    for (const c of view.components) {
      if (c.sampledAt === null || this.last.get(c.key)?.at === c.sampledAt) continue;
      const count = (this.last.get(c.key)?.count ?? 0) + 1;
      this.last.set(c.key, { at: c.sampledAt, count });
      const seen = new Set<string>();
      const add = (key: string, depth: number | null, retries: number | null): void => {
        seen.add(key);
        let p = this.points.get(key);
        if (!p) {
          const pad = Math.min(count - 1, this.limit);
          p = { depth: new Array<number | null>(pad).fill(null), retries: new Array<number | null>(pad).fill(null) };
          this.points.set(key, p);
        }
        p.depth.push(depth);
        p.retries.push(retries);
      };
      add(`${c.key}\n`, c.depth, c.retriesPerSecond);
      for (const q of c.queues) add(`${c.key}\n${queueLabel(q)}`, q.depth, q.retriesPerSecond);
      for (const [key, p] of this.points) {
        if (!key.startsWith(`${c.key}\n`)) continue;
        if (!seen.has(key)) {
          p.depth.push(null);
          p.retries.push(null);
        }
        if (p.depth.length > this.limit) p.depth.splice(0, p.depth.length - this.limit);
        if (p.retries.length > this.limit) p.retries.splice(0, p.retries.length - this.limit);
      }
    }
  }

  /** A component's series (queue '') or one queue's, oldest first. */
  series(component: string, queue: string, what: 'depth' | 'retries'): (number | null)[] {
    const p = this.points.get(`${component}\n${queue}`);
    return p ? [...p[what]] : [];
  }
}
