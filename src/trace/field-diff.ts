/**
 * A compact field diff of two versions of an object: the leaf fields that changed, with short
 * values, for the hop detail ("status.readyReplicas 2 → 3"), not a YAML dump. Lists of objects
 * keyed by `type` (conditions) or `name` (containers, container statuses) are compared item by
 * item under that key; other lists as a whole. Bookkeeping that changes on every write
 * (resourceVersion, managedFields) is left out. A value longer than MAX_VALUE characters is cut
 * and says its whole size ("aaaa… (1.4 MiB)"), so a huge annotation costs one short line.
 */
import type { FieldChange } from './types.js';

const IGNORED = new Set(['metadata.resourceVersion', 'metadata.managedFields']);
const MAX_VALUE = 48;

export function fieldDiff(before: unknown, after: unknown, limit = 12): FieldChange[] {
  const out: FieldChange[] = [];
  walk(before, after, '', out);
  if (out.length <= limit) return out;
  const shown = out.slice(0, limit - 1);
  shown.push({ path: `… ${out.length - shown.length} more fields` });
  return shown;
}

function walk(a: unknown, b: unknown, path: string, out: FieldChange[]): void {
  if (IGNORED.has(path)) return;
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) walk(a[k], b[k], join(path, k), out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const key = keyOf(a) ?? keyOf(b);
    if (key && (keyOf(a) ?? key) === key && (keyOf(b) ?? key) === key) {
      const byKey = (xs: unknown[]): Map<string, unknown> => new Map(xs.map((x) => [String((x as Record<string, unknown>)[key]), x]));
      const ma = byKey(a);
      const mb = byKey(b);
      for (const k of new Set([...ma.keys(), ...mb.keys()])) walk(ma.get(k), mb.get(k), `${path}[${k}]`, out);
      return;
    }
  }
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  out.push({ path, ...(a === undefined ? {} : { from: short(a) }), ...(b === undefined ? {} : { to: short(b) }) });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The field that names the items of a list of objects, when every item has it. */
function keyOf(xs: unknown[]): string | undefined {
  if (xs.length === 0) return undefined;
  for (const k of ['type', 'name']) if (xs.every((x) => isObject(x) && typeof x[k] === 'string')) return k;
  return undefined;
}

function join(path: string, k: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) return path ? `${path}.${k}` : k;
  return `${path}[${JSON.stringify(k)}]`;
}

function short(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE - 1)}… (${size(Buffer.byteLength(s))})` : s;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
