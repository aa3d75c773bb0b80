/**
 * kubectl-style tables: upper-case headers, no borders, each column padded to its widest cell
 * and three spaces between columns, no trailing spaces.
 *
 * Two layouts give the same text. A table of up to LAYOUT_ROWS rows (the lease, queue and trace
 * tables) is laid out by cli-table3. Its layout places every cell against all the rows above it,
 * which grows with the square of the rows: the listings of a cache (`cache pods` over 10,000+
 * objects) are laid out in one pass here instead, measuring each cell once (BENCHMARKS.md, section 7).
 *
 * A cell is as wide as a terminal shows it: ANSI colours take no columns, East Asian wide
 * characters two, combining marks none. string-width, which does the same, builds an
 * Intl.Segmenter when it is loaded that every command would pay; the one-pass layout measures
 * each code point with get-east-asian-width, the table string-width uses.
 *
 * Every cell is escaped (src/util/escape.ts): a table is where names, holders and messages from the
 * cluster are printed most. A cell in colour is a StyledCell: its text is escaped, then wrapped in
 * the colour, so the only escape sequences in a table are the ones it was asked to paint.
 */
import Table from 'cli-table3';
import { eastAsianWidth } from 'get-east-asian-width';
import { stripVTControlCharacters } from 'node:util';
import { escapeTerminal } from '../util/escape.js';

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ZERO_WIDTH = /^[\p{Mark}\p{Default_Ignorable_Code_Point}\p{Control}]$/u;

export function cellWidth(cell: string): number {
  if (PRINTABLE_ASCII.test(cell)) return cell.length;
  let width = 0;
  for (const ch of stripVTControlCharacters(cell)) {
    if (!ZERO_WIDTH.test(ch)) width += eastAsianWidth(ch.codePointAt(0)!);
  }
  return width;
}

/** A cell painted with an SGR colour, e.g. `31` for red. */
export interface StyledCell {
  text: string;
  sgr: string;
}

export type Cell = string | number | StyledCell;

/** `text` painted with `sgr`, or plain when there is no colour. */
export function styled(text: string, sgr: string | undefined): Cell {
  return sgr ? { text, sgr } : text;
}

function cellText(cell: Cell): string {
  if (typeof cell === 'number') return String(cell);
  if (typeof cell === 'string') return escapeTerminal(cell);
  return `\u001b[${cell.sgr}m${escapeTerminal(cell.text)}\u001b[0m`;
}

const GAP = '   ';

/** Tables of more rows than this take the one-pass layout. */
export const LAYOUT_ROWS = 200;

/** No borders: only the gap between columns. */
const KUBECTL_CHARS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: GAP,
};

export function renderTable(head: string[], rows: Cell[][]): string {
  const header = head.map((h) => escapeTerminal(h.toUpperCase()));
  const body = rows.map((r) => r.map(cellText));
  return rows.length > LAYOUT_ROWS ? onePass(header, body) : laidOut(header, body);
}

/** The table laid out by cli-table3. */
export function laidOut(header: string[], body: string[][]): string {
  const table = new Table({ head: header, chars: KUBECTL_CHARS, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 } });
  table.push(...body);
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/** The same layout in one pass: each cell measured once, each line padded and joined. */
export function onePass(header: string[], body: string[][]): string {
  const all = [header, ...body];
  const widths: number[] = [];
  const cellWidths = all.map((row) =>
    row.map((cell, i) => {
      const w = cellWidth(cell);
      if (!(w <= widths[i]!)) widths[i] = w;
      return w;
    }),
  );
  const lines = all.map((row, r) => {
    let line = '';
    const last = row.length - 1;
    for (let i = 0; i <= last; i++) {
      line += row[i];
      if (i < last) line += ' '.repeat(widths[i]! - cellWidths[r]![i]!) + GAP;
    }
    return line.trimEnd();
  });
  return lines.join('\n');
}
