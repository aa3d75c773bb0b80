/**
 * Parser for the Prometheus text exposition format (0.0.4) and OpenMetrics text (1.0.0), the
 * formats client_golang's expfmt writes and Prometheus's textparse reads.
 *
 * Why our own parser (the npm parsers as they stood on 2026-11-30, versions below):
 * - parse-prometheus-text-format 1.1.1, the widely used one, knows no OpenMetrics: given
 *   `# TYPE foo counter` + `foo_total 17 # {trace_id="x"} 0.67` it leaves the counter empty, files
 *   foo_total as an untyped family and glues the exemplar into the timestamp. It also accepts an
 *   HTML page as a metric named "<html>..." with an empty value, and keeps values as strings.
 * - prom2javascript 0.2.0 and @platformatic/promotel 0.2.2 unescape label values with chained
 *   replace() calls (so `\\n` comes out wrong), promotel finds the label block with `\{[^}]*\}`
 *   (a `}` inside a label value breaks it), skips NaN/+Inf samples and bad lines silently, and
 *   neither reads OpenMetrics.
 * So: one small, strict, linear-time parser (a cursor over each line, no backtracking regexes),
 * fuzzed in parse.fuzz.test.ts.
 *
 * What it does:
 * - Families from HELP / TYPE / UNIT lines; samples join the family they belong to by suffix
 *   (foo_bucket, foo_sum, foo_count for a histogram foo; foo_total, foo_created for an OpenMetrics
 *   counter foo), else start an untyped family of their own.
 * - Label values unescaped (\\, \", \n; any other escape is an error, as in expfmt). NaN, +Inf,
 *   -Inf values. Timestamps in milliseconds (OpenMetrics seconds are converted).
 * - OpenMetrics: `# EOF` ends the exposition (required when the content type says OpenMetrics, so a
 *   cut-short answer is noticed), exemplars are skipped, `_created` samples are kept as samples.
 * - Prometheus 3's quoted UTF-8 names (`{"my.metric", "a.b"="c"} 1`) are read.
 * - Bodies that are not metrics at all (an HTML login page, a JSON error) are refused with
 *   NotMetricsError naming what came back, before any line is parsed.
 *
 * Lenient where Prometheus is lenient in practice: blank lines, \r\n line ends, trailing commas
 * in label sets, runs of spaces or tabs between tokens, families whose lines are not contiguous.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'gaugehistogram' | 'summary' | 'info' | 'stateset' | 'untyped' | 'unknown';

export type ExpositionFormat = 'prometheus' | 'openmetrics';

/** Label name to (unescaped) value. A null-prototype object, so `__proto__` is just a name. */
export type Labels = Record<string, string>;

export interface Sample {
  /** The sample's own name: foo_bucket, foo_sum, foo_total, ... */
  name: string;
  labels: Labels;
  value: number;
  /** Milliseconds since the epoch, when the line carried a timestamp. */
  timestampMs?: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help: string;
  unit: string;
  samples: Sample[];
}

export interface Exposition {
  format: ExpositionFormat;
  families: MetricFamily[];
}

export interface ParseOptions {
  /** The Content-Type header of the answer; decides the format and catches HTML/JSON answers. */
  contentType?: string | undefined;
  /** Forces the format; otherwise it comes from the content type, then from a final `# EOF`. */
  format?: ExpositionFormat | undefined;
  /**
   * Only the families whose names start with one of these are read (`workqueue_`): the lines of
   * the others are passed over before they are split or parsed, so an API server's 3 MB exposition
   * costs its few hundred queue lines, not 20,000 samples made and dropped on every scrape. A
   * passed-over line must still look like a sample (a name, maybe labels, a value that starts as
   * a number does); any other line is parsed, and fails as it would have. Line numbers in errors
   * stay the text's own. All families when absent.
   */
  families?: readonly string[] | undefined;
}

