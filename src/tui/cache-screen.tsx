/**
 * Display of the `cache` TUI: draws the layout of src/view/cache-layout.ts (the objects, the index
 * values, the deltas; the header with the informer's counters) and nothing else (no timers, no
 * subscriptions; the container in cache-app.tsx owns those), into exactly the terminal's rows and
 * columns. The rows are the cluster's words: frame.tsx escapes what it draws (src/util/escape.ts).
 */
import type { ReactNode } from 'react';
import { cacheLayout, cacheRows, type CacheLayout, type CacheLayoutInput } from '../view/cache-layout.js';
import { position } from '../view/rows.js';
import { Frame, Line, Pane, PaneTitle, Rows } from './frame.js';

const HINTS = 'tab pane · ↑/↓ select · Enter detail / narrow · / filter · ? keys · q quit';

export function CacheScreen(props: CacheLayoutInput & { layout?: CacheLayout | undefined }): ReactNode {
  const { model, narrow, state, width: W } = props;
  const l = props.layout ?? cacheLayout(props);
  const names = model.options.indexNames;
  const objectKeys = l.keys.objects;
  const objectRows = l.listHeights.objects;
  const objWin = l.windows.objects;
  const idxWin = l.windows.indexes;
  const deltaWin = l.windows.deltas;
  const rows = cacheRows(props, l);

  return (
    <Frame width={W} height={props.height} header={rows.header} body={l.body} text={l.text} state={state} hints={HINTS}>
      <PaneTitle
        title={`Objects · ${objectKeys.length}${narrow ? ` under ${narrow.name}=${narrow.value} (Esc: all)` : ''}`}
        right={position(objWin, objectKeys.length, objectRows)}
        focused={state.pane === 'objects'}
        width={W}
      />
      <Line row={{ key: 'head', text: rows.head, dim: true }} width={W} />
      <Rows
        rows={rows.objects}
        window={{ index: objWin.index - objWin.top, top: 0 }}
        height={objectRows}
        width={W}
        focused={state.pane === 'objects'}
        emptyText={state.filter ? `nothing matches "${state.filter}"` : 'the cache is empty'}
      />
      {names.length ? (
        <Pane
          title={`Indexes · ${names.join(', ')}`}
          rows={rows.indexes}
          first={idxWin.top}
          total={l.indexEntries.length}
          window={idxWin}
          height={l.heights.indexes}
          width={W}
          focused={state.pane === 'indexes'}
          emptyText="no values"
        />
      ) : null}
      <Pane
        title={`Deltas · ${model.deltas().length}`}
        rows={rows.deltas}
        first={deltaWin.top}
        total={l.deltas.length}
        window={deltaWin}
        height={l.heights.deltas}
        width={W}
        focused={state.pane === 'deltas'}
        emptyText="no deltas yet"
      />
    </Frame>
  );
}
