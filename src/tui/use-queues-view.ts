/**
 * The hook the TUI containers use for the queues pane: subscribes to a metrics feed (the
 * MetricsPoller) through useLive and rebuilds the view at most `maxFps` times a second, and at once
 * when the filter changes. Without a feed it returns
 * undefined and subscribes to nothing, so a container can call it unconditionally.
 */
import { useMemo } from 'react';
import type { MetricsSnapshot } from '../metrics/index.js';
import { buildQueuesView, type QueuesFilter, type QueuesView } from '../view/queues-view.js';
import { useLive } from './live.js';

/** What the pane reads: MetricsPoller satisfies it; tests pass a stub. */
export interface MetricsFeed {
  latest(): MetricsSnapshot;
  subscribe(listener: (snapshot: MetricsSnapshot) => void): () => void;
}

export function useQueuesView(feed: MetricsFeed | undefined, filter: QueuesFilter = {}, maxFps = 10): QueuesView | undefined {
  const key = JSON.stringify(filter);
  const source = useMemo(() => ({ feed, key }), [feed, key]);
  return useLive(
    source,
    (listener) => (feed ? feed.subscribe(listener) : () => undefined),
    () => (feed ? buildQueuesView(feed.latest(), filter) : undefined),
    { maxFps, tickMs: 0, readOnSubscribe: true },
  );
}