/** The text is meant as an exposition but breaks the grammar at `line`. */
export class MetricsParseError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(line > 0 ? `line ${line}: ${message}` : message);
    this.name = 'MetricsParseError';
    this.line = line;
  }
}

/** The answer is something else entirely: an HTML page, JSON, XML, protobuf. */
export class NotMetricsError extends Error {
  /** What came back, in a few words: "text/html", "an HTML page", "JSON". */
  readonly what: string;
  constructor(what: string, detail: string) {
    super(`answered ${what}, not Prometheus metrics${detail ? ` (${detail})` : ''}`);
    this.name = 'NotMetricsError';
    this.what = what;
  }
}

const TYPES: ReadonlySet<string> = new Set(['counter', 'gauge', 'histogram', 'gaugehistogram', 'summary', 'info', 'stateset', 'untyped', 'unknown']);

/** Parses an exposition. Throws NotMetricsError or MetricsParseError, nothing else. */
export function parseExposition(text: string, options: ParseOptions = {}): Exposition {
  assertLooksLikeMetrics(text, options.contentType);
  const format = options.format ?? detectFormat(options.contentType, text);
  const lines = options.families ? onlyFamilies(text, options.families) : text.split('\n');
  return new Parser(lines, format, isOpenMetricsContentType(options.contentType)).run();
}

/**
 * The lines of `text`, those of families not named by `prefixes` left empty (so the others keep
 * their numbers), found with a cursor: no string is made for a line that is passed over.
 */
function onlyFamilies(text: string, prefixes: readonly string[]): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lines.push(passedOver(text, start, end, prefixes) ? '' : text.slice(start, end));
    start = end + 1;
  }
  return lines;
}

/** Whether the line text[start, end) is a HELP, TYPE, UNIT or sample line of a family not wanted. */
function passedOver(text: string, start: number, end: number, prefixes: readonly string[]): boolean {
  let p = start;
  while (p < end && BLANK(text.charCodeAt(p))) p++;
  if (p >= end) return true;
  if (text.charCodeAt(p) === 0x23 /* # */) {
    const m = /^#[ \t]+(?:HELP|TYPE|UNIT)[ \t]+([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(text.slice(p, Math.min(end, p + 300)));
    return m !== null && !wanted(m[1]!, 0, prefixes);
  }
  if (!isNameStart(text.charCodeAt(p))) return false;
  let q = p;
  while (q < end && isNameChar(text.charCodeAt(q))) q++;
  if (wanted(text, p, prefixes, q)) return false;
  // The shape of a sample: labels (up to the line's last brace), blanks, then a value's first character.
  if (text.charCodeAt(q) === 0x7b /* { */) {
    const close = text.lastIndexOf('}', end - 1);
    if (close < q) return false;
    q = close + 1;
  }
  if (!BLANK(text.charCodeAt(q))) return false;
  while (q < end && BLANK(text.charCodeAt(q))) q++;
  return q < end && VALUE_START.test(text[q]!);
}

const VALUE_START = /[0-9+\-.NnIi]/;

/** Whether the name at text[from, to) starts with one of `prefixes`. */
function wanted(text: string, from: number, prefixes: readonly string[], to = text.length): boolean {
  return prefixes.some((x) => x.length <= to - from && text.startsWith(x, from));
}

/** OpenMetrics when the content type says so or the text has an `# EOF` line; else Prometheus text. */
export function detectFormat(contentType: string | undefined, text: string): ExpositionFormat {
  if (isOpenMetricsContentType(contentType)) return 'openmetrics';
  return /(?:^|\n)# EOF[ \t]*\r?(?:\n|$)/.test(text) ? 'openmetrics' : 'prometheus';
}

