/**
 * Plain-text rendering of the lease-watch view: the snapshot tables (-o table) and one line per
 * holder change (-o table --watch). Colour only when asked (a TTY without NO_COLOR). Holder
 * identities, Lease names and scrape errors are the cluster's: tables escape their cells, and the
 * lines here are escaped before they are painted (src/util/escape.ts).
 */
import {
  ageOf,
  candidatesCell,
  changeSeverity,
  clockTime,
  describeChange,
  electionLines,
  heldCell,
  leaseKey,
  masterCell,
  renewCell,
  strategyCell,
  type HeartbeatSummary,
  type LeaseChange,
  type LeaseWatchView,
  type Severity,
} from '../view/lease-view.js';
import { shortDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { renderTable, styled, type Cell } from './table.js';

export interface LeaseTextOptions {
  color: boolean;
}

const SGR: Record<Severity, string> = { ok: '32', warn: '33', bad: '31', idle: '2' };

/** `text`, escaped, in the severity's colour when colour is on. */
export function paint(text: string, severity: Severity, color: boolean): string {
  const safe = escapeTerminal(text);
  return color ? `\u001b[${SGR[severity]}m${safe}\u001b[0m` : safe;
}

/** A table cell in the severity's colour when colour is on (the table escapes it). */
function paintCell(text: string, severity: Severity, color: boolean): Cell {
  return styled(text, color ? SGR[severity] : undefined);
}

export function renderLeaseTables(view: LeaseWatchView, options: LeaseTextOptions): string {
  const now = Date.parse(view.at);
  const { color } = options;
  const out: string[] = [];
  if (view.leases.length > 0) {
    const withStrategy = view.leases.some((l) => l.strategy || l.preferredHolder);
    const withMetrics = view.leases.some((l) => l.masterStatus !== null);
    const withCandidates = view.leases.some((l) => l.candidates !== null && l.candidates.length > 0);
    const head = [
      'lease',
      'holder',
      'state',
      'renewed',
      'acquired',
      'transitions',
      'held',
      ...(withStrategy ? ['strategy'] : []),
      ...(withCandidates ? ['candidates'] : []),
      ...(withMetrics ? ['master status'] : []),
    ];
    const rows = view.leases.map((l) => {
      return [
        leaseKey(l.namespace, l.name),
        l.holder ?? '<none>',
        paintCell(l.state, l.severity, color),
        paintCell(renewCell(l), l.severity, color),
        l.acquireTime ? `${ageOf(l.acquireTime, now)} ago` : '-',
        l.transitions,
        heldCell(l),
        ...(withStrategy ? [strategyCell(l)] : []),
        ...(withCandidates ? [candidatesCell(l)] : []),
        ...(withMetrics ? [masterCell(l.masterStatus)] : []),
      ];
    });
    out.push(renderTable(head, rows));
    // Coordinated leader election and leaderless Leases: a block per Lease that has something to say.
    for (const l of view.leases) {
      const lines = electionLines(l);
      if (lines.length > 0) out.push('', escapeTerminal(`${leaseKey(l.namespace, l.name)}:`), ...lines.map((x) => escapeTerminal(`  ${x}`)));
    }
    const changed = view.leases.filter((l) => l.history.length > 1 || l.history.some((h) => h.endedAt !== null));
    if (changed.length > 0) {
      const hist: Cell[][] = [];
      for (const l of changed) {
        for (const h of l.history) {
          hist.push([
            leaseKey(l.namespace, l.name),
            h.holder,
            clockTime(h.firstSeenAt),
            h.endedAt ? clockTime(h.endedAt) : '-',
            `${h.heldAtStart ? '≥' : ''}${shortDuration(h.heldForMs)}`,
            h.endReason ?? 'holding',
            shortDuration(h.failoverGapMs),
            shortDuration(h.sinceLastRenewMs),
          ]);
        }
      }
      out.push('', renderTable(['lease', 'holder', 'from', 'to', 'held', 'ended', 'failover gap', 'since last renew'], hist));
    }
  } else if (view.nodes.total === 0 && view.apiservers.total === 0) {
    out.push('no leases found');
  }
  const nodes = heartbeatText('node leases', 'node', view.nodes, view.scope.namespace === 'kube-node-lease' || view.scope.name !== null, options);
  if (nodes) out.push('', nodes);
  const apis = heartbeatText('apiserver identity leases', 'apiserver', view.apiservers, view.scope.name !== null, options);
  if (apis) out.push('', apis);
  for (const m of view.metricsErrors) out.push('', escapeTerminal(`metrics ${m.source}: ${m.error}`));
  while (out[0] === '') out.shift();
  return `${out.join('\n')}\n`;
}

function heartbeatText(title: string, nameTitle: string, s: HeartbeatSummary, listAll: boolean, { color }: LeaseTextOptions): string {
  if (s.total === 0) return '';
  const line = `${title}: ${s.total}, ${s.staleCount === 0 ? paint('none stale', 'ok', color) : paint(`${s.staleCount} stale`, 'bad', color)}`;
  const rows = listAll ? s.leases : s.leases.filter((r) => r.stale);
  if (rows.length === 0) return line;
  const table = renderTable(
    [nameTitle, 'holder', 'state', 'renewed', 'renewtime age', 'duration'],
    rows.map((r) => [
      r.name,
      r.holder ?? '<none>',
      paintCell(r.stale ? 'stale' : 'fresh', r.stale ? 'bad' : 'ok', color),
      shortDuration(r.renewAgeMs),
      shortDuration(r.renewTimeAgeMs),
      `${r.leaseDurationSeconds}s`,
    ]),
  );
  return `${line}\n${table}`;
}

/** One line per change for -o table --watch: time (UTC), what happened. */
export function renderChangeLine(change: LeaseChange, options: LeaseTextOptions): string {
  return `${clockTime(change.at)}  ${paint(describeChange(change), changeSeverity(change), options.color)}\n`;
}
