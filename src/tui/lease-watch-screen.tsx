/**
 * Display components of the lease-watch TUI: they render props and nothing else (no timers, no
 * subscriptions; the container in lease-watch-app.tsx owns those). Finished holder changes go to
 * <Static>, printed once above the live area, so a long session stays cheap to redraw.
 */
import { Box, Static, Text } from 'ink';
import type { ReactNode } from 'react';
import {
  ageOf,
  changeSeverity,
  clockTime,
  describeChange,
  heldCell,
  leaseKey,
  masterCell,
  renewCell,
  shortDuration,
  strategyCell,
  type HeartbeatSummary,
  type LeaderLeaseRow,
  type LeaseChange,
  type LeaseWatchView,
  type Severity,
  type TenureRow,
} from '../view/lease-view.js';
import { layoutLeaseColumns, type LeaseColumn } from './lease-layout.js';
import { QueuesPane } from './queues-pane.js';
import type { QueuesView } from '../view/queues-view.js';

const COLOR: Record<Severity, string | undefined> = { ok: 'green', warn: 'yellow', bad: 'red', idle: undefined };

/** History rows shown per lease in the live area (the change log above keeps everything). */
const HISTORY_ROWS = 4;

export interface LeaseWatchScreenProps {
  view: LeaseWatchView;
  /** Changes already final, oldest first; append-only (each is printed once). */
  finished: LeaseChange[];
  showHelp: boolean;
  width: number;
  /** The controllers' queues from the --metrics sources; the pane says why a source failed. */
  queues?: QueuesView | undefined;
}

export function LeaseWatchScreen({ view, finished, showHelp, width, queues }: LeaseWatchScreenProps): ReactNode {
  return (
    <>
      <Static items={finished}>{(c) => <ChangeLine key={c.seq} change={c} />}</Static>
      <Box flexDirection="column" width={width}>
        <Header view={view} />
        <LeaseTable view={view} width={width} />
        <HistorySection leases={view.leases} now={Date.parse(view.at)} />
        <HeartbeatLine title="node leases" summary={view.nodes} listAll={view.scope.namespace === 'kube-node-lease' || view.scope.name !== null} />
        <HeartbeatLine title="apiserver identity leases" summary={view.apiservers} listAll={view.scope.name !== null} />
        {queues ? (
          <Box marginTop={1}>
            <QueuesPane view={queues} width={width} maxRows={8} />
          </Box>
        ) : null}
        {queues ? null : view.metricsErrors.map((m) => (
          <Text key={m.source} color="yellow" wrap="truncate-end">
            metrics {m.source}: {m.error}
          </Text>
        ))}
        {showHelp ? <Help /> : null}
      </Box>
    </>
  );
}

export function ChangeLine({ change }: { change: LeaseChange }): ReactNode {
  return (
    <Text color={COLOR[changeSeverity(change)]}>
      {clockTime(change.at)} {describeChange(change)}
    </Text>
  );
}

function Header({ view }: { view: LeaseWatchView }): ReactNode {
  const where = view.scope.name ? leaseKey(view.scope.namespace ?? '', view.scope.name) : view.scope.namespace ? `namespace ${view.scope.namespace}` : 'all namespaces';
  const count = view.leases.length + view.nodes.total + view.apiservers.total;
  return (
    <Box>
      <Text bold>lease-watch</Text>
      <Text>
        {' '}
        {where} · {count} lease{count === 1 ? '' : 's'} · {view.synced ? 'watching' : 'syncing…'} · {clockTime(view.at)} UTC
        {view.sinceMs !== null ? ` · history ${shortDuration(view.sinceMs)}` : ''}
      </Text>
      <Text dimColor> (? help, q quit)</Text>
    </Box>
  );
}

function Cell({ column, color, children, dim }: { column: LeaseColumn; color?: string | undefined; dim?: boolean; children: ReactNode }): ReactNode {
  return (
    <Box width={column.width} marginRight={1} flexShrink={0}>
      <Text color={color} dimColor={dim ?? false} wrap={column.key === 'holder' || column.key === 'lease' ? 'truncate-middle' : 'truncate-end'}>
        {children}
      </Text>
    </Box>
  );
}

function LeaseTable({ view, width }: { view: LeaseWatchView; width: number }): ReactNode {
  if (view.leases.length === 0) {
    return <Text dimColor>{view.synced ? 'no leader-election leases' : 'listing leases…'}</Text>;
  }
  const columns = layoutLeaseColumns(view, width);
  const now = Date.parse(view.at);
  return (
    <Box flexDirection="column" marginTop={1}>
      <Box>
        {columns.map((c) => (
          <Cell key={c.key} column={c} dim>
            {c.title}
          </Cell>
        ))}
      </Box>
      {view.leases.map((l) => (
        <Box key={leaseKey(l.namespace, l.name)}>
          {columns.map((c) => (
            <Cell key={c.key} column={c} color={c.key === 'state' || c.key === 'renewed' ? COLOR[l.severity] : undefined} dim={l.severity === 'idle'}>
              {cellText(l, c.key, now)}
            </Cell>
          ))}
        </Box>
      ))}
    </Box>
  );
}

