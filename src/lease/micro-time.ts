/**
 * metav1.MicroTime as Lease specs carry it: RFC 3339 in UTC with exactly six fractional digits
 * ("2026-01-01T00:00:00.000000Z"). Kept as strings in records so a time written by a Go holder
 * survives a round trip through us with its microseconds intact.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Clock milliseconds (fractions become microseconds) as a MicroTime string. */
export function formatMicroTime(ms: number): string {
  let whole = Math.floor(ms);
  let micro = Math.round((ms - whole) * 1000);
  if (micro >= 1000) {
    whole += 1;
    micro -= 1000;
  }
  const iso = new Date(whole).toISOString();
  const millis = ((whole % 1000) + 1000) % 1000;
  return `${iso.slice(0, 19)}.${String(millis * 1000 + micro).padStart(6, '0')}Z`;
}

/** Milliseconds since the epoch (microseconds as the fraction), or undefined if unparseable. */
export function parseMicroTime(text: string): number | undefined {
  const parts = splitTime(text);
  return parts && parts.seconds * 1000 + parts.micros / 1000;
}

/**
 * The same instant in canonical MicroTime form (UTC, six digits, extra digits truncated as Go
 * truncates nanoseconds). Text that is not RFC 3339 is returned unchanged.
 */
export function normalizeMicroTime(text: string): string {
  const parts = splitTime(text);
  if (!parts) return text;
  const iso = new Date(parts.seconds * 1000).toISOString();
  return `${iso.slice(0, 19)}.${String(parts.micros).padStart(6, '0')}Z`;
}

/**
 * The instant at second precision, "2026-01-01T00:00:00Z": what metav1.Time (not MicroTime)
 * marshals to, and therefore what the leader-election record's JSON holds.
 */
export function toRfc3339Seconds(text: string): string {
  const parts = splitTime(text);
  if (!parts) return text;
  return `${new Date(parts.seconds * 1000).toISOString().slice(0, 19)}Z`;
}

function splitTime(text: string): { seconds: number; micros: number } | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  let seconds = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000;
  if (!Number.isFinite(seconds)) return undefined;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const [oh, om] = zone.slice(1).split(':').map(Number) as [number, number];
    seconds -= sign * (oh * 3600 + om * 60);
  }
  const micros = frac ? Number(frac.slice(0, 6).padEnd(6, '0')) : 0;
  return { seconds, micros };
}
