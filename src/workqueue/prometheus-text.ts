/**
 * The bits of the Prometheus text exposition format (version 0.0.4) the in-memory provider
 * writes: sample values and label values formatted as client_golang's expfmt does, so our output
 * diffs cleanly against a real controller's /metrics.
 */

/**
 * A float as Go's strconv.FormatFloat(v, 'g', -1, 64), which expfmt uses: shortest round-trip
 * digits, in exponent form when the decimal exponent is < -4 or >= 6 (JavaScript waits until
 * 1e21), with a sign and at least two exponent digits: 1e+06, 1e-08.
 */
export function formatFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return '0';
  const [mantissa, expText] = v.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  // In this range JavaScript prints plain decimals with the same shortest digits.
  return String(v);
}

/** Escapes a label value: backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** Escapes HELP text: backslash and line feed. */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
