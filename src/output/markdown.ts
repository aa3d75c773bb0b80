/**
 * The check report as GitHub-flavoured Markdown, for $GITHUB_STEP_SUMMARY: a headline and one table
 * row per limit. Cell text is escaped so a message cannot break the table or inject HTML: pipes,
 * backslashes and the HTML-special characters become entities, newlines become <br>.
 */
import { formatValue } from '../check/limits.js';
import type { CheckReport } from '../check/types.js';
import { formatDuration } from '../util/duration.js';

export function escapeCell(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\\/g, '&#92;')
    .replace(/\|/g, '&#124;')
    .replace(/`/g, '&#96;')
    .replace(/\r?\n/g, '<br>');
}

const MARK = { passed: '✅', failed: '❌', error: '⚠️' } as const;

export function checkReportMarkdown(report: CheckReport): string {
  const { counts } = report;
  const verdict = report.passed
    ? `✅ all ${counts.results} passed`
    : `${counts.failed ? `❌ ${counts.failed} failed` : ''}${counts.failed && counts.errors ? ', ' : ''}${counts.errors ? `⚠️ ${counts.errors} not measured` : ''} of ${counts.results}`;
  const lines = [
    `### ${escapeCell(report.command)}: ${verdict}`,
    '',
    `${counts.checks} check${counts.checks === 1 ? '' : 's'} in ${formatDuration(report.durationMs)}, exit code ${report.exitCode}.`,
    '',
    '| | Check | Limit | Measured | Allowed | Details |',
    '|---|---|---|---|---|---|',
  ];
  for (const run of report.checks) {
    for (const r of run.results) {
      lines.push(`| ${MARK[r.status]} | ${escapeCell(run.name)} | ${escapeCell(r.name)} | ${escapeCell(formatValue(r.measured, r.unit))} | ${escapeCell(`≤ ${formatValue(r.limit, r.unit)}`)} | ${escapeCell(r.message)} |`);
    }
  }
  return `${lines.join('\n')}\n\n`;
}
