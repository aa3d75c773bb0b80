/**
 * Where `kubectl informer-trace cache` goes, one sink per output format, chosen once. A sink is
 * opened before the informer runs (so the initial list's deltas reach a stream or the screen), may
 * run a screen instead of watching with a word on stderr, says a --verify result its own way beside
 * stderr's, and prints the cache at the end, or not.
 *
 * table, name, json, yaml: the cache once, at the end; ndjson: a line per delta as the informer
 * applies it (and a line per --verify); tui: the live view (src/tui/cache-app.tsx), then a line of
 * the informer's figures on stderr.
 */
import { realClock } from '../clock.js';
import { say, type CommandIO } from '../cli/io.js';
import type { Indexers, SharedIndexInformer, VerifyResult } from '../informer/index.js';
import { groupResource, type KubeObject, type ResourceInfo } from '../kube/index.js';
import { cacheList, renderCacheNames, renderCacheTable, type IndexValues } from '../output/cache-table.js';
import { ndjsonLine, ndjsonWriter, writeStructuredList, type StructuredFormat } from '../output/format.js';
import { CacheModel } from '../live/index.js';
import { deltaLine, formatInformerMetrics, indexValuesOf, informerMetrics, MarkerTracker, syncedLine, type IndexFuncs } from '../view/cache-view.js';

/** What a sink is opened with. */
export interface CacheContext {
  io: CommandIO;
  info: ResourceInfo;
  /** The namespace listed, or undefined for all. */
  namespace: string | undefined;
  indexers: Indexers;
  customIndexNames: string[];
  byIndex: { name: string; value: string } | undefined;
  forMs: number;
  keysOnly: boolean;
  signal: AbortSignal;
}

/** The cache at the end. */
export interface CacheContents {
  items: KubeObject[];
  indexes: IndexValues;
  resourceVersion: string;
}

export interface CacheOpened {
  /** The screen, run once the cache has synced instead of keeping the informer watching; it shows the informer's warnings. */
  screen?: () => Promise<void>;
  /** A --verify result (stderr says it too). */
  verified(result: VerifyResult): void;
  /** At the end: `read` selects the objects to print (and says when --by-index found none). */
  end(read: () => CacheContents): Promise<void>;
  close(): void;
}

export interface CacheSink {
  /** Streams deltas, so --watch applies; prints nothing at the end. */
  readonly streams: boolean;
  open(informer: SharedIndexInformer, c: CacheContext): CacheOpened;
}

const nothing = async (): Promise<void> => undefined;
const none = (): void => undefined;

/** The formats that print the cache once: `render` is what they print. */
const printed = (render: (contents: CacheContents, c: CacheContext) => Promise<void>): CacheSink => ({
  streams: false,
  open: (_informer, c) => ({ verified: none, end: async (read) => render(read(), c), close: none }),
});

/** table and name: "No resources found" when the cache is empty, as kubectl says it (not for --by-index, which says its own). */
const text = (render: (contents: CacheContents, c: CacheContext) => string): CacheSink =>
  printed(async (contents, c) => {
    if (contents.items.length === 0 && !c.byIndex) c.io.stderr.write(`No resources found${c.namespace ? ` in ${c.namespace} namespace` : ''}.\n`);
    c.io.stdout.write(render(contents, c));
  });

const structured = (format: StructuredFormat): CacheSink =>
  printed((contents, c) =>
    writeStructuredList(c.io.stdout, cacheList(contents.items, contents.indexes, contents.resourceVersion, c.keysOnly), format, c.signal),
  );

const ndjsonSink: CacheSink = {
  streams: true,
  open(informer, c) {
    const stop = streamDeltas(informer, c);
    return {
      verified: (result) => void c.io.stdout.write(ndjsonLine({ kind: 'verify', at: new Date(realClock.now()).toISOString(), ...result })),
      end: nothing,
      close: stop,
    };
  },
};

const tuiSink: CacheSink = {
  streams: true,
  open(informer, c) {
    const model = new CacheModel(informer, { indexNames: c.customIndexNames });
    return {
      async screen() {
        // Loaded only for -o tui: ink and React are most of a one-shot command's startup otherwise.
        const { runCacheTui } = await import('../tui/cache-app.js');
        await runCacheTui(model, c.io, { title: informer.name, namespaced: c.info.namespaced, narrow: c.byIndex, signal: c.signal, forMs: c.forMs });
        const stats = informer.stats();
        say(
          c.io,
          `${stats.objects} ${groupResource(c.info)} cached at resourceVersion ${stats.lastSyncResourceVersion}; ${stats.events.ADDED + stats.events.MODIFIED + stats.events.DELETED} watch events, ${stats.relists} relists, ${stats.watchRestarts} watch restarts, ${stats.resyncs} resyncs; ${formatInformerMetrics(informerMetrics(stats))}`,
        );
      },
      verified: none,
      end: nothing,
      close: () => model.stop(),
    };
  },
};

/**
 * -o ndjson: one line per delta the informer applies (the initial list first, marked initial),
 * a "synced" line once the cache holds it all, and the machinery's moments (relist, resync,
 * bookmark, watch restart) as they happen. Returns the unsubscribe.
 */
function streamDeltas(informer: SharedIndexInformer, c: CacheContext): () => void {
  const indexes: IndexFuncs = c.customIndexNames.map((name) => [name, c.indexers[name]!] as const);
  const byIndex = c.byIndex ? ([c.byIndex.name, c.indexers[c.byIndex.name]!] as const) : undefined;
  const markers = new MarkerTracker();
  const line = ndjsonWriter(c.io.stdout);
  const offDelta = informer.onDelta((d) => {
    if (byIndex && !(d.object && indexValuesOf(d.object, [byIndex])[byIndex[0]]!.includes(c.byIndex!.value))) return;
    line(deltaLine(d, indexes));
  });
  const offEvent = informer.onEvent((e) => {
    if (e.kind === 'synced') return line(syncedLine(informer, c.customIndexNames, e.at));
    const m = markers.marker(e);
    if (m) line(m);
  });
  return () => {
    offDelta();
    offEvent();
  };
}

/** One sink per -o format; the flag's choices are its keys, in this order. */
export const CACHE_SINKS = {
  tui: tuiSink,
  table: text(({ items, indexes }, c) => renderCacheTable(items, indexes, c.info, c.keysOnly)),
  json: structured('json'),
  yaml: structured('yaml'),
  name: text(({ items }, c) => renderCacheNames(items, c.info)),
  ndjson: ndjsonSink,
} satisfies Record<string, CacheSink>;

export type CacheOutput = keyof typeof CACHE_SINKS;
