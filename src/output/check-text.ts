/** The check report for a person, on stderr: one line per limit, then the counts. */
import { formatValue } from '../check/limits.js';
import type { CheckReport, CheckRun } from '../check/types.js';
import { formatDuration } from '../util/duration.js';

const WORD = { passed: 'PASS ', failed: 'FAIL ', error: 'ERROR' } as const;

export function checkRunLines(run: CheckRun): string[] {
  return run.results.map((r) => `${WORD[r.status]} ${run.name} › ${r.name}: ${formatValue(r.measured, r.unit)} (limit ${formatValue(r.limit, r.unit)}) — ${r.message}`);
}

export function checkReportText(report: CheckReport): string {
  const lines = report.checks.flatMap(checkRunLines);
  const { counts } = report;
  lines.push(
    `${counts.checks} check${counts.checks === 1 ? '' : 's'}, ${counts.results} limit${counts.results === 1 ? '' : 's'}: ${counts.passed} passed, ${counts.failed} failed, ${counts.errors} not measured (${formatDuration(report.durationMs)}; exit ${report.exitCode})`,
  );
  return `${lines.join('\n')}\n`;
}
