/**
 * The `cache` TUI: a live mirror of one informer's cache. Panes, top to bottom: the objects
 * (namespace, name, resourceVersion, age, the last delta and one column per --index; the object
 * of the newest delta highlighted), the index values with their object counts (Enter on a value
 * narrows the objects to ByIndex(name, value), Esc widens them again), and the last deltas with
 * the relists, resyncs, bookmarks and watch restarts between them. The header carries the
 * informer's counters. Keys are the shared key map (src/tui/keymap.ts), the state the shared
 * screen model (src/view/screen-state.ts); the screen is sized to the terminal.
 *
 * Frame cost stays flat with the cache's size: rows are formatted only for the lines in view; the
 * whole cache is only listed, sorted and filtered by key.
 *
 * Names, index values and the informer's messages are the cluster's: the cells are escaped before
 * they are fitted to their columns, the header here, the rest by frame.tsx (src/util/escape.ts).
 */
import { Box, Text, useApp, useInput, useStdin, useWindowSize } from 'ink';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { CommandIO } from '../cli/io.js';
import type { KubeObject } from '../kube/index.js';
import { age } from '../output/format.js';
import { escapeTerminal } from '../util/escape.js';
import {
  allocateRows,
  initialScreen,
  matchesFilter,
  navOf,
  reduceScreen,
  resolveNav,
  type ListWindow,
  type Press,
  type ScreenState,
} from '../view/screen-state.js';
import { formatInformerMetrics, indexValuesOf, informerMetrics, type CacheModel, type DeltaPaneEntry, type IndexFuncs } from '../view/cache-view.js';
import { fit, Footer, Line, PaneTitle, position, Rows, Screen, TextPane, type Row } from './frame.js';
import { helpLines, pressesOf, type KeyHelp } from './keymap.js';
import { mountTui } from './mount.js';
import { Throttle } from './throttle.js';

type PaneName = 'objects' | 'indexes' | 'deltas';
const PANES: readonly PaneName[] = ['objects', 'indexes', 'deltas'];

export interface CacheAppProps {
  model: CacheModel;
  /** "configmaps in demo". */
  title: string;
  namespaced: boolean;
  /** Start narrowed to ByIndex(name, value) (--by-index). */
  narrow?: { name: string; value: string } | undefined;
  onExit?: (reason: 'quit' | 'interrupt') => void;
  maxFps?: number;
  /** Fixed size (tests); default the terminal's. */
  width?: number;
  height?: number;
  /** Wall clock for ages (tests pass a fixed one). */
  now?: () => number;
}

