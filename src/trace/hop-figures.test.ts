import { describe, expect, it } from 'vitest';
import { hopFiguresOf, KeptHopFigures } from './hop-figures.js';
import type { Hop, HopKind } from './types.js';

function hop(id: string, kind: HopKind, observedAt: number, sincePreviousMs: number, name = id): Hop {
  return {
    id,
    kind,
    object: { kind: 'Pod', name, namespace: 'ns', uid: id },
    observedAt,
    reconciledAt: observedAt,
    sinceTriggerMs: observedAt,
    sincePreviousMs,
    events: [],
  };
}

/** A small deterministic generator, so a failure names its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

describe('hopFiguresOf', () => {
  it('finds the end, the widest object and the ids', () => {
    const hops = [
      hop('a', 'created', 10, 10),
      hop('b', 'scheduled', 40, 30, 'a-much-longer-name'),
      hop('x', 'ready', 50, 30),
      hop('c', 'converged', 140, 90),
      hop('d', 'deleted', 900, 760),
      hop('e', 'failed', 950, 50),
    ];
    expect(hopFiguresOf(hops)).toEqual({ end: hops[3], longestObject: 'Pod/a-much-longer-name'.length, ids: ['a', 'b', 'x', 'c', 'd', 'e'] });
    expect(hopFiguresOf([])).toEqual({ end: undefined, longestObject: 0, ids: [] });
  });

  it('has no slowest hop: the summary takes it from the critical path, not from the largest gap', () => {
    const figures = hopFiguresOf([hop('a', 'created', 10, 10), hop('d', 'deleted', 900, 890)]);
    expect(Object.keys(figures).sort()).toEqual(['end', 'ids', 'longestObject']);
  });
});

describe('KeptHopFigures', () => {
  it('keeps the same object until a hop is placed', () => {
    const kept = new KeptHopFigures();
    const hops = [hop('a', 'created', 10, 10)];
    kept.placed(hops, 0);
    const first = kept.figures();
    expect(kept.figures()).toBe(first);
    hops.push(hop('b', 'ready', 20, 10));
    kept.placed(hops, 1);
    expect(kept.figures()).not.toBe(first);
    expect(first.ids).toEqual(['a']); // an earlier figures object is not altered
    expect(kept.figures().ids).toEqual(['a', 'b']);
  });

  // The tracker appends most hops, inserts some earlier, and ends the chain with a converged or
  // failed hop, sometimes more than one, sometimes placed before another.
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('always equals one pass over the hops (random placements, seed %i)', (seed) => {
    const next = random(seed);
    const kept = new KeptHopFigures();
    const hops: Hop[] = [];
    for (let n = 0; n < 600; n++) {
      const r = next();
      const at = r < 0.8 ? hops.length : Math.floor(next() * (hops.length + 1));
      const kind = next() < 0.04 ? (next() < 0.5 ? 'converged' : 'failed') : 'ready';
      const before = hops[at - 1]?.observedAt ?? 0;
      const after = hops[at]?.observedAt ?? before + 100;
      const observedAt = before + Math.floor(next() * (after - before + 1));
      hops.splice(at, 0, hop(`h${n}`, kind, observedAt, Math.floor(next() * 50), 'p'.repeat(1 + Math.floor(next() * 40))));
      // As the tracker's link(): every hop from `at` on may follow another one now.
      for (let i = at + 1; i < hops.length; i++) if (next() < 0.3) hops[i]!.sincePreviousMs = Math.floor(next() * 50);
      kept.placed(hops, at);
      expect(kept.figures(), `after hop ${n}, placed at ${at} of ${hops.length}`).toEqual(hopFiguresOf(hops));
    }
  });
});
