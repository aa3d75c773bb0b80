/**
 * Strings a cluster could send back, for the tests of every renderer that prints them: each would
 * act on a terminal, a Markdown page or an XML parser if it were printed raw. `HOSTILE` holds them
 * all in one string, `HOSTILE_SHOWN` it escaped; `SHOWN` is how escapeTerminal shows each of its control characters.
 */
export const ATTACKS = {
  /** ESC [2J: clear the screen. */
  clear: '\u001b[2J',
  /** OSC 0 ; title BEL: retitle the terminal window. */
  title: '\u001b]0;pwned\u0007',
  /** CR: back to the start of the line, so what follows overwrites it. */
  overwrite: 'ok\rFAIL',
  /** C1 CSI (the 8-bit ESC [): red, on a terminal that takes C1. */
  csi: '\u009b31m',
  nul: 'nul\u0000',
  /** A high surrogate with no low one after it. */
  surrogate: 'lone\ud800',
  markdown: 'a|b *c* <script>x</script>',
  xml: ']]> \u0001',
  /** RLO: what follows reads right to left, so `txt\u202egnp.exe` shows as `txtexe.png`. */
  bidi: 'txt\u202egnp.exe',
} as const;

export const HOSTILE = Object.values(ATTACKS).join(' ');

/** HOSTILE as escapeTerminal shows it. */
export const HOSTILE_SHOWN = '\\x1b[2J \\x1b]0;pwned\\x07 ok\\rFAIL \\u009b31m nul\\x00 lone\\ud800 a|b *c* <script>x</script> ]]> \\x01 txt\\u202egnp.exe';

/** The escaped forms a terminal renderer shows for HOSTILE's control characters. */
export const SHOWN = ['\\x1b[2J', '\\x1b]0;pwned\\x07', 'ok\\rFAIL', '\\u009b31m', 'nul\\x00', 'lone\\ud800', '\\x01', 'txt\\u202egnp.exe'] as const;

/**
 * The control characters in `text` (C0 but the newlines between lines, DEL, C1, lone surrogates,
 * bidirectional controls),
 * escaped so a failing test can show them. With `sgr`, the colour sequences a renderer paints
 * itself (ESC [ digits m) are allowed.
 */
export function controlsIn(text: string, options: { sgr?: boolean; tabs?: boolean } = {}): string[] {
  const rest = options.sgr ? text.replace(/\u001b\[[0-9;]*m/g, '') : text;
  const found =
    rest.match(
      /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    ) ?? [];
  return found.filter((c) => !(options.tabs && c === '\t')).map((c) => `U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
