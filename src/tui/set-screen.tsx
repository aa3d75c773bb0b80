/**
 * Display of a set of objects applied and traced at once (`--apply -f DIR`, `-o tui`): renders
 * props and nothing else (the container in set-app.tsx owns the subscription, the keys and the
 * size): the list of objects — status, time to ready, the deciding rule — or the help or an
 * object's detail in its place.
 */
import { Text } from 'ink';
import type { ReactNode } from 'react';
import { formatDuration } from '../util/duration.js';
import type { SetLayout, SetLayoutInput } from '../view/set-layout.js';
import { setCounts, setHead } from '../view/set-view.js';
import { Frame, Pane } from './frame.js';

const HINTS = '? keys · / filter · Enter chain · s sort · q quit';

export function SetScreen(props: SetLayoutInput & { layout: SetLayout }): ReactNode {
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
