/**
 * Go-style durations as kubectl users write them: "300ms", "30s", "5m", "1h30m", "1.5s".
 * Returns milliseconds; throws a plain Error naming the bad value.
 */
const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string): number {
  const s = text.trim();
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * units[m[2]!]!;
    matched = re.lastIndex;
  }
  if (matched === 0 || matched !== s.length) {
    throw new Error(`invalid duration "${text}": expected a number with a unit, e.g. 500ms, 30s, 2m, 1h`);
  }
  return total;
}

/** 1234 -> "1.23s", 65000 -> "1m5s", 12 -> "12ms". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  const sign = ms < 0 ? '-' : '';
  const a = Math.abs(ms);
  if (a < 1000) return `${sign}${Math.round(a)}ms`;
  if (a < 60_000) return `${sign}${(a / 1000).toFixed(a < 10_000 ? 2 : 1)}s`;
  const m = Math.floor(a / 60_000);
  const sec = Math.round((a % 60_000) / 1000);
  if (m < 60) return `${sign}${m}m${sec ? `${sec}s` : ''}`;
  const h = Math.floor(m / 60);
  return `${sign}${h}h${m % 60 ? `${m % 60}m` : ''}`;
}

/** A compact duration for columns: 850ms, 4.2s, 12s, 3m10s, 2h5m, 3d4h. */
export function shortDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '-';
  const sign = ms < 0 ? '-' : '';
  const a = Math.abs(ms);
  if (a < 1000) return `${sign}${Math.round(a)}ms`;
  if (a < 10_000) return `${sign}${(a / 1000).toFixed(1)}s`;
  const s = Math.floor(a / 1000);
  if (s < 60) return `${sign}${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${sign}${m}m${s % 60 ? `${s % 60}s` : ''}`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${sign}${h}h${m % 60 ? `${m % 60}m` : ''}`;
  return `${sign}${Math.floor(h / 24)}d${h % 24 ? `${h % 24}h` : ''}`;
}

/** A duration as a flag takes it: 5000 -> "5s", 1500 -> "1500ms". */
export function flagDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** Age as kubectl prints it: 5s, 3m, 2h, 4d. */
export function age(fromIso: string | undefined, now: number): string {
  if (!fromIso) return '<unknown>';
  const ms = now - Date.parse(fromIso);
  if (!Number.isFinite(ms)) return '<unknown>';
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}
