/**
 * The check report as GitHub-flavoured Markdown, for $GITHUB_STEP_SUMMARY: a headline and one table
 * row per limit. Cell text goes through escapeMarkdown (src/util/escape.ts), so a message cannot
 * break the table, format itself or inject HTML.
 */
import { formatValue } from '../check/limits.js';
import type { CheckReport } from '../check/types.js';
import { formatDuration } from '../util/duration.js';
import { escapeMarkdown } from '../util/escape.js';

const MARK = { passed: '✅', failed: '❌', error: '⚠️' } as const;

export function checkReportMarkdown(report: CheckReport): string {
  const { counts } = report;
  const verdict = report.passed
    ? `✅ all ${counts.results} passed`
    : `${counts.failed ? `❌ ${counts.failed} failed` : ''}${counts.failed && counts.errors ? ', ' : ''}${counts.errors ? `⚠️ ${counts.errors} not measured` : ''} of ${counts.results}`;
  const lines = [
    `### ${escapeMarkdown(report.command)}: ${verdict}`,
    '',
    `${counts.checks} check${counts.checks === 1 ? '' : 's'} in ${formatDuration(report.durationMs)}, exit code ${report.exitCode}.`,
    '',
    '| | Check | Limit | Measured | Allowed | Details |',
    '|---|---|---|---|---|---|',
  ];
  for (const run of report.checks) {
    for (const r of run.results) {
      lines.push(
        `| ${MARK[r.status]} | ${escapeMarkdown(run.name)} | ${escapeMarkdown(r.name)} | ${escapeMarkdown(formatValue(r.measured, r.unit))} | ${escapeMarkdown(`≤ ${formatValue(r.limit, r.unit)}`)} | ${escapeMarkdown(r.message)} |`,
      );
    }
  }
  return `${lines.join('\n')}\n\n`;
}
