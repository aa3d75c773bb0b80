/**
 * Display of the trace TUI: TraceScreen draws the layout of src/view/trace-layout.ts (the tree, the
 * timeline or the waterfall, the internals; the detail or help in their place) and nothing else
 * (no timers, no subscriptions; the container in trace-app.tsx owns those), into exactly the
 * terminal's rows and columns (see mount.tsx for the screen model).
 *
 * The rows are drawn by frame.tsx's Line, which escapes them (src/util/escape.ts); the header,
 * built here from the cluster's words, is escaped here.
 */
import { Box, Text } from 'ink';
import type { TraceSnapshot } from '../trace/index.js';
import { formatDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import type { QueuesView } from '../view/queues-view.js';
import { navOf, type ScreenState } from '../view/screen-state.js';
import { traceLayout, type DiagnosisShown, type MainView, type Pane, type TraceLayout } from '../view/trace-layout.js';
import { hopKindTitle, summarise } from '../view/trace-view.js';
import { Frame, Pane as PaneBox, PaneTitle } from './frame.js';
import { TraceWaterfallPane } from './waterfall-pane.js';

const HINTS = '? keys · / filter · Enter detail · tab pane · w waterfall · d diagnose · q quit';

export interface TraceScreenProps {
  snapshot: TraceSnapshot;
  state: ScreenState<Pane>;
  main?: MainView;
  now: number;
  width: number;
  height: number;
  /** The controllers' queues (--metrics), shown under Internals. */
  queues?: QueuesView | undefined;
  /** traceLayout of these props, when the caller has it already. */
  layout?: TraceLayout | undefined;
  /** The diagnosis, shown while the state has it open. */
  diagnosis?: DiagnosisShown | undefined;
}

export function TraceScreen({ snapshot, state, main = 'timeline', now, width, height, queues, layout: given, diagnosis }: TraceScreenProps): React.JSX.Element {
  const sum = summarise(snapshot, now);
  const layout = given ?? traceLayout(snapshot, state, width, height, queues, diagnosis);
  const { rows, windows, heights } = layout;
  const outcomeColour =
    sum.outcome === 'converged' || sum.outcome === 'no-rollout' || sum.outcome === 'deleted' ? 'green' : sum.outcome === 'running' ? 'cyan' : 'red';
  const tl = navOf(state, 'timeline');
  const shown = layout.hopsShown === snapshot.hops.length ? `${snapshot.hops.length} hops` : `${layout.hopsShown} of ${snapshot.hops.length} hops`;
  return (
    <Frame
      width={width}
      height={height}
      header={
        <>
          <Text bold>{escapeTerminal(sum.target)}</Text> · {escapeTerminal(sum.trigger)}
        </>
      }
      status={{
        key: 'status',
        color: outcomeColour,
        text: [
          sum.outcome + (sum.message && sum.outcome !== 'running' ? ` — ${sum.message}` : ''),
          sum.elapsedMs !== undefined ? formatDuration(sum.elapsedMs) : undefined,
          sum.slowestHop
            ? `slowest hop ${sum.slowestHop.object} ${hopKindTitle(sum.slowestHop.kind)} +${formatDuration(sum.slowestHop.sincePreviousMs)}`
            : undefined,
          sum.stalls,
        ]
          .filter(Boolean)
          .join(' · '),
      }}
      body={layout.body}
      text={layout.text}
      state={state}
      hints={HINTS}
    >
      <PaneBox
        title={`Tree`}
        rows={rows.tree}
        window={windows.tree}
        height={heights.tree}
        width={width}
        focused={state.pane === 'tree'}
        emptyText="waiting for the first sync"
      />
      {main === 'waterfall' ? (
        <Box flexDirection="column" height={heights.timeline} flexShrink={0}>
          <WaterfallSlot snapshot={snapshot} state={state} width={width} height={heights.timeline} focused={state.pane === 'timeline'} now={now} />
        </Box>
      ) : (
        <PaneBox
          title={`Timeline · ${shown}`}
          right={tl.follow ? 'following' : `paused · G or f to follow`}
          rows={rows.timeline}
          first={layout.first.timeline}
          total={layout.hopsShown}
          window={windows.timeline}
          height={heights.timeline}
          width={width}
          focused={state.pane === 'timeline'}
          emptyText={snapshot.hops.length ? 'no hop matches the filter' : 'no hops yet'}
        />
      )}
      <PaneBox
        title="Internals"
        rows={rows.internals}
        window={windows.internals}
        height={heights.internals}
        width={width}
        focused={state.pane === 'internals'}
      />
    </Frame>
  );
}

/**
 * The main pane's slot for the waterfall: `height` rows (a title row included) of `width` columns.
 * The lanes are grouped to fit the rows (see src/view/waterfall-view.ts), so it never scrolls.
 */
export function WaterfallSlot({
  snapshot,
  width,
  height,
  focused,
  now,
}: {
  snapshot: TraceSnapshot;
  state: ScreenState<Pane>;
  width: number;
  height: number;
  focused: boolean;
  now: number;
}): React.JSX.Element | null {
  return (
    <Box flexDirection="column" width={width} height={height} flexShrink={0} overflow="hidden">
      <PaneTitle title="Waterfall" right="w timeline" focused={focused} width={width} />
      {height > 1 ? <TraceWaterfallPane snapshot={snapshot} now={now} width={width} height={height - 1} header={false} /> : null}
    </Box>
  );
}
