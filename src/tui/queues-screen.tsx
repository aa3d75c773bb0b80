/**
 * Display of `kubectl informer-trace queues -o tui`: renders props and nothing else (the container
 * in queues-app.tsx owns the subscription, the keys and the size): the queues pane as a whole
 * screen, or the help or the detail of a queue, a controller or a source in its place.
 */
import { Text } from 'ink';
import type { ReactNode } from 'react';
import { formatDuration } from '../util/duration.js';
import { queuesLayout, type QueuesLayout, type QueuesLayoutInput } from '../view/queues-layout.js';
import { Frame, Pane } from './frame.js';

const HINTS = '? keys · / filter · Enter detail · a idle queues · q quit';

export function QueuesScreen(props: QueuesLayoutInput & { layout?: QueuesLayout | undefined }): ReactNode {
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
