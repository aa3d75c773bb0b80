/**
 * Property tests for the parser with a seeded generator (a failure names its seed, and the same
 * seed reproduces it): random expositions in both formats come back with the same families,
 * labels and values; mutated and random garbage either parses or throws one of the parser's own
 * errors, quickly, and never anything else.
 */
import { describe, expect, it } from 'vitest';
import { MetricsParseError, NotMetricsError, parseExposition, type ExpositionFormat, type MetricType } from './parse.js';
import { rng } from '../../tools/testing/rng.js';

class Gen {
  constructor(readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  str(alphabet: readonly string[], max: number): string {
    let s = '';
    const n = this.int(max + 1);
    for (let i = 0; i < n; i++) s += this.pick(alphabet);
    return s;
  }
}

const NAME_START = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_'];
const NAME_CHAR = [...NAME_START, ...'0123456789'];
/** Label values: the escapes, the characters that end tokens, unicode, and plain letters. */
const VALUE_CHARS = ['\\', '"', '\n', '}', '{', ',', '=', '#', ' ', '\t', 'a', 'b', 'Z', '0', '9', '.', '-', 'é', '日', '🚀', '\\n', '\r', "'", '/'];
const HELP_CHARS = ['\\', '\n', 'a', 'b', ' ', '"', '#', '{', '}', 'é', 'x', 'y', '.'];
const SPECIAL_VALUES = [NaN, Infinity, -Infinity, 0, -0, 1, -1, 0.5, 1e-8, 9.999999999999999e-6, 1.7976931348623157e308, 5e-324, 123456789012, 0.1 + 0.2];

interface ExpectedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
  timestampMs?: number;
}
interface ExpectedFamily {
  name: string;
  type: MetricType;
  help: string;
  samples: ExpectedSample[];
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatValue(g: Gen, v: number): string {
  if (Number.isNaN(v)) return g.pick(['NaN', 'nan']);
  if (v === Infinity) return g.pick(['+Inf', 'Inf', '+inf']);
  if (v === -Infinity) return g.pick(['-Inf', '-inf']);
  if (Object.is(v, -0)) return '-0';
  return g.pick([String(v), v.toExponential(), v.toPrecision(17)]);
}

function randomName(g: Gen, taken: Set<string>): string {
  for (;;) {
    const name = g.pick(NAME_START) + g.str(NAME_CHAR, 12) + (g.chance(0.3) ? `:${g.str(NAME_CHAR, 3)}` : '');
    // Avoid names that another family's suffixes could claim, so ownership is unambiguous.
    if (/_(bucket|sum|count|total|created|info|gsum|gcount)$/.test(name)) continue;
    if ([...taken].some((t) => name.startsWith(t) || t.startsWith(name))) continue;
    taken.add(name);
    return name;
  }
}

function randomLabels(g: Gen, reserved: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  const n = g.int(4);
  for (let i = 0; i < n; i++) {
    const name =
      g.pick([...NAME_START.filter((c) => c !== ':'), '__']) +
      g.str(
        NAME_CHAR.filter((c) => c !== ':'),
        8,
      );
    if (reserved.includes(name) || name in labels) continue;
    labels[name] = g.str(VALUE_CHARS, 10);
  }
  return labels;
}

function randomValue(g: Gen): number {
  if (g.chance(0.3)) return g.pick(SPECIAL_VALUES);
  if (g.chance(0.5)) return g.int(1_000_000);
  return (g.next() - 0.5) * 10 ** (g.int(40) - 20);
}

/** A random exposition and the families it must parse into. */
function randomExposition(g: Gen, format: ExpositionFormat): { text: string; expected: ExpectedFamily[] } {
  const lines: string[] = [];
  const expected: ExpectedFamily[] = [];
  const taken = new Set<string>();
  const sp = (): string => (g.chance(0.8) ? ' ' : g.pick(['  ', '\t', ' \t']));
  const nFamilies = 1 + g.int(6);
  for (let f = 0; f < nFamilies; f++) {
    const base = randomName(g, taken);
    const type = g.pick<MetricType>(['counter', 'gauge', 'histogram', 'summary', format === 'openmetrics' ? 'unknown' : 'untyped']);
    const familyName = type === 'counter' && format === 'prometheus' ? `${base}_total` : base;
    const help = g.chance(0.7) ? g.str(HELP_CHARS, 20) : '';
    const typed = type !== 'untyped' || g.chance(0.5);
    // Help text keeps its leading blanks only when there are none (the parser trims the gap).
    const helpText = help.replace(/^[ \t]+/, '');
    if (help !== '' || g.chance(0.3)) lines.push(`# HELP ${familyName} ${escapeHelp(helpText)}`);
    if (typed) lines.push(`# TYPE ${familyName} ${type}`);
    const family: ExpectedFamily = { name: familyName, type: typed ? type : format === 'openmetrics' ? 'unknown' : 'untyped', help: helpText, samples: [] };
    const sample = (name: string, labels: Record<string, string>, value: number): void => {
      const keys = Object.keys(labels);
      let labelText = '';
      if (keys.length > 0 || g.chance(0.2)) {
        labelText = `{${keys.map((k) => `${k}${g.chance(0.1) ? ' ' : ''}="${escapeLabel(labels[k]!)}"`).join(g.chance(0.9) ? ',' : ', ')}${keys.length > 0 && g.chance(0.1) ? ',' : ''}}`;
      }
      let ts: number | undefined;
      let tsText = '';
      if (g.chance(0.2)) {
        if (format === 'prometheus') {
          ts = 1_700_000_000_000 + g.int(1_000_000_000);
          tsText = `${sp()}${ts}`;
        } else {
          const seconds = 1_700_000_000 + g.int(1_000_000) + g.int(1000) / 1000;
          ts = seconds * 1000;
          tsText = `${sp()}${seconds}`;
        }
      }
      const exemplar = format === 'openmetrics' && name.endsWith('_bucket') && g.chance(0.3) ? ` # {trace_id="${g.str(['a', 'b', '1'], 8)}"} ${g.next()}` : '';
      lines.push(`${name}${labelText}${sp()}${formatValue(g, value)}${tsText}${exemplar}`);
      const s: ExpectedSample = { name, labels, value };
      if (ts !== undefined) s.timestampMs = ts;
      family.samples.push(s);
    };
    const series = 1 + g.int(3);
    for (let i = 0; i < series; i++) {
      const labels = randomLabels(g, ['le', 'quantile']);
      if (!typed) {
        sample(familyName, labels, randomValue(g));
        continue;
      }
      switch (type) {
        case 'counter':
          sample(format === 'openmetrics' ? `${base}_total` : familyName, labels, Math.abs(g.int(1e9)));
          if (format === 'openmetrics' && g.chance(0.5)) sample(`${base}_created`, labels, 1_700_000_000 + g.int(1e6));
          break;
        case 'histogram': {
          let count = 0;
          const bounds = [...new Set(Array.from({ length: 1 + g.int(6) }, () => 10 ** (g.int(12) - 9)))].sort((a, b) => a - b);
          for (const le of bounds) {
            count += g.int(50);
            sample(`${base}_bucket`, { ...labels, le: formatValue(g, le) }, count);
          }
          sample(`${base}_bucket`, { ...labels, le: '+Inf' }, count);
          sample(`${base}_sum`, labels, g.next() * 100);
          sample(`${base}_count`, labels, count);
          break;
        }
        case 'summary':
          for (const q of ['0.5', '0.9', '0.99']) sample(base, { ...labels, quantile: q }, g.next());
          sample(`${base}_sum`, labels, g.next() * 100);
          sample(`${base}_count`, labels, g.int(1000));
          break;
        default:
          sample(familyName, labels, randomValue(g));
      }
    }
    expected.push(family);
    if (g.chance(0.2)) lines.push(`# a plain comment ${g.str(HELP_CHARS, 10).replace(/\n/g, ' ')}`);
    if (g.chance(0.1)) lines.push('');
  }
  if (format === 'openmetrics') lines.push('# EOF');
  return { text: `${lines.join(g.chance(0.1) ? '\r\n' : '\n')}\n`, expected };
}

function plain(exp: ReturnType<typeof parseExposition>): ExpectedFamily[] {
  return exp.families.map((f) => ({
    name: f.name,
    type: f.type,
    help: f.help,
    samples: f.samples.map((s) => ({ ...s, labels: { ...s.labels } })),
  }));
}

describe('parser round trip (seeded random expositions)', () => {
  for (const format of ['prometheus', 'openmetrics'] as const) {
    it(`reads back every family, label and value of 400 random ${format} expositions`, () => {
      for (let seed = 1; seed <= 400; seed++) {
        const g = new Gen(rng(seed * 7919 + (format === 'openmetrics' ? 1 : 0)));
        const { text, expected } = randomExposition(g, format);
        let got: ExpectedFamily[];
        try {
          got = plain(
            parseExposition(text, { contentType: format === 'openmetrics' ? 'application/openmetrics-text; version=1.0.0' : 'text/plain; version=0.0.4' }),
          );
        } catch (err) {
          throw new Error(`seed ${seed}: ${(err as Error).message}\n${text}`);
        }
        expect(got, `seed ${seed}\n${text}`).toEqual(expected);
      }
    });
  }

  it('reads label values made only of escapes and quotes', () => {
    const g = new Gen(rng(99));
    for (let i = 0; i < 500; i++) {
      const value = g.str(['\\', '"', '\n', '\\n', '\\\\', '}'], 12);
      const exp = parseExposition(`m{v="${escapeLabel(value)}"} 1\n`);
      expect(exp.families[0]!.samples[0]!.labels.v).toBe(value);
    }
  });
});

const NASTY = [
  '{',
  '}',
  '"',
  '\\',
  '=',
  ',',
  '#',
  ' ',
  '\t',
  '\n',
  '\r',
  'a',
  '_',
  '1',
  '.',
  'e',
  '+',
  '-',
  'Inf',
  'NaN',
  '# TYPE ',
  '# HELP ',
  '# EOF',
  'le="',
  '\u0000',
  '<',
  '[',
  'é',
  '🚀',
];

/** Runs the parser; anything other than a result or one of its own errors fails the test. */
function survives(text: string, contentType?: string): 'ok' | 'parse' | 'not-metrics' {
  try {
    parseExposition(text, { contentType });
    return 'ok';
  } catch (err) {
    if (err instanceof MetricsParseError) {
      expect(err.message).toMatch(/^line \d+: |^the OpenMetrics exposition ends without/);
      return 'parse';
    }
    if (err instanceof NotMetricsError) return 'not-metrics';
    throw new Error(`unexpected ${(err as Error)?.name}: ${(err as Error)?.message} for ${JSON.stringify(text.slice(0, 300))}`);
  }
}

describe('parser on garbage', () => {
  it('turns 3000 mutated expositions into a result or a clean error', () => {
    const outcomes = { ok: 0, parse: 0, 'not-metrics': 0 };
    for (let seed = 1; seed <= 3000; seed++) {
      const g = new Gen(rng(seed));
      const format = g.chance(0.5) ? 'prometheus' : 'openmetrics';
      let { text } = randomExposition(g, format);
      const edits = 1 + g.int(5);
      for (let e = 0; e < edits; e++) {
        const at = g.int(text.length + 1);
        switch (g.int(4)) {
          case 0:
            text = text.slice(0, at) + g.pick(NASTY) + text.slice(at);
            break;
          case 1:
            text = text.slice(0, at) + text.slice(at + 1 + g.int(5));
            break;
          case 2:
            text = text.slice(0, at) + text.slice(g.int(text.length), g.int(text.length)) + text.slice(at);
            break;
          default:
            text = text.slice(0, at);
        }
      }
      outcomes[survives(text, g.chance(0.5) ? undefined : format === 'openmetrics' ? 'application/openmetrics-text' : 'text/plain')]++;
    }
    // The mutations must reach both sides of the parser, or this test proves little.
    expect(outcomes.ok).toBeGreaterThan(100);
    expect(outcomes.parse).toBeGreaterThan(1000);
  });

  it('turns 3000 random strings into a result or a clean error', () => {
    const g = new Gen(rng(4242));
    for (let i = 0; i < 3000; i++) survives(g.str(NASTY, 60));
  });

  it('stays linear on pathological input (no hang, no stack overflow)', () => {
    const big = 1_000_000;
    const cases = [
      '{'.repeat(big),
      `m{a="${'\\\\'.repeat(big / 2)}`,
      `m{${'a="b",'.repeat(big / 6)}} 1`,
      `# HELP m ${'\\'.repeat(big)}`,
      `m ${'1'.repeat(big)}`,
      `m{a="${'"'.repeat(big)}`,
      '\n'.repeat(big),
      `${'m{a="b"} 1\n'.repeat(big / 10)}`,
      `${'# TYPE '.repeat(big / 7)}`,
      `${'<'.repeat(big)}`,
    ];
    const started = performance.now();
    for (const text of cases) survives(text);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
