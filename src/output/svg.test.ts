import { describe, expect, it } from 'vitest';
import { controlsIn, HOSTILE, SHOWN } from '../../tools/testing/hostile.js';
import { linkHops, ref, syntheticRollout, TRIGGER_AT } from '../../tools/testing/synthetic-trace.js';
import { allElements, parseXml, textContent, type XmlElement } from '../../tools/testing/xml.js';
import { buildWaterfallView, PHASE_STYLE } from '../view/waterfall-view.js';
import { waterfallSvg } from './svg.js';

const lanesOf = (root: XmlElement): XmlElement[] => allElements(root).filter((e) => e.name === 'g' && (e.attributes.class ?? '').split(' ').includes('lane'));

describe('parseXml (the test helper) is strict', () => {
  it('rejects what is not well-formed', () => {
    expect(() => parseXml('<a><b></a>')).toThrow(/closes/);
    expect(() => parseXml('<a>x & y</a>')).toThrow(/bare &/);
    expect(() => parseXml('<a>x < y</a>')).toThrow();
    expect(() => parseXml('<a x=1/>')).toThrow(/not quoted/);
    expect(() => parseXml('<a x="1" x="2"/>')).toThrow(/repeated/);
    expect(() => parseXml('<a>&nbsp;</a>')).toThrow(/unknown entity/);
    expect(() => parseXml('<a/><b/>')).toThrow(/second root/);
    expect(() => parseXml('<a>')).toThrow(/never closed/);
    expect(parseXml('<?xml version="1.0"?><a k="&lt;&amp;&quot;">t &#60;&#x3e;<b/></a>')).toEqual({
      name: 'a',
      attributes: { k: '<&"' },
      text: 't <>',
      children: [{ name: 'b', attributes: {}, children: [], text: '' }],
    });
  });
});

