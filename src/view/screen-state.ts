/**
 * The state every live screen shares — which pane has the focus, where each list is scrolled and
 * what is selected, the filter, the help and the detail view — and the pure reducer that moves it on
 * a key press. The TUIs only render it; the key map (src/tui/keymap.ts) says which press is which.
 *
 * A selection is kept by key (a hop id, a lease name), not by index, so it stays on the same line
 * when lines are added or the filter changes. Follow mode keeps the newest line selected, as
 * `tail -f` and k9s' log view do; moving the selection up stops it, G or f resumes it.
 */
/** What a key press means; src/tui/keymap.ts maps keys to these. */
export type KeyAction =
  | 'up'
  | 'down'
  | 'pageUp'
  | 'pageDown'
  | 'top'
  | 'bottom'
  | 'follow'
  | 'filter'
  | 'open'
  | 'back'
  | 'nextPane'
  | 'prevPane'
  | 'help'
  | 'quit'
  | 'interrupt'
  /** Keys a single TUI adds. */
  | 'waterfall'
  | 'diagnose'
  | 'toggleIdle'
  | 'sort';

export interface ListNav {
  /** Key of the selected line; undefined before anything was selected. */
  selected: string | undefined;
  /** Where the selection was, for when its line goes away (filtered out, deleted). */
  index: number;
  /** First line shown. */
  top: number;
  follow: boolean;
}

export interface ListWindow {
  /** Selected line, -1 for an empty list. */
  index: number;
  top: number;
}

export function initialNav(follow = true): ListNav {
  return { selected: undefined, index: 0, top: 0, follow };
}

const clamp = (v: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, v));

/** Where the selection and the first shown line are for these lines in `height` rows. */
export function resolveNav(nav: ListNav, keys: readonly string[], height: number): ListWindow {
  const n = keys.length;
  const h = Math.max(1, height);
  if (n === 0) return { index: -1, top: 0 };
  let index: number;
  if (nav.follow) index = n - 1;
  else {
    const at = nav.selected === undefined ? -1 : keys.indexOf(nav.selected);
    index = at >= 0 ? at : clamp(nav.index, 0, n - 1);
  }
  let top = nav.follow ? n - h : nav.top;
  if (index < top) top = index;
  if (index >= top + h) top = index - h + 1;
  return { index, top: clamp(top, 0, Math.max(0, n - h)) };
}

export type MoveAction = Extract<KeyAction, 'up' | 'down' | 'pageUp' | 'pageDown' | 'top' | 'bottom' | 'follow'>;

export function moveNav(nav: ListNav, action: MoveAction, keys: readonly string[], height: number): ListNav {
  const n = keys.length;
  const h = Math.max(1, height);
  const cur = resolveNav(nav, keys, h);
  if (action === 'bottom' || action === 'follow') {
    const index = Math.max(0, n - 1);
    return { selected: keys[index], index, top: Math.max(0, n - h), follow: true };
  }
  if (n === 0) return { ...nav, follow: false };
  let index = cur.index;
  let top = cur.top;
  switch (action) {
    case 'up':
      index -= 1;
      break;
    case 'down':
      index += 1;
      break;
    case 'pageUp':
      index -= h;
      top -= h;
      break;
    case 'pageDown':
      index += h;
      top += h;
      break;
    case 'top':
      index = 0;
      break;
  }
  index = clamp(index, 0, n - 1);
  const w = resolveNav({ selected: keys[index], index, top: clamp(top, 0, Math.max(0, n - h)), follow: false }, keys, h);
  return { selected: keys[w.index], index: w.index, top: w.top, follow: false };
}

/** Plain scrolling (the detail and help text): the first shown line. */
export function scrollBy(top: number, action: MoveAction, lines: number, height: number): number {
  const max = Math.max(0, lines - Math.max(1, height));
  switch (action) {
    case 'up':
      return clamp(top - 1, 0, max);
    case 'down':
      return clamp(top + 1, 0, max);
    case 'pageUp':
      return clamp(top - height, 0, max);
    case 'pageDown':
      return clamp(top + height, 0, max);
    case 'top':
      return 0;
    case 'bottom':
    case 'follow':
      return max;
  }
}

/**
 * Whether a line passes the filter: every word of it (case-insensitive) occurs in one of the
 * line's fields, so `pod ready` finds the ready hops of Pods.
 */
export function matchesFilter(filter: string, fields: readonly (string | undefined)[]): boolean {
  return filterMatcher(filter)(fields);
}

/** matchesFilter for one filter and many lines: the filter is split once. */
export function filterMatcher(filter: string): (fields: readonly (string | undefined)[]) => boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return () => true;
  return (fields) => words.every((w) => fields.some((f) => f?.toLowerCase().includes(w)));
}

export interface ScreenState<P extends string = string> {
  pane: P;
  nav: Partial<Record<P, ListNav>>;
  help: boolean;
  filter: string;
  /** The filter prompt is open: printable keys type into it. */
  editing: boolean;
  /** Key of the line opened in detail (in `detailPane`). */
  detail: string | undefined;
  detailPane: P | undefined;
  /** First line shown of the detail or help text. */
  textTop: number;
}

