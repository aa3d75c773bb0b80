/**
 * Display of the `top` TUI: draws the layout and rows of src/view/top-layout.ts (a line per
 * component and its busy queues, the errors under them, or a line's detail) and nothing else (no
 * timers, no subscriptions; the container in top-app.tsx owns those), into exactly the terminal's
 * rows and columns. frame.tsx escapes what it draws (src/util/escape.ts).
 */
import type { ReactNode } from 'react';
import { topLayout, topRows, type TopLayout, type TopLayoutInput } from '../view/top-layout.js';
import { Frame, Line, PaneTitle, Rows } from './frame.js';

const HINTS = '↑/↓ select · Enter detail · a idle queues · / filter · ? keys · q quit';

export function TopScreen(props: TopLayoutInput & { layout?: TopLayout | undefined }): ReactNode {
  const { view, state: screen, showIdle, width: W, height: H } = props;
  const layout = props.layout ?? topLayout(props);
  const { errors, errorRows, body, listHeight, text } = layout;
  const { header, componentHead, queueHead, rows, window: win } = topRows(props, layout, W);
  return (
    <Frame
      width={W}
      height={H}
      header={header}
      body={body}
      text={text}
      state={screen}
      hints={HINTS}
      below={errors.slice(0, errorRows).map((e, i) => <Line key={`e${i}`} row={{ key: `e${i}`, text: e, color: 'red' }} width={W} />)}
    >
      <PaneTitle title={`Controllers · ${view.components.length}`} right={showIdle ? 'idle queues shown' : undefined} focused width={W} />
      <Line row={componentHead} width={W} />
      <Line row={queueHead} width={W} />
      <Rows
        rows={rows}
        window={win}
        height={listHeight}
        width={W}
        focused
        emptyText={view.components.length === 0 ? 'no components found yet' : `nothing matches "${screen.filter}"`}
      />
    </Frame>
  );
}
