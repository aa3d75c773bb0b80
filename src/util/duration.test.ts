import { describe, expect, it } from 'vitest';
import { flagDuration, formatDuration, parseDuration, shortDuration } from './duration.js';

describe('durations', () => {
  it('parses Go-style durations and names a bad one', () => {
    expect([parseDuration('300ms'), parseDuration('1h30m'), parseDuration('1.5s'), parseDuration('0')]).toEqual([300, 5_400_000, 1500, 0]);
    expect(() => parseDuration('5')).toThrow('invalid duration "5"');
  });

  it('formats durations for prose', () => {
    expect([formatDuration(12), formatDuration(1234), formatDuration(65_000), formatDuration(Infinity)]).toEqual(['12ms', '1.23s', '1m5s', '-']);
  });

  it('formats durations compactly for columns', () => {
    expect([
      shortDuration(850),
      shortDuration(4_200),
      shortDuration(12_400),
      shortDuration(190_000),
      shortDuration(7_500_000),
      shortDuration(3 * 86_400_000 + 4 * 3_600_000),
      shortDuration(null),
    ]).toEqual(['850ms', '4.2s', '12s', '3m10s', '2h5m', '3d4h', '-']);
  });

  it('formats a duration as a flag takes it', () => {
    expect([flagDuration(5000), flagDuration(1500)]).toEqual(['5s', '1500ms']);
  });
});
