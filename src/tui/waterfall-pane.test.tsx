import { afterEach, describe, expect, it } from 'vitest';
import { controlsIn, HOSTILE, HOSTILE_SHOWN } from '../../tools/testing/hostile.js';
import { renderInk, type InkHarness } from '../../tools/testing/ink.js';
import { syntheticRollout, TRIGGER_AT } from '../../tools/testing/synthetic-trace.js';
import { buildWaterfallView, waterfallLaneRows, type WaterfallView } from '../view/waterfall-view.js';
import type { TraceSnapshot } from '../trace/index.js';
import { WaterfallSlot } from './trace-screen.js';
import { TraceWaterfallPane, WaterfallPane } from './waterfall-pane.js';

let harness: InkHarness | undefined;
afterEach(() => {
  harness?.unmount();
  harness = undefined;
});

const columns = (line: string): number => [...line.replace(/\u001b\[[0-9;]*m/g, '')].length;

function show(view: WaterfallView, width: number, height: number, extra: { offset?: number; selectedLaneId?: string } = {}): string[] {
  harness?.unmount();
  harness = renderInk(<WaterfallPane view={view} width={width} height={height} {...extra} />);
  return harness.frame().split('\n');
}

describe('WaterfallPane', () => {
  it('fits the rows and columns it is given, at every size', () => {
    const t = syntheticRollout(1000);
    for (const [width, height] of [
      [80, 24],
      [160, 45],
      [60, 10],
      [100, 6],
      [40, 3],
      [30, 1],
    ] as const) {
      const view = buildWaterfallView(t, { maxLanes: waterfallLaneRows(height) });
      const lines = show(view, width, height);
      expect(lines.length, `${width}x${height}`).toBeLessThanOrEqual(height);
      for (const l of lines) expect(columns(l), `${width}x${height}: ${l}`).toBeLessThanOrEqual(width);
    }
  });

  it('shows each lane with its phases, the axis, the legend and the critical path', () => {
    const view = buildWaterfallView(syntheticRollout(4, { surge: 1 }));
    const lines = show(view, 100, 20);
    expect(lines[0]).toBe('Waterfall · Deployment/web in demo · restart · converged in 8.51s');
    expect(lines).toHaveLength(1 + 11 + 2 + 2);
    expect(lines[1]).toMatch(/^◆Deployment\/web +◆═+◆ converged 8\.51s$/);
    expect(lines[3]).toMatch(/^◆ {4}Pod\/web-new-0 +◆▒+◆▓+◆█+ ready 2\.12s$/);
    expect(lines[12]).toMatch(/^ +┴─+┴/);
    expect(lines[13]).toMatch(/^ +0 +1s +2s/);
    expect(lines[14]).toMatch(/^─ existed before {2}═ rolling out {2}━ exists {2}░ created/);
    expect(lines[15]).toMatch(/^critical path, \d+ hops; longest waits: Pod\/web-new-\d initialized \+1\.\d+s, /);
  });

  it('lanes that do not fit are grouped by the view, and what is still left over is counted; offset scrolls', () => {
    const t = syntheticRollout(4, { surge: 1 });
    const grouped = show(buildWaterfallView(t, { maxLanes: waterfallLaneRows(10) }), 100, 10);
    expect(waterfallLaneRows(10)).toBe(5);
    expect(grouped.filter((l) => l.includes('Pod ×4 (grouped, p50)'))).toHaveLength(2);

    // A view built for more rows than the pane has: the last lane row counts the rest.
    const full = buildWaterfallView(t);
    const top = show(full, 100, 10);
    expect(top).toHaveLength(10);
    expect(top[5]).toBe('… 7 more lanes');
    expect(top[1]).toContain('Deployment/web');
    const scrolled = show(full, 100, 10, { offset: 5 });
    expect(scrolled[1]).toContain('Pod/web-new-3');
    expect(scrolled[5]).toBe('… 2 more lanes');
    const end = show(full, 100, 10, { offset: 100 });
    expect(end[1]).toContain('Pod/web-old-0');
  });

  it('without its title row (the host has one) it gives that row to the lanes', () => {
    const view = buildWaterfallView(syntheticRollout(4, { surge: 1 }));
    expect(waterfallLaneRows(10, false)).toBe(6);
    harness = renderInk(<WaterfallPane view={view} width={100} height={10} header={false} />);
    const lines = harness.frame().split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatch(/^◆Deployment\/web /);
    expect(lines[5]).toBe('… 6 more lanes');
  });

  it('before the trigger it says there is nothing to draw', () => {
    const view = buildWaterfallView({ ...syntheticRollout(2), trigger: undefined, hops: [], outcome: undefined }, { now: TRIGGER_AT });
    expect(show(view, 80, 10)).toEqual(['Waterfall · Deployment/web in demo · waiting for a change', 'no lanes yet: nothing has happened since the trigger']);
  });

  it('highlights the selected lane and follows a view that grows', async () => {
    const t = syntheticRollout(2);
    const early = buildWaterfallView({ ...t, outcome: undefined, hops: t.hops.slice(0, 4) }, { now: TRIGGER_AT + 1000 });
    harness = renderInk(<WaterfallPane view={early} width={90} height={12} selectedLaneId="pod-web-new-0" />);
    expect(harness.frame()).toMatch(/running 1\.00s/);
    expect(harness.frame()).not.toContain('ReplicaSet/web-old');
    harness.rerender(<WaterfallPane view={buildWaterfallView(t)} width={90} height={12} selectedLaneId="pod-web-new-0" />);
    const frame = await harness.waitFor('converged in');
    expect(frame).toContain('ReplicaSet/web-old');
    expect(frame).toContain('Pod/web-new-0');
  });

  it('from a snapshot: groups lanes to fit the pane, and a running trace reaches now', () => {
    const t = syntheticRollout(1000);
    harness = renderInk(<TraceWaterfallPane snapshot={t} now={TRIGGER_AT} width={80} height={24} header={false} />);
    const lines = harness.frame().split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    expect(lines.filter((l) => /Pod ×\d+ \(grouped, p50\)/.test(l)).length).toBeGreaterThan(0);
    expect(lines.some((l) => l.startsWith('…'))).toBe(false);
    const running = { ...t, outcome: undefined, hops: t.hops.slice(0, 10) };
    harness.rerender(<TraceWaterfallPane snapshot={running} now={TRIGGER_AT + 60_000} width={80} height={24} />);
    expect(harness.frame()).toMatch(/^Waterfall · Deployment\/web in demo · restart · running 1m/);
  });

  it("fills the trace TUI's main pane (w): a title row, then the lanes, in the rows it is given", () => {
    const snapshot = {
      ...syntheticRollout(1000),
      informers: [],
      queue: undefined,
      reconciles: 0,
      targetWatchEvents: 0,
      endMessage: undefined,
      burst: undefined,
    } as unknown as TraceSnapshot;
    for (const [width, height] of [
      [80, 12],
      [160, 30],
    ] as const) {
      harness?.unmount();
      harness = renderInk(<WaterfallSlot snapshot={snapshot} state={undefined as never} width={width} height={height} focused now={TRIGGER_AT} />);
      const lines = harness.frame().split('\n');
      expect(lines.length).toBeLessThanOrEqual(height);
      for (const l of lines) expect(columns(l)).toBeLessThanOrEqual(width);
      expect(lines[0]).toMatch(/^─ Waterfall ─+ w timeline ─$/);
      expect(lines[1]).toMatch(/^◆Deployment\/web /);
      expect(lines.some((l) => l.includes('Pod ×'))).toBe(true);
    }
  });
});

describe('WaterfallPane with hostile names', () => {
  it('draws names escaped, every row within its columns', () => {
    const view = buildWaterfallView(syntheticRollout(2, { name: `w${HOSTILE}` }), { maxLanes: waterfallLaneRows(24) });
    for (const width of [400, 80]) {
      const lines = show(view, width, 24);
      const f = lines.join('\n');
      expect(controlsIn(f, { sgr: true })).toEqual([]);
      for (const l of lines) expect(columns(l), l).toBeLessThanOrEqual(width);
      if (width === 400) expect(lines[0]).toContain(`Deployment/w${HOSTILE_SHOWN} in demo`);
    }
    // The title the host passes is escaped too.
    harness?.unmount();
    harness = renderInk(<WaterfallPane view={view} width={400} height={24} title={`Waterfall ${HOSTILE}`} />);
    expect(harness.frame().split('\n')[0]).toContain(`Waterfall ${HOSTILE_SHOWN}`);
  });
});
