/**
 * The controllers' work queues, as a pane of the lease-watch and trace TUIs and the whole screen
 * of `queues -o tui`. Display only: it renders a QueuesView (see src/view/queues-view.ts) and
 * nothing else. Per source a summary line (or its error, in yellow, wrapped over as many lines as
 * it takes: a failure is never cut short), then its busiest queues first: deepest, then most adds
 * per second. Absent numbers are "-".
 *
 * The pane is built as one-line rows (src/view/queues-rows.ts), so a screen can give it an exact
 * row budget and scroll through it; QueuesPane renders them all, through frame.tsx's Line, which
 * escapes them (src/util/escape.ts).
 */
import { Box } from 'ink';
import type { ReactNode } from 'react';
import type { QueuesView } from '../view/queues-view.js';
import { queuesRows } from '../view/queues-rows.js';
import type { Row } from '../view/rows.js';
import { Line } from './frame.js';

export interface QueuesPaneProps {
  view: QueuesView;
  /** Total width; columns are laid out within it. */
  width: number;
  /** Queue rows shown per source; the rest are counted. */
  maxRows?: number;
  title?: string;
}

export function QueuesPane({ view, width, maxRows = 12, title = 'Controller queues' }: QueuesPaneProps): ReactNode {
  const rows: Row[] = [...(title ? [{ key: 'title', text: title, bold: true }] : []), ...queuesRows(view, width, { maxRows })];
  return (
    <Box flexDirection="column" width={width}>
      {rows.map((r) => (
        <Line key={r.key} row={r} width={width} />
      ))}
    </Box>
  );
}
