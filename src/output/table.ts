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
 */
import { eastAsianWidth } from 'get-east-asian-width';
import { stripVTControlCharacters } from 'node:util';
import textTable from 'text-table';

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

export function renderTable(head: string[], rows: (string | number)[][]): string {
  return textTable([head.map((h) => h.toUpperCase()), ...rows], { hsep: '   ', stringLength: cellWidth });
}
