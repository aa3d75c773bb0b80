/**
 * The layout of `queues -o tui`, as plain data: the queues pane as a whole screen (its rows, window
 * and height), or the help or the detail of a queue, a controller or a source in its place. The
 * screen (src/tui/queues-screen.tsx) draws it; the keys move through it. Pure.
 */
import { helpLines } from './key-help.js';
import { queuesRows, type QueuesRow } from './queues-rows.js';
import type { QueuesView } from './queues-view.js';
import { textRows, wrapRows, type FrameText } from './rows.js';
import { navOf, resolveNav, type ListWindow, type ScreenState } from './screen-state.js';

export type QueuesPaneKey = 'queues';
const OWN_KEYS = [{ keys: 'a', what: 'show / hide idle queues' }];

export interface QueuesLayoutInput {
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
export function queuesLayout({ view, state, width, height }: Omit<QueuesLayoutInput, 'idle'>): QueuesLayout {
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
