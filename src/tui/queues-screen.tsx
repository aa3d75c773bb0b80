/**
 * Display of `kubectl informer-trace queues -o tui`: renders props and nothing else (the container
 * in queues-app.tsx owns the subscription, the keys and the size): the queues pane as a whole
 * screen, or the help or the detail of a queue, a controller or a source in its place.
 */
import { Text } from 'ink';
import type { ReactNode } from 'react';
import { formatDuration } from '../util/duration.js';
import type { QueuesView } from '../view/queues-view.js';
import { navOf, resolveNav, type ListWindow, type ScreenState } from '../view/screen-state.js';
import { Frame, Pane, textRows, wrapRows, type FrameText } from './frame.js';
import { helpLines } from './keymap.js';
import { queuesRows, type QueuesRow } from './queues-pane.js';

export type QueuesPaneKey = 'queues';
const OWN_KEYS = [{ keys: 'a', what: 'show / hide idle queues' }];
const HINTS = '? keys · / filter · Enter detail · a idle queues · q quit';

export interface QueuesScreenProps {
  view: QueuesView | undefined;
  /** Idle queues shown. */
  idle: boolean;
  state: ScreenState<QueuesPaneKey>;
  width: number;
  height: number;
}

export interface QueuesLayout {
  rows: QueuesRow[];
  body: number;
  /** Rows of the list (the body less the pane's title). */
  listHeight: number;
  window: ListWindow;
  text: FrameText | undefined;
}

/** Everything the screen draws and the keys need, for `width` × `height`. Pure. */
export function queuesLayout({ view, state, width, height }: Omit<QueuesScreenProps, 'idle'>): QueuesLayout {
  const rows = view ? queuesRows(view, width, { filter: state.filter }) : [];
  const body = Math.max(0, height - 2);
  const listHeight = Math.max(1, body - 1);
  let text: FrameText | undefined;
  if (state.help) text = { title: 'Keys', lines: textRows(helpLines(OWN_KEYS)) };
  else if (state.detail !== undefined) text = { title: 'Detail', lines: textRows(rows.find((r) => r.key === state.detail)?.detail?.() ?? ['no longer shown']) };
  const window = resolveNav(
    navOf(state, 'queues'),
    rows.map((r) => r.key),
    listHeight,
  );
  return { rows, body, listHeight, window, text: text && { ...text, lines: wrapRows(text.lines, width) } };
}

export function QueuesScreen(props: QueuesScreenProps & { layout?: QueuesLayout | undefined }): ReactNode {
  const { view, idle, state, width: w, height: h } = props;
  const layout = props.layout ?? queuesLayout(props);
  const header = (
    <>
      <Text bold>queues</Text> {view ? `${new Date(view.atMs).toISOString().slice(11, 19)} UTC · every ${formatDuration(view.intervalMs)}` : ''}
      <Text dimColor> (a {idle ? 'hide' : 'show'} idle queues)</Text>
    </>
  );
  return (
    <Frame width={w} height={h} header={header} body={layout.body} text={layout.text} state={state} hints={HINTS}>
      <Pane
        title="Controller queues"
        rows={layout.rows}
        window={layout.window}
        height={layout.body}
        width={w}
        focused
        emptyText="waiting for the first scrape"
      />
    </Frame>
  );
}
