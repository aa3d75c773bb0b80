/**
 * The waterfall as a self-contained SVG (`--svg FILE`, `check --artifacts DIR`): no external fonts,
 * stylesheets or scripts, so it reads the same opened in a browser, attached as a CI artifact or
 * shown by GitHub in a README. A white background keeps it readable on dark pages.
 *
 * Per lane a <g class="lane">: the label, one <rect> per phase segment (a <title> says the phase and
 * its times, shown on hover), marks for hops that change no phase, red diamonds for hops on the
 * critical path, joined across lanes by a line in time order. Group lanes add a whisker for their
 * last milestone: p50 to max, with a tick at p90. Then the legend, the critical path in words and
 * what each group stands for. Names and the trigger's words are the cluster's: every text and
 * attribute value goes through escapeXml.
 */
import { formatDuration } from '../util/duration.js';
import { escapeXml } from '../util/escape.js';
import {
  CRITICAL_STYLE,
  MARK_STYLE,
  PHASE_STYLE,
  axisLabel,
  capLines,
  criticalPathParts,
  cutEnd,
  cutMiddle,
  fmtStats,
  groupLines,
  legendEntries,
  tickStep,
  wrapParts,
  type WaterfallLane,
  type WaterfallView,
} from '../view/waterfall-view.js';

/** Lanes an SVG is built with (pass as the view's maxLanes): more are grouped, a picture stays readable. */
export const SVG_MAX_LANES = 60;

export interface WaterfallSvgOptions {
  /** Pixels; default 960. */
  width?: number;
}

const FONT = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', 'DejaVu Sans Mono', monospace";
const FONT_SIZE = 12;
/** Advance of one character of a 12px monospace font, near enough for every one of FONT. */
const CHAR = 7.3;
const MARGIN = 16;
const LANE = 20;
const BAR = 12;
const INDENT = 12;
const TEXT = '#24292f';
const MUTED = '#57606a';
const GRID = '#d0d7de';

function num(n: number): string {
  return String(Math.round(n * 10) / 10);
}

function attrs(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(typeof v === 'number' ? num(v) : String(v), { attribute: true })}"`)
    .join('');
}

function el(name: string, values: Record<string, string | number | undefined>, body?: string): string {
  return body === undefined ? `<${name}${attrs(values)}/>` : `<${name}${attrs(values)}>${body}</${name}>`;
}

function text(x: number, y: number, content: string, extra: Record<string, string | number | undefined> = {}): string {
  return el('text', { x, y, ...extra }, escapeXml(content));
}

function title(content: string): string {
  return `<title>${escapeXml(content)}</title>`;
}

