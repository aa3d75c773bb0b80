import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MetricsParseError, NotMetricsError, detectFormat, parseExposition, parseFloatStrict, type Exposition, type MetricFamily } from './parse.js';

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

function family(exp: Exposition, name: string): MetricFamily {
  const f = exp.families.find((x) => x.name === name);
  if (!f) throw new Error(`no family ${name} in ${exp.families.map((x) => x.name).join(', ')}`);
  return f;
}

function parseError(text: string, contentType?: string): MetricsParseError {
  try {
    parseExposition(text, { contentType });
  } catch (err) {
    expect(err).toBeInstanceOf(MetricsParseError);
    return err as MetricsParseError;
  }
  throw new Error('parsed without an error');
}

describe('parseExposition on kube-controller-manager metrics', () => {
  const exp = parseExposition(fixture('synthetic-kube-controller-manager.prom'), {
    contentType: 'text/plain; version=0.0.4; charset=utf-8; escaping=underscores',
  });

  it('reads Prometheus text with every family typed and helped', () => {
    expect(exp.format).toBe('prometheus');
    const q = family(exp, 'workqueue_queue_duration_seconds');
    expect(q.type).toBe('histogram');
    expect(q.help).toMatch(/How long in seconds an item stays in workqueue/);
    expect(family(exp, 'workqueue_adds_total').type).toBe('counter');
    expect(family(exp, 'workqueue_depth').type).toBe('gauge');
    expect(exp.families.every((f) => f.type !== 'untyped')).toBe(true);
  });

  it("keeps histogram samples in their family, with client-go's bucket bounds as written", () => {
    const q = family(exp, 'workqueue_queue_duration_seconds');
    const deployment = q.samples.filter((s) => s.labels.name === 'deployment');
    expect(deployment.map((s) => s.name)).toEqual([
      ...Array(11).fill('workqueue_queue_duration_seconds_bucket'),
      'workqueue_queue_duration_seconds_sum',
      'workqueue_queue_duration_seconds_count',
    ]);
    const les = deployment.filter((s) => s.labels.le !== undefined).map((s) => s.labels.le);
    expect(les).toContain('9.999999999999999e-06');
    expect(les.at(-1)).toBe('+Inf');
    expect(deployment.at(-1)!.value).toBe(126);
  });

  it('reads summaries with quantile labels and leader election gauges', () => {
    const gc = family(exp, 'go_gc_duration_seconds');
    expect(gc.type).toBe('summary');
    expect(gc.samples.filter((s) => s.name === 'go_gc_duration_seconds').map((s) => s.labels.quantile)).toEqual(['0', '0.25', '0.5', '0.75', '1']);
    expect(gc.samples.find((s) => s.name === 'go_gc_duration_seconds_count')!.value).toBe(97);
    const leader = family(exp, 'leader_election_master_status').samples;
    expect(leader).toEqual([{ name: 'leader_election_master_status', labels: { name: 'kube-controller-manager' }, value: 1 }]);
    expect(family(exp, 'process_resident_memory_bytes').samples[0]!.value).toBe(114843648);
  });
});

describe('parseExposition on real v1.37.2 control-plane scrapes', () => {
  const captured = JSON.parse(fixture('captured.json')) as { contentType: string };
  it.each(['kube-controller-manager.prom', 'kube-controller-manager.2.prom', 'kube-scheduler.prom', 'kube-apiserver.prom', 'kube-apiserver.2.prom'])(
    'reads %s with every sample in a typed family',
    (name) => {
      const text = fixture(name);
      const exp = parseExposition(text, { contentType: captured.contentType });
      expect(exp.format).toBe('prometheus');
      expect(exp.families.filter((f) => f.type === 'untyped').map((f) => f.name)).toEqual([]);
      // Every sample line of the file is in some family.
      const sampleLines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
      expect(exp.families.reduce((n, f) => n + f.samples.length, 0)).toBe(sampleLines);
      // Every histogram series has a +Inf bucket equal to its _count.
      for (const f of exp.families.filter((x) => x.type === 'histogram')) {
        for (const count of f.samples.filter((s) => s.name === `${f.name}_count`)) {
          const inf = f.samples.find(
            (s) =>
              s.labels.le === '+Inf' &&
              Object.keys(s.labels).length === Object.keys(count.labels).length + 1 &&
              Object.entries(count.labels).every(([k, v]) => s.labels[k] === v),
          );
          expect(inf?.value, `${f.name} ${JSON.stringify(count.labels)}`).toBe(count.value);
        }
      }
    },
  );

  it('reads the workqueue and leader election families of kube-controller-manager', () => {
    const exp = parseExposition(fixture('kube-controller-manager.prom'), { contentType: captured.contentType });
    expect(family(exp, 'workqueue_depth').help).toBe('[BETA] Current depth of workqueue');
    const names = family(exp, 'workqueue_adds_total').samples.map((s) => s.labels.name);
    expect(names).toEqual(expect.arrayContaining(['deployment', 'replicaset', 'endpoint_slice', 'garbage_collector_graph_changes']));
    expect(family(exp, 'leader_election_master_status').samples.map((s) => [s.labels.name, s.value])).toEqual([['kube-controller-manager', 1]]);
    const les = family(exp, 'workqueue_work_duration_seconds')
      .samples.filter((s) => s.labels.name === 'deployment' && s.labels.le !== undefined)
      .map((s) => s.labels.le);
    expect(les).toEqual(['1e-08', '1e-07', '1e-06', '9.999999999999999e-06', '9.999999999999999e-05', '0.001', '0.01', '0.1', '1', '10', '+Inf']);
  });
});

