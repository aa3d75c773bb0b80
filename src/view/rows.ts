/**
 * The one-line rows every screen is made of, as plain data: a Row (its text and how it is styled),
 * the text of a detail or the help, and the fitting of text to columns (cut, padded, wrapped).
 * src/tui/frame.tsx draws them. A row's text is mostly the cluster's words: wrapRows escapes before
 * it wraps, so what it measures is what is drawn, and frame.tsx escapes every line it draws
 * (src/util/escape.ts).
 */
import { escapeTerminal } from '../util/escape.js';
import type { ListWindow } from './screen-state.js';

/** One terminal line of a pane. */
export interface Row {
  key: string;
  text: string;
  color?: string | undefined;
  dim?: boolean | undefined;
  bold?: boolean | undefined;
}

/** A text view's content: its title and its lines. */
export interface FrameText {
  title: string;
  lines: readonly Row[];
}

/** Lines of text as rows (the detail, the help). */
export function textRows(lines: readonly string[]): Row[] {
  return lines.map((text, i) => ({ key: String(i), text }));
}

/** `12-30 of 64` when the rows do not all fit in `height`. */
export function position(window: ListWindow, rows: number, height: number): string | undefined {
  return rows > height ? `${window.top + 1}-${Math.min(rows, window.top + height)} of ${rows}` : undefined;
}

/** Cuts or pads `s` to exactly `w` columns; `middle` keeps both ends of long identities. */
export function fit(s: string, w: number, mode: 'end' | 'middle' = 'end'): string {
  if (w <= 0) return '';
  if (s.length <= w) return s + ' '.repeat(w - s.length);
  if (w === 1) return '…';
  if (mode === 'middle') {
    const head = Math.ceil((w - 1) / 2);
    return `${s.slice(0, head)}…${s.slice(s.length - (w - 1 - head))}`;
  }
  return `${s.slice(0, w - 1)}…`;
}

/** Splits text into lines of at most `width` columns, at spaces where it can. */
export function wrap(text: string, width: number): string[] {
  const w = Math.max(10, width);
  const out: string[] = [];
  let rest = text;
  while (rest.length > w) {
    const cut = rest.lastIndexOf(' ', w);
    const at = cut > w / 2 ? cut : w;
    out.push(rest.slice(0, at));
    rest = rest.slice(at).trimStart();
  }
  out.push(rest);
  return out;
}

/** Text rows wrapped to the width (the detail and help are read whole, not cut); what wraps is indented. */
export function wrapRows(rows: readonly Row[], width: number): Row[] {
  return rows.flatMap((r) => {
    const text = escapeTerminal(r.text);
    const indent = ' '.repeat(Math.min(16, (/^ */.exec(text)?.[0].length ?? 0) + 4));
    const [first = '', ...rest] = wrap(text, width);
    const more = rest.length ? wrap(rest.join(' '), width - indent.length).map((t) => indent + t) : [];
    return [first, ...more].map((text, i) => ({ ...r, key: `${r.key}.${i}`, text }));
  });
}
