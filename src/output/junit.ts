/**
 * JUnit XML for CI systems (GitHub Actions test reporters, GitLab, Jenkins): one <testsuite> per
 * check, one <testcase> per limit; a failed limit is a <failure>, one that could not be measured an
 * <error>.
 *
 * Written by hand rather than with a library: the format needs a dozen elements, and what matters
 * is escaping. Every text and attribute value goes through escapeXml (src/util/escape.ts), so any
 * message a cluster sends back still gives a well-formed file with no control character in it.
 */
import { formatValue } from '../check/limits.js';
import type { CheckReport, CheckResult, CheckRun } from '../check/types.js';
import { escapeXml } from '../util/escape.js';

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v), { attribute: true })}"`)
    .join('');
}

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

function details(run: CheckRun, r: CheckResult): string {
  return [
    `check: ${run.name}`,
    `asked: ${run.description}`,
    `measured: ${formatValue(r.measured, r.unit)}`,
    `limit: ${formatValue(r.limit, r.unit)}`,
    `defined in: ${run.origin.source}${run.origin.line ? `:${run.origin.line}` : ''}`,
    '',
    r.message,
  ].join('\n');
}

function testcase(run: CheckRun, r: CheckResult): string {
  const head = `    <testcase${attrs({ classname: `${run.kind}.${run.name}`, name: `${run.name}: ${r.name}`, time: seconds(run.durationMs) })}`;
  const summary = `${r.name}: ${formatValue(r.measured, r.unit)} (limit ${formatValue(r.limit, r.unit)})`;
  if (r.status === 'passed') return `${head}>\n      <system-out>${escapeXml(`${summary}\n${r.message}`)}</system-out>\n    </testcase>`;
  const tag = r.status === 'failed' ? 'failure' : 'error';
  const type = r.status === 'failed' ? 'LimitExceeded' : 'NotMeasured';
  return `${head}>\n      <${tag}${attrs({ message: `${summary}: ${r.message}`, type })}>${escapeXml(details(run, r))}</${tag}>\n    </testcase>`;
}

export function checkReportJunit(report: CheckReport): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(
    `<testsuites${attrs({ name: report.command, tests: report.counts.results, failures: report.counts.failed, errors: report.counts.errors, time: seconds(report.durationMs), timestamp: report.startedAt })}>`,
  );
  for (const run of report.checks) {
    const failures = run.results.filter((r) => r.status === 'failed').length;
    const errors = run.results.filter((r) => r.status === 'error').length;
    lines.push(
      `  <testsuite${attrs({ name: run.name, tests: run.results.length, failures, errors, skipped: 0, time: seconds(run.durationMs), timestamp: run.startedAt })}>`,
    );
    lines.push(`    <properties>`);
    lines.push(`      <property${attrs({ name: 'kind', value: run.kind })}/>`);
    lines.push(`      <property${attrs({ name: 'asked', value: run.description })}/>`);
    lines.push(`    </properties>`);
    for (const r of run.results) lines.push(testcase(run, r));
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
