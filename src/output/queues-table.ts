/**
 * `kubectl informer-trace queues -o table`: one block per snapshot. The sources first (state,
 * leadership, the window the rates cover), then one row per queue, then controller-runtime's
 * per-controller rates when a source has them. The SOURCE column appears only when more than one
 * source has rows. Absent numbers are "-". Why a source failed goes to stderr, not here.
 */
import { formatDuration } from '../util/duration.js';
import { renderTable } from './table.js';
import { CONTROLLER_COLUMNS, QUEUE_COLUMNS, controllerCells, queueCells, sourceSummary, type QueuesView } from '../view/queues-view.js';

export function renderQueuesTable(view: QueuesView): string {
  const out: string[] = [];
  out.push(
    renderTable(
      ['source', 'state'],
      view.sources.map((s) => [s.source, s.state === 'failed' || s.state === 'stale' ? `${s.state} (see stderr)` : sourceSummary(s)]),
    ),
  );

  const withRows = view.sources.filter((s) => s.queues.length > 0);
  const bySource = withRows.length > 1;
  const queueRows = withRows.flatMap((s) => s.queues.map((q) => [...(bySource ? [s.source] : []), ...queueCells(q)]));
  if (queueRows.length > 0) out.push(renderTable([...(bySource ? ['source'] : []), ...QUEUE_COLUMNS], queueRows));
  else if (view.okSources > 0) out.push(emptyLine(view));

  const withControllers = view.sources.filter((s) => s.controllers.length > 0);
  const controllersBySource = withControllers.length > 1;
  const controllerRows = withControllers.flatMap((s) => s.controllers.map((c) => [...(controllersBySource ? [s.source] : []), ...controllerCells(c)]));
  if (controllerRows.length > 0) out.push(renderTable([...(controllersBySource ? ['source'] : []), ...CONTROLLER_COLUMNS], controllerRows));
  return `${out.join('\n\n')}\n`;
}

function emptyLine(view: QueuesView): string {
  const hidden = view.sources.reduce((n, s) => n + s.hiddenIdle, 0);
  if (hidden === 0) return 'no queues to show';
  const windows = view.sources.map((s) => s.windowSeconds).filter((w): w is number => w !== null);
  const when = windows.length > 0 ? ` in the last ${formatDuration(Math.max(...windows) * 1000)}` : '';
  return `no queue was busy${when}: ${hidden} idle queue${hidden === 1 ? '' : 's'} hidden (--all shows them)`;
}

/** One table of a stream (every --interval): stamped with the time of its scrape, a blank line after. */
export function renderQueuesTableAt(view: QueuesView, atMs: number): string {
  return `${new Date(atMs).toISOString().slice(11, 19)} UTC\n${renderQueuesTable(view)}\n`;
}
