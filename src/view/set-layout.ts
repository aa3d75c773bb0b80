/**
 * The layout of a set of objects applied and traced at once (`--apply -f DIR`, `-o tui`), as plain
 * data: the list of objects (status, time to ready, the deciding rule), or the help or an object's
 * detail in its place. The screen (src/tui/set-screen.tsx) draws it; the keys move through it. Pure.
 */
import type { SetMember } from '../trace/index.js';
import { helpLines } from './key-help.js';
import { textRows, wrapRows, type FrameText } from './rows.js';
import { filterMatcher, navOf, resolveNav, type ListWindow, type ScreenState } from './screen-state.js';
import { memberDetail, setRows, type SetOrder, type SetRow } from './set-view.js';

export type SetPaneKey = 'objects';
export const SET_OWN_KEYS = [
  { keys: 'Enter', what: "an object's chain: timeline, tree, waterfall, diagnosis (q comes back)" },
  { keys: 's', what: 'sort: in apply order / the slowest first' },
];

export interface SetLayoutInput {
  members: readonly SetMember[];
  /** Our clock now, and when the first write was sent. */
  now: number;
  startedAt: number | undefined;
  /** When every object had settled: the time in the header stops there. */
  endedAt: number | undefined;
  order: SetOrder;
  state: ScreenState<SetPaneKey>;
  /** --watch -f: the header says watch, not apply. */
  watching: boolean;
  /** The set ended: every object settled, or the deadline passed. */
  ended: boolean;
  width: number;
  height: number;
}

export interface SetLayout {
  rows: SetRow[];
  body: number;
  listHeight: number;
  window: ListWindow;
  text: FrameText | undefined;
}

/** Everything the screen draws and the keys need. Pure. */
export function setLayout({ members, now, order, state, width, height }: Omit<SetLayoutInput, 'ended' | 'startedAt' | 'endedAt' | 'watching'>): SetLayout {
  const rows = setRows(members, now, order, width, filterMatcher(state.filter));
  // Header, column heads, footer.
  const body = Math.max(0, height - 3);
  const listHeight = Math.max(1, body - 1);
  let text: FrameText | undefined;
  if (state.help) text = { title: 'Keys', lines: textRows(helpLines(SET_OWN_KEYS)) };
  else if (state.detail !== undefined) {
    const m = members.find((x) => String(x.index) === state.detail);
    text = { title: 'Object', lines: textRows(m ? memberDetail(m) : ['no longer shown']) };
  }
  const window = resolveNav(
    navOf(state, 'objects'),
    rows.map((r) => r.key),
    listHeight,
  );
  return { rows, body, listHeight, window, text: text && { ...text, lines: wrapRows(text.lines, width) } };
}
