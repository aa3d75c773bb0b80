import { describe, expect, it } from 'vitest';
import {
  allocateRows,
  initialNav,
  initialScreen,
  matchesFilter,
  moveNav,
  navOf,
  reduceScreen,
  resolveNav,
  scrollBy,
  type Press,
  type ScreenContext,
  type ScreenState,
} from './screen-state.js';

const keys = (n: number): string[] => Array.from({ length: n }, (_, i) => `k${i}`);
const press = (action: Press['action'], input = ''): Press => ({
  action,
  input,
  escape: action === 'back' && input === '',
  erase: false,
  enter: action === 'open',
});
const typed = (input: string): Press => ({ action: undefined, input, escape: false, erase: false, enter: false });

describe('list navigation', () => {
  it('follows the tail by default and keeps the newest line selected as lines arrive', () => {
    const nav = initialNav(true);
    expect(resolveNav(nav, keys(3), 10)).toEqual({ index: 2, top: 0 });
    expect(resolveNav(nav, keys(25), 10)).toEqual({ index: 24, top: 15 });
  });

  it('moving up stops following; the selection stays on its line when more arrive; G resumes', () => {
    let nav = moveNav(initialNav(true), 'up', keys(25), 10);
    expect(nav).toMatchObject({ selected: 'k23', follow: false });
    expect(resolveNav(nav, keys(40), 10)).toEqual({ index: 23, top: 15 });
    nav = moveNav(nav, 'bottom', keys(40), 10);
    expect(nav.follow).toBe(true);
    expect(resolveNav(nav, keys(41), 10).index).toBe(40);
  });

  it('pages, goes to the top, and scrolls only when the selection leaves the window', () => {
    let nav = moveNav(initialNav(true), 'top', keys(100), 10);
    expect(resolveNav(nav, keys(100), 10)).toEqual({ index: 0, top: 0 });
    nav = moveNav(nav, 'down', keys(100), 10);
    expect(resolveNav(nav, keys(100), 10)).toEqual({ index: 1, top: 0 });
    nav = moveNav(nav, 'pageDown', keys(100), 10);
    expect(resolveNav(nav, keys(100), 10)).toEqual({ index: 11, top: 10 });
    nav = moveNav(nav, 'pageUp', keys(100), 10);
    expect(resolveNav(nav, keys(100), 10)).toEqual({ index: 1, top: 0 });
    nav = moveNav(nav, 'up', keys(100), 10);
    nav = moveNav(nav, 'up', keys(100), 10);
    expect(resolveNav(nav, keys(100), 10).index).toBe(0);
  });

  it('keeps the selection by key when lines are inserted before it, and near its place when it goes', () => {
    const nav = moveNav(moveNav(initialNav(true), 'top', keys(5), 10), 'down', keys(5), 10);
    expect(nav.selected).toBe('k1');
    expect(resolveNav(nav, ['new', ...keys(5)], 10).index).toBe(2);
    expect(resolveNav(nav, ['k0', 'k2', 'k3'], 10).index).toBe(1);
    expect(resolveNav(nav, [], 10)).toEqual({ index: -1, top: 0 });
  });

  it('scrolls text by lines and pages within its length', () => {
    expect(scrollBy(0, 'down', 30, 10)).toBe(1);
    expect(scrollBy(0, 'pageDown', 30, 10)).toBe(10);
    expect(scrollBy(15, 'pageDown', 30, 10)).toBe(20);
    expect(scrollBy(5, 'bottom', 30, 10)).toBe(20);
    expect(scrollBy(0, 'up', 30, 10)).toBe(0);
    expect(scrollBy(0, 'down', 5, 10)).toBe(0);
  });
});

describe('matchesFilter', () => {
  it('needs every word in some field, case-insensitively', () => {
    expect(matchesFilter('', ['x'])).toBe(true);
    expect(matchesFilter('pod ready', ['Pod/web-1', 'ready'])).toBe(true);
    expect(matchesFilter('pod ready', ['Pod/web-1', 'scheduled'])).toBe(false);
    expect(matchesFilter('REPLICASET', ['ReplicaSet/web', undefined])).toBe(true);
  });
});