describe('parseExposition of some families only', () => {
  const captured = JSON.parse(fixture('captured.json')) as { contentType: string };
  const QUEUES = ['workqueue_', 'leader_election_master_status'];

  it.each(['kube-apiserver.prom', 'kube-controller-manager.prom', 'controller-runtime.prom', 'openmetrics.txt'])(
    'reads from %s exactly the families it would have read whole',
    (name) => {
      const text = fixture(name);
      const contentType = name === 'openmetrics.txt' ? 'application/openmetrics-text; version=1.0.0' : captured.contentType;
      const whole = parseExposition(text, { contentType }).families.filter((f) => QUEUES.some((p) => f.name.startsWith(p)));
      const some = parseExposition(text, { contentType, families: QUEUES });
      expect(some.families).toEqual(whole);
      if (name !== 'openmetrics.txt') expect(some.families.length).toBeGreaterThan(0);
    },
  );

  it("passes over the API server's other families: a small part of its samples", () => {
    const text = fixture('kube-apiserver.prom');
    const all = parseExposition(text, { contentType: captured.contentType });
    const some = parseExposition(text, { contentType: captured.contentType, families: QUEUES });
    const count = (e: Exposition): number => e.families.reduce((n, f) => n + f.samples.length, 0);
    expect(count(some)).toBeGreaterThan(0);
    expect(count(some) * 5).toBeLessThan(count(all));
  });

  it('still fails on a line that is no sample, with its own line number', () => {
    const text = '# TYPE other_total counter\nother_total 1\nother_total{a="b"} oops\nworkqueue_depth{name="x"} 2\n';
    expect(() => parseExposition(text, { families: ['workqueue_'] })).toThrow(/line 3: invalid value "oops" for other_total/);
    expect(() => parseExposition('hello there\n', { families: ['workqueue_'] })).toThrow(MetricsParseError);
    const err = (() => {
      try {
        parseExposition('other 1\nother 2\nworkqueue_depth{name="x" 2\n', { families: ['workqueue_'] });
      } catch (e) {
        return e as MetricsParseError;
      }
      return undefined;
    })();
    expect(err?.line).toBe(3);
  });

  it('keeps a family whose samples come apart from its HELP and TYPE lines, and # EOF', () => {
    const text = '# HELP workqueue_depth d\n# TYPE workqueue_depth gauge\nother 1\nworkqueue_depth{name="a"} 3\n# EOF\n';
    const exp = parseExposition(text, { contentType: 'application/openmetrics-text; version=1.0.0', families: ['workqueue_'] });
    expect(exp.families).toEqual([
      { name: 'workqueue_depth', type: 'gauge', help: 'd', unit: '', samples: [{ name: 'workqueue_depth', labels: { name: 'a' }, value: 3 }] },
    ]);
  });
});

