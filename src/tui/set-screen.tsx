/**
 * Display of a set of objects applied and traced at once (`--apply -f DIR`, `-o tui`): renders
 * props and nothing else (the container in set-app.tsx owns the subscription, the keys and the
 * size): the list of objects — status, time to ready, the deciding rule — or the help or an
 * object's detail in its place.
 */
import { Text } from 'ink';
import type { ReactNode } from 'react';
import type { SetMember } from '../trace/index.js';
import { filterMatcher, navOf, resolveNav, type ListWindow, type ScreenState } from '../view/screen-state.js';
import { memberDetail, setCounts, setHead, setRows, type SetOrder, type SetRow } from '../view/set-view.js';
import { formatDuration } from '../util/duration.js';
import { Frame, Pane, textRows, wrapRows, type FrameText } from './frame.js';
import { helpLines } from './keymap.js';

export type SetPaneKey = 'objects';
export const SET_OWN_KEYS = [
  { keys: 'Enter', what: "an object's chain: timeline, tree, waterfall, diagnosis (q comes back)" },
  { keys: 's', what: 'sort: in apply order / the slowest first' },
];
const HINTS = '? keys · / filter · Enter chain · s sort · q quit';

export interface SetScreenProps {
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
export function setLayout({ members, now, order, state, width, height }: Omit<SetScreenProps, 'ended' | 'startedAt' | 'endedAt' | 'watching'>): SetLayout {
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

export function SetScreen(props: SetScreenProps & { layout: SetLayout }): ReactNode {
  const { members, now, startedAt, endedAt, watching, order, ended, state, width: w, height: h, layout } = props;
  const since = startedAt !== undefined ? ` · +${formatDuration((endedAt ?? now) - startedAt)}` : '';
  const header = (
    <>
      <Text bold>{watching ? 'watch' : 'apply'}</Text> {setCounts(members)}
      {since}
      <Text dimColor>{ended ? ' · done' : ''}</Text>
    </>
  );
  return (
    <Frame
      width={w}
      height={h}
      header={header}
      status={{ key: 'head', text: setHead(w), dim: true }}
      body={layout.body}
      text={layout.text}
      state={state}
      hints={HINTS}
    >
      <Pane
        title={`Objects · ${order === 'slowest' ? 'slowest first' : 'in apply order'}`}
        rows={layout.rows}
        window={layout.window}
        height={layout.body}
        width={w}
        focused
        emptyText="no object matches"
      />
    </Frame>
  );
}
