/**
 * Column widths for the TUI's lease table: fixed columns keep their width (a narrow terminal drops
 * two of them); the lease column keeps its whole name when it can (up to 48), and the holder
 * (identities such as "host_<uuid>" are long) gets the rest, truncated in the middle when it must be.
 */
import type { LeaseWatchView } from '../view/lease-view.js';

export interface LeaseColumn {
  key: 'lease' | 'holder' | 'state' | 'renewed' | 'acquired' | 'transitions' | 'held' | 'strategy' | 'master';
  title: string;
  width: number;
}

const GAP = 1;

export function layoutLeaseColumns(view: Pick<LeaseWatchView, 'leases'>, width: number): LeaseColumn[] {
  // Below 100 columns ACQUIRED and HELD give way, so that lease names stay whole (Enter shows them).
  const narrow = width < 100;
  const fixed: LeaseColumn[] = [
    { key: 'state', title: 'STATE', width: 8 },
    { key: 'renewed', title: 'RENEWED', width: 9 },
    ...(narrow ? [] : [{ key: 'acquired', title: 'ACQUIRED', width: 8 } as const]),
    { key: 'transitions', title: 'TRANS', width: 5 },
    ...(narrow ? [] : [{ key: 'held', title: 'HELD', width: 7 } as const]),
  ];
  if (view.leases.some((l) => l.strategy || l.preferredHolder)) fixed.push({ key: 'strategy', title: 'STRATEGY', width: 16 });
  if (view.leases.some((l) => l.masterStatus !== null)) fixed.push({ key: 'master', title: 'MASTER', width: 14 });
  const fixedWidth = fixed.reduce((n, c) => n + c.width + GAP, 0);
  const longestLease = Math.max(5, ...view.leases.map((l) => l.namespace.length + 1 + l.name.length));
  const longestHolder = Math.max(6, ...view.leases.map((l) => (l.holder ?? '<none>').length));
  const rest = Math.max(28, width - fixedWidth - 2 * GAP);
  // The lease names the row, so it keeps its whole name when it can; the holder takes the rest.
  const lease = Math.min(longestLease, rest - Math.min(longestHolder, 16), 48);
  const holder = Math.min(longestHolder, rest - lease);
  return [{ key: 'lease', title: 'LEASE', width: Math.max(5, lease) }, { key: 'holder', title: 'HOLDER', width: Math.max(6, holder) }, ...fixed];
}
