/**
 * The `cache` TUI's layout, as plain data: for a live cache, the screen state and the terminal's
 * size, each pane's keys, heights and windows, the rows in view, and the detail or help text. The
 * screen (src/tui/cache-screen.tsx) draws it; the keys move through it. Pure but for reading the
 * cache it is given (CacheSource: src/live/cache-model.ts's CacheModel).
 *
 * Panes, top to bottom: the objects (namespace, name, resourceVersion, age, the last delta and one
 * column per --index; the object of the newest delta highlighted), the index values with their
 * object counts, and the last deltas with the relists, resyncs, bookmarks and watch restarts
 * between them. Cost stays flat with the cache's size: rows are made only for the lines in view;
 * the whole cache is only listed, sorted and filtered by key. Names and index values are the
 * cluster's: the cells are escaped before they are fitted to their columns.
 */
import type { DeltaType, SharedIndexInformer } from '../informer/index.js';
import type { KubeObject } from '../kube/index.js';
import { age } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { formatInformerMetrics, indexValuesOf, informerMetrics, type DeltaPaneEntry, type IndexFuncs } from './cache-view.js';
import { helpLines, type KeyHelp } from './key-help.js';
import { fit, textRows, type FrameText, type Row } from './rows.js';
import { allocateRows, matchesFilter, navOf, resolveNav, type ListWindow, type ScreenState } from './screen-state.js';

export type CachePane = 'objects' | 'indexes' | 'deltas';
export const CACHE_PANES: readonly CachePane[] = ['objects', 'indexes', 'deltas'];

/** ByIndex(name, value): the objects shown are narrowed to it. */
export interface Narrow {
  name: string;
  value: string;
}

/** What the layout reads of a live cache: src/live/cache-model.ts's CacheModel satisfies it. */
export interface CacheSource {
  readonly informer: SharedIndexInformer;
  readonly options: { readonly indexNames: readonly string[] };
  /** The delta pane's entries, oldest first. */
  deltas(): readonly DeltaPaneEntry[];
  /** Every cached key, sorted. */
  sortedKeys(): readonly string[];
  /** The newest delta applied to `key`, if it is cached. */
  lastChangeOf(key: string): { seq: number; type: DeltaType; at: number } | undefined;
  /** The sequence number of the newest delta. */
  newestSeq(): number;
}

export interface CacheLayoutInput {
  model: CacheSource;
  /** "configmaps in demo". */
  title: string;
  namespaced: boolean;
  narrow: Narrow | undefined;
  state: ScreenState<CachePane>;
  width: number;
  height: number;
  /** The wall clock now, for ages. */
  now: number;
}

export const CACHE_KEYS: readonly KeyHelp[] = [
  { keys: 'Enter (indexes)', what: 'show only the objects under that index value' },
  { keys: 'Esc (objects)', what: 'show all objects again' },
];

const DELTA_COLOR: Record<string, string | undefined> = { Added: 'green', Updated: 'yellow', Deleted: 'red', Replaced: 'cyan', Sync: undefined };
const MARK_COLOR: Record<string, string> = {
  relist: 'magenta',
  resync: 'blue',
  bookmark: 'gray',
  'watch-restart': 'magenta',
  'watch-closed': 'red',
  synced: 'green',
};

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}

function entryText(e: DeltaPaneEntry): string {
  if (e.kind === 'delta')
    return `${clock(e.at)}  ${e.type.padEnd(8)}  ${e.key}  rv ${e.resourceVersion}${e.tombstone ? '  (tombstone)' : ''}${e.initial ? '  (initial list)' : ''}`;
  return `${clock(e.at)}  ── ${e.kind}${e.resourceVersion ? ` rv ${e.resourceVersion}` : ''}: ${e.message}`;
}

export interface IndexEntry {
  key: string;
  name: string;
  value: string;
}

export interface CacheLayout {
  /** The keys of each pane's lines (the objects: narrowed and filtered; deltas: by seq). */
  keys: Record<CachePane, readonly string[]>;
  indexEntries: IndexEntry[];
  deltas: readonly DeltaPaneEntry[];
  /** Rows of each pane, its title included (objects: its column header too). */
  heights: Record<CachePane, number>;
  /** Rows of each pane's list. */
  listHeights: Record<CachePane, number>;
  windows: Record<CachePane, ListWindow>;
  body: number;
  text: FrameText | undefined;
}

