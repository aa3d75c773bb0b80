/**
 * `kubectl informer-trace top -o table`: a table of components, then each with its Lease, the
 * replicas and their non-idle queues (all of them with -a). The table escapes its cells; every
 * other line is escaped here: holder identities and what a source answered are the cluster's.
 */
import { escapeTerminal } from '../util/escape.js';
import { electionLines } from '../view/lease-view.js';
import { COMPONENT_COLUMNS, componentCells, RECONCILE_COLUMNS, shownQueues, TOP_QUEUE_COLUMNS, topQueueCells, type TopView } from '../view/top-view.js';
import { renderTable } from './table.js';

/** The text snapshot: a table of components, each followed by its non-idle queues. The table escapes its cells; each line is escaped. */
export function renderTopTable(view: TopView, all: boolean): string {
  const lines: string[] = [];
  const line = (text: string): void => void lines.push(escapeTerminal(text));
  lines.push(renderTable([...COMPONENT_COLUMNS], view.components.map(componentCells)));
  for (const c of view.components) {
    lines.push('');
    line(`${c.name} · ${c.state}${c.reasons.length ? ` · ${c.reasons.join('; ')}` : ''}`);
    if (c.lease) {
      line(`  lease ${c.key}: ${c.lease.holder ?? '<none>'}${c.leader ? ` (leader: ${c.leader})` : ''}`);
      for (const l of electionLines(c.lease)) line(`    ${l}`);
    }
    for (const r of c.replicas) line(`  replica ${r.source}: ${r.role ?? 'role unknown'}, ${r.state}${r.error ? ` — ${r.error}` : ''}`);
    if (c.note) line(`  ${c.note}`);
    const qs = shownQueues(c, all);
    // controller-runtime's columns only when a queue has them.
    const width = qs.some((q) => q.reconcile !== null) ? TOP_QUEUE_COLUMNS.length : TOP_QUEUE_COLUMNS.length - RECONCILE_COLUMNS.length;
    if (qs.length > 0)
      lines.push(
        renderTable(
          TOP_QUEUE_COLUMNS.slice(0, width),
          qs.map((q) => topQueueCells(q).slice(0, width)),
        )
          .split('\n')
          .map((l) => `  ${l}`)
          .join('\n'),
      );
    else if (c.queues.length > 0) lines.push(`  ${c.queues.length} queues, all idle (-a lists them)`);
  }
  return `${lines.join('\n')}\n`;
}