/** Focus on `pane`; the `following` panes (logs, timelines) start in follow mode, the others at the top. */
export function initialScreen<P extends string>(pane: P, following: readonly P[] = []): ScreenState<P> {
  const nav: Partial<Record<P, ListNav>> = {};
  for (const p of following) nav[p] = initialNav(true);
  return { pane, nav, help: false, filter: '', editing: false, detail: undefined, detailPane: undefined, textTop: 0 };
}

/** A key press as the reducer needs it: what it means, and the raw text for the filter prompt. */
export interface Press {
  action: KeyAction | undefined;
  input: string;
  /** Esc (cancels the filter; Backspace only erases a character there). */
  escape: boolean;
  /** Backspace or Delete. */
  erase: boolean;
  enter: boolean;
}

export interface ScreenContext<P extends string> {
  /** Panes that can take the focus, in tab order. */
  panes: readonly P[];
  /** Keys of the focused pane's lines, after the filter. */
  keys: readonly string[];
  /** Rows the focused pane shows its lines in. */
  height: number;
  /** Lines of the text shown instead of the panes (detail or help), and the rows for it. */
  textLines: number;
  textHeight: number;
  /** Whether Enter opens a detail in this pane. */
  openable: boolean;
}

export function navOf<P extends string>(s: ScreenState<P>, pane: P): ListNav {
  return s.nav[pane] ?? initialNav(false);
}

/** The next state after a press. Quitting and a TUI's own keys are the TUI's business. */
export function reduceScreen<P extends string>(s: ScreenState<P>, press: Press, ctx: ScreenContext<P>): ScreenState<P> {
  if (s.editing) {
    if (press.escape) return { ...s, editing: false, filter: '' };
    if (press.enter) return { ...s, editing: false };
    if (press.erase) return { ...s, filter: s.filter.slice(0, -1) };
    if (press.action === 'up' || press.action === 'down' || press.action === 'pageUp' || press.action === 'pageDown') {
      if (!/^[jk]$/.test(press.input)) return { ...s, nav: { ...s.nav, [s.pane]: moveNav(navOf(s, s.pane), press.action, ctx.keys, ctx.height) } };
    }
    // Printable text types into the prompt (a pasted word arrives as one string).
    if (press.input && !/[\u0000-\u001f\u007f]/.test(press.input)) return { ...s, filter: s.filter + press.input };
    return s;
  }
  const a = press.action;
  if (s.help) {
    if (a === 'help' || a === 'back') return { ...s, help: false, textTop: 0 };
    if (a && isMove(a)) return { ...s, textTop: scrollBy(s.textTop, a, ctx.textLines, ctx.textHeight) };
    return s;
  }
  if (a === 'help') return { ...s, help: true, textTop: 0 };
  if (s.detail !== undefined) {
    if (a === 'back') return { ...s, detail: undefined, detailPane: undefined, textTop: 0 };
    if (a && isMove(a)) return { ...s, textTop: scrollBy(s.textTop, a, ctx.textLines, ctx.textHeight) };
    if (a === 'nextPane' || a === 'prevPane')
      return { ...s, detail: undefined, detailPane: undefined, textTop: 0, pane: cycle(ctx.panes, s.pane, a === 'nextPane' ? 1 : -1) };
    return s;
  }
  if (a && isMove(a)) return { ...s, nav: { ...s.nav, [s.pane]: moveNav(navOf(s, s.pane), a, ctx.keys, ctx.height) } };
  switch (a) {
    case 'filter':
      return { ...s, editing: true };
    case 'back':
      return s.filter ? { ...s, filter: '' } : s;
    case 'open': {
      if (!ctx.openable) return s;
      const w = resolveNav(navOf(s, s.pane), ctx.keys, ctx.height);
      const key = ctx.keys[w.index];
      return key === undefined ? s : { ...s, detail: key, detailPane: s.pane, textTop: 0 };
    }
    case 'nextPane':
    case 'prevPane':
      return { ...s, pane: cycle(ctx.panes, s.pane, a === 'nextPane' ? 1 : -1) };
    default:
      return s;
  }
}

function isMove(a: KeyAction): a is MoveAction {
  return a === 'up' || a === 'down' || a === 'pageUp' || a === 'pageDown' || a === 'top' || a === 'bottom' || a === 'follow';
}

function cycle<P>(panes: readonly P[], p: P, step: number): P {
  if (panes.length === 0) return p;
  const i = panes.indexOf(p);
  return panes[(((Math.max(i, 0) + step) % panes.length) + panes.length) % panes.length]!;
}

/**
 * Rows for stacked panes: each first gets its minimum (or less, when it has fewer lines), then the
 * focused pane as many as it wants, then the others in order; what is left goes to the `fill` pane
 * so the layout does not jump as lines come and go.
 */
export function allocateRows<K extends string>(
  total: number,
  panes: readonly { key: K; want: number; min: number; fill?: boolean }[],
  focus: K,
): Record<K, number> {
  const out = {} as Record<K, number>;
  let left = Math.max(0, total);
  for (const p of panes) {
    const n = Math.min(p.min, p.want, left);
    out[p.key] = n;
    left -= n;
  }
  const order = [...panes.filter((p) => p.key === focus), ...panes.filter((p) => p.key !== focus)];
  for (const p of order) {
    const more = Math.min(left, Math.max(0, p.want - out[p.key]));
    out[p.key] += more;
    left -= more;
  }
  const fill = panes.find((p) => p.fill) ?? panes.find((p) => p.key === focus);
  if (fill) out[fill.key] += left;
  return out;
}
