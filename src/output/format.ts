/** json / yaml / ndjson rendering for every command's -o. */
import type { Writable } from 'node:stream';
import { stringify } from 'yaml';

export type StructuredFormat = 'json' | 'yaml';

export function renderStructured(value: unknown, format: StructuredFormat): string {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  // An object met twice (a hop's object is also the next hop's owner) is written out again, as
  // JSON and kubectl write it, not as a YAML anchor and alias.
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** One NDJSON line: the value as compact JSON and a newline. */
export function ndjsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/**
 * Writes one JSON line per value to `out`, in order. The lines written in one turn of the event
 * loop (a reconcile's hops, a list's deltas) go out together: the stream is corked at the first
 * and uncorked on the next tick, so a pipe gets one writev instead of a write per line.
 */
export function ndjsonWriter(out: Writable): (value: unknown) => void {
  let corked = false;
  const uncork = (): void => {
    corked = false;
    out.uncork();
  };
  return (value) => {
    if (!corked) {
      corked = true;
      out.cork();
      process.nextTick(uncork);
    }
    out.write(ndjsonLine(value));
  };
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
