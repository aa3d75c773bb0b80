import { describe, expect, it } from 'vitest';
import { controlsIn, HOSTILE, SHOWN } from '../../tools/testing/hostile.js';
import { cellWidth, renderTable, styled } from './table.js';

describe('renderTable', () => {
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

  it('lays out 10,000 rows whole', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ['ns', `web-${i}`, String(i)]);
    const lines = renderTable(['namespace', 'name', 'rv'], rows).split('\n');
    expect(lines).toHaveLength(10_001);
    expect(lines[10_000]).toBe('ns          web-9999   9999');
    expect(new Set(lines.map((l) => l.indexOf('web-'))).size).toBe(2); // the header, and every row at one column
  });
});