function cellText(l: LeaderLeaseRow, key: LeaseColumn['key'], now: number): string {
  switch (key) {
    case 'lease':
      return leaseKey(l.namespace, l.name);
    case 'holder':
      return l.holder ?? '<none>';
    case 'state':
      return l.state;
    case 'renewed':
      return renewCell(l);
    case 'acquired':
      return l.acquireTime ? ageOf(l.acquireTime, now) : '-';
    case 'transitions':
      return String(l.transitions);
    case 'held':
      return heldCell(l);
    case 'strategy':
      return strategyCell(l);
    case 'master':
      return masterCell(l.masterStatus);
  }
}

function HistorySection({ leases, now }: { leases: LeaderLeaseRow[]; now: number }): ReactNode {
  const changed = leases.filter((l) => l.history.some((h) => h.endedAt !== null));
  if (changed.length === 0) return null;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text dimColor>HOLDER CHANGES</Text>
      {changed.map((l) => (
        <Box key={leaseKey(l.namespace, l.name)} flexDirection="column">
          <Text>{leaseKey(l.namespace, l.name)}</Text>
          {l.history.slice(-HISTORY_ROWS).map((h) => (
            <TenureLine key={`${h.holder}@${h.firstSeenAt}`} tenure={h} now={now} />
          ))}
        </Box>
      ))}
    </Box>
  );
}

function TenureLine({ tenure: h, now }: { tenure: TenureRow; now: number }): ReactNode {
  const ended = h.endedAt !== null;
  const held = `${h.heldAtStart ? '≥' : ''}${shortDuration(h.heldForMs)}`;
  const parts = [ended ? `held ${held}, ${h.endReason ?? 'ended'} ${shortDuration(now - Date.parse(h.endedAt!))} ago` : `holding ${held}`];
  if (h.previousHolder !== null && h.failoverGapMs !== null) {
    parts.push(`gap ${shortDuration(h.failoverGapMs)}${h.sinceLastRenewMs !== null ? ` (${shortDuration(h.sinceLastRenewMs)} since last renew)` : ''}`);
  }
  // Details first and whole; the long holder identity last, shortened in the middle if need be.
  return (
    <Box marginLeft={2}>
      <Box flexShrink={0}>
        <Text color={ended ? undefined : 'green'} dimColor={ended}>
          {ended ? '·' : '▸'} {parts.join(' · ')}
          {' · '}
        </Text>
      </Box>
      <Text color={ended ? undefined : 'green'} dimColor={ended} wrap="truncate-middle">
        {h.holder}
      </Text>
    </Box>
  );
}

function HeartbeatLine({ title, summary, listAll }: { title: string; summary: HeartbeatSummary; listAll: boolean }): ReactNode {
  if (summary.total === 0) return null;
  const rows = listAll ? summary.leases : summary.leases.filter((r) => r.stale);
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text>
        {title}: {summary.total},{' '}
        <Text color={summary.staleCount ? 'red' : 'green'}>{summary.staleCount ? `${summary.staleCount} stale` : 'none stale'}</Text>
      </Text>
      {rows.map((r) => (
        <Box key={leaseKey(r.namespace, r.name)} marginLeft={2}>
          <Text color={r.stale ? 'red' : undefined} wrap="truncate-end">
            {r.name} {r.stale ? 'stale' : 'fresh'}: renewed {shortDuration(r.renewAgeMs)} ago (renewTime {shortDuration(r.renewTimeAgeMs)} ago), duration {r.leaseDurationSeconds}s
          </Text>
        </Box>
      ))}
    </Box>
  );
}

function Help(): ReactNode {
  return (
    <Box flexDirection="column" marginTop={1} borderStyle="round" paddingX={1}>
      <Text bold>keys: q quit · ? toggle this help · Ctrl+C interrupt</Text>
      <Text>RENEWED: time since the record last changed (our clock) / lease duration.</Text>
      <Text>
        <Text color="green">green</Text> valid · <Text color="yellow">amber</Text> renew older than half the duration · <Text color="red">red</Text> expired (no renew within the duration)
      </Text>
      <Text>gap: time with no valid leader before a holder (from the previous holder's expiry or release).</Text>
      <Text>since last renew: from the previous holder's last renew we saw to the new holder (about lease duration + retry after a crash).</Text>
      <Text>HELD ~: from the holder's acquireTime (its clock), for a holder that held the lease before we started; ≥: at least.</Text>
    </Box>
  );
}
