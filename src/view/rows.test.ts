import { describe, expect, it } from 'vitest';
import { controlsIn, HOSTILE } from '../../tools/testing/hostile.js';
import { wrapRows } from './rows.js';

describe('wrapRows', () => {
  it('wrapRows escapes before it wraps: a newline in a message is shown, and no wrapped line is wider than asked', () => {
    const rows = wrapRows([{ key: 'm', text: `message: ${HOSTILE}\nforged line ${'word '.repeat(30)}` }], 40);
    for (const r of rows) {
      expect(controlsIn(r.text)).toEqual([]);
      expect(r.text.length).toBeLessThanOrEqual(40);
    }
    expect(rows.map((r) => r.text).join(' ')).toContain('\\nforged');
  });
});
