import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { actionOf, pressesOf } from './keymap.js';

const none: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};
const k = (over: Partial<Key>): Key => ({ ...none, ...over });

describe('the key map', () => {
  it('maps arrows and vi keys, pages, g/G, f, /, Enter, Esc, tab, ?, q and Ctrl+C', () => {
    expect(actionOf('', k({ upArrow: true }))).toBe('up');
    expect(actionOf('k', none)).toBe('up');
    expect(actionOf('j', none)).toBe('down');
    expect(actionOf('', k({ pageDown: true }))).toBe('pageDown');
    expect(actionOf('g', none)).toBe('top');
    expect(actionOf('G', k({ shift: true }))).toBe('bottom');
    expect(actionOf('f', none)).toBe('follow');
    expect(actionOf('/', none)).toBe('filter');
    expect(actionOf('\r', k({ return: true }))).toBe('open');
    expect(actionOf('', k({ escape: true }))).toBe('back');
    expect(actionOf('', k({ backspace: true }))).toBe('back');
    expect(actionOf('', k({ tab: true }))).toBe('nextPane');
    expect(actionOf('', k({ tab: true, shift: true }))).toBe('prevPane');
    expect(actionOf('?', none)).toBe('help');
    expect(actionOf('q', none)).toBe('quit');
    expect(actionOf('c', k({ ctrl: true }))).toBe('interrupt');
    expect(actionOf('w', none)).toBeUndefined();
    expect(actionOf('w', none, { w: 'waterfall' })).toBe('waterfall');
  });

  it('splits keys that arrive together into one press each', () => {
    expect(pressesOf('jjG', none).map((p) => p.action)).toEqual(['down', 'down', 'bottom']);
    expect(pressesOf('\r', k({ return: true })).map((p) => p.action)).toEqual(['open']);
    const typed = pressesOf('/po\r', none);
    expect(typed.map((p) => p.input)).toEqual(['/', 'p', 'o', '\r']);
    expect(typed.map((p) => p.enter)).toEqual([false, false, false, true]);
  });

  it('takes two Escapes in one read (ink reports them as one with meta) as two steps back', () => {
    expect(pressesOf('', k({ escape: true, meta: true })).map((p) => p.action)).toEqual(['back', 'back']);
    expect(pressesOf('', k({ escape: true })).map((p) => p.action)).toEqual(['back']);
  });
});