describe('parseExposition on OpenMetrics', () => {
  const text = fixture('openmetrics.txt');
  const exp = parseExposition(text, { contentType: 'application/openmetrics-text; version=1.0.0; charset=utf-8' });

  it('files _total and _created samples under the counter family', () => {
    expect(exp.format).toBe('openmetrics');
    const adds = family(exp, 'workqueue_adds');
    expect(adds.type).toBe('counter');
    expect(adds.samples.map((s) => [s.name, s.value])).toEqual([
      ['workqueue_adds_total', 42],
      ['workqueue_adds_created', 1764512041.8],
    ]);
    expect(exp.families.some((f) => f.name === 'workqueue_adds_total')).toBe(false);
  });

  it('skips exemplars and keeps the bucket values, the unit and _created', () => {
    const h = family(exp, 'workqueue_queue_duration_seconds');
    expect(h.unit).toBe('seconds');
    const buckets = h.samples.filter((s) => s.name.endsWith('_bucket'));
    expect(buckets.map((s) => [s.labels.le, s.value])).toEqual([
      ['1e-06', 0],
      ['1e-05', 30],
      ['0.0001', 40],
      ['0.001', 42],
      ['+Inf', 42],
    ]);
    expect(buckets.every((s) => s.timestampMs === undefined)).toBe(true);
    expect(h.samples.some((s) => s.name === 'workqueue_queue_duration_seconds_created')).toBe(true);
  });

  it('reads NaN, ±Inf, escaped label values and timestamps in seconds', () => {
    const odd = family(exp, 'odd_values').samples;
    expect(odd[0]!.value).toBeNaN();
    expect(odd[1]!.value).toBe(Infinity);
    expect(odd[2]!.value).toBe(-Infinity);
    expect({ ...odd[3]!.labels }).toEqual({ case: 'escaped', path: 'C:\\dir\\file', quote: 'say "hi"', multi: 'line1\nline2' });
    expect(odd[3]!.value).toBe(0.0015);
    expect(odd[3]!.timestampMs).toBe(1764512100250);
    expect(family(exp, 'odd_values').help).toBe('Values Go writes for special floats, and a label value with every escape: \\ and \n.');
  });

  it('reads info, stateset and summary families', () => {
    expect(family(exp, 'build_info').samples[0]!.name).toBe('build_info_info');
    expect(family(exp, 'feature_gate').type).toBe('stateset');
    expect(family(exp, 'rpc_duration_seconds').samples).toHaveLength(4);
  });

  it('recognises OpenMetrics by its # EOF when the content type does not say', () => {
    expect(detectFormat(undefined, text)).toBe('openmetrics');
    expect(detectFormat('text/plain', 'a 1\n')).toBe('prometheus');
    expect(parseExposition(text).format).toBe('openmetrics');
  });

  it('refuses an OpenMetrics answer cut short before # EOF, and text after it', () => {
    const cut = text.slice(0, text.indexOf('# HELP build_info'));
    expect(parseError(cut, 'application/openmetrics-text; version=1.0.0').message).toMatch(/without "# EOF"/);
    expect(parseError(`${text}extra 1\n`).message).toMatch(/after "# EOF"/);
  });
});

describe('parseExposition details', () => {
  it('reads Prometheus timestamps as milliseconds', () => {
    const exp = parseExposition('# TYPE a gauge\na{x="1"} 3 1700000000123\n');
    expect(exp.families[0]!.samples[0]).toEqual({ name: 'a', labels: { x: '1' }, value: 3, timestampMs: 1700000000123 });
  });

  it('is lenient about CRLF, blank lines, tabs, trailing commas and spaces', () => {
    const exp = parseExposition('# HELP a Help.\r\n# TYPE a counter\r\n\r\na { x = "1" , y="2", }\t7\r\n\n   b 1\n');
    expect(family(exp, 'a').samples[0]).toEqual({ name: 'a', labels: { x: '1', y: '2' }, value: 7 });
    expect(family(exp, 'a').help).toBe('Help.');
    expect(family(exp, 'b').type).toBe('untyped');
  });

  it('keeps braces, commas and hashes inside label values', () => {
    const exp = parseExposition('m{a="}{,=# x",b="\\\\n"} 1\n');
    expect({ ...exp.families[0]!.samples[0]!.labels }).toEqual({ a: '}{,=# x', b: '\\n' });
  });

  it('treats a label named __proto__ as a label', () => {
    const labels = parseExposition('m{__proto__="x",constructor="y"} 1\n').families[0]!.samples[0]!.labels;
    expect(Object.keys(labels)).toEqual(['__proto__', 'constructor']);
    // biome-ignore lint/suspicious/noProto: the test is that a label named __proto__ is an own property, not the prototype
    expect(labels.__proto__).toBe('x');
  });

  it("reads Prometheus 3's quoted UTF-8 metric and label names", () => {
    const exp = parseExposition('# TYPE "my.metric" gauge\n{"my.metric", "le.x"="1", y="2"} 5\n');
    expect(exp.families).toHaveLength(1);
    expect(exp.families[0]!.type).toBe('gauge');
    expect(exp.families[0]!.samples[0]).toEqual({ name: 'my.metric', labels: { 'le.x': '1', y: '2' }, value: 5 });
  });

  it('merges a family whose lines are not together, and starts untyped families for stray samples', () => {
    const exp = parseExposition('# TYPE a gauge\na{x="1"} 1\nb 2\na{x="2"} 3\n');
    expect(family(exp, 'a').samples.map((s) => s.value)).toEqual([1, 3]);
    expect(family(exp, 'b').type).toBe('untyped');
  });

  it('accepts an empty exposition', () => {
    expect(parseExposition('').families).toEqual([]);
    expect(parseExposition('# just a comment\n').families).toEqual([]);
  });

  it.each([
    ['m{a="x\\ty"} 1', /line 1: invalid escape sequence "\\\\t" in a label value/],
    ['m{a="x} 1', /unterminated label value/],
    ['m{a="x"', /unterminated label set/],
    ['m{a=x} 1', /must be in double quotes/],
    ['m{a="1",a="2"} 1', /label a appears twice/],
    ['m{a="1" b="2"} 1', /expected "," or "}"/],
    ['m', /no value for m/],
    ['m{a="1"}', /no value for m/],
    ['m{a="1"}1', /unexpected character/],
    ['m abc', /invalid value "abc" for m/],
    ['m 1 2.5', /invalid timestamp "2.5" for m \(milliseconds expected\)/],
    ['m 1 2 3', /unexpected text "3"/],
    ['1m 1', /invalid metric name starting "1m 1"/],
    ['# TYPE m nonsense', /unknown metric type "nonsense"/],
    ['# TYPE m gauge\n# TYPE m counter', /line 2: second TYPE line for m/],
    ['m 1\n# TYPE m gauge', /TYPE line for m after its samples/],
    ['# TYPE h histogram\nh_bucket{x="1"} 1', /h_bucket has no "le" label/],
    ['# TYPE h histogram\nh_bucket{le="abc"} 1', /invalid le="abc"/],
    ['# TYPE s summary\ns 1', /s has no "quantile" label/],
    ['{} 1', /without a metric name/],
  ])('rejects %j with a message naming the problem', (text, message) => {
    expect(parseError(`${text}\n`).message).toMatch(message);
  });

  it('numbers the line that broke', () => {
    const err = parseError('a 1\nb 2\nc{ 3\n');
    expect(err.line).toBe(3);
    expect(err.message).toMatch(/^line 3: /);
  });
});

