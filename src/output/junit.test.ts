import { describe, expect, it } from 'vitest';
import type { CheckReport } from '../check/types.js';
import { controlsIn, HOSTILE, SHOWN } from '../../tools/testing/hostile.js';
import { allElements, parseXml } from '../../tools/testing/xml.js';
import { checkReportJunit } from './junit.js';

/** A strict enough well-formedness check: balanced tags, quoted attributes, valid entities, only XML 1.0 characters. */
function assertWellFormed(xml: string): void {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  expect(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.test(xml)).toBe(false);
  const body = xml.slice(xml.indexOf('\n') + 1);
  const entity = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/y;
  const checkAmps = (s: string): void => {
    for (let i = s.indexOf('&'); i !== -1; i = s.indexOf('&', i + 1)) {
      entity.lastIndex = i;
      expect(entity.test(s), `bad entity at ${s.slice(i, i + 12)}`).toBe(true);
    }
  };
  const stack: string[] = [];
  const token = /<(\/?)([A-Za-z][\w-]*)((?:\s+[\w-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = token.exec(body)) !== null) {
    consumed = token.lastIndex;
    if (m[5] !== undefined) {
      checkAmps(m[5]);
      continue;
    }
    checkAmps(m[3] ?? '');
    if (m[1]) expect(stack.pop()).toBe(m[2]);
    else if (!m[4]) stack.push(m[2]!);
  }
  expect(consumed, `unparsed from: ${body.slice(consumed, consumed + 40)}`).toBe(body.length);
  expect(stack).toEqual([]);
}

const nasty = 'a <b> & "c" \'d\'\n\ttab \u0001 bell \u0007 \uD800 lone ]]> end';

const report: CheckReport = {
  command: 'kubectl informer-trace check',
  passed: false,
  exitCode: 1,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 12_345,
  counts: { checks: 2, results: 3, passed: 1, failed: 1, errors: 1 },
  checks: [
    {
      name: 'rollout deploy/web in demo',
      kind: 'rollout',
      description: 'restart; converge ≤ 1m',
      origin: { source: 'health.yaml', line: 3, column: 5 },
      startedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 4_200,
      results: [{ name: 'time to converge', passed: true, status: 'passed', measured: 4_000, limit: 60_000, unit: 'ms', message: 'converged in 4.00s' }],
    },
    {
      name: `lease ${nasty}`,
      kind: 'lease',
      description: 'watch 30s; renew age ≤ 10s',
      origin: { source: 'flags' },
      startedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 12_000,
      results: [
        { name: 'renew age', passed: false, status: 'failed', measured: 21_000, limit: 10_000, unit: 'ms', message: `no renewal: ${nasty}` },
        { name: 'transitions', passed: false, status: 'error', measured: null, limit: 2, unit: 'count', message: 'forbidden (403)', exitCode: 3 },
      ],
    },
  ],
};

describe('JUnit XML', () => {
  it('writes one suite per check and one case per limit, failures and errors apart, well-formed whatever the messages hold', () => {
    const xml = checkReportJunit(report);
    assertWellFormed(xml);
    expect(xml).toContain(
      '<testsuites name="kubectl informer-trace check" tests="3" failures="1" errors="1" time="12.345" timestamp="2026-01-01T00:00:00.000Z">',
    );
    expect(xml).toContain('<testsuite name="rollout deploy/web in demo" tests="1" failures="0" errors="0" skipped="0" time="4.200"');
    expect(xml).toContain('<testcase classname="rollout.rollout deploy/web in demo" name="rollout deploy/web in demo: time to converge" time="4.200">');
    expect(xml).toContain('<system-out>time to converge: 4.00s (limit 1m)\nconverged in 4.00s</system-out>');
    expect(xml).toContain(
      '<failure message="renew age: 21.0s (limit 10.0s): no renewal: a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;&#10;&#9;tab \\x01 bell \\x07 \\ud800 lone ]]&gt; end" type="LimitExceeded">',
    );
    expect(xml).toContain('<error message="transitions: - (limit 2): forbidden (403)" type="NotMeasured">');
    expect(xml).toContain('measured: 21.0s\nlimit: 10.0s\ndefined in: flags\n');
    expect(xml.match(/<testcase /g)).toHaveLength(3);
  });

  it('a hostile check name and message: no raw control character, the escaped form shown, still well-formed', () => {
    const run = report.checks[1]!;
    const hostile: CheckReport = {
      ...report,
      checks: [{ ...run, name: `lease ${HOSTILE}`, description: HOSTILE, results: run.results.map((r) => ({ ...r, name: HOSTILE, message: HOSTILE })) }],
    };
    const xml = checkReportJunit(hostile);
    assertWellFormed(xml);
    expect(controlsIn(xml)).toEqual([]);
    expect(xml).not.toContain('<script>');
    expect(xml).toContain('&lt;script&gt;');
    expect(xml).toContain(']]&gt; \\x01');
    const root = parseXml(xml);
    const failure = allElements(root).find((e) => e.name === 'failure')!;
    for (const s of SHOWN) expect(failure.attributes.message).toContain(s);
    for (const s of SHOWN) expect(failure.text).toContain(s);
  });
});
