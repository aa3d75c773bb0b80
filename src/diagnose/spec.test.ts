import { describe, expect, it } from 'vitest';
import { deployment, input } from '../../tools/testing/diagnose-input.js';
import { diagnose } from './diagnose.js';

describe('diagnose: spec', () => {
  it('a paused Deployment that has not rolled out is broken at spec', () => {
    const d = diagnose(input({ object: deployment({ paused: true, generation: 3, observed: 3, ready: 1 }) }));
    expect(d.link).toBe('spec');
    expect(d.evidence[0]).toMatchObject({ source: 'field', type: 'spec.paused', reason: 'Paused' });
    expect(d.next).toEqual(['kubectl rollout resume deployment/web -n demo']);
  });
});
