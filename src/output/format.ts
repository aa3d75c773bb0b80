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

/** What a List's items are written in, an item at a time, before it is handed to the stream. */
const LIST_CHUNK = 64 * 1024;

/**
 * Writes a List (`items` beside other fields) to `out` as renderStructured renders it, byte for
 * byte, but an item at a time: no string holds the whole output, which for a large cache would
 * pass V8's limit on a string's length (2^29 characters: about 80,000 Pods as indented JSON) and
 * hold several copies of it at once. It waits while `out` is full, and stops when `signal` aborts
 * (the reader went away).
 */
export async function writeStructuredList(
  out: Writable,
  list: { items: readonly unknown[] } & Record<string, unknown>,
  format: StructuredFormat,
  signal?: AbortSignal,
): Promise<void> {
  const { items } = list;
  // The List around an empty `items`, which stands on a line of its own: a top-level key is the
  // only one at that indentation. JSON's line may end in a comma, which goes after the `]`.
  const shell = renderStructured({ ...list, items: [] }, format);
  const json = format === 'json';
  const at = (json ? /^ {2}"items": \[\](,?)\n/m : /^items: \[\]\n/m).exec(shell);
  if (items.length === 0 || !at) {
    await writeChunk(out, shell, signal);
    return;
  }
  let chunk = `${shell.slice(0, at.index)}${json ? '  "items": [\n' : 'items:\n'}`;
  for (let i = 0; i < items.length; i++) {
    chunk += json ? jsonListItem(items[i], i === items.length - 1) : yamlListItem(items[i]);
    if (chunk.length >= LIST_CHUNK) {
      if (!(await writeChunk(out, chunk, signal))) return;
      chunk = '';
    }
  }
  chunk += `${json ? `  ]${at[1]}\n` : ''}${shell.slice(at.index + at[0].length)}`;
  await writeChunk(out, chunk, signal);
}

/** An element of the top-level List's `items` as JSON.stringify(list, null, 2) writes it. */
function jsonListItem(item: unknown, last: boolean): string {
  // A JSON text has no newline but those between its lines, so each of them is indented.
  return `    ${JSON.stringify(item, null, 2).replaceAll('\n', '\n    ')}${last ? '\n' : ',\n'}`;
}

/** An element of the top-level List's `items` as the whole List's YAML writes it: `  - ` and an indented map. */
function yamlListItem(item: unknown): string {
  const lines = renderStructured(item, 'yaml').split('\n');
  let text = '';
  // The text ends with a newline: its last line is empty. An empty line inside (in a block
  // scalar) stays empty, as the whole List's YAML leaves it.
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    text += `${i === 0 ? '  - ' : line === '' ? '' : '    '}${line}\n`;
  }
  return text;
}

/** Writes a chunk, then waits while `out` is full; false once `signal` has aborted. */
async function writeChunk(out: Writable, chunk: string, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return false;
  if (!out.write(chunk) && !out.destroyed) {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        out.off('drain', done);
        out.off('close', done);
        out.off('error', done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      out.on('drain', done);
      out.on('close', done);
      out.on('error', done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
  return !signal?.aborted;
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