const OWN_KEYS: readonly KeyHelp[] = [
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

export function CacheApp({ model, title, namespaced, narrow: initialNarrow, onExit, maxFps = 10, width, height, now = Date.now }: CacheAppProps): ReactNode {
  const { exit } = useApp();
  const size = useWindowSize();
  const { isRawModeSupported } = useStdin();
  const [, setVersion] = useState(0);
  const [screen, setScreen] = useState<ScreenState<PaneName>>(() => initialScreen<PaneName>('objects', ['deltas']));
  const [narrow, setNarrow] = useState<{ name: string; value: string } | undefined>(initialNarrow);

  useEffect(() => {
    const throttle = new Throttle(() => setVersion((v) => v + 1), Math.max(1, Math.round(1000 / maxFps)));
    const off = model.onUpdate(() => throttle.request());
    // Ages and counters move without deltas too.
    const tick = setInterval(() => throttle.request(), 1000);
    return () => {
      off();
      clearInterval(tick);
      throttle.stop();
    };
  }, [model, maxFps]);

  const W = width ?? size.columns ?? 100;
  const H = height ?? size.rows ?? 30;
  const informer = model.informer;
  const indexer = informer.getIndexer();
  const names = model.options.indexNames;
  const funcs: IndexFuncs = names.map((n) => [n, indexer.getIndexers()[n]!] as const);
  const filter = screen.filter;

  // Objects: keys only for the whole (narrowed, filtered) cache; rows for the lines in view.
  const objectAt = (k: string): KubeObject | undefined => indexer.getByKey(k);
  let objectKeys: readonly string[] = narrow ? indexer.indexKeys(narrow.name, narrow.value) : model.sortedKeys();
  if (filter)
    objectKeys = objectKeys.filter((k) => matchesFilter(filter, [k, ...Object.values(indexValuesOf(objectAt(k), funcs)).flat(), model.lastChangeOf(k)?.type]));

  // Index values: all listed, counted only when in view.
  const indexEntries: { key: string; name: string; value: string }[] = [];
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

  const body = Math.max(3, H - 2);
  const rowsFor = allocateRows(
    body,
    [
      { key: 'objects' as const, want: objectKeys.length + 2, min: 5, fill: true },
      { key: 'indexes' as const, want: names.length ? indexEntries.length + 1 : 0, min: names.length ? 3 : 0 },
      { key: 'deltas' as const, want: deltas.length + 1, min: 6 },
    ],
    screen.pane,
  );
  const objectRows = Math.max(1, rowsFor.objects - 2);
  const heights: Record<PaneName, number> = { objects: objectRows, indexes: Math.max(1, rowsFor.indexes - 1), deltas: Math.max(1, rowsFor.deltas - 1) };
  const paneKeys: Record<PaneName, readonly string[]> = {
    objects: objectKeys,
    indexes: indexEntries.map((e) => e.key),
    deltas: deltas.map((e) => String(e.seq)),
  };

  const detailText = (): string[] | undefined => {
    if (screen.help) return helpLines(OWN_KEYS);
    if (screen.detail === undefined) return undefined;
    let key = screen.detail;
    if (screen.detailPane === 'deltas') {
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
  };
  const text = detailText();

  const current = useRef({ paneKeys, heights, textLines: 0, textHeight: 1, indexEntries });
  current.current = { paneKeys, heights, textLines: text?.length ?? 0, textHeight: Math.max(1, body - 1), indexEntries };
  // Keys typed quickly arrive before the next render: each press must see the state the previous
  // one left, so the screen state and the narrowing are kept here too, updated as they are set.
  const latest = useRef({ screen, narrow });
  const update = (next: { screen?: ScreenState<PaneName>; narrow?: { name: string; value: string } | undefined }): void => {
    if (next.screen) {
      latest.current.screen = next.screen;
      setScreen(next.screen);
    }
    if ('narrow' in next) {
      latest.current.narrow = next.narrow;
      setNarrow(next.narrow);
    }
  };

  const handle = (press: Press): boolean => {
    const c = current.current;
    const s = latest.current.screen;
    if (press.action === 'interrupt' || (press.action === 'quit' && !s.editing)) {
      onExit?.(press.action === 'quit' ? 'quit' : 'interrupt');
      exit();
      return false;
    }
    const plain = !s.editing && !s.help && s.detail === undefined;
    if (plain && press.action === 'open' && s.pane === 'indexes') {
      const w = resolveNav(navOf(s, 'indexes'), c.paneKeys.indexes, c.heights.indexes);
      const entry = c.indexEntries[w.index];
      if (entry) update({ narrow: { name: entry.name, value: entry.value }, screen: { ...s, pane: 'objects', nav: { ...s.nav, objects: undefined } } });
      return true;
    }
    if (plain && press.action === 'back' && !s.filter && latest.current.narrow) {
      update({ narrow: undefined });
      return true;
    }
    update({
      screen: reduceScreen(s, press, {
        panes: PANES,
        keys: c.paneKeys[s.pane],
        height: c.heights[s.pane],
        textLines: c.textLines,
        textHeight: c.textHeight,
        openable: s.pane !== 'indexes',
      }),
    });
    return true;
  };
  useInput(
    (input, key) => {
      for (const p of pressesOf(input, key)) if (!handle(p)) return;
    },
    { isActive: isRawModeSupported },
  );

  const stats = informer.stats();
  const header = `cache ${title} · ${stats.objects} objects · rv ${stats.lastSyncResourceVersion || '-'} · events +${stats.events.ADDED} ~${stats.events.MODIFIED} -${stats.events.DELETED} · lists ${stats.lists} (relists ${stats.relists}) · watches ${stats.watches} (restarts ${stats.watchRestarts}${stats.watchStalls > 0 ? `, stalled ${stats.watchStalls}` : ''}) · bookmarks ${stats.bookmarks} · resyncs ${stats.resyncs} · ${formatInformerMetrics(informerMetrics(stats))} · errors ${stats.errors}`;

  // Objects in view.
  const objWin = resolveNav(navOf(screen, 'objects'), objectKeys, objectRows);
  const visible = objectKeys.slice(objWin.top, objWin.top + objectRows);
  const t = now();
  const head = [...(namespaced ? ['NAMESPACE'] : []), 'NAME', 'RESOURCEVERSION', 'AGE', 'LAST', ...names.map((n) => n.toUpperCase())];
  const cells = visible.map((k) => {
    const o = objectAt(k)!;
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
  const objRows: Row[] = visible.map((k, i) => {
    const last = model.lastChangeOf(k);
    const isNewest = last?.seq === newest;
    return { key: k, text: line(cells[i]!), bold: isNewest, ...(isNewest ? { color: 'yellow' } : {}) };
  });

  const idxWin = resolveNav(navOf(screen, 'indexes'), paneKeys.indexes, heights.indexes);
  const idxRows: Row[] = indexEntries.slice(idxWin.top, idxWin.top + heights.indexes).map((e) => ({
    key: e.key,
    text: `${e.name}=${e.value}  ${indexer.indexKeys(e.name, e.value).length}`,
    ...(narrow && narrow.name === e.name && narrow.value === e.value ? { color: 'cyan', bold: true } : {}),
  }));
  const deltaWin = resolveNav(navOf(screen, 'deltas'), paneKeys.deltas, heights.deltas);
  const deltaRows: Row[] = deltas.slice(deltaWin.top, deltaWin.top + heights.deltas).map((e) => ({
    key: String(e.seq),
    text: entryText(e),
    ...(e.kind === 'delta' ? { color: DELTA_COLOR[e.type] } : { color: MARK_COLOR[e.kind], bold: true }),
  }));

  return (
    <Screen width={W} height={H}>
      <Box width={W} height={1} flexShrink={0}>
        <Text wrap="truncate-end" bold>
          {escapeTerminal(header)}
        </Text>
      </Box>
      {text ? (
        <TextPane
          title={screen.help ? 'Keys' : 'Detail'}
          lines={text.map((x, i) => ({ key: String(i), text: x }))}
          top={screen.textTop}
          height={body}
          width={W}
        />
      ) : (
        <Box flexDirection="column" width={W} height={body} flexShrink={0}>
          <PaneTitle
            title={`Objects · ${objectKeys.length}${narrow ? ` under ${narrow.name}=${narrow.value} (Esc: all)` : ''}`}
            right={
              objectKeys.length > objectRows ? `${objWin.top + 1}-${Math.min(objectKeys.length, objWin.top + objectRows)} of ${objectKeys.length}` : undefined
            }
            focused={screen.pane === 'objects'}
            width={W}
          />
          <Line row={{ key: 'head', text: line(head), dim: true }} width={W} />
          <Rows
            rows={objRows}
            window={{ index: objWin.index - objWin.top, top: 0 }}
            height={objectRows}
            width={W}
            focused={screen.pane === 'objects'}
            emptyText={filter ? `nothing matches "${filter}"` : 'the cache is empty'}
          />
          {names.length ? (
            <WindowPane
              title={`Indexes · ${names.join(', ')}`}
              rows={idxRows}
              total={indexEntries.length}
              window={idxWin}
              height={rowsFor.indexes}
              width={W}
              focused={screen.pane === 'indexes'}
              emptyText="no values"
            />
          ) : null}
          <WindowPane
            title={`Deltas · ${allDeltas.length}`}
            rows={deltaRows}
            total={deltas.length}
            window={deltaWin}
            height={rowsFor.deltas}
            width={W}
            focused={screen.pane === 'deltas'}
            emptyText="no deltas yet"
          />
        </Box>
      )}
      <Footer state={screen} hints="tab pane · ↑/↓ select · Enter detail / narrow · / filter · ? keys · q quit" width={W} />
    </Screen>
  );
}

/** A pane given only the rows in view (`rows` start at `window.top`), for lists too long to format whole. */
function WindowPane({
  title,
  rows,
  total,
  window,
  height,
  width,
  focused,
  emptyText,
}: {
  title: string;
  rows: readonly Row[];
  total: number;
  window: ListWindow;
  height: number;
  width: number;
  focused: boolean;
  emptyText: string;
}): ReactNode {
  if (height <= 0) return null;
  return (
    <Box flexDirection="column" width={width} height={height} flexShrink={0}>
      <PaneTitle title={title} right={position(window, total, height - 1)} focused={focused} width={width} />
      <Rows
        rows={rows}
        window={{ index: window.index - window.top, top: 0 }}
        height={height - 1}
        width={width}
        focused={focused}
        emptyText={total === 0 ? emptyText : undefined}
      />
    </Box>
  );
}

export async function runCacheTui(
  model: CacheModel,
  io: CommandIO,
  options: { title: string; namespaced: boolean; narrow?: { name: string; value: string } | undefined; signal: AbortSignal; forMs: number },
): Promise<'quit' | 'interrupt' | 'done'> {
  let reason: 'quit' | 'interrupt' | 'done' = 'done';
  const app = <CacheApp model={model} title={options.title} namespaced={options.namespaced} narrow={options.narrow} onExit={(r) => (reason = r)} />;
  const how = await mountTui(app, io, { signal: options.signal, endAfterMs: options.forMs });
  return how === 'interrupt' ? 'interrupt' : reason;
}
