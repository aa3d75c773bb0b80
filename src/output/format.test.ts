import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { HOSTILE } from '../../tools/testing/hostile.js';
import { parse } from 'yaml';
import { ndjsonLine, ndjsonWriter, renderStructured, writeStructuredList } from './format.js';

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

describe('writeStructuredList', () => {
  /** A stream that takes `highWaterMark` characters before it asks the writer to wait. */
  function sink(highWaterMark = 1 << 20): { out: Writable; text: () => Promise<string>; writes: () => number } {
    const parts: string[] = [];
    const out = new Writable({
      highWaterMark,
      decodeStrings: false,
      write(chunk: string, _enc, cb) {
        parts.push(chunk);
        setImmediate(cb);
      },
    });
    // What reached the stream's sink once the stream has finished.
    const text = async (): Promise<string> => {
      await new Promise((resolve) => out.end(resolve));
      return parts.join('');
    };
    return { out, text, writes: () => parts.length };
  }
  const pod = (i: number): Record<string, unknown> => ({
    metadata: { name: `web-${i}`, namespace: 'demo', labels: { app: 'web', yes: 'true' }, annotations: { note: `line one\n\n  indented\nlast ${i}` } },
    spec: { containers: [{ name: 'c', image: 'nginx', args: ['-c', '', 'a: b', '- x'] }], nodeName: null, tolerations: [] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], empty: {} },
  });
  const cases: [string, { items: unknown[] } & Record<string, unknown>][] = [
    ['objects', { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '42' }, items: Array.from({ length: 500 }, (_, i) => pod(i)) }],
    [
      'objects and indexes after them',
      {
        apiVersion: 'v1',
        kind: 'List',
        metadata: { resourceVersion: '7' },
        items: [pod(1), {}, [], 'text', 3, 'two\nlines\n\n', [[1, 2], { a: 'b' }], null],
        indexes: { app: { web: ['demo/web-1'], items: ['x'] } },
      },
    ],
    ['no objects', { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '1' }, items: [] }],
    ['no objects and indexes', { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '1' }, items: [], indexes: { app: {} } }],
  ];
  for (const format of ['json', 'yaml'] as const) {
    for (const [name, list] of cases) {
      it(`writes ${format} equal to renderStructured's: ${name}`, async () => {
        const { out, text } = sink();
        await writeStructuredList(out, list, format);
        expect(await text()).toBe(renderStructured(list, format));
      });
    }
  }

  it('writes in chunks and waits while the stream is full', async () => {
    const list = cases[0]![1];
    const { out, text, writes } = sink(1024);
    let waited = 0;
    const write = out.write.bind(out);
    out.write = ((chunk: string) => {
      const ok = write(chunk);
      if (!ok) waited++;
      return ok;
    }) as typeof out.write;
    await writeStructuredList(out, list, 'json');
    expect(await text()).toBe(renderStructured(list, 'json'));
    expect(writes()).toBeGreaterThan(5);
    expect(waited).toBe(writes());
  });

  it('stops writing once its signal aborts', async () => {
    const { out, writes } = sink(1024);
    const controller = new AbortController();
    out.once('drain', () => controller.abort());
    await writeStructuredList(out, cases[0]![1], 'yaml', controller.signal);
    expect(writes()).toBe(1);
  });
});

describe("json and yaml keep the cluster's strings exact", () => {
  it('a hostile string round-trips byte for byte: nothing is escaped for the terminal', () => {
    const value = { metadata: { name: HOSTILE, annotations: { [HOSTILE]: HOSTILE } }, message: HOSTILE, items: [HOSTILE] };
    const json = renderStructured(value, 'json');
    expect(json).toBe(`${JSON.stringify(value, null, 2)}\n`);
    expect(JSON.parse(json)).toEqual(value);
    expect(parse(renderStructured(value, 'yaml'))).toEqual(value);
    expect(ndjsonLine(value)).toBe(`${JSON.stringify(value)}\n`);
  });
});