describe('waterfallSvg', () => {
  it('is well-formed, self-contained SVG with one <g class="lane"> per lane', () => {
    const view = buildWaterfallView(syntheticRollout(4, { surge: 1 }));
    const svg = waterfallSvg(view);
    const root = parseXml(svg);
    expect(root.name).toBe('svg');
    expect(root.attributes.xmlns).toBe('http://www.w3.org/2000/svg');
    expect(Number(root.attributes.width)).toBe(960);
    expect(root.attributes.viewBox).toBe(`0 0 960 ${root.attributes.height}`);
    // Nothing fetched or run: no scripts, links, external images, fonts or stylesheets.
    expect(svg).not.toMatch(/<script|href=|url\(|@import|<image|<foreignObject|<style/i);
    expect(svg.match(/https?:\/\/[^"\s]*/g)).toEqual(['http://www.w3.org/2000/svg']);
    const lanes = lanesOf(root);
    expect(lanes.map((l) => l.attributes['data-lane'])).toEqual(view.lanes.map((l) => l.id));
    expect(lanes.map((l) => textContent(l.children.find((c) => c.name === 'text')!))).toEqual(view.lanes.map((l) => l.label));
    // Each segment is a rect in its phase's colour, with a tooltip.
    const pod = lanes[2]!;
    const rects = pod.children.filter((c) => c.name === 'rect' && c.children.some((t) => t.name === 'title'));
    expect(rects.map((r) => r.attributes.fill)).toEqual(view.lanes[2]!.segments.map((s) => PHASE_STYLE[s.phase].colour));
    expect(textContent(rects[0]!.children[0]!)).toMatch(/^Pod\/web-new-0: created \+\d+ms → \+\d+ms \(\d+ms\), on the critical path$/);
  });

  it('marks the critical path: a diamond per hop, one line joining them in time order', () => {
    const view = buildWaterfallView(syntheticRollout(4, { surge: 1 }));
    const all = allElements(parseXml(waterfallSvg(view)));
    const hops = all.filter((e) => e.attributes.class === 'critical-hop');
    expect(hops).toHaveLength(view.critical.length);
    expect(textContent(hops.at(-1)!)).toMatch(/^Deployment\/web converged \+8\.51s \(critical path\)/);
    const line = all.filter((e) => e.attributes.class === 'critical-path');
    expect(line).toHaveLength(1);
    const xs = line[0]!.attributes.points!.split(' ').map((p) => Number(p.split(',')[0]));
    expect(xs).toHaveLength(view.critical.length);
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
    const words = all
      .filter((e) => e.name === 'text')
      .map(textContent)
      .join('\n');
    expect(words).toMatch(/critical path \(\d+ hops\): trigger → Deployment\/web target modified/);
    for (const p of view.phases) expect(words).toContain(PHASE_STYLE[p].label);
  });

  it('escapes names, and keeps them readable', () => {
    const t = syntheticRollout(1);
    const odd = ref('Widget', `a<b>&"c'd`);
    t.hops = linkHops(
      [
        ...t.hops.map((h) => ({ t: h.sinceTriggerMs, kind: h.kind, object: h.object, owner: h.owner })),
        { t: 50, kind: 'created', object: odd, owner: ref('Deployment', 'web') },
      ],
      'deployment-web',
    );
    t.target = { ...t.target, name: 'web & <friends>' };
    const svg = waterfallSvg(buildWaterfallView(t));
    expect(svg).not.toContain('a<b>');
    expect(svg).toContain('Widget/a&lt;b&gt;&amp;');
    const root = parseXml(svg);
    const labels = lanesOf(root).map((l) => textContent(l.children.find((c) => c.name === 'text')!));
    expect(labels).toContain(`Widget/a<b>&"c'd`);
    expect(textContent(root.children.find((c) => c.name === 'title')!)).toMatch(/^Waterfall of Deployment\/web & <friends> in demo: /);
  });

  it('group lanes carry a p50–max whisker and their spread in words; cut lanes are counted', () => {
    const view = buildWaterfallView(syntheticRollout(1000), { maxLanes: 12 });
    const root = parseXml(waterfallSvg(view, { width: 1200 }));
    expect(Number(root.attributes.width)).toBe(1200);
    const groups = lanesOf(root).filter((l) => l.attributes.class === 'lane group');
    expect(groups.length).toBe(view.lanes.filter((l) => l.group).length);
    expect(groups.length).toBeGreaterThan(0);
    const whisker = groups[0]!.children.find((c) => c.name === 'g')!;
    expect(textContent(whisker.children[0]!)).toMatch(/^99\d Pods: ready at p50\/p90\/max \+\S+\/\S+\/\S+$/);
    const words = allElements(root)
      .filter((e) => e.name === 'text')
      .map(textContent);
    expect(words.some((w) => /^Pod ×99\d of ReplicaSet\/web-new: time in phase p50\/p90\/max: /.test(w))).toBe(true);

    const cut = buildWaterfallView(syntheticRollout(4, { surge: 1 }), { maxLanes: 3 });
    expect(
      allElements(parseXml(waterfallSvg(cut)))
        .filter((e) => e.name === 'text')
        .map(textContent),
    ).toContain('… 2 more lanes not shown (11 in all)');
  });

  it('a trace with no hop draws the target alone; one not started yet says there is nothing', () => {
    const view = buildWaterfallView({ ...syntheticRollout(1), hops: [], outcome: 'timeout' });
    const root = parseXml(waterfallSvg(view));
    expect(lanesOf(root)).toHaveLength(1);
    expect(allElements(root).some((e) => e.attributes.class === 'critical-hop')).toBe(false);
    const waiting = buildWaterfallView({ ...syntheticRollout(1), trigger: undefined, hops: [], outcome: undefined }, { now: TRIGGER_AT });
    const words = allElements(parseXml(waterfallSvg(waiting)))
      .filter((e) => e.name === 'text')
      .map(textContent);
    expect(words).toEqual(['Deployment/web in demo', 'waiting for a change', 'no lanes: no hop was seen']);
  });
});

describe('waterfallSvg with hostile names', () => {
  it('is well-formed, holds no control character and no markup of theirs, and shows what they hold', () => {
    const t = syntheticRollout(2, { name: `w${HOSTILE}` });
    const svg = waterfallSvg(buildWaterfallView(t));
    expect(controlsIn(svg)).toEqual([]);
    expect(svg).not.toContain('<script');
    const root = parseXml(svg);
    const title = textContent(root.children.find((c) => c.name === 'title')!);
    for (const s of SHOWN) expect(title).toContain(s);
    expect(title).toContain('<script>x</script> ]]>');
  });
});
