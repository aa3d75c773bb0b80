/**
 * Field paths for user-defined index functions: `spec.nodeName`, `status.phase`,
 * `metadata.labels.app`, `metadata.labels['app.kubernetes.io/name']`, `spec.containers[*].image`.
 *
 * No client-go counterpart (client-go index functions are Go code); this is the small language a
 * CLI flag can carry. Paths are parsed once, up front, so a typo fails before any network call.
 *
 * Grammar: an optional leading `.`, then steps:
 *   name         letters, digits, `_`, `-`        (a field of an object)
 *   ['key']      any text in single or double quotes, `\` escapes the quote or itself
 *   [N]          the N-th element of an array
 *   [*]          every element of an array, or every value of an object
 * Evaluating: a name step applied to an array applies to every element, so `metadata.ownerReferences.uid`
 * yields every owner's UID. Strings are returned as they are, numbers and booleans as text; objects,
 * null and missing fields yield nothing. Duplicates are dropped.
 */
export type FieldPathStep = { kind: 'field'; name: string } | { kind: 'index'; index: number } | { kind: 'all' };

export interface FieldPath {
  /** The path in canonical form. */
  readonly path: string;
  readonly steps: readonly FieldPathStep[];
  /** Every scalar value found at the path, as strings, without duplicates. */
  evaluate(obj: unknown): string[];
}

const EXAMPLES = `e.g. spec.nodeName, metadata.labels.app, metadata.labels['app.kubernetes.io/name'], spec.containers[*].image`;

function fail(path: string, what: string, at: number): never {
  throw new Error(`invalid field path ${JSON.stringify(path)}: ${what} at character ${at + 1} (${EXAMPLES})`);
}

function isNameChar(c: string): boolean {
  return /[A-Za-z0-9_-]/.test(c);
}

/** Parses a field path; throws a plain Error with a readable message when it is not valid. */
export function parseFieldPath(path: string): FieldPath {
  if (typeof path !== 'string' || path.trim() === '') {
    throw new Error(`invalid field path ${JSON.stringify(path)}: it is empty (${EXAMPLES})`);
  }
  const steps: FieldPathStep[] = [];
  let i = 0;
  const n = path.length;
  const begin = path[0] === '.' ? 1 : 0;
  i = begin;
  let expectName = true; // at the start and after a dot a name (or bracket) must follow
  while (i < n) {
    const c = path[i] as string;
    if (c === '.') {
      if (expectName) fail(path, 'empty segment', i);
      expectName = true;
      i++;
      continue;
    }
    if (c === '[') {
      if (expectName && i !== begin) fail(path, "'[' right after '.'", i);
      const close = parseBracket(path, i, steps);
      i = close + 1;
      expectName = false;
      if (i < n && path[i] !== '.' && path[i] !== '[') fail(path, `unexpected ${JSON.stringify(path[i])} after ']'`, i);
      continue;
    }
    if (!expectName) fail(path, `unexpected ${JSON.stringify(c)}`, i);
    if (!isNameChar(c)) fail(path, `unexpected ${JSON.stringify(c)} (field names are letters, digits, '_' and '-'; quote other keys as ['key'])`, i);
    const start = i;
    while (i < n && isNameChar(path[i] as string)) i++;
    steps.push({ kind: 'field', name: path.slice(start, i) });
    expectName = false;
    if (i < n && path[i] !== '.' && path[i] !== '[') {
      fail(path, `unexpected ${JSON.stringify(path[i])} (quote keys with other characters as ['key'])`, i);
    }
  }
  if (expectName) fail(path, 'it ends with a dot', n - 1);
  return makeFieldPath(steps);
}

/** Parses `[...]` starting at `open`; pushes the step; returns the index of `]`. */
function parseBracket(path: string, open: number, steps: FieldPathStep[]): number {
  const n = path.length;
  let i = open + 1;
  if (i >= n) fail(path, "unclosed '['", open);
  const c = path[i] as string;
  if (c === "'" || c === '"') {
    let key = '';
    i++;
    for (;;) {
      if (i >= n) fail(path, `unclosed quote ${c}`, open + 1);
      const ch = path[i] as string;
      if (ch === '\\' && i + 1 < n) {
        key += path[i + 1];
        i += 2;
        continue;
      }
      if (ch === c) break;
      key += ch;
      i++;
    }
    i++; // past the closing quote
    if (path[i] !== ']') fail(path, "expected ']' after the quoted key", i);
    if (key === '') fail(path, 'empty quoted key', open);
    steps.push({ kind: 'field', name: key });
    return i;
  }
  if (c === '*') {
    if (path[i + 1] !== ']') fail(path, "expected ']' after '*'", i + 1);
    steps.push({ kind: 'all' });
    return i + 1;
  }
  const start = i;
  while (i < n && /[0-9]/.test(path[i] as string)) i++;
  if (i === start) fail(path, "expected a number, '*' or a quoted key inside '[ ]'", start);
  if (path[i] !== ']') fail(path, "expected ']'", i);
  steps.push({ kind: 'index', index: Number(path.slice(start, i)) });
  return i;
}

function canonical(steps: readonly FieldPathStep[]): string {
  let out = '';
  for (const s of steps) {
    if (s.kind === 'field') {
      out += /^[A-Za-z0-9_-]+$/.test(s.name) ? (out === '' ? s.name : `.${s.name}`) : `['${s.name.replace(/[\\']/g, '\\$&')}']`;
    } else if (s.kind === 'index') out += `[${s.index}]`;
    else out += '[*]';
  }
  return out;
}

function makeFieldPath(steps: FieldPathStep[]): FieldPath {
  const frozen = Object.freeze(steps.slice());
  return {
    path: canonical(frozen),
    steps: frozen,
    evaluate: (obj) => evaluate(frozen, obj),
  };
}

function evaluate(steps: readonly FieldPathStep[], obj: unknown): string[] {
  let current: unknown[] = [obj];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) applyStep(step, v, next);
    if (next.length === 0) return [];
    current = next;
  }
  const out: string[] = [];
  for (const v of current) collectScalars(v, out);
  return out.length > 1 ? [...new Set(out)] : out;
}

function applyStep(step: FieldPathStep, v: unknown, out: unknown[]): void {
  if (v === null || typeof v !== 'object') return;
  if (step.kind === 'field') {
    if (Array.isArray(v)) {
      for (const e of v) applyStep(step, e, out);
      return;
    }
    if (Object.hasOwn(v, step.name)) {
      const x = (v as Record<string, unknown>)[step.name];
      if (x !== undefined) out.push(x);
    }
    return;
  }
  if (step.kind === 'index') {
    if (Array.isArray(v) && step.index < v.length) out.push(v[step.index]);
    return;
  }
  if (Array.isArray(v)) for (const e of v) out.push(e);
  else for (const x of Object.values(v)) out.push(x);
}

function collectScalars(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') out.push(String(v));
  else if (Array.isArray(v)) for (const e of v) collectScalars(e, out);
}
