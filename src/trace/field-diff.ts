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
  // The same value (a string, a number, one object): nothing changed below it.
  if (a === b) return;
  if (IGNORED.has(path)) return;
  if (isObject(a) && isObject(b)) {
    // The keys of both, in the order of a's, then b's own.
    for (const k in a) if (Object.hasOwn(a, k)) walk(a[k], b[k], join(path, k), out);
    for (const k in b) if (Object.hasOwn(b, k) && !Object.hasOwn(a, k)) walk(a[k], b[k], join(path, k), out);
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
  // Two different strings, booleans or finite numbers differ as JSON too: no need to write it.
  if (!(isPlainLeaf(a) && isPlainLeaf(b)) && JSON.stringify(a) === JSON.stringify(b)) return;
  out.push({ path, ...(a === undefined ? {} : { from: short(a) }), ...(b === undefined ? {} : { to: short(b) }) });
}

function isPlainLeaf(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
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
