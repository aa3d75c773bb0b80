/**
 * The controllers' work queues, as a pane of the lease-watch and trace TUIs and the whole screen
 * of `queues -o tui`. Display only: it renders a QueuesView (see src/view/queues-view.ts) and
 * nothing else. Per source a summary line (or its one-line error, in yellow), then its busiest
 * queues first: deepest, then most adds per second. Absent numbers are "-".
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import type { QueueRow } from '../metrics/index.js';
import { controllerCells, queueCells, rateCell, sourceSummary, type QueuesSourceView, type QueuesView } from '../view/queues-view.js';

export interface QueuesPaneProps {
  view: QueuesView;
  /** Total width; columns are laid out within it. */
  width: number;
  /** Queue rows shown per source; the rest are counted. */
  maxRows?: number;
  title?: string;
}

const NUMBER_COLUMNS: { title: string; width: number }[] = [
  { title: 'DEPTH', width: 5 },
  { title: 'ADDS/S', width: 6 },
  { title: 'RETRY/S', width: 7 },
  { title: 'Q P50', width: 7 },
  { title: 'Q P99', width: 7 },
  { title: 'W P50', width: 7 },
  { title: 'W P99', width: 7 },
  { title: 'UNFIN', width: 7 },
  { title: 'LONGEST', width: 7 },
];
const INDENT = 2;
const GAP = 1;

/** Busiest first: deepest, then most adds per second, then by name. */
export function busiestFirst(rows: readonly QueueRow[]): QueueRow[] {
  return [...rows].sort((a, b) => (b.depth ?? -1) - (a.depth ?? -1) || (b.addsPerSecond ?? -1) - (a.addsPerSecond ?? -1) || a.name.localeCompare(b.name));
}

export function QueuesPane({ view, width, maxRows = 12, title = 'Controller queues' }: QueuesPaneProps): ReactNode {
  const numbers = NUMBER_COLUMNS.reduce((n, c) => n + c.width + GAP, 0);
  const queueWidth = Math.max(12, width - numbers - INDENT - GAP);
  return (
    <Box flexDirection="column" width={width}>
      <Text bold>{title}</Text>
      {view.sources.length === 0 ? <Text dimColor>no metrics sources</Text> : null}
      {view.sources.map((s) => (
        <SourceBlock key={s.source} source={s} queueWidth={queueWidth} maxRows={maxRows} />
      ))}
    </Box>
  );
}

function SourceBlock({ source: s, queueWidth, maxRows }: { source: QueuesSourceView; queueWidth: number; maxRows: number }): ReactNode {
  const failed = s.state === 'failed' || s.state === 'stale';
  const rows = busiestFirst(s.queues).slice(0, maxRows);
  const more = s.queues.length - rows.length;
  return (
    <Box flexDirection="column">
      <Text wrap={failed ? 'wrap' : 'truncate-end'} {...(failed ? { color: 'yellow' } : {})}>
        {s.source} · {failed ? `${s.state}: ${s.error ?? ''}` : sourceSummary(s)}
      </Text>
      {rows.length > 0 ? (
        <Box flexDirection="column" marginLeft={INDENT}>
          <Row cells={['QUEUE', ...NUMBER_COLUMNS.map((c) => c.title)]} queueWidth={queueWidth} dim />
          {rows.map((q) => (
            <Row key={`${q.controller ?? ''}/${q.name}`} cells={queueCells(q)} queueWidth={queueWidth} busy={(q.depth ?? 0) > 0} />
          ))}
          {more > 0 ? <Text dimColor>… {more} more</Text> : null}
        </Box>
      ) : null}
      {s.controllers.length > 0 ? (
        <Box flexDirection="column" marginLeft={INDENT}>
          {s.controllers.map((c) => {
            const [name, rate, errors, , p50, p99, workers] = controllerCells(c);
            // Results last, and only those that happened: what a cut line loses matters least.
            const results = Object.entries(c.resultsPerSecond)
              .filter(([, v]) => v !== null && v > 0)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, v]) => `${k} ${rateCell(v)}`)
              .join(' ');
            return (
              <Text key={c.controller} wrap="truncate-end">
                controller {name}: {rate} reconciles/s · errors {errors}/s · p50 {p50} p99 {p99} · workers {workers}
                {results ? ` · ${results}` : ''}
              </Text>
            );
          })}
        </Box>
      ) : null}
    </Box>
  );
}

function Row({ cells, queueWidth, dim, busy }: { cells: string[]; queueWidth: number; dim?: boolean; busy?: boolean }): ReactNode {
  const [queue, ...numbers] = cells;
  return (
    <Box>
      <Box width={queueWidth} marginRight={GAP} flexShrink={0}>
        <Text dimColor={dim ?? false} wrap="truncate-middle" {...(busy ? { color: 'cyan' } : {})}>
          {queue}
        </Text>
      </Box>
      {numbers.map((n, i) => (
        <Box key={i} width={NUMBER_COLUMNS[i]!.width} marginRight={GAP} flexShrink={0}>
          <Text dimColor={dim ?? false} wrap="truncate-end">
            {n}
          </Text>
        </Box>
      ))}
    </Box>
  );
}
