import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { parseManifest } from './manifest.js';

describe('parseManifest', () => {
  it('reads one object from YAML or JSON', () => {
    const yaml = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  replicas: 2\n';
    expect(parseManifest(yaml, 'web.yaml')).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { replicas: 2 },
    });
    expect(parseManifest('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}', 'stdin').metadata.name).toBe('c');
    // A leading document separator and a trailing empty document are not objects.
    expect(parseManifest('---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n', 'f').kind).toBe('ConfigMap');
  });

  it.each([
    [
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
      'm.yaml: holds 2 objects; --apply traces one object',
    ],
    ['', 'm.yaml: holds 0 objects; --apply traces one object'],
    ['kind: Deployment\nmetadata: {}\n', 'm.yaml: the object has no apiVersion, metadata.name'],
    ['apiVersion: v1\nkind: List\nmetadata: {name: x}\nitems: []\n', 'm.yaml: a List; --apply traces one object'],
    ['- a\n- b\n', 'm.yaml: not a Kubernetes object'],
    ['apiVersion: v1\nkind: [unclosed\n', 'm.yaml: not valid YAML or JSON'],
  ])('refuses %j with one line', (text, message) => {
    let caught: unknown;
    try {
      parseManifest(text, 'm.yaml');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as Error).message.startsWith(message)).toBe(true);
    expect((caught as Error).message).not.toContain('\n');
  });
});
