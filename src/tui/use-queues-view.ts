/**
 * The hook the TUI containers use for the queues pane: subscribes to a metrics feed (the
 * MetricsPoller) and rebuilds the view at most `maxFps` times a second. Without a feed it returns
 * undefined and subscribes to nothing, so a container can call it unconditionally.
 */
import { useEffect, useState } from 'react';
import type { MetricsSnapshot } from '../metrics/index.js';
import { buildQueuesView, type QueuesFilter, type QueuesView } from '../view/queues-view.js';
import { Throttle } from './throttle.js';

/** What the pane reads: MetricsPoller satisfies it; tests pass a stub. */
export interface MetricsFeed {
  latest(): MetricsSnapshot;
  subscribe(listener: (snapshot: MetricsSnapshot) => void): () => void;
}

export function useQueuesView(feed: MetricsFeed | undefined, filter: QueuesFilter = {}, maxFps = 10): QueuesView | undefined {
  const [view, setView] = useState<QueuesView | undefined>(() => (feed ? buildQueuesView(feed.latest(), filter) : undefined));
  const key = JSON.stringify(filter);
  useEffect(() => {
    if (!feed) {
      setView(undefined);
      return;
    }
    const f = JSON.parse(key) as QueuesFilter;
    const throttle = new Throttle(() => setView(buildQueuesView(feed.latest(), f)), Math.max(1, Math.round(1000 / maxFps)));
    throttle.request();
    const unsubscribe = feed.subscribe(() => throttle.request());
    return () => {
      unsubscribe();
      throttle.stop();
    };
  }, [feed, key, maxFps]);
  return view;
}
