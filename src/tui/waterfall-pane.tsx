/**
 * The waterfall as a pane of the trace TUI. Display only: it renders a WaterfallView (see
 * src/view/waterfall-view.ts) in exactly the rows and columns it is given, never more.
 *
 * Rows, top to bottom: a title (unless the host draws its own); one per lane; the time axis (two); the legend and the critical path
 * in one line each when the pane is at least 8 rows high. The host builds the view with
 * `maxLanes: waterfallLaneRows(height)`, so that lanes are grouped to fit rather than cut; lanes
 * that still do not fit are counted on the last lane row ("… 12 more lanes"), and `offset` scrolls.
 * The view's words (names, the trigger, notes) are escaped before it is laid out
 * (src/util/escape.ts), so every row fits its columns as drawn.
 */
import { Box, Text } from 'ink';
import { useMemo, type ReactNode } from 'react';
import { escapeTerminal, escapeTerminalDeep } from '../util/escape.js';
import {
  buildWaterfallView,
  CRITICAL_STYLE,
  cellRuns,
  criticalSummary,
  cutEnd,
  layoutWaterfall,
  legendEntries,
  paneOverhead,
  waterfallLaneRows,
  type WaterfallSource,
  type WaterfallView,
} from '../view/waterfall-view.js';

export interface WaterfallPaneProps {
  view: WaterfallView;
  /** Columns; every line fits in them. */
  width: number;
  /** Rows; the pane never takes more. */
  height: number;
  /** First lane shown (scrolling); clamped. */
  offset?: number;
  /** A lane to highlight (the selected object). */
  selectedLaneId?: string | undefined;
  title?: string;
  /** Draw the title row (default); a host with its own pane title turns it off. */
  header?: boolean;
}

export function WaterfallPane({ view: given, width, height, offset = 0, selectedLaneId, title = 'Waterfall', header = true }: WaterfallPaneProps): ReactNode {
  // Nothing to escape (the usual case) costs a walk, not a copy.
  const view = escapeTerminalDeep(given);
  const w = Math.max(1, Math.floor(width));
  const h = Math.max(1, Math.floor(height));
  const o = paneOverhead(h);
  const titleLine = cutEnd(`${escapeTerminal(title)} · ${view.title} · ${view.subtitle}`, w);
  if (view.lanes.length === 0) {
    return (
      <Box flexDirection="column" width={w}>
        {header ? <Text wrap="truncate-end">{titleLine}</Text> : null}
        {h > (header ? 1 : 0) ? (
          <Text dimColor wrap="truncate-end">
            {cutEnd('no lanes yet: nothing has happened since the trigger', w)}
          </Text>
        ) : null}
      </Box>
    );
  }
  const layout = layoutWaterfall(view, w);
  const rows = waterfallLaneRows(h, header);
  const first = Math.max(0, Math.min(offset, layout.rows.length - 1));
  let shown = layout.rows.slice(first, first + rows);
  let more = layout.rows.length - first - shown.length + view.hiddenLanes;
  if (more > 0 && shown.length === rows && rows > 0) {
    shown = shown.slice(0, rows - 1);
    more += 1;
  }
  const pad = ' '.repeat(Math.min(layout.chartOffset, w));
  const legend = legendEntries(view);
  return (
    <Box flexDirection="column" width={w}>
      {header ? (
        <Text bold wrap="truncate-end">
          {titleLine}
        </Text>
      ) : null}
      {shown.map((row) => {
        const selected = row.laneId === selectedLaneId;
        const plainLength = 1 + row.label.length + 1 + row.cells.length + (row.note ? row.note.length + 1 : 0);
        return (
          <Text key={row.laneId} wrap="truncate-end">
            <Text color={CRITICAL_STYLE.colour}>{row.gutter}</Text>
            <Text inverse={selected}>{row.label}</Text>{' '}
            {cellRuns(row.cells).map((r, i) => (
              <Text key={i} {...(r.colour ? { color: r.colour } : {})} bold={r.critical}>
                {r.text}
              </Text>
            ))}
            {row.note && plainLength <= w ? <Text dimColor> {row.note}</Text> : null}
          </Text>
        );
      })}
      {more > 0 && rows > 0 ? (
        <Text dimColor wrap="truncate-end">
          {cutEnd(`… ${more} more lane${more === 1 ? '' : 's'}${view.aggregated ? ' (Pods grouped by owner)' : ''}`, w)}
        </Text>
      ) : null}
      {o.axis ? (
        <>
          <Text dimColor wrap="truncate-end">
            {cutEnd(pad + layout.axisLine, w)}
          </Text>
          <Text dimColor wrap="truncate-end">
            {cutEnd((pad + layout.axisLabels).trimEnd(), w) || ' '}
          </Text>
        </>
      ) : null}
      {o.legend ? (
        <>
          <Text wrap="truncate-end">
            {legend.map((e, i) => (
              <Text key={e.label}>
                {i > 0 ? '  ' : ''}
                <Text color={e.colour}>{e.glyph}</Text> {e.label}
              </Text>
            ))}
          </Text>
          <Text dimColor wrap="truncate-end">
            {cutEnd(criticalSummary(view), w)}
          </Text>
        </>
      ) : null}
    </Box>
  );
}

export interface TraceWaterfallPaneProps extends Omit<WaterfallPaneProps, 'view'> {
  snapshot: WaterfallSource;
  /** Our clock now: a running trace's axis reaches it. */
  now: number;
}

/** The pane for a trace snapshot: builds the view, lanes grouped to fit the rows, and draws it. */
export function TraceWaterfallPane({ snapshot, now, height, header = true, ...rest }: TraceWaterfallPaneProps): ReactNode {
  const maxLanes = Math.max(1, waterfallLaneRows(height, header));
  const running = snapshot.outcome === undefined;
  // A finished trace's view does not change with the clock: built once per snapshot and size.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `now` counts only while the trace runs, on purpose
  const view = useMemo(() => buildWaterfallView(snapshot, { now, maxLanes }), [snapshot, running ? now : 0, maxLanes]);
  return <WaterfallPane view={view} height={height} header={header} {...rest} />;
}