describe('answers that are not metrics', () => {
  const html = fixture('login-page.html');

  it('names the content type of an HTML page', () => {
    let err: unknown;
    try {
      parseExposition(html, { contentType: 'text/html; charset=utf-8' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NotMetricsError);
    expect((err as NotMetricsError).what).toBe('text/html');
    expect((err as NotMetricsError).message).toMatch(/^answered text\/html, not Prometheus metrics \(starts "<!DOCTYPE html> <html lang=\\"en\\">.*…"\)$/);
    expect(() => parseExposition(html, { contentType: 'text/html' })).toThrow(/^answered text\/html, not Prometheus metrics/);
  });

  it('sees an HTML page even when it is labelled text/plain', () => {
    expect(() => parseExposition(html, { contentType: 'text/plain' })).toThrow(
      /^answered an HTML page, not Prometheus metrics \(starts "<!DOCTYPE html>.*content type text\/plain\)$/,
    );
    expect(() => parseExposition('\n  <html><body>Forbidden</body></html>')).toThrow(/answered an HTML page/);
  });

  it('recognises JSON, by content type or by content', () => {
    const status = '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden","code":403}';
    expect(() => parseExposition(status, { contentType: 'application/json' })).toThrow(/^answered application\/json, not Prometheus metrics/);
    expect(() => parseExposition(status)).toThrow(/^answered JSON, not Prometheus metrics/);
    expect(() => parseExposition('[1,2,3]')).toThrow(/answered JSON/);
  });

  it('refuses protobuf and binary answers', () => {
    expect(() =>
      parseExposition('\u0008\u0001', { contentType: 'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited' }),
    ).toThrow(/protobuf/);
    expect(() => parseExposition('ab\u0000cd 1')).toThrow(/answered binary data/);
  });

  it('does not take a Prometheus 3 line starting with { for JSON', () => {
    expect(parseExposition('{"a.b"} 1\n').families[0]!.name).toBe('a.b');
  });
});

describe('parseFloatStrict', () => {
  it('reads what Go writes and nothing else', () => {
    expect(parseFloatStrict('1e-08')).toBe(1e-8);
    expect(parseFloatStrict('9.999999999999999e-06')).toBe(9.999999999999999e-6);
    expect(parseFloatStrict('-.5')).toBe(-0.5);
    expect(parseFloatStrict('+Inf')).toBe(Infinity);
    expect(parseFloatStrict('-inf')).toBe(-Infinity);
    expect(parseFloatStrict('NaN')).toBeNaN();
    expect(parseFloatStrict('')).toBeUndefined();
    expect(parseFloatStrict('1e')).toBeUndefined();
    expect(parseFloatStrict('0x10')).toBeUndefined();
    expect(parseFloatStrict(' 1')).toBeUndefined();
  });
});
