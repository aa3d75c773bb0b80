/**
 * Display of the lease-watch TUI: draws the layout of src/view/lease-layout.ts (the leader leases,
 * the holder changes, the controllers' queues with --metrics, the heartbeat leases; a lease's
 * detail or the help in their place) and nothing else (no timers, no subscriptions; the container
 * in lease-watch-app.tsx owns those), into exactly the terminal's rows and columns. The header is
 * escaped here, the rows by frame.tsx (src/util/escape.ts).
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { shortDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { leaseLayout, type LeaseLayout, type LeaseLayoutInput, type LeasePane } from '../view/lease-layout.js';
import { clockTime, leaseKey, type LeaseWatchView } from '../view/lease-view.js';
import { fit } from '../view/rows.js';
import { navOf } from '../view/screen-state.js';
import { Frame, Line, Pane, PaneTitle, Rows } from './frame.js';

const HINTS = '? keys · / filter · Enter lease · tab pane · q quit';

export function LeaseWatchScreen(props: LeaseLayoutInput & { layout?: LeaseLayout | undefined }): ReactNode {
  const { view, state, width, height } = props;
  const l = props.layout ?? leaseLayout(props);
  const focused = (k: LeasePane): boolean => state.pane === k;
  const following = navOf(state, 'changes').follow;
  return (
    <Frame width={width} height={height} header={<Header view={view} />} body={l.body} text={l.text} state={state} hints={HINTS}>
      {l.heights.leases > 0 ? (
        <Box flexDirection="column" height={l.heights.leases} flexShrink={0}>
          <PaneTitle
            title={`Leader leases · ${l.rows.leases.length}${state.filter ? ` of ${view.leases.length}` : ''}`}
            focused={focused('leases')}
            width={width}
          />
          <Line width={width} row={{ key: 'h', dim: true, text: l.columns.map((c) => fit(c.title, c.width)).join(' ') }} />
          <Rows
            rows={l.rows.leases}
            window={l.windows.leases}
            height={l.listHeights.leases}
            width={width}
            focused={focused('leases')}
            emptyText={view.synced ? 'no leader-election leases' : 'listing leases…'}
          />
        </Box>
      ) : null}
      <Pane
        title={`Holder changes · ${l.rows.changes.length}`}
        right={following ? 'following' : 'paused · G or f to follow'}
        rows={l.rows.changes}
        window={l.windows.changes}
        height={l.heights.changes}
        width={width}
        focused={focused('changes')}
        emptyText="none since we started"
      />
      {l.panes.includes('queues') ? (
        <Pane title="Controller queues" rows={l.rows.queues} window={l.windows.queues} height={l.heights.queues} width={width} focused={focused('queues')} />
      ) : null}
      <Pane
        title="Heartbeat leases"
        rows={l.rows.heartbeats}
        window={l.windows.heartbeats}
        height={l.heights.heartbeats}
        width={width}
        focused={focused('heartbeats')}
        emptyText="none"
      />
    </Frame>
  );
}

/** The header's text: the scope, the count, whether the watch is synced, the clock. */
function Header({ view }: { view: LeaseWatchView }): ReactNode {
  const where = view.scope.name
    ? leaseKey(view.scope.namespace ?? '', view.scope.name)
    : view.scope.namespace
      ? `namespace ${view.scope.namespace}`
      : 'all namespaces';
  const count = view.leases.length + view.nodes.total + view.apiservers.total;
  return (
    <>
      <Text bold>lease-watch</Text> {escapeTerminal(where)} · {count} lease{count === 1 ? '' : 's'} · {view.synced ? 'watching' : 'syncing…'} ·{' '}
      {clockTime(view.at)} UTC
      {view.sinceMs !== null ? ` · history ${shortDuration(view.sinceMs)}` : ''}
    </>
  );
}
