import { describe, expect, it } from 'vitest';
import { hop, ref, snapshot } from '../../tools/testing/trace-snapshot.js';
import { initialScreen } from './screen-state.js';
import { panes, traceLayout, type Pane } from './trace-layout.js';

describe('traceLayout', () => {
  it('lays rows out within any height, the focused pane first', () => {
    const many = Array.from({ length: 40 }, (_, i) => hop(`ready/p${i}`, 'ready', ref('Pod', `web-abc-${i}`), 100 + i, 1));
    const big = snapshot(50, many);
    for (const height of [24, 45, 12]) {
      for (const pane of panes) {
        const l = traceLayout(big, initialScreen<Pane>(pane), 80, height, undefined);
        expect(l.heights.tree + l.heights.timeline + l.heights.internals).toBe(height - 3);
      }
    }
    const focusedTree = traceLayout(big, initialScreen<Pane>('tree'), 80, 24, undefined);
    const focusedTimeline = traceLayout(big, initialScreen<Pane>('timeline'), 80, 24, undefined);
    expect(focusedTree.heights.tree).toBeGreaterThan(focusedTimeline.heights.tree);
  });
});
