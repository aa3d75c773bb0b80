import { describe, expect, it } from 'vitest';
import { busiestFirst } from './queues-rows.js';

describe('busiestFirst', () => {
  it('puts a queue with items waiting above busier-looking idle ones', () => {
    const q = (name: string, depth: number | null, adds: number | null) => ({ name, depth, addsPerSecond: adds }) as Parameters<typeof busiestFirst>[0][number];
    expect(busiestFirst([q('a', 0, 9), q('b', 2, 0), q('c', null, null), q('d', 0, 10)]).map((r) => r.name)).toEqual(['b', 'd', 'a', 'c']);
  });
});
