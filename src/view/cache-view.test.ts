import { describe, expect, it } from 'vitest';
import type { InformerEvent, ObservedDelta } from '../informer/index.js';
import { fieldPathIndexFunc } from '../informer/index.js';
import { deltaLine, formatInformerMetrics, informerMetrics, latencyQuantileBound, MarkerTracker } from './cache-view.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0);

function ev(kind: InformerEvent['kind'], extra: Partial<InformerEvent> = {}): InformerEvent {
  return { kind, level: 'info', at: T, message: kind, source: 'cms', ...extra };
}

describe('MarkerTracker', () => {
  it('marks relists (once per relist, however many requests), watch restarts, resyncs and bookmarks; not the start', () => {
    const m = new MarkerTracker();
    const kinds = [
      ev('list', { resourceVersion: '' }),
      ev('listed'),
      ev('watch'),
      ev('bookmark', { resourceVersion: '7' }),
      ev('watch-closed'),
      ev('watch'),
      ev('list', { resourceVersion: '7' }),
      ev('list-failed'),
      ev('list', { resourceVersion: '' }),
      ev('listed'),
      ev('watch'),
      ev('resync'),
      ev('synced'),
    ].map((e) => m.marker(e)?.kind ?? '-');
    expect(kinds).toEqual(['-', '-', '-', 'bookmark', 'watch-closed', 'watch-restart', 'relist', '-', '-', '-', 'watch-restart', 'resync', '-']);
  });
});

describe('deltaLine', () => {
  it('carries type, key, resourceVersion, receive time, flags and the object’s index values', () => {
    const d: ObservedDelta = {
      type: 'Deleted',
      key: 'demo/web',
      resourceVersion: '42',
      receivedAt: T,
      appliedAt: T + 1,
      object: { metadata: { namespace: 'demo', name: 'web', resourceVersion: '42', labels: { app: 'web' } } },
      tombstone: true,
      initial: false,
    };
    expect(deltaLine(d, [['app', fieldPathIndexFunc('metadata.labels.app')]])).toEqual({
      kind: 'delta',
      type: 'Deleted',
      key: 'demo/web',
      resourceVersion: '42',
      receivedAt: '2026-01-01T12:00:00.000Z',
      tombstone: true,
      indexes: { app: ['web'] },
    });
    expect(deltaLine({ ...d, tombstone: false, initial: true, object: undefined }, [])).toEqual({
      kind: 'delta',
      type: 'Deleted',
      key: 'demo/web',
      resourceVersion: '42',
      receivedAt: '2026-01-01T12:00:00.000Z',
      initial: true,
    });
  });
});

describe('informerMetrics', () => {
  it("gives client-go's informer metrics of an informer's stats: cumulative buckets, the store's resourceVersion as client-go reports it, a p99 bound", () => {
    const counts = [90, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    const m = informerMetrics({ queued: 2, storeResourceVersion: '1234567890123456789', processingLatency: { counts, sum: 11.5, count: 100 } } as never);
    expect(m.queuedItems).toBe(2);
    expect(m.storeResourceVersion).toBe(567890123456789);
    expect(m.processingLatency.buckets.map((b) => b.le)).toEqual([
      '0.001',
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '+Inf',
    ]);
    expect(m.processingLatency.buckets.map((b) => b.count)).toEqual([90, 90, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 100]);
    expect(latencyQuantileBound(m, 0.5)).toBe('0.001');
    expect(latencyQuantileBound(m, 0.99)).toBe('0.01');
    expect(latencyQuantileBound(m, 1)).toBe('+Inf');
    expect(formatInformerMetrics(m)).toBe('queued 2 · store rv 567890123456789 · processed 100, p99 ≤ 0.01 s');
    const none = informerMetrics({ queued: 0, storeResourceVersion: '', processingLatency: { counts: new Array(13).fill(0), sum: 0, count: 0 } } as never);
    expect(latencyQuantileBound(none, 0.99)).toBeUndefined();
    expect(formatInformerMetrics(none)).toBe('queued 0 · store rv 0 · processed 0');
  });
});