export function waterfallSvg(view: WaterfallView, options: WaterfallSvgOptions = {}): string {
  const width = Math.max(480, Math.round(options.width ?? 960));
  const chars = (px: number): number => Math.max(1, Math.floor(px / CHAR));
  const labelChars = Math.max(8, ...view.lanes.map((l) => l.label.length + (l.depth * INDENT) / CHAR));
  const labelW = Math.min(Math.max(140, labelChars * CHAR + 12), width * 0.36);
  const noteChars = Math.min(18, Math.max(0, ...view.lanes.map((l) => l.note.length)));
  const noteW = noteChars ? noteChars * CHAR + 12 : 0;
  const chartX = MARGIN + labelW;
  const chartW = width - MARGIN - noteW - chartX;
  const span = Math.max(1, view.spanMs);
  const x = (ms: number): number => chartX + (Math.min(Math.max(0, ms), span) / span) * chartW;
  const body: string[] = [];

  body.push(text(MARGIN, MARGIN + 14, cutEnd(`${view.title}`, chars(width - 2 * MARGIN)), { 'font-size': 15, 'font-weight': 'bold' }));
  // The subtitle leaves room for the axis caption on its right.
  body.push(text(MARGIN, MARGIN + 32, cutEnd(view.subtitle, chars(width - 2 * MARGIN - 200)), { fill: MUTED }));
  const axisY = MARGIN + 56;
  const top = axisY + 8;
  const bottom = top + view.lanes.length * LANE;

  if (view.lanes.length > 0) {
    // Time axis: round ticks as on the text picture, grid lines down through the lanes.
    const step = tickStep(span, chartW / CHAR);
    for (let t = 0; t <= span; t += step) {
      const tx = x(t);
      const anchor = tx - chartX < 20 ? 'start' : chartX + chartW - tx < 20 ? 'end' : 'middle';
      body.push(text(tx, axisY, axisLabel(t), { 'text-anchor': anchor, fill: MUTED }));
      body.push(el('line', { x1: tx, y1: top, x2: tx, y2: bottom, stroke: GRID, 'stroke-dasharray': '2 3' }));
    }
    body.push(text(chartX + chartW, MARGIN + 32, 'time since the trigger →', { 'text-anchor': 'end', fill: MUTED }));
    if (view.endHopMs !== undefined) {
      body.push(
        el(
          'line',
          { x1: x(view.endHopMs), y1: top - 4, x2: x(view.endHopMs), y2: bottom, stroke: PHASE_STYLE.ready.colour, 'stroke-width': 1.5 },
          title(`${view.outcome} at +${formatDuration(view.endHopMs)}`),
        ),
      );
    }
  }

  // Where each critical hop is drawn, for the line joining them.
  const criticalAt = new Map<string, CriticalPoint>();
  view.lanes.forEach((lane, i) => {
    body.push(laneSvg(lane, i, top + i * LANE, { x, chartX, chartW, labelW, noteX: chartX + chartW + 8, chars }, criticalAt));
  });
  const points = view.critical.map((c) => criticalAt.get(c.hopId)).filter((p): p is CriticalPoint => p !== undefined);
  if (points.length > 1) {
    body.push(
      el('polyline', {
        class: 'critical-path',
        points: points.map((p) => `${num(p.x)},${num(p.y)}`).join(' '),
        fill: 'none',
        stroke: CRITICAL_STYLE.colour,
        'stroke-width': 1.2,
        'stroke-opacity': 0.6,
        'stroke-linejoin': 'round',
      }),
    );
  }
  for (const p of points) body.push(el('g', { class: 'critical-hop' }, `${title(p.what)}${diamond(p.x, p.y)}`));

  // Legend, critical path and groups in words.
  let y = bottom + 26;
  let lx = MARGIN;
  for (const e of legendEntries(view)) {
    const w = 16 + e.label.length * CHAR + 18;
    if (lx + w > width - MARGIN && lx > MARGIN) {
      lx = MARGIN;
      y += 18;
    }
    body.push(
      e.glyph === CRITICAL_STYLE.glyph
        ? diamond(lx + 6, y - 4)
        : e.glyph === MARK_STYLE.glyph
          ? el('line', { x1: lx + 6, y1: y - 10, x2: lx + 6, y2: y + 2, stroke: e.colour, 'stroke-width': 1.5 })
          : el('rect', { x: lx, y: y - 10, width: 12, height: 10, fill: e.colour }),
    );
    body.push(text(lx + 16, y, e.label));
    lx += w;
  }
  const lineChars = chars(width - 2 * MARGIN);
  const words = [
    ...capLines(wrapParts(criticalPathParts(view), lineChars, ' ', '  '), 8, lineChars),
    ...groupLines(view).flatMap((g) => wrapParts(g.split(' · '), lineChars, ' · ', '  ')),
    ...(view.hiddenLanes > 0 ? [`… ${view.hiddenLanes} more lanes not shown (${view.totalLanes} in all)`] : []),
    ...(view.unchanged > 0 ? [`${view.unchanged} object${view.unchanged === 1 ? '' : 's'} of the chain had no hop (no lane)`] : []),
    ...(view.lanes.length === 0 ? ['no lanes: no hop was seen'] : []),
  ];
  y += 8;
  for (const w of words) {
    y += 16;
    body.push(text(MARGIN, y, w, { fill: w.startsWith('critical path') || w.startsWith('  →') || w.startsWith('… →') ? TEXT : MUTED }));
  }
  const height = Math.ceil(y + MARGIN);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg"${attrs({ width, height, viewBox: `0 0 ${width} ${height}`, 'font-family': FONT, 'font-size': FONT_SIZE, fill: TEXT })}>`,
    title(`Waterfall of ${view.title}: ${view.subtitle}`),
    el('rect', { x: 0, y: 0, width, height, fill: '#ffffff' }),
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

function diamond(cx: number, cy: number): string {
  const r = 4.5;
  return el('polygon', {
    points: `${num(cx)},${num(cy - r)} ${num(cx + r)},${num(cy)} ${num(cx)},${num(cy + r)} ${num(cx - r)},${num(cy)}`,
    fill: CRITICAL_STYLE.colour,
    stroke: '#ffffff',
    'stroke-width': 1,
  });
}

interface CriticalPoint {
  x: number;
  y: number;
  what: string;
}

interface Geometry {
  x: (ms: number) => number;
  chartX: number;
  chartW: number;
  labelW: number;
  noteX: number;
  chars: (px: number) => number;
}

function laneSvg(lane: WaterfallLane, index: number, y: number, g: Geometry, criticalAt: Map<string, CriticalPoint>): string {
  const parts: string[] = [];
  const mid = y + LANE / 2;
  if (index % 2 === 1) parts.push(el('rect', { x: MARGIN / 2, y, width: g.chartX + g.chartW - MARGIN / 2, height: LANE, fill: '#f6f8fa' }));
  const indent = lane.depth * INDENT;
  parts.push(text(MARGIN + indent, y + 14, cutMiddle(lane.label, g.chars(g.labelW - indent - 8)), lane.critical ? { 'font-weight': 'bold' } : {}));
  for (const s of lane.segments) {
    const x1 = g.x(s.startMs);
    const w = Math.max(1, g.x(s.endMs) - x1);
    const what = `${lane.label}: ${PHASE_STYLE[s.phase].label} +${formatDuration(s.startMs)} → +${formatDuration(s.endMs)} (${formatDuration(s.endMs - s.startMs)})${s.critical ? ', on the critical path' : ''}`;
    parts.push(
      el(
        'rect',
        {
          x: x1,
          y: y + (LANE - BAR) / 2,
          width: w,
          height: BAR,
          fill: PHASE_STYLE[s.phase].colour,
          ...(s.critical ? { stroke: CRITICAL_STYLE.colour, 'stroke-width': 1.5 } : {}),
        },
        title(what),
      ),
    );
  }
  for (const m of lane.marks) {
    const mx = g.x(m.atMs);
    if (m.critical) {
      // Drawn after every lane, over the line that joins them.
      criticalAt.set(m.hopId, { x: mx, y: mid, what: `${lane.label} ${m.kind.replace(/-/g, ' ')} +${formatDuration(m.atMs)} (critical path)` });
    } else if (!m.boundary) {
      parts.push(
        el(
          'line',
          { x1: mx, y1: y + 2, x2: mx, y2: y + LANE - 2, stroke: MARK_STYLE.colour, 'stroke-width': 1.5 },
          title(`${m.kind.replace(/-/g, ' ')} +${formatDuration(m.atMs)}`),
        ),
      );
    }
  }
  const last = lane.group?.milestones.at(-1);
  if (lane.group && last) {
    const wy = y + LANE - 2;
    const spread = `${lane.group.count} ${lane.group.kind}s: ${last.kind.replace(/-/g, ' ')} at p50/p90/max +${fmtStats(last)}`;
    parts.push(
      el(
        'g',
        { stroke: TEXT, 'stroke-width': 1 },
        `${title(spread)}${el('line', { x1: g.x(last.p50), y1: wy, x2: g.x(last.max), y2: wy })}${el('line', { x1: g.x(last.p90), y1: wy - 3, x2: g.x(last.p90), y2: wy + 1 })}${el('line', { x1: g.x(last.max), y1: wy - 4, x2: g.x(last.max), y2: wy + 1 })}`,
      ),
    );
  }
  if (lane.note) parts.push(text(g.noteX, y + 14, lane.note, { fill: MUTED }));
  return el('g', { class: lane.group ? 'lane group' : 'lane', 'data-lane': lane.id }, parts.join(''));
}
