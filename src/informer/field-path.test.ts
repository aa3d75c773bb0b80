import { describe, expect, it } from 'vitest';
import { parseFieldPath } from './field-path.js';

describe('parseFieldPath', () => {
  it('parses names, quoted keys, indices and wildcards into steps', () => {
    expect(parseFieldPath('spec.nodeName').steps).toEqual([
      { kind: 'field', name: 'spec' },
      { kind: 'field', name: 'nodeName' },
    ]);
    expect(parseFieldPath(".metadata.labels['app.kubernetes.io/name']").steps).toEqual([
      { kind: 'field', name: 'metadata' },
      { kind: 'field', name: 'labels' },
      { kind: 'field', name: 'app.kubernetes.io/name' },
    ]);
    expect(parseFieldPath('spec.containers[0].ports[*]').steps).toEqual([
      { kind: 'field', name: 'spec' },
      { kind: 'field', name: 'containers' },
      { kind: 'index', index: 0 },
      { kind: 'field', name: 'ports' },
      { kind: 'all' },
    ]);
    expect(parseFieldPath('metadata.annotations["a\\"b"]').steps[2]).toEqual({ kind: 'field', name: 'a"b' });
  });

  it('gives a canonical form', () => {
    expect(parseFieldPath('.spec.nodeName').path).toBe('spec.nodeName');
    expect(parseFieldPath('metadata["labels"]["app"]').path).toBe('metadata.labels.app');
    expect(parseFieldPath("metadata.labels['a.b/c']").path).toBe("metadata.labels['a.b/c']");
  });

  const invalid: [string, RegExp][] = [
    ['', /it is empty/],
    ['   ', /it is empty/],
    ['.', /ends with a dot/],
    ['spec.', /ends with a dot/],
    ['spec..nodeName', /empty segment at character 6/],
    ['spec.[0]', /'\[' right after '\.'/],
    ['spec.containers[', /unclosed '\['/],
    ['spec.containers[x]', /expected a number, '\*' or a quoted key/],
    ['spec.containers[1', /expected '\]'/],
    ["metadata.labels['app", /unclosed quote/],
    ["metadata.labels['']", /empty quoted key/],
    ['metadata.labels.app.kubernetes.io/name', /unexpected "\/"/],
    ['spec nodeName', /unexpected " "/],
    ['spec[0]x', /unexpected "x" after '\]'/],
  ];
  for (const [path, msg] of invalid) {
    it(`rejects ${JSON.stringify(path)} with a readable message`, () => {
      expect(() => parseFieldPath(path)).toThrow(msg);
      try {
        parseFieldPath(path);
      } catch (err) {
        expect(err).toBeInstanceOf(Error);
        expect((err as Error).message).toContain('invalid field path');
        expect((err as Error).message).toContain('e.g. spec.nodeName');
      }
    });
  }

  it('evaluates: strings as they are, numbers and booleans as text, objects and null skipped, duplicates dropped', () => {
    const obj = { a: [{ b: 'x' }, { b: 'x' }, { b: 2 }, { b: true }, { b: null }, { b: { c: 1 } }], m: { k1: 'v1', k2: 'v2' } };
    expect(parseFieldPath('a.b').evaluate(obj)).toEqual(['x', '2', 'true']);
    expect(parseFieldPath('m[*]').evaluate(obj)).toEqual(['v1', 'v2']);
    expect(parseFieldPath('a[9].b').evaluate(obj)).toEqual([]);
    expect(parseFieldPath('nothing.here').evaluate(obj)).toEqual([]);
    expect(parseFieldPath('a.b').evaluate(null)).toEqual([]);
    expect(parseFieldPath('m.toString').evaluate(obj)).toEqual([]);
  });
});
