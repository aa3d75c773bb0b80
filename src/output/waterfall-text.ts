/**
 * `-o waterfall`: the trace's waterfall as text, fitted to a width (never wider): one line per lane,
 * block characters per phase, a time axis, a legend, the critical path and what grouped lanes
 * stand for. Colour (24-bit ANSI) only when asked; the glyphs alone tell the phases apart. The
 * view's words (names, the trigger, notes) are escaped before it is laid out (src/util/escape.ts),
 * so every line is cut to the width as it is printed.
 */
import { escapeTerminalDeep } from '../util/escape.js';
import {
  CRITICAL_STYLE,
  capLines,
  criticalPathParts,
  cutEnd,
  cellRuns,
  groupLines,
  layoutWaterfall,
  legendEntries,
  wrapParts,
  type WaterfallView,
} from '../view/waterfall-view.js';

export interface WaterfallTextOptions {
  width: number;
  color?: boolean;
  /** Lines the critical path may take; the middle of a longer path is left out. Default 6. */
  criticalLines?: number;
}

function paint(text: string, colour: string | undefined, color: boolean, bold = false): string {
  if (!color || !colour) return text;
  const n = Number.parseInt(colour.slice(1), 16);
  return `\u001b[${bold ? '1;' : ''}38;2;${(n >> 16) & 255};${(n >> 8) & 255};${n & 255}m${text}\u001b[0m`;
}

/** Lanes of a picture that goes to a pipe or a file: more are grouped. */
export const TEXT_PIPE_LANES = 60;
/** Rows of a terminal that are not lanes: title, axis, legend, critical path, groups. */
const TEXT_OVERHEAD_ROWS = 14;

/**
 * The picture's size for `-o waterfall`: the terminal's when stdout is one (lanes grouped to fit
 * its rows, so the picture is seen whole); else $COLUMNS, or 120, columns and up to 60 lanes.
 */
export function waterfallTextSize(
  terminal: { columns?: number | undefined; rows?: number | undefined } | undefined,
  envColumns: string | undefined,
): { width: number; maxLanes: number } {
  const env = Number(envColumns);
  const width = terminal?.columns && terminal.columns > 0 ? terminal.columns : Number.isInteger(env) && env > 0 ? env : 120;
  const maxLanes = terminal?.rows && terminal.rows > 0 ? Math.max(8, terminal.rows - TEXT_OVERHEAD_ROWS) : TEXT_PIPE_LANES;
  return { width, maxLanes };
}

/** The legend wrapped to the width; the glyphs painted when colour is on. */
function legendLines(view: WaterfallView, width: number, color: boolean): string[] {
  const lines: string[] = [];
  let plain = '';
  let painted = '';
  for (const e of legendEntries(view)) {
    const label = cutEnd(e.label, Math.max(1, width - 2));
    const entry = `${e.glyph} ${label}`;
    const sep = plain ? '  ' : '';
    if (plain && plain.length + sep.length + entry.length > width) {
      lines.push(painted);
      plain = '';
      painted = '';
    }
    const gap = plain ? '  ' : '';
    plain += `${gap}${entry}`;
    painted += `${gap}${paint(e.glyph, e.colour, color)} ${label}`;
  }
  if (plain) lines.push(painted);
  return lines.map((l) => (color ? l : cutEnd(l, width)));
}

export function waterfallText(given: WaterfallView, options: WaterfallTextOptions): string {
  const view = escapeTerminalDeep(given);
  const width = Math.max(1, Math.floor(options.width));
  const color = (options.color ?? false) && width >= 20;
  const out: string[] = [cutEnd(`${view.title} · ${view.subtitle}`, width)];
  if (view.lanes.length === 0) {
    out.push(cutEnd(view.subtitle === 'waiting for a change' ? 'no lanes yet: nothing has happened since the trigger' : 'no lanes: no hop was seen', width));
    return `${out.join('\n')}\n`;
  }
  const layout = layoutWaterfall(view, width);
  for (const row of layout.rows) {
    const chart = cellRuns(row.cells);
    const plain = `${row.gutter}${row.label} ${chart.map((r) => r.text).join('')}${row.note ? ` ${row.note}` : ''}`.trimEnd();
    if (plain.length > width || !color) {
      out.push(cutEnd(plain, width));
      continue;
    }
    const painted = `${paint(row.gutter, CRITICAL_STYLE.colour, color, true)}${row.label} ${chart.map((r) => paint(r.text, r.colour, color, r.critical)).join('')}${row.note ? ` ${row.note}` : ''}`;
    out.push(painted.trimEnd());
  }
  const pad = ' '.repeat(Math.min(layout.chartOffset, width));
  out.push(cutEnd(`${pad}${layout.axisLine}`, width), cutEnd(`${pad}${layout.axisLabels}`.trimEnd(), width));
  out.push(...legendLines(view, width, color));
  const path = criticalPathParts(view);
  if (path.length) out.push(...capLines(wrapParts(path, width, ' ', '  '), options.criticalLines ?? 6, width));
  for (const g of groupLines(view)) out.push(...wrapParts(g.split(' · '), width, ' · ', '  '));
  if (view.hiddenLanes > 0)
    out.push(cutEnd(`… ${view.hiddenLanes} more lane${view.hiddenLanes === 1 ? '' : 's'} not shown (${view.totalLanes} in all)`, width));
  if (view.unchanged > 0) out.push(cutEnd(`${view.unchanged} object${view.unchanged === 1 ? '' : 's'} of the chain had no hop (no lane)`, width));
  return `${out.join('\n')}\n`;
}
