import { describe, expect, it } from 'vitest';
import type { CheckReport } from '../check/types.js';
import { controlsIn, HOSTILE, SHOWN } from '../../tools/testing/hostile.js';
import { checkReportText } from './check-text.js';
import { checkReportMarkdown } from './markdown.js';

const report = (passed: boolean): CheckReport => ({
  command: 'kubectl lease-watch check',
  passed,
  exitCode: passed ? 0 : 1,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 31_000,
  counts: { checks: 1, results: 2, passed: passed ? 2 : 1, failed: passed ? 0 : 1, errors: 0 },
  checks: [
    {
      name: 'lease kube-system/kcm',
      kind: 'lease',
      description: 'watch 30s',
      origin: { source: 'flags' },
      startedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 30_000,
      results: [
        {
          name: 'renew age',
          passed: true,
          status: 'passed',
          measured: 2_100,
          limit: 20_000,
          unit: 'ms',
          message: 'longest without a renewal: 2.10s (holder a|b)',
        },
        { name: 'transitions', passed, status: passed ? 'passed' : 'failed', measured: 3, limit: passed ? 5 : 2, unit: 'count', message: 'a → b\n<script>' },
      ],
    },
  ],
});

describe('the Markdown summary', () => {
  it('has a verdict headline and a row per limit', () => {
    expect(checkReportMarkdown(report(false))).toBe(
      [
        '### kubectl lease-watch check: ❌ 1 failed of 2',
        '',
        '1 check in 31.0s, exit code 1.',
        '',
        '| | Check | Limit | Measured | Allowed | Details |',
        '|---|---|---|---|---|---|',
        '| ✅ | lease kube-system/kcm | renew age | 2.10s | ≤ 20.0s | longest without a renewal: 2.10s (holder a&#124;b) |',
        '| ❌ | lease kube-system/kcm | transitions | 3 | ≤ 2 | a → b<br>&lt;script&gt; |',
        '',
        '',
      ].join('\n'),
    );
    expect(checkReportMarkdown(report(true)).split('\n')[0]).toBe('### kubectl lease-watch check: ✅ all 2 passed');
  });

  it('the stderr summary has a line per limit and the counts', () => {
    expect(checkReportText(report(false))).toBe(
      [
        'PASS  lease kube-system/kcm › renew age: 2.10s (limit 20.0s) — longest without a renewal: 2.10s (holder a|b)',
        'FAIL  lease kube-system/kcm › transitions: 3 (limit 2) — a → b\\n<script>',
        '1 check, 2 limits: 1 passed, 1 failed, 0 not measured (31.0s; exit 1)',
        '',
      ].join('\n'),
    );
  });

  it('a hostile name and message stay in their cell: no raw control, no HTML, no pipe, one row per limit', () => {
    const r = report(false);
    const run = r.checks[0]!;
    const hostile = {
      ...r,
      checks: [{ ...run, name: HOSTILE, results: run.results.map((x) => ({ ...x, name: HOSTILE, message: `${HOSTILE}\nsecond line` })) }],
    };
    const md = checkReportMarkdown(hostile);
    expect(controlsIn(md)).toEqual([]);
    expect(md).not.toContain('<script>');
    expect(md).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(md).toContain('&#92;x1b&#91;2J');
    expect(md).toContain('&#92;u009b31m');
    const rows = md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| |'));
    expect(rows).toHaveLength(2);
    // Six columns: seven pipes, none from the cell text.
    for (const row of rows) expect(row.split('|')).toHaveLength(8);
  });

  it('the stderr summary shows a hostile message escaped, a line per limit', () => {
    const r = report(false);
    const run = r.checks[0]!;
    const text = checkReportText({ ...r, checks: [{ ...run, name: HOSTILE, results: run.results.map((x) => ({ ...x, message: HOSTILE })) }] });
    expect(controlsIn(text)).toEqual([]);
    for (const s of SHOWN) expect(text).toContain(s);
    expect(text.split('\n')).toHaveLength(4);
  });
});
