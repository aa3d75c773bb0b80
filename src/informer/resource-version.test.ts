import { describe, expect, it } from 'vitest';
import { compareResourceVersions, newerResourceVersion } from './resource-version.js';

describe('compareResourceVersions', () => {
  it('orders decimal resourceVersions as numbers of any length, and compares nothing else', () => {
    expect(compareResourceVersions('9', '10')).toBeLessThan(0);
    expect(compareResourceVersions('123456789012345678901', '99')).toBeGreaterThan(0);
    expect(compareResourceVersions('42', '42')).toBe(0);
    for (const [a, b] of [
      ['', '1'],
      ['0', '1'],
      ['007', '8'],
      ['abc', '1'],
      ['1', '-1'],
    ])
      expect(compareResourceVersions(a!, b!), `${a} ${b}`).toBeUndefined();
  });
});

describe('newerResourceVersion', () => {
  it('takes the later of two comparable resourceVersions, else the first one set', () => {
    expect(newerResourceVersion('9', '10')).toBe('10');
    expect(newerResourceVersion('123456789012345678901', '99')).toBe('123456789012345678901');
    expect(newerResourceVersion('', '7')).toBe('7');
    expect(newerResourceVersion('abc', '7')).toBe('abc');
    expect(newerResourceVersion('', '')).toBe('');
  });
});