/** Everything the screen draws and the keys need, for `width` × `height`. Pure but for reading the model. */
export function cacheLayout(p: Omit<CacheLayoutInput, 'title' | 'namespaced' | 'now'>): CacheLayout {
  const { model, narrow, state, height } = p;
  const indexer = model.informer.getIndexer();
  const names = model.options.indexNames;
  const funcs = indexFuncs(model);
  const filter = state.filter;

  // Objects: keys only for the whole (narrowed, filtered) cache; rows for the lines in view.
  let objectKeys: readonly string[] = narrow ? indexer.indexKeys(narrow.name, narrow.value) : model.sortedKeys();
  if (filter)
    objectKeys = objectKeys.filter((k) =>
      matchesFilter(filter, [k, ...Object.values(indexValuesOf(indexer.getByKey(k), funcs)).flat(), model.lastChangeOf(k)?.type]),
    );

  // Index values: all listed, counted only when in view.
  const indexEntries: IndexEntry[] = [];
  for (const name of names) {
    for (const value of indexer.listIndexFuncValues(name).sort()) {
      if (filter && !matchesFilter(filter, [name, value])) continue;
      indexEntries.push({ key: `${name}\n${value}`, name, value });
    }
  }
  const allDeltas = model.deltas();
  const deltas = filter
    ? allDeltas.filter((e) => matchesFilter(filter, [e.kind, e.kind === 'delta' ? e.type : undefined, e.kind === 'delta' ? e.key : e.message]))
    : allDeltas;

  const body = Math.max(3, height - 2);
  const heights = allocateRows(
    body,
    [
      { key: 'objects' as const, want: objectKeys.length + 2, min: 5, fill: true },
      { key: 'indexes' as const, want: names.length ? indexEntries.length + 1 : 0, min: names.length ? 3 : 0 },
      { key: 'deltas' as const, want: deltas.length + 1, min: 6 },
    ],
    state.pane,
  );
  const listHeights: Record<CachePane, number> = {
    objects: Math.max(1, heights.objects - 2),
    indexes: Math.max(1, heights.indexes - 1),
    deltas: Math.max(1, heights.deltas - 1),
  };
  const keys: Record<CachePane, readonly string[]> = {
    objects: objectKeys,
    indexes: indexEntries.map((e) => e.key),
    deltas: deltas.map((e) => String(e.seq)),
  };
  const windows = Object.fromEntries(CACHE_PANES.map((k) => [k, resolveNav(navOf(state, k), keys[k], listHeights[k])])) as Record<CachePane, ListWindow>;
  const lines = textLines(model, state, allDeltas);
  return {
    keys,
    indexEntries,
    deltas,
    heights,
    listHeights,
    windows,
    body,
    text: lines && { title: state.help ? 'Keys' : 'Detail', lines: textRows(lines) },
  };
}

function indexFuncs(model: CacheSource): IndexFuncs {
  const indexers = model.informer.getIndexer().getIndexers();
  return model.options.indexNames.map((n) => [n, indexers[n]!] as const);
}

/** The help, or the object opened (from the objects, or a delta's): its fields, indexes and deltas. */
function textLines(model: CacheSource, state: ScreenState<CachePane>, allDeltas: readonly DeltaPaneEntry[]): string[] | undefined {
  if (state.help) return helpLines(CACHE_KEYS);
  if (state.detail === undefined) return undefined;
  const indexer = model.informer.getIndexer();
  let key = state.detail;
  if (state.detailPane === 'deltas') {
    const e = allDeltas.find((x) => String(x.seq) === key);
    if (e?.kind !== 'delta') return [e ? entryText(e) : 'no longer shown'];
    key = e.key;
  }
  const o = indexer.getByKey(key);
  const out = [`${key}${o ? '' : ' (not in the cache now)'}`];
  if (o) {
    out.push(`  resourceVersion ${o.metadata.resourceVersion ?? ''} · created ${o.metadata.creationTimestamp ?? '?'} · uid ${o.metadata.uid ?? '?'}`);
    for (const [name, values] of Object.entries(indexValuesOf(o, [...Object.entries(indexer.getIndexers())])))
      out.push(`  index ${name}: ${values.join(', ') || '(none)'}`);
  }
  out.push('', 'its deltas (newest last):');
  for (const e of allDeltas) if (e.kind === 'delta' && e.key === key) out.push(`  ${entryText(e)}`);
  return out;
}

