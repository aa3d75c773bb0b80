import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderStructured } from './format.js';

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