function isOpenMetricsContentType(contentType: string | undefined): boolean {
  return mediaType(contentType) === 'application/openmetrics-text';
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Throws NotMetricsError when the content type or the first bytes show it is not an exposition. */
export function assertLooksLikeMetrics(text: string, contentType?: string): void {
  const media = mediaType(contentType);
  const snippet = firstWords(text);
  if (media === 'text/html' || media === 'application/xhtml+xml') throw new NotMetricsError(media, snippet);
  if (media === 'application/json' || media.endsWith('+json')) throw new NotMetricsError(media, snippet);
  if (media === 'application/xml' || media === 'text/xml' || media.endsWith('+xml')) throw new NotMetricsError(media, snippet);
  if (media.includes('protobuf')) throw new NotMetricsError(media, 'the binary protobuf format; ask for text');
  if (
    media.startsWith('image/') ||
    media.startsWith('audio/') ||
    media.startsWith('video/') ||
    media === 'application/javascript' ||
    media === 'text/javascript' ||
    media === 'text/css'
  ) {
    throw new NotMetricsError(media, '');
  }
  const typeNote = media ? `, content type ${media}` : '';
  const start = text.slice(0, 512).trimStart();
  if (start.startsWith('<')) {
    const what = /^<(!doctype\s+html|html|head|body)\b/i.test(start) || /<html[\s>]/i.test(text.slice(0, 4096)) ? 'an HTML page' : 'XML or HTML';
    throw new NotMetricsError(what, `${snippet}${typeNote}`);
  }
  if (start.startsWith('{') || start.startsWith('[')) {
    // `{"my.metric"} 1` is valid Prometheus 3 text, so only a body that parses as JSON is JSON.
    let json = false;
    try {
      const parsed: unknown = JSON.parse(text);
      json = typeof parsed === 'object' && parsed !== null;
    } catch {
      /* not JSON */
    }
    if (json) throw new NotMetricsError('JSON', `${snippet}${typeNote}`);
  }
  if (text.includes('\u0000')) throw new NotMetricsError('binary data', typeNote.slice(2));
}

function firstWords(text: string): string {
  const flat = text.slice(0, 200).replace(/\s+/g, ' ').trim();
  if (!flat) return '';
  return `starts ${JSON.stringify(flat.length > 60 ? `${flat.slice(0, 60)}…` : flat)}`;
}

/** Suffixes a sample may add to its family's name, by family type. */
function suffixesOf(type: MetricType, format: ExpositionFormat): readonly string[] {
  switch (type) {
    case 'counter':
      // Prometheus text names the family foo_total; OpenMetrics names it foo.
      return format === 'openmetrics' ? ['_total', '_created', ''] : ['', '_total', '_created'];
    case 'histogram':
      return ['_bucket', '_sum', '_count', '_created'];
    case 'gaugehistogram':
      return ['_bucket', '_gsum', '_gcount', '_sum', '_count'];
    case 'summary':
      return ['', '_sum', '_count', '_created'];
    case 'info':
      return ['_info', ''];
    default:
      return [''];
  }
}

const KNOWN_SUFFIXES = ['_bucket', '_sum', '_count', '_created', '_total', '_info', '_gsum', '_gcount'];

interface FamilyState {
  family: MetricFamily;
  typed: boolean;
}

const BLANK = (c: number): boolean => c === 0x20 || c === 0x09;
const isNameStart = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x3a;
const isNameChar = (c: number): boolean => isNameStart(c) || (c >= 0x30 && c <= 0x39);
const isLabelStart = (c: number): boolean => isNameStart(c) && c !== 0x3a;
const isLabelChar = (c: number): boolean => isNameChar(c) && c !== 0x3a;

const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL_FLOATS: Record<string, number> = {
  nan: NaN,
  inf: Infinity,
  '+inf': Infinity,
  '-inf': -Infinity,
  infinity: Infinity,
  '+infinity': Infinity,
  '-infinity': -Infinity,
};

/** A float as Go's strconv.ParseFloat reads exposition values (decimal forms, NaN, ±Inf). */
export function parseFloatStrict(token: string): number | undefined {
  if (FLOAT.test(token)) return Number(token);
  return SPECIAL_FLOATS[token.toLowerCase()];
}

class Parser {
  private readonly families: MetricFamily[] = [];
  private readonly byName = new Map<string, FamilyState>();
  private current: FamilyState | undefined;
  private lineNo = 0;
  // Cursor over the current line.
  private line = '';
  private pos = 0;

  constructor(
    private readonly lines: readonly string[],
    private readonly format: ExpositionFormat,
    private readonly requireEof: boolean,
  ) {}

  run(): Exposition {
    const { lines } = this;
    let sawEof = false;
    for (let i = 0; i < lines.length; i++) {
      this.lineNo = i + 1;
      let line = lines[i]!;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (sawEof) {
        if (line.trim() !== '') throw this.error('text after "# EOF"');
        continue;
      }
      this.line = line;
      this.pos = 0;
      this.skipBlanks();
      if (this.pos >= line.length) continue;
      if (line.charCodeAt(this.pos) === 0x23 /* # */) {
        if (this.comment()) sawEof = true;
      } else {
        this.sample();
      }
    }
    if (this.requireEof && !sawEof) {
      throw new MetricsParseError(0, 'the OpenMetrics exposition ends without "# EOF" (the answer was cut short?)');
    }
    return { format: this.format, families: this.families };
  }

  private error(message: string): MetricsParseError {
    return new MetricsParseError(this.lineNo, message);
  }

  private peek(): number {
    return this.pos < this.line.length ? this.line.charCodeAt(this.pos) : -1;
  }

  private skipBlanks(): number {
    const start = this.pos;
    while (this.pos < this.line.length && BLANK(this.line.charCodeAt(this.pos))) this.pos++;
    return this.pos - start;
  }

  private restOfLine(): string {
    return this.line.slice(this.pos);
  }

  /** Reads a comment line; returns true for `# EOF`. */
  private comment(): boolean {
    this.pos++; // '#'
    if (this.skipBlanks() === 0) return false; // "#foo": a plain comment
    const keywordStart = this.pos;
    while (this.pos < this.line.length && !BLANK(this.line.charCodeAt(this.pos))) this.pos++;
    const keyword = this.line.slice(keywordStart, this.pos);
    if (keyword === 'EOF') {
      if (this.restOfLine().trim() !== '') throw this.error('unexpected text after "# EOF"');
      return true;
    }
    if (keyword !== 'HELP' && keyword !== 'TYPE' && keyword !== 'UNIT') return false;
    if (this.skipBlanks() === 0) {
      if (this.pos >= this.line.length) throw this.error(`"# ${keyword}" without a metric name`);
    }
    const name = this.peek() === 0x22 ? this.quoted('metric name') : this.metricName();
    const hasMore = this.skipBlanks() > 0 || this.pos >= this.line.length;
    if (!hasMore) throw this.error(`unexpected character after the metric name in "# ${keyword}"`);
    const rest = this.restOfLine();
    const state = this.familyFor(name);
    if (keyword === 'HELP') {
      state.family.help = unescapeHelp(rest);
    } else if (keyword === 'UNIT') {
      state.family.unit = rest.trim();
    } else {
      const type = rest.trim().toLowerCase();
      if (!TYPES.has(type)) throw this.error(`unknown metric type "${rest.trim()}" for ${name}`);
      if (state.typed) throw this.error(`second TYPE line for ${name}`);
      if (state.family.samples.length > 0) throw this.error(`TYPE line for ${name} after its samples`);
      state.family.type = type as MetricType;
      state.typed = true;
    }
    this.current = state;
    return false;
  }

  private familyFor(name: string): FamilyState {
    let state = this.byName.get(name);
    if (!state) {
      state = { family: { name, type: this.format === 'openmetrics' ? 'unknown' : 'untyped', help: '', unit: '', samples: [] }, typed: false };
      this.byName.set(name, state);
      this.families.push(state.family);
    }
    return state;
  }

  private belongs(sampleName: string, state: FamilyState): boolean {
    const base = state.family.name;
    if (!sampleName.startsWith(base)) return false;
    const suffix = sampleName.slice(base.length);
    return suffixesOf(state.family.type, this.format).includes(suffix);
  }

  /** The family a sample joins: the current one, one of its own name, or one its suffix names. */
  private familyOfSample(sampleName: string): FamilyState {
    if (this.current && this.belongs(sampleName, this.current)) return this.current;
    const exact = this.byName.get(sampleName);
    if (exact && this.belongs(sampleName, exact)) return exact;
    for (const suffix of KNOWN_SUFFIXES) {
      if (!sampleName.endsWith(suffix)) continue;
      const owner = this.byName.get(sampleName.slice(0, -suffix.length));
      if (owner?.typed && this.belongs(sampleName, owner)) return owner;
    }
    return exact ?? this.familyFor(sampleName);
  }

  private sample(): void {
    let name: string | undefined;
    let blanks = 0;
    if (this.peek() !== 0x7b /* { */) {
      name = this.metricName();
      blanks = this.skipBlanks();
    }
    const labels: Labels = Object.create(null) as Labels;
    if (this.peek() === 0x7b) {
      const inner = this.labelSet(labels, name === undefined);
      name ??= inner;
      blanks = this.skipBlanks();
    }
    if (name === undefined) throw this.error('a sample without a metric name');
    if (blanks === 0 || this.pos >= this.line.length) {
      throw this.error(this.pos >= this.line.length ? `no value for ${name}` : `unexpected character ${JSON.stringify(this.line[this.pos])} after ${name}`);
    }
    const valueToken = this.token();
    if (valueToken === '') throw this.error(`no value for ${name}`);
    const value = parseFloatStrict(valueToken);
    if (value === undefined) throw this.error(`invalid value ${JSON.stringify(clip(valueToken))} for ${name}`);
    let timestampMs: number | undefined;
    this.skipBlanks();
    if (this.pos < this.line.length && this.peek() !== 0x23) {
      const tsToken = this.token();
      timestampMs = this.timestamp(tsToken, name);
      this.skipBlanks();
    }
    // What follows may only be an OpenMetrics exemplar ("# {trace_id="..."} 0.5"), which we skip.
    if (this.pos < this.line.length && this.peek() !== 0x23) {
      throw this.error(`unexpected text ${JSON.stringify(clip(this.restOfLine()))} after the value of ${name}`);
    }
    const state = this.familyOfSample(name);
    this.validate(state.family, name, labels);
    const sample: Sample = { name, labels, value };
    if (timestampMs !== undefined) sample.timestampMs = timestampMs;
    state.family.samples.push(sample);
    this.current = state;
  }

  private validate(family: MetricFamily, name: string, labels: Labels): void {
    const needs =
      (family.type === 'histogram' || family.type === 'gaugehistogram') && name === `${family.name}_bucket`
        ? 'le'
        : family.type === 'summary' && name === family.name
          ? 'quantile'
          : undefined;
    if (!needs) return;
    const v = labels[needs];
    if (v === undefined) throw this.error(`${name} has no "${needs}" label`);
    if (parseFloatStrict(v) === undefined) throw this.error(`${name} has an invalid ${needs}="${clip(v)}"`);
  }

  private timestamp(token: string, name: string): number {
    if (this.format === 'openmetrics') {
      const seconds = parseFloatStrict(token);
      if (seconds === undefined || !Number.isFinite(seconds)) throw this.error(`invalid timestamp ${JSON.stringify(clip(token))} for ${name}`);
      return seconds * 1000;
    }
    if (!/^-?\d+$/.test(token)) throw this.error(`invalid timestamp ${JSON.stringify(clip(token))} for ${name} (milliseconds expected)`);
    return Number(token);
  }

  private token(): string {
    const start = this.pos;
    while (this.pos < this.line.length && !BLANK(this.line.charCodeAt(this.pos))) this.pos++;
    return this.line.slice(start, this.pos);
  }

  private metricName(): string {
    const start = this.pos;
    if (!isNameStart(this.peek())) throw this.error(`invalid metric name starting ${JSON.stringify(clip(this.restOfLine(), 20))}`);
    while (this.pos < this.line.length && isNameChar(this.line.charCodeAt(this.pos))) this.pos++;
    return this.line.slice(start, this.pos);
  }

  private labelName(): string {
    if (this.peek() === 0x22) return this.quoted('label name');
    const start = this.pos;
    if (!isLabelStart(this.peek())) throw this.error(`invalid label name starting ${JSON.stringify(clip(this.restOfLine(), 20))}`);
    while (this.pos < this.line.length && isLabelChar(this.line.charCodeAt(this.pos))) this.pos++;
    return this.line.slice(start, this.pos);
  }

  /**
   * Reads `{a="x",b="y"}` into labels. When `nameAllowed`, a lone quoted string inside the braces
   * is the metric name (Prometheus 3); returns it.
   */
  private labelSet(labels: Labels, nameAllowed: boolean): string | undefined {
    this.pos++; // '{'
    let name: string | undefined;
    for (;;) {
      this.skipBlanks();
      const c = this.peek();
      if (c === 0x7d /* } */) {
        this.pos++;
        return name;
      }
      if (c === -1) throw this.error('unterminated label set (missing "}")');
      const wasQuoted = c === 0x22;
      const key = this.labelName();
      this.skipBlanks();
      if (wasQuoted && (this.peek() === 0x2c || this.peek() === 0x7d)) {
        if (!nameAllowed || name !== undefined) throw this.error(`unexpected quoted name ${JSON.stringify(clip(key))} in a label set`);
        name = key;
      } else {
        if (this.peek() !== 0x3d /* = */) throw this.error(`expected "=" after label name ${clip(key)}`);
        this.pos++;
        this.skipBlanks();
        if (this.peek() !== 0x22) throw this.error(`label ${clip(key)}: the value must be in double quotes`);
        const value = this.quoted('label value');
        if (Object.hasOwn(labels, key)) throw this.error(`label ${clip(key)} appears twice`);
        labels[key] = value;
      }
      this.skipBlanks();
      const sep = this.peek();
      if (sep === 0x2c /* , */) {
        this.pos++;
      } else if (sep !== 0x7d) {
        throw this.error(
          sep === -1 ? 'unterminated label set (missing "}")' : `expected "," or "}" in the label set, found ${JSON.stringify(this.line[this.pos])}`,
        );
      }
    }
  }

  /** A double-quoted string with \\, \" and \n escapes. */
  private quoted(what: string): string {
    this.pos++; // opening quote
    let out = '';
    let runStart = this.pos;
    while (this.pos < this.line.length) {
      const c = this.line.charCodeAt(this.pos);
      if (c === 0x22) {
        out += this.line.slice(runStart, this.pos);
        this.pos++;
        return out;
      }
      if (c === 0x5c /* \ */) {
        out += this.line.slice(runStart, this.pos);
        const next = this.line[this.pos + 1];
        if (next === '\\') out += '\\';
        else if (next === '"') out += '"';
        else if (next === 'n') out += '\n';
        else throw this.error(`invalid escape sequence ${JSON.stringify(`\\${next ?? ''}`)} in a ${what}`);
        this.pos += 2;
        runStart = this.pos;
        continue;
      }
      this.pos++;
    }
    throw this.error(`unterminated ${what} (missing closing quote)`);
  }
}

/** HELP text: \\ and \n (and OpenMetrics' \") unescaped; any other backslash is kept as written. */
function unescapeHelp(text: string): string {
  if (!text.includes('\\')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      const next = text[i + 1]!;
      if (next === '\\' || next === '"') {
        out += next;
        i++;
        continue;
      }
      if (next === 'n') {
        out += '\n';
        i++;
        continue;
      }
    }
    out += c;
  }
  return out;
}

function clip(s: string, n = 40): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}