/** What the cache screen draws beside its layout: the header, the objects' column heads and the rows in view of each pane. */
export interface CacheRows {
  header: string;
  head: string;
  objects: Row[];
  indexes: Row[];
  deltas: Row[];
}

/** The rows in view for `l` (cacheLayout of the same input); only those lines are formatted. */
export function cacheRows(p: CacheLayoutInput, l: CacheLayout): CacheRows {
  const { model, namespaced, narrow, now: t } = p;
  const informer = model.informer;
  const indexer = informer.getIndexer();
  const names = model.options.indexNames;
  const funcs = indexFuncs(model);

  const stats = informer.stats();
  const header = `cache ${p.title} · ${stats.objects} objects · rv ${stats.lastSyncResourceVersion || '-'} · events +${stats.events.ADDED} ~${stats.events.MODIFIED} -${stats.events.DELETED} · lists ${stats.lists} (relists ${stats.relists}) · watches ${stats.watches} (restarts ${stats.watchRestarts}${stats.watchStalls > 0 ? `, stalled ${stats.watchStalls}` : ''}) · bookmarks ${stats.bookmarks} · resyncs ${stats.resyncs} · ${formatInformerMetrics(informerMetrics(stats))} · errors ${stats.errors}`;

  // Objects in view.
  const objWin = l.windows.objects;
  const visible = l.keys.objects.slice(objWin.top, objWin.top + l.listHeights.objects);
  const head = [...(namespaced ? ['NAMESPACE'] : []), 'NAME', 'RESOURCEVERSION', 'AGE', 'LAST', ...names.map((n) => n.toUpperCase())];
  const cells = visible.map((k) => {
    const o: KubeObject = indexer.getByKey(k)!;
    const last = model.lastChangeOf(k);
    const iv = indexValuesOf(o, funcs);
    return [
      ...(namespaced ? [o.metadata.namespace ?? ''] : []),
      o.metadata.name ?? '',
      o.metadata.resourceVersion ?? '',
      age(o.metadata.creationTimestamp, t),
      last ? `${last.type} ${age(new Date(last.at).toISOString(), t)}` : '',
      ...names.map((n) => iv[n]!.join(',') || '<none>'),
    ].map((c) => escapeTerminal(c));
  });
  const widths = head.map((h, i) => Math.min(40, Math.max(h.length, ...cells.map((r) => r[i]!.length))));
  const line = (r: readonly string[]): string =>
    r
      .map((c, i) => fit(c, widths[i]!, 'middle'))
      .join('  ')
      .trimEnd();
  const newest = model.newestSeq();
  const objects: Row[] = visible.map((k, i) => {
    const isNewest = model.lastChangeOf(k)?.seq === newest;
    return { key: k, text: line(cells[i]!), bold: isNewest, ...(isNewest ? { color: 'yellow' } : {}) };
  });

  const idxWin = l.windows.indexes;
  const indexes: Row[] = l.indexEntries.slice(idxWin.top, idxWin.top + l.listHeights.indexes).map((e) => ({
    key: e.key,
    text: `${e.name}=${e.value}  ${indexer.indexKeys(e.name, e.value).length}`,
    ...(narrow && narrow.name === e.name && narrow.value === e.value ? { color: 'cyan', bold: true } : {}),
  }));
  const deltaWin = l.windows.deltas;
  const deltas: Row[] = l.deltas.slice(deltaWin.top, deltaWin.top + l.listHeights.deltas).map((e) => ({
    key: String(e.seq),
    text: entryText(e),
    ...(e.kind === 'delta' ? { color: DELTA_COLOR[e.type] } : { color: MARK_COLOR[e.kind], bold: true }),
  }));
  return { header, head: line(head), objects, indexes, deltas };
}
