import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ndjsonLine, ndjsonWriter, renderStructured } from './format.js';

describe('renderStructured', () => {
  it('writes an object met twice in full both times in YAML: no anchors or aliases, the same data as the JSON', () => {
    const owner = { kind: 'ReplicaSet', name: 'web-1', labels: { app: 'web' } };
    const value = { hops: [{ object: owner }, { object: { kind: 'Pod', name: 'web-1-a' }, owner }, { object: { kind: 'Pod', name: 'web-1-b' }, owner }] };
    const yaml = renderStructured(value, 'yaml');
    expect(yaml).not.toMatch(/[&*]a\d/);
    expect(yaml.match(/name: web-1$/gm)).toHaveLength(3);
    expect(parse(yaml)).toEqual(JSON.parse(renderStructured(value, 'json')));
  });
});

describe('ndjsonLine', () => {
  it('is one line however the value breaks: compact JSON, newlines inside strings escaped, one newline at the end', () => {
    const value = { kind: 'verify', text: 'two\nlines', nested: { list: [1, 2] } };
    const line = ndjsonLine(value);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toEqual(value);
    expect(line).toBe('{"kind":"verify","text":"two\\nlines","nested":{"list":[1,2]}}\n');
  });
});

describe('ndjsonWriter', () => {
  /** A stream that records each batch it is handed: one write, or one writev of several lines. */
  function recorder(): { out: Writable; batches: string[][] } {
    const batches: string[][] = [];
    const out = new Writable({
      write(chunk: Buffer, _enc, done) {
        batches.push([chunk.toString()]);
        done();
      },
      writev(chunks, done) {
        batches.push(chunks.map((c) => (c.chunk as Buffer).toString()));
        done();
      },
    });
    return { out, batches };
  }

  it('writes a line per value, in order, and the lines of one tick in one batch', async () => {
    const { out, batches } = recorder();
    const line = ndjsonWriter(out);
    line({ n: 1 });
    line({ n: 2, s: 'a\nb' });
    out.write('direct\n'); // another write to the same stream keeps its place
    line({ n: 3 });
    expect(batches).toEqual([]);
    await new Promise((r) => setImmediate(r));
    line({ n: 4 });
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([['{"n":1}\n', '{"n":2,"s":"a\\nb"}\n', 'direct\n', '{"n":3}\n'], ['{"n":4}\n']]);
  });
});
