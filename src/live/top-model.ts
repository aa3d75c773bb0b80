/**
 * The live state behind `top`: the Lease model (holders, history, expiry judged on our clock), the
 * metrics poller's latest snapshot and the discovered targets, joined by buildTopView on demand.
 * Depth and retry series grow by one point per scrape of each component's shown replica. Subscribers hear of anything that
 * may change the view (a renew, a scrape, an expiry) through onUpdate, and of holder changes
 * (acquired, expired, released, deleted, resumed) through onLeaseChange.
 */
import type { MetricsSnapshot } from '../metrics/index.js';
import type { LeaseChange, LeaseWatchView } from '../view/lease-view.js';
import { buildTopView, type Thresholds, type TopTarget, type TopView } from '../view/top-view.js';
import { TopHistory } from './top-history.js';

/** The part of LeaseWatchModel used here. */
export interface LeaseSource {
  view(now?: number): LeaseWatchView;
  onUpdate(listener: () => void): () => void;
  onChange(listener: (change: LeaseChange) => void): () => void;
}

/** The part of MetricsPoller used here. */
export interface SnapshotSource {
  latest(): MetricsSnapshot;
  subscribe(listener: (s: MetricsSnapshot) => void): () => void;
}

export interface TopModelOptions {
  leases: LeaseSource | null;
  /** Why there are no Leases (the list was refused, …); null when they are watched. */
  leaseError?: string | null;
  metrics: SnapshotSource;
  targets: readonly TopTarget[];
  discoveryErrors?: readonly string[];
  thresholds?: Thresholds;
  now?: () => number;
  historyLimit?: number;
}

export class TopModel {
  private readonly history: TopHistory;
  private readonly listeners = new Set<() => void>();
  private readonly changeListeners = new Set<(c: LeaseChange) => void>();
  private readonly unsubscribe: (() => void)[] = [];
  private readonly now: () => number;

  constructor(private readonly options: TopModelOptions) {
    this.history = new TopHistory(options.historyLimit ?? 120);
    this.now = options.now ?? Date.now;
    this.unsubscribe.push(
      options.metrics.subscribe((s) => {
        // The series take a point per component whose shown scrape is new.
        this.history.record(this.build(s));
        this.notify();
      }),
    );
    if (options.leases) {
      this.unsubscribe.push(options.leases.onUpdate(() => this.notify()));
      this.unsubscribe.push(
        options.leases.onChange((c) => {
          for (const l of this.changeListeners) l(c);
        }),
      );
    }
  }

  view(): TopView {
    return this.build(this.options.metrics.latest());
  }

  /** Anything shown may have changed. Returns an unsubscribe. */
  onUpdate(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A Lease's holder changed (or expired). Returns an unsubscribe. */
  onLeaseChange(listener: (c: LeaseChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Holder changes so far, for the detail view. */
  leaseChanges(): readonly LeaseChange[] {
    return this.options.leases?.view(this.now()).changes ?? [];
  }

  close(): void {
    for (const u of this.unsubscribe) u();
    this.listeners.clear();
    this.changeListeners.clear();
  }

  private build(snapshot: MetricsSnapshot): TopView {
    const now = this.now();
    const leases = this.options.leases?.view(now);
    return buildTopView({
      now,
      leases: leases?.leases ?? [],
      candidates: leases?.candidates ?? { access: 'unknown', error: null },
      leaseError: this.options.leaseError ?? null,
      metrics: snapshot.seq === 0 ? null : snapshot,
      targets: this.options.targets,
      discoveryErrors: this.options.discoveryErrors ?? [],
      history: this.history,
      ...(this.options.thresholds ? { thresholds: this.options.thresholds } : {}),
    });
  }

  private notify(): void {
    for (const l of [...this.listeners]) l();
  }
}
