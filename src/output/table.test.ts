import { describe, expect, it } from 'vitest';
import { cellWidth, renderTable } from './table.js';

describe('renderTable', () => {
  it('pads each column to its widest cell, three spaces apart, headers upper-case, no trailing spaces', () => {
    const out = renderTable(['namespace', 'name', 'age'], [
      ['default', 'web-0', '5m'],
      ['kube-system', 'x', 12],
      ['a', 'b', ''],
    ]);
    expect(out.split('\n')).toEqual([
      'NAMESPACE     NAME    AGE',
      'default       web-0   5m',
      'kube-system   x       12',
      'a             b',
    ]);
  });

  it('measures cells as a terminal shows them: wide characters two columns, colours and combining marks none', () => {
    const red = '\u001b[31mbad\u001b[0m';
    const out = renderTable(['name', 'state'], [
      ['日本', 'ok'],
      ['abcd', 'ok'],
      ['é', 'ok'],
      ['e\u0301', 'ok'],
      [red, 'ok'],
    ]);
    expect(out.split('\n')).toEqual(['NAME   STATE', '日本   ok', 'abcd   ok', 'é      ok', 'e\u0301      ok', `${red}    ok`]);
    expect(cellWidth('👍')).toBe(2);
    expect(cellWidth('\t')).toBe(0);
  });

  it('lays out 10,000 rows whole', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ['ns', `web-${i}`, String(i)]);
    const lines = renderTable(['namespace', 'name', 'rv'], rows).split('\n');
    expect(lines).toHaveLength(10_001);
    expect(lines[10_000]).toBe('ns          web-9999   9999');
    expect(new Set(lines.map((l) => l.indexOf('web-'))).size).toBe(2); // the header, and every row at one column
  });
});