describe('reduceScreen', () => {
  type P = 'a' | 'b';
  const ctx = (over: Partial<ScreenContext<P>> = {}): ScreenContext<P> => ({
    panes: ['a', 'b'],
    keys: keys(20),
    height: 5,
    textLines: 30,
    textHeight: 10,
    openable: true,
    ...over,
  });
  const run = (s: ScreenState<P>, ...ps: Press[]): ScreenState<P> => ps.reduce((acc, p) => reduceScreen(acc, p, ctx()), s);

  it('types a filter after /, Backspace erases, Enter keeps it, Esc clears it', () => {
    let s = run(initialScreen<P>('a'), press('filter'), typed('po'), typed('d'), typed('q'));
    expect(s).toMatchObject({ editing: true, filter: 'podq' });
    s = reduceScreen(s, { action: 'back', input: '', escape: false, erase: true, enter: false }, ctx());
    expect(s.filter).toBe('pod');
    s = reduceScreen(s, { action: 'open', input: '\r', escape: false, erase: false, enter: true }, ctx());
    expect(s).toMatchObject({ editing: false, filter: 'pod' });
    s = run(s, press('back'));
    expect(s.filter).toBe('');
    s = run(s, press('filter'), typed('x'), { action: 'back', input: '', escape: true, erase: false, enter: false });
    expect(s).toMatchObject({ editing: false, filter: '' });
  });

  it('Enter opens the selected line, moves scroll the detail, Esc leaves it', () => {
    let s = run(initialScreen<P>('a', ['a']), press('open'));
    expect(s).toMatchObject({ detail: 'k19', detailPane: 'a' });
    s = run(s, press('down'), press('down'));
    expect(s.textTop).toBe(2);
    expect(navOf(s, 'a').follow).toBe(true);
    s = run(s, press('back'));
    expect(s).toMatchObject({ detail: undefined, textTop: 0 });
    expect(reduceScreen(initialScreen<P>('a'), press('open'), ctx({ openable: false })).detail).toBeUndefined();
  });

  it('tab and shift+tab cycle the panes; ? toggles the help, which scrolls and closes with Esc', () => {
    expect(run(initialScreen<P>('a'), press('nextPane')).pane).toBe('b');
    expect(run(initialScreen<P>('a'), press('nextPane'), press('nextPane')).pane).toBe('a');
    expect(run(initialScreen<P>('a'), press('prevPane')).pane).toBe('b');
    let s = run(initialScreen<P>('a'), press('help'), press('pageDown'));
    expect(s).toMatchObject({ help: true, textTop: 10 });
    s = run(s, press('back'));
    expect(s.help).toBe(false);
    expect(run(initialScreen<P>('a'), press('help'), press('help')).help).toBe(false);
  });

  it('moves the focused pane only', () => {
    const s = run(initialScreen<P>('a', ['a', 'b']), press('up'));
    expect(navOf(s, 'a')).toMatchObject({ selected: 'k18', follow: false });
    expect(navOf(s, 'b').follow).toBe(true);
  });
});

describe('allocateRows', () => {
  const panes = [
    { key: 'tree', want: 100, min: 4 },
    { key: 'timeline', want: 100, min: 6, fill: true },
    { key: 'internals', want: 3, min: 3 },
  ] as const;
  it('gives the focused pane what it wants after the others have their minimum, and never more than the total', () => {
    expect(allocateRows(21, panes, 'timeline')).toEqual({ tree: 4, timeline: 14, internals: 3 });
    expect(allocateRows(21, panes, 'tree')).toEqual({ tree: 12, timeline: 6, internals: 3 });
    expect(allocateRows(5, panes, 'timeline')).toEqual({ tree: 4, timeline: 1, internals: 0 });
  });
  it('gives what is left to the fill pane when every pane has what it wants', () => {
    expect(
      allocateRows(
        42,
        [
          { key: 'a', want: 2, min: 2 },
          { key: 'b', want: 3, min: 3, fill: true },
        ],
        'a',
      ),
    ).toEqual({ a: 2, b: 40 });
  });
});
