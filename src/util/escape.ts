/**
 * Escaping for strings that come from the cluster. An Event's message, a condition's reason and
 * message, a Lease holder identity, a label or annotation value in a field diff, a scrape error's
 * body and, in places, an object's name are chosen by whoever may write them. Printed raw, their
 * control characters would act on what reads our output instead of being read: ESC [2J clears the
 * screen, OSC 0 retitles the window, CR goes back to the start of the line so the rest overwrites
 * it, a newline forges a line of its own, a `|` or `<script>` breaks out of a Markdown table cell,
 * U+0001 makes a JUnit file unreadable. kubectl escapes ESC and CR in what it prints since
 * CVE-2021-25743; this is the same idea, for every output that is not data.
 *
 * The contract:
 * - Escape at the render boundary. The data model (the trace, the diagnosis, the views) keeps the
 *   exact strings, and -o json, -o yaml and -o ndjson print them exactly. Text, tables, the TUI,
 *   Markdown, JUnit and SVG pass every string through one of these on the way out, and nothing
 *   else in the tool escapes for those outputs.
 * - escapeTerminal shows control characters instead of sending them: C0 (U+0000–U+001F) and DEL
 *   (U+007F) as `\t`, `\n`, `\r` or `\x1b`, C1 (U+0080–U+009F, which some terminals obey as the
 *   8-bit forms of ESC sequences: U+009B is CSI) as `\u009b`, the bidirectional controls (U+061C,
 *   U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, which reorder how the rest of the line reads:
 *   `txt\u202egnp.exe` shows as `txtexe.png`, CVE-2021-42574) as `\u202e`, and a lone surrogate
 *   (which UTF-8 cannot carry) as `\ud800`. Everything else is left as it is. A caller whose line structure is
 *   meant may keep newlines, or tabs; every line is still escaped.
 * - Backslashes are not escaped, as kubectl does not escape them. The escaped form is therefore
 *   readable but not reversible: a message holding the four characters `\x1b` reads the same as one
 *   holding an ESC. Safety does not depend on it (no output of escapeTerminal holds a control
 *   character), and in exchange escaping is idempotent: a string escaped once passes through a
 *   table or a TUI line that escapes again unchanged, so renderers can escape where they build a
 *   string and again where it is drawn without doubling anything; and messages full of backslashes
 *   (Windows paths, regular expressions, JSON in an annotation) read as they were written. The exact
 *   bytes are always in -o json.
 * - escapeMarkdown is for a cell of a GitHub-flavoured Markdown table (the step summary): the
 *   terminal escaping above (newlines kept), then HTML's & < > and Markdown's backslash, pipe,
 *   backtick, * _ [ ] # ~ as character references, so nothing formats, links, opens a tag or ends
 *   the cell; then newlines as `<br>`.
 * - escapeXml is for XML 1.0 text and attribute values (JUnit, SVG): `& < > " '` as entities; the
 *   characters XML 1.0 cannot carry at all (C0 but tab, newline and carriage return; U+FFFE, U+FFFF;
 *   lone surrogates) replaced with their escaped form as escapeTerminal shows it, as are DEL and C1,
 *   which XML 1.0 allows but discourages, and the bidirectional controls, so that a JUnit report printed in a CI log is as safe as
 *   our text. A CRLF is written as a newline, which is what an XML parser reads it as anyway; a
 *   lone CR, which would overwrite a line of the file shown in a terminal, is shown as `\r`. In an
 *   attribute, tab and newline are character references, which a parser keeps (it would turn them
 *   into spaces otherwise).
 * - escapeTerminalDeep escapes every string (keys too) of plain data: objects, arrays, strings.
 *   For renderers in other modules that build their lines from data (the diagnosis text, the
 *   waterfall layout): a copy is escaped at the boundary, the original is left alone, and what has
 *   nothing to escape is returned as it is, without a copy.
 */

export interface TerminalEscapeOptions {
  /** Keep line feeds, for text whose lines are meant; each line is still escaped. */
  newlines?: boolean;
  /** Keep tabs. */
  tabs?: boolean;
}

/** C0, DEL, C1, the bidirectional controls, and a high surrogate not followed by a low one or a low one not preceded by a high one. */
const TERMINAL_UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const HAS_TERMINAL_UNSAFE = new RegExp(TERMINAL_UNSAFE.source);

/** What XML 1.0 forbids (it allows tab, LF, CR), CR, DEL and C1, the bidirectional controls, U+FFFE/U+FFFF, lone surrogates. */
const XML_UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** The escaped form of one code unit: `\t` `\n` `\r`, `\x1b` for the rest of C0 and DEL, `\u009b` above. */
function shown(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

export function escapeTerminal(s: string, options: TerminalEscapeOptions = {}): string {
  if (!HAS_TERMINAL_UNSAFE.test(s)) return s;
  const { newlines = false, tabs = false } = options;
  return s.replace(TERMINAL_UNSAFE, (ch) => ((newlines && ch === '\n') || (tabs && ch === '\t') ? ch : shown(ch)));
}

const MARKDOWN_SPECIAL = /[&<>\\|`*_[\]#~]/g;
const MARKDOWN_ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Text for one cell of a Markdown table: no HTML, no formatting, no `|`, one line (`<br>` between lines). */
export function escapeMarkdown(s: string): string {
  return escapeTerminal(s.replace(/\r\n/g, '\n'), { newlines: true })
    .replace(MARKDOWN_SPECIAL, (ch) => MARKDOWN_ENTITY[ch] ?? `&#${ch.charCodeAt(0)};`)
    .replace(/\n/g, '<br>');
}

const XML_ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** XML 1.0 text content, or with `attribute` an attribute value (between double or single quotes). */
export function escapeXml(s: string, options: { attribute?: boolean } = {}): string {
  const text = s
    .replace(/\r\n/g, '\n')
    .replace(XML_UNSAFE, shown)
    .replace(/[&<>"']/g, (ch) => XML_ENTITY[ch]!);
  return options.attribute ? text.replace(/[\t\n]/g, (ch) => `&#${ch.charCodeAt(0)};`) : text;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * `value` with every string in it escaped by escapeTerminal: plain objects (their keys too) and
 * arrays are copied where something in them changed; anything else (numbers, class instances,
 * Maps) is kept as it is. An object met twice is escaped once.
 */
export function escapeTerminalDeep<T>(value: T, options: TerminalEscapeOptions = {}): T {
  const done = new Map<object, unknown>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return escapeTerminal(v, options);
    if (typeof v !== 'object' || v === null) return v;
    if (done.has(v)) return done.get(v);
    // A cycle comes back to an object still being walked: it is left as it is there.
    done.set(v, v);
    let out: unknown = v;
    if (Array.isArray(v)) {
      let copy: unknown[] | undefined;
      v.forEach((item: unknown, i) => {
        const e = walk(item);
        if (e !== item) (copy ??= [...(v as unknown[])])[i] = e;
      });
      out = copy ?? v;
    } else if (isPlainObject(v)) {
      let changed = false;
      const entries = Object.entries(v).map(([k, item]) => {
        const ek = escapeTerminal(k, options);
        const e = walk(item);
        if (ek !== k || e !== item) changed = true;
        return [ek, e] as const;
      });
      if (changed) {
        // fromEntries defines each key, so a `__proto__` key (JSON.parse makes one) stays a key.
        const copy = Object.fromEntries(entries);
        out = Object.getPrototypeOf(v) === null ? Object.assign(Object.create(null) as object, copy) : copy;
      }
    }
    done.set(v, out);
    return out;
  };
  return walk(value) as T;
}
