import { describe, expect, it } from 'vitest';
import { parseTarget } from './target.js';

describe('parseTarget', () => {
  it('splits TYPE/NAME, the type as written (short names and groups resolve later)', () => {
    expect(parseTarget('deploy/web')).toEqual({ type: 'deploy', name: 'web' });
    expect(parseTarget(' deployments.apps/web ')).toEqual({ type: 'deployments.apps', name: 'web' });
  });

  it.each(['web', 'deploy/', '/web', 'demo/deploy/web', ''])('refuses %j, saying what it expects', (text) => {
    expect(() => parseTarget(text)).toThrow(`"${text}" is not TYPE/NAME (e.g. deploy/web, sts/db)`);
  });
});
