/**
 * One address for the project: package.json's `homepage`, which the packaging reads for the krew
 * manifests and the release URL, is the one every document gives, and the repository it names.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot as root } from '../root.js';

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { homepage?: string; repository?: { url?: string } };
const documents = ['README.md', ...readdirSync(join(root, 'docs')).map((f) => join('docs', f))].filter((f) => f.endsWith('.md'));

describe('the project address', () => {
  it('is declared once in package.json, as the homepage and the repository', () => {
    expect(pkg.homepage).toMatch(/^https:\/\/github\.com\/[\w.-]+\/kubectl-informer-trace$/);
    expect(pkg.repository?.url).toBe(`git+${pkg.homepage}.git`);
  });

  it.each(documents)('%s gives no other address for the project', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const addresses = [...text.matchAll(/https:\/\/github\.com\/[\w.-]+\/kubectl-informer-trace\b/g)].map((m) => m[0]);
    expect(new Set(addresses.filter((a) => a !== pkg.homepage))).toEqual(new Set());
  });
});
