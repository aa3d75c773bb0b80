import { describe, expect, it } from 'vitest';
import { controlsIn, HOSTILE, HOSTILE_SHOWN } from '../../tools/testing/hostile.js';
import { linkHops, ref, syntheticRollout, TRIGGER_AT } from '../../tools/testing/synthetic-trace.js';
import { buildWaterfallView, PHASE_STYLE } from '../view/waterfall-view.js';
import { waterfallText, waterfallTextSize } from './waterfall-text.js';

const stripAnsi = (s: string): string => s.replace(/\u001b\[[0-9;]*m/g, '');

function views() {
  const long = syntheticRollout(3, { name: 'a-deployment-with-a-rather-long-name-for-its-pods' });
  return {
    small: buildWaterfallView(syntheticRollout(4, { surge: 1 })),
    long: buildWaterfallView(long),
    grouped: buildWaterfallView(syntheticRollout(1000), { maxLanes: 14 }),
    cut: buildWaterfallView(syntheticRollout(4, { surge: 1 }), { maxLanes: 3 }),
    running: buildWaterfallView({ ...syntheticRollout(2), outcome: undefined, hops: syntheticRollout(2).hops.slice(0, 5) }, { now: TRIGGER_AT + 4000 }),
    waiting: buildWaterfallView({ ...syntheticRollout(2), trigger: undefined, hops: [], outcome: undefined }),
  };
}

describe('waterfallText', () => {
  it('is never wider than the width given, at any width, with or without colour', () => {
    for (const [name, v] of Object.entries(views())) {
      for (let width = 1; width <= 220; width += width < 40 ? 1 : 9) {
        for (const color of [false, true]) {
          const text = waterfallText(v, { width, color });
          for (const line of text.split('\n'))
            expect(stripAnsi(line).length, `${name} at ${width}${color ? ' colour' : ''}: ${JSON.stringify(line)}`).toBeLessThanOrEqual(width);
        }
      }
    }
  });

  it('draws one row per lane with the phase glyphs, a time axis, a legend and the critical path', () => {
    const text = waterfallText(views().small, { width: 120 });
    const lines = text.split('\n');
    expect(lines[0]).toBe('Deployment/web in demo · restart · converged in 8.51s');
    const rows = lines.slice(1, 12);
    expect(rows.map((r) => r.slice(1, 22).trim())).toEqual([
      'Deployment/web',
      'ReplicaSet/web-new',
      'Pod/web-new-0',
      'Pod/web-new-1',
      'Pod/web-new-2',
      'Pod/web-new-3',
      'ReplicaSet/web-old',
      'Pod/web-old-3',
      'Pod/web-old-2',
      'Pod/web-old-1',
      'Pod/web-old-0',
    ]);
    const pod = rows[2]!;
    for (const p of ['scheduled', 'initialized', 'ready'] as const) expect(pod).toContain(PHASE_STYLE[p].glyph);
    expect(pod).toMatch(/ready 2\.12s$/);
    expect(rows[0]).toMatch(/^◆Deployment\/web +◆═+◆ converged 8\.51s$/);
    // The old Pods go while the new ones come: not what decided the time, so not marked.
    expect(rows[7]).toMatch(/^ {5}Pod\/web-old-3 +─+▚ +deleted$/);
    expect(rows[6]).toMatch(/^◆ {2}ReplicaSet\/web-old +─+◆─+◆─+◆─+◆ 0 replicas$/);
    expect(lines[12]).toMatch(/^ +┴─+┴/);
    expect(lines[13]).toMatch(/^ +0 +1s +2s +3s +4s +5s +6s +7s +8s$/);
    expect(text).toContain('░ created  ▒ scheduled  ▓ initialized');
    expect(text).toContain('◆ critical path');
    expect(text).toMatch(/critical path \(\d+ hops\): trigger → Deployment\/web target modified \+15ms/);
    expect(text).toMatch(/→ Deployment\/web converged \+\d+ms\n/);
  });

  it('grouped lanes say what they stand for, with the p50/p90/max of each phase', () => {
    const text = waterfallText(views().grouped, { width: 160 });
    expect(text).toMatch(/Pod ×99\d \(grouped, p50\)/);
    expect(text).toMatch(/Pod ×99\d of ReplicaSet\/web-new: time in phase p50\/p90\/max: created \S+\/\S+\/\S+ · scheduled /);
    expect(text).toMatch(/Pod ×99\d of ReplicaSet\/web-old: time in phase p50\/p90\/max: terminating /);
  });

  it('says how many lanes were cut and how many objects had no hop', () => {
    expect(waterfallText(views().cut, { width: 100 })).toContain('… 2 more lanes not shown (11 in all)');
    const t = syntheticRollout(2);
    t.tree!.children.push({ ref: ref('ReplicaSet', 'web-history'), status: '', ready: true, deleting: false, children: [] });
    expect(waterfallText(buildWaterfallView(t), { width: 100 })).toContain('1 object of the chain had no hop (no lane)');
  });

  it('a running trace reaches now and has no critical path yet; before the trigger there is nothing', () => {
    const v = views();
    const running = waterfallText(v.running, { width: 100 });
    expect(running).toMatch(/· running 4\.00s/);
    expect(running).not.toContain('critical path');
    expect(waterfallText(v.waiting, { width: 100 })).toBe(
      'Deployment/web in demo · waiting for a change\nno lanes yet: nothing has happened since the trigger\n',
    );
  });

  it('colour paints the same picture', () => {
    const v = views().small;
    const painted = waterfallText(v, { width: 120, color: true });
    expect(painted).toContain('\u001b[38;2;45;164;78m█');
    expect(stripAnsi(painted)).toBe(waterfallText(v, { width: 120 }));
  });

  it('a trace whose hops are not in time order draws the same as one whose are', () => {
    const t = syntheticRollout(3);
    const shuffled = { ...t, hops: [...t.hops].reverse() };
    expect(waterfallText(buildWaterfallView(shuffled), { width: 100 })).toBe(waterfallText(buildWaterfallView(t), { width: 100 }));
    // A hop with no previous hop at all still draws (a watch trace's first hop).
    const lone = linkHops([{ t: 5, kind: 'scheduled', object: ref('Pod', 'p'), owner: ref('Deployment', 'web') }], 'deployment-web');
    expect(waterfallText(buildWaterfallView({ ...t, hops: lone, outcome: undefined }), { width: 60 })).toContain('Pod/p');
  });

  it("takes the terminal's size, else $COLUMNS or 120 columns and 60 lanes", () => {
    expect(waterfallTextSize({ columns: 100, rows: 40 }, '300')).toEqual({ width: 100, maxLanes: 26 });
    expect(waterfallTextSize({ columns: 80, rows: 10 }, undefined)).toEqual({ width: 80, maxLanes: 8 });
    expect(waterfallTextSize(undefined, '140')).toEqual({ width: 140, maxLanes: 60 });
    expect(waterfallTextSize(undefined, 'wide')).toEqual({ width: 120, maxLanes: 60 });
    expect(waterfallTextSize(undefined, undefined)).toEqual({ width: 120, maxLanes: 60 });
  });
});

describe('waterfallText with hostile names', () => {
  it('shows names escaped, in colour or not, and every line still fits the width', () => {
    const view = buildWaterfallView(syntheticRollout(3, { name: `w${HOSTILE}` }));
    for (const [width, color] of [
      [400, false],
      [400, true],
      [80, true],
    ] as const) {
      const out = waterfallText(view, { width, color });
      expect(controlsIn(out, { sgr: color })).toEqual([]);
      if (width === 400) expect(out.split('\n')[0]).toContain(`Deployment/w${HOSTILE_SHOWN} in demo`);
      for (const line of stripAnsi(out).trimEnd().split('\n')) expect([...line].length, line).toBeLessThanOrEqual(width);
    }
    // The view itself is left as it was.
    expect(view.title).toContain(HOSTILE);
  });
});
