import { describe, expect, it } from 'vitest';
import { input } from '../../tools/testing/diagnose-input.js';
import { diagnose } from './diagnose.js';

describe('diagnose: accepted', () => {
  it('a target that does not exist is broken at accepted', () => {
    const d = diagnose(input({ object: undefined, descendants: [] }));
    expect(d.verdict).toBe('broken');
    expect(d.link).toBe('accepted');
    expect(d.next[0]).toBe('kubectl get deployment web -n demo');
  });
});
