/** kubectl-style tables: upper-case headers, no borders, columns padded by cli-table3. */
import Table from 'cli-table3';

export function renderTable(head: string[], rows: (string | number)[][]): string {
  const table = new Table({
    head: head.map((h) => h.toUpperCase()),
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
      bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
      left: '', 'left-mid': '', mid: '', 'mid-mid': '',
      right: '', 'right-mid': '', middle: '   ',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
  });
  for (const r of rows) table.push(r.map((c) => String(c)));
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}
