import { describe, expect, it } from 'vitest';
import { buildReport, exitCodeFor } from './run.js';
import type { CheckResult, CheckRun } from './types.js';

const result = (status: CheckResult['status'], exitCode?: 2 | 3 | 130): CheckResult => ({
  name: 'x',
  passed: status === 'passed',
  status,
  measured: 1,
  limit: 2,
  unit: 'count',
  message: '',
  ...(exitCode ? { exitCode } : {}),
});
const run = (...results: CheckResult[]): CheckRun => ({
  name: 'c',
  kind: 'lease',
  description: '',
  origin: { source: 'flags' },
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 5,
  results,
});

describe('the exit code of a check run', () => {
  it("is 0 when all pass, 1 when a limit failed (even beside errors), else the first error's code, 130 when interrupted", () => {
    expect(exitCodeFor([run(result('passed'))], false)).toBe(0);
    expect(exitCodeFor([run(result('passed')), run(result('failed'), result('error', 3))], false)).toBe(1);
    expect(exitCodeFor([run(result('error', 3)), run(result('error', 2))], false)).toBe(3);
    expect(exitCodeFor([run(result('error'))], false)).toBe(3);
    expect(exitCodeFor([run(result('failed'))], true)).toBe(130);
    expect(exitCodeFor([run(result('error', 130))], false)).toBe(130);
  });

  it('counts results by status', () => {
    const report = buildReport(
      'kubectl informer-trace check',
      Date.UTC(2026, 0, 1),
      [run(result('passed'), result('failed')), run(result('error', 3))],
      false,
      Date.UTC(2026, 0, 1) + 1500,
    );
    expect(report).toMatchObject({
      passed: false,
      exitCode: 1,
      durationMs: 1500,
      startedAt: '2026-01-01T00:00:00.000Z',
      counts: { checks: 2, results: 3, passed: 1, failed: 1, errors: 1 },
    });
  });
});
