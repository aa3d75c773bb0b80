/** Plain-text trace for pipes and CI: hop lines as they happen, then the summary and internals. */
import type { TraceSnapshot } from '../trace/tracer.js';
import type { TraceEvent } from '../trace/types.js';
import { formatDuration } from '../util/duration.js';
import { hopLine, summarise, summaryLines, treeLines } from '../view/trace-view.js';
import { renderTable } from './table.js';

export function traceEventText(e: TraceEvent): string | undefined {
  switch (e.type) {
    case 'trigger':
      return e.trigger.kind === 'watch' ? 'change seen; tracing' : `wrote: ${e.trigger.wrote} (resourceVersion ${e.trigger.resourceVersion ?? '?'}, generation ${e.trigger.generation ?? '?'})`;
    case 'hop':
      return hopLine(e.hop);
    case 'note':
      return `${e.level}: ${e.message}`;
    case 'event':
      return `          ↳ ${e.event.reason}: ${e.event.note}  (${e.hopId.split('/')[0]})`;
    case 'end':
      return undefined;
  }
}

export function treeText(s: TraceSnapshot): string {
  const { lines } = treeLines(s.tree);
  const now = Date.now();
  return renderTable(
    ['object', 'status', 'node', 'restarts', 'age'],
    lines.map((l) => [
      `${'  '.repeat(l.depth)}${l.label}`,
      l.status,
      l.node ?? '',
      l.restarts === undefined ? '' : l.restarts,
      l.creationTimestamp ? formatDuration(now - Date.parse(l.creationTimestamp)) : '',
    ]),
  );
}

export function traceSummaryText(s: TraceSnapshot): string {
  const sum = summarise(s, Date.now());
  const parts = [summaryLines(sum).join('\n'), '', treeText(s), ''];
  parts.push(
    renderTable(
      ['informer', 'objects', 'added', 'modified', 'deleted', 'bookmarks', 'relists', 'watch restarts', 'backlog'],
      s.informers.map((i) => [i.description, i.objects, i.events.ADDED, i.events.MODIFIED, i.events.DELETED, i.bookmarks, i.relists, i.watchRestarts, i.backlog]),
    ),
  );
  if (s.queue) {
    parts.push('', renderTable(['workqueue', 'depth', 'adds', 'retries', 'reconciles', 'queue p99', 'work p99'], [[s.queue.name, s.queue.depth, s.queue.adds, s.queue.retries, s.reconciles, fmtSec(s.queue.queueDuration.p99), fmtSec(s.queue.workDuration.p99)]]));
  }
  return `${parts.join('\n')}\n`;
}

function fmtSec(v: number | null): string {
  return v === null ? '-' : formatDuration(v * 1000);
}
