import { describe, expect, it } from 'vitest';
import { COMMON_KEYS, helpLines } from './key-help.js';

describe('the help', () => {
  it('lists every shared key in the help, then the view\u2019s own', () => {
    const lines = helpLines([{ keys: 'w', what: 'waterfall' }]);
    expect(lines).toHaveLength(COMMON_KEYS.length + 1);
    expect(lines.at(-1)).toMatch(/^w +waterfall$/);
  });
});
