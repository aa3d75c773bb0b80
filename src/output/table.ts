/**
 * kubectl-style tables: upper-case headers, no borders, each column padded to its widest cell
 * and three spaces between columns, no trailing spaces. text-table lays them out in one pass;
 * cli-table3, used before, lays out every cell against all the rows above it, which took most of
 * a `cache pods` over 10,000 Pods.
 *
 * A cell is as wide as a terminal shows it: ANSI colours take no columns, East Asian wide
 * characters two, combining marks none. string-width, which does the same, builds an
 * Intl.Segmenter when it is loaded (~20 ms and 2 MiB, measured here) that every command would pay;
 * this measures each code point with get-east-asian-width, the table string-width uses.
 *
 * Every cell is escaped (src/util/escape.ts): a table is where names, holders and messages from the
 * cluster are printed most. A cell in colour is a StyledCell: its text is escaped, then wrapped in
 * the colour, so the only escape sequences in a table are the ones it was asked to paint.
 */
import { eastAsianWidth } from 'get-east-asian-width';
import { stripVTControlCharacters } from 'node:util';
import textTable from 'text-table';
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

export function renderTable(head: string[], rows: Cell[][]): string {
  return textTable([head.map((h) => escapeTerminal(h.toUpperCase())), ...rows.map((r) => r.map(cellText))], { hsep: '   ', stringLength: cellWidth });
}
