/**
 * The screen of every TUI container: its ScreenState (src/view/screen-state.ts), the layout drawn
 * for it, and the keys (src/tui/keymap.ts) that move through that layout. A container says how to
 * lay a state out, what the focused pane offers the keys (its panes, keys, rows, whether Enter
 * opens a line), and which presses are its own (`w` waterfall, Enter on a tree line); the rest go
 * to reduceScreen.
 *
 * Keys typed quickly, or pasted, arrive together in one read, before the next render: each press
 * builds on the state the previous one left, read through a ref, against the layout last drawn.
 * The help and detail text scroll over the layout's `text` in the rows of its `body` less a title.
 */
import { useRef, useState } from 'react';
import { reduceScreen, type KeyAction, type Press, type ScreenContext, type ScreenState } from '../view/screen-state.js';
import { useKeys, type ExitReason } from './keymap.js';

/** What every layout has: the rows between the header and the footer, and the detail or help text in their place. */
export interface ScreenLayout {
  body: number;
  text: { lines: readonly unknown[] } | undefined;
}

/** What the focused pane offers the keys; a layout's text and body give the rest of reduceScreen's context unless said here. */
export type ScreenFocus<P extends string> = Pick<ScreenContext<P>, 'panes' | 'keys' | 'height' | 'openable'> &
  Partial<Pick<ScreenContext<P>, 'textLines' | 'textHeight'>>;

export interface ScreenSpec<P extends string, L extends ScreenLayout> {
  /** The state the screen starts in (initialScreen). */
  initial: () => ScreenState<P>;
  /** The layout of a state: what is drawn, and what the keys move through. */
  layout: (state: ScreenState<P>) => L;
  /** The focused pane of `state`, on `layout`. */
  focus: (state: ScreenState<P>, layout: L) => ScreenFocus<P>;
  /**
   * A press the screen takes itself, before reduceScreen: the next state, true when it needs no new
   * state, false (or nothing) to leave the press to reduceScreen.
   */
  own?: (press: Press, state: ScreenState<P>, layout: L) => ScreenState<P> | boolean | undefined;
  /** useKeys' options: how the app ends, q going back instead, the screen's own letters, whether it has the keys. */
  onExit?: ((reason: ExitReason) => void) | undefined;
  onBack?: (() => void) | undefined;
  extra?: Readonly<Record<string, KeyAction>>;
  active?: boolean;
}

export interface Screen<P extends string, L extends ScreenLayout> {
  /** The state and its layout, as this render draws them. */
  state: ScreenState<P>;
  layout: L;
  /** The state the last press left (ahead of the render, while presses of one read are handled). */
  current(): ScreenState<P>;
  /** Sets the state (a press, or something the container hears of: a diagnosis pushed). */
  set(next: ScreenState<P>): void;
}

export function useScreen<P extends string, L extends ScreenLayout>(spec: ScreenSpec<P, L>): Screen<P, L> {
  const [state, setState] = useState<ScreenState<P>>(spec.initial);
  const layout = spec.layout(state);
  const latest = useRef({ state, layout });
  latest.current = { state, layout };
  const set = (next: ScreenState<P>): void => {
    latest.current.state = next;
    setState(next);
  };
  const handle = (press: Press): void => {
    const { state: s, layout: l } = latest.current;
    const own = spec.own?.(press, s, l);
    if (own === true) return;
    if (own) {
      set(own);
      return;
    }
    set(reduceScreen(s, press, { textLines: l.text?.lines.length ?? 0, textHeight: Math.max(1, l.body - 1), ...spec.focus(s, l) }));
  };
  useKeys(handle, {
    editing: () => latest.current.state.editing,
    onExit: spec.onExit,
    onBack: spec.onBack,
    ...(spec.extra ? { extra: spec.extra } : {}),
    ...(spec.active !== undefined ? { active: spec.active } : {}),
  });
  return { state, layout, current: () => latest.current.state, set };
}
