/**
 * The help screen's words (`?`): the keys every TUI shares, in the order the help lists them, then a
 * screen's own. src/tui/keymap.ts says what each key does: a key added there is added here too.
 */

export interface KeyHelp {
  keys: string;
  what: string;
}

/** The shared keys, in the order the help screen lists them. */
export const COMMON_KEYS: readonly KeyHelp[] = [
  { keys: '↑/↓ j/k', what: 'move the selection (scrolls the list)' },
  { keys: 'PgUp/PgDn', what: 'a page up / down' },
  { keys: 'g / G', what: 'first / last line; G also resumes follow' },
  { keys: 'f', what: 'follow: keep the newest line selected' },
  { keys: '/', what: 'filter (type, Enter keeps it, Esc clears it)' },
  { keys: 'Enter', what: 'open the selected line in detail' },
  { keys: 'Esc / Backspace', what: 'leave the detail, help or filter' },
  { keys: 'tab / shift+tab', what: 'next / previous pane' },
  { keys: '?', what: 'this help' },
  { keys: 'q / Ctrl+C', what: 'quit' },
];

/** The help screen's lines: the shared keys, then the TUI's own. */
export function helpLines(own: readonly KeyHelp[]): string[] {
  const all = [...COMMON_KEYS, ...own];
  const w = Math.max(...all.map((k) => k.keys.length));
  return all.map((k) => `${k.keys.padEnd(w)}  ${k.what}`);
}
