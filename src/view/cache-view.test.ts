import { describe, expect, it } from 'vitest';
import type { InformerEvent, ObservedDelta } from '../informer/index.js';
import { fieldPathIndexFunc } from '../informer/index.js';
import { deltaLine, MarkerTracker } from './cache-view.js';

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
