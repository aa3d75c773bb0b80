import { describe, expect, it } from 'vitest';
import { controlsIn, HOSTILE, SHOWN } from '../../tools/testing/hostile.js';
import { type Cell, cellWidth, LAYOUT_ROWS, laidOut, onePass, renderTable as render, styled } from './table.js';

// Both layouts are held to the same text: renderTable's, with the layout forced.
const escapeCell = (c: Cell): string => render(['x'], [[c]]).split('\n')[1]!;

describe.each([
  ['cli-table3', laidOut],
  ['one pass', onePass],
])('renderTable, laid out by %s', (_name, layout) => {
  const renderTable = (head: string[], rows: Cell[][]): string =>
    layout(
      head.map((h) => render([h], []).trimEnd()),
      rows.map((r) => r.map(escapeCell)),
    );

  it('pads each column to its widest cell, three spaces apart, headers upper-case, no trailing spaces', () => {
    const out = renderTable(
      ['namespace', 'name', 'age'],
      [
        ['default', 'web-0', '5m'],
        ['kube-system', 'x', 12],
        ['a', 'b', ''],
      ],
    );
    expect(out.split('\n')).toEqual(['NAMESPACE     NAME    AGE', 'default       web-0   5m', 'kube-system   x       12', 'a             b']);
  });

  it('measures cells as a terminal shows them: wide characters two columns, colours and combining marks none', () => {
    const red = '\u001b[31mbad\u001b[0m';
    const out = renderTable(
      ['name', 'state'],
      [
        ['日本', 'ok'],
        ['abcd', 'ok'],
        ['é', 'ok'],
        ['e\u0301', 'ok'],
        [styled('bad', '31'), 'ok'],
      ],
    );
    expect(out.split('\n')).toEqual(['NAME   STATE', '日本   ok', 'abcd   ok', 'é      ok', 'e\u0301      ok', `${red}    ok`]);
    expect(cellWidth('👍')).toBe(2);
    expect(cellWidth('\t')).toBe(0);
  });

  it('escapes every cell: a hostile name is shown, not obeyed, and the columns stay aligned; only its own colours are sent', () => {
    const out = renderTable(
      ['name', 'holder'],
      [
        [HOSTILE, styled(HOSTILE, '31')],
        ['web', 'a'],
      ],
    );
    expect(controlsIn(out, { sgr: true })).toEqual([]);
    for (const s of SHOWN) expect(out).toContain(s);
    expect(out).toContain(`\u001b[31m${SHOWN[0]}`);
    const lines = out.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]!.indexOf('a')).toBe(lines[0]!.indexOf('HOLDER'));
    // A colour sequence written into a plain cell is text like any other.
    expect(renderTable(['x'], [['\u001b[31mred']])).toBe('X\n\\x1b[31mred');
  });
});

describe('renderTable', () => {
  it(`lays out up to ${LAYOUT_ROWS} rows with cli-table3 and more in one pass, to the same text`, () => {
    const rows = (n: number): Cell[][] => Array.from({ length: n }, (_, i) => [`ns-${i % 3}`, styled(`web-${i}`, i % 2 ? '31' : undefined), '日本', i]);
    for (const n of [1, LAYOUT_ROWS, LAYOUT_ROWS + 1, 1_000]) {
      const head = ['namespace', 'name', 'zone', 'rv'];
      const body = rows(n).map((r) => r.map(escapeCell));
      const header = head.map((h) => h.toUpperCase());
      expect(render(head, rows(n))).toBe(laidOut(header, body));
      expect(onePass(header, body)).toBe(laidOut(header, body));
    }
  });

  it('lays out 10,000 rows whole', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ['ns', `web-${i}`, String(i)]);
    const lines = render(['namespace', 'name', 'rv'], rows).split('\n');
    expect(lines).toHaveLength(10_001);
    expect(lines[10_000]).toBe('ns          web-9999   9999');
    expect(new Set(lines.map((l) => l.indexOf('web-'))).size).toBe(2); // the header, and every row at one column
  });
});
