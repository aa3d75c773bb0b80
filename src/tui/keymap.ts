/**
 * The one key map of the TUIs (trace, cache, top, queues, lease-watch). A key means the same thing in
 * each of them; a TUI only adds keys of its own (`w` waterfall, `a` idle queues) through `extra`.
 * The help screen (`?`) lists them from src/view/key-help.ts: a key added here is added there too.
 * Vi keys sit beside the arrows, as in less, k9s and lazygit. useKeys reads them, for useScreen
 * (use-screen.ts).
 */
import { useApp, useInput, useStdin, type Key } from 'ink';
import type { KeyAction, Press } from '../view/screen-state.js';

export type { KeyAction };

export type ExitReason = 'quit' | 'interrupt';

/** What a key press means. `extra` maps a TUI's own letters (e.g. { w: 'waterfall' }). */
export function actionOf(input: string, key: Key, extra: Readonly<Record<string, KeyAction>> = {}): KeyAction | undefined {
  if (key.ctrl && input === 'c') return 'interrupt';
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.pageUp) return 'pageUp';
  if (key.pageDown) return 'pageDown';
  if (key.home) return 'top';
  if (key.end) return 'bottom';
  if (key.tab) return key.shift ? 'prevPane' : 'nextPane';
  if (key.return) return 'open';
  if (key.escape || key.backspace || key.delete) return 'back';
  if (key.ctrl || key.meta) return undefined;
  switch (input) {
    case 'k':
      return 'up';
    case 'j':
      return 'down';
    case 'g':
      return 'top';
    case 'G':
      return 'bottom';
    case 'f':
      return 'follow';
    case '/':
      return 'filter';
    case '?':
      return 'help';
    case 'q':
      return 'quit';
    default:
      return extra[input];
  }
}

/** A press as the screen reducer takes it. */
export function pressOf(input: string, key: Key, extra: Readonly<Record<string, KeyAction>> = {}): Press {
  return {
    action: actionOf(input, key, extra),
    input: key.ctrl || key.meta ? '' : input,
    escape: key.escape,
    erase: key.backspace || key.delete,
    enter: key.return,
  };
}

/**
 * The presses in one read from the terminal. Keys typed quickly (or a held key repeating) arrive
 * together as one string ("jjj", "/pod\r"): ink splits escape sequences, Backspace and Ctrl+C out
 * of a read but leaves plain text, Enter and Tab in it. Each is a press of its own here.
 */
export function pressesOf(input: string, key: Key, extra: Readonly<Record<string, KeyAction>> = {}): Press[] {
  // Two Escapes in one read ("\x1b\x1b", a quick double tap) reach us as one Escape with meta set:
  // each is a step back of its own.
  if (key.escape && key.meta) {
    const back = pressOf(input, { ...key, meta: false }, extra);
    return [back, back];
  }
  const chars = [...input];
  if (chars.length < 2 || key.ctrl || key.meta || key.escape || input.includes('\u001b')) return [pressOf(input, key, extra)];
  const plain: Key = { ...key, shift: false, return: false, tab: false, backspace: false, delete: false };
  const out: Press[] = [];
  for (const c of chars) {
    if (c === '\r' || c === '\n') out.push(pressOf('\r', { ...plain, return: true }, extra));
    else if (c === '\t') out.push(pressOf('\t', { ...plain, tab: true }, extra));
    else if (c >= ' ' && c !== '\u007f') out.push(pressOf(c, { ...plain, shift: c !== c.toLowerCase() }, extra));
  }
  return out;
}

/**
 * The keys of a TUI: every press of a read goes to `handle`, in order, but q (unless the filter
 * prompt is open: `editing()`) and Ctrl+C, which tell `onExit` which of them ended it and end the
 * app. Inactive where stdin cannot be put in raw mode.
 */
export function useKeys(
  handle: (press: Press) => void,
  options: {
    editing: () => boolean;
    onExit?: ((reason: ExitReason) => void) | undefined;
    extra?: Readonly<Record<string, KeyAction>>;
    /** A screen opened from another (an object's chain from a set's list): q goes back there instead of ending the app. */
    onBack?: (() => void) | undefined;
    /** False while a screen opened from this one has the keys. */
    active?: boolean;
  },
): void {
  const { exit } = useApp();
  const { isRawModeSupported } = useStdin();
  useInput(
    (input, key) => {
      for (const press of pressesOf(input, key, options.extra)) {
        if (press.action === 'quit' && options.onBack && !options.editing()) {
          options.onBack();
          return;
        }
        if (press.action === 'interrupt' || (press.action === 'quit' && !options.editing())) {
          options.onExit?.(press.action === 'quit' ? 'quit' : 'interrupt');
          exit();
          return;
        }
        handle(press);
      }
    },
    { isActive: isRawModeSupported && options.active !== false },
  );
}
