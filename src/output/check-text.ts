/**
 * The check report for a person, on stderr: one line per limit, then the counts. A check's name and
 * a result's message hold the cluster's words: each line is escaped (src/util/escape.ts), so it
 * stays one line.
 */
import { formatValue } from '../check/limits.js';
import type { CheckReport, CheckRun } from '../check/types.js';
import { formatDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';

const WORD = { passed: 'PASS ', failed: 'FAIL ', error: 'ERROR' } as const;

export function checkRunLines(run: CheckRun): string[] {
  return run.results.map((r) =>
    escapeTerminal(`${WORD[r.status]} ${run.name} › ${r.name}: ${formatValue(r.measured, r.unit)} (limit ${formatValue(r.limit, r.unit)}) — ${r.message}`),
  );
}

export function checkReportText(report: CheckReport): string {
  const lines = report.checks.flatMap(checkRunLines);
  const { counts } = report;
  lines.push(
    `${counts.checks} check${counts.checks === 1 ? '' : 's'}, ${counts.results} limit${counts.results === 1 ? '' : 's'}: ${counts.passed} passed, ${counts.failed} failed, ${counts.errors} not measured (${formatDuration(report.durationMs)}; exit ${report.exitCode})`,
  );
  return `${lines.join('\n')}\n`;
}
