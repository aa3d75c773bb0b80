import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inCheckoutWith, PACKAGE_NAME } from './checkout.js';

const root = mkdtempSync(join(tmpdir(), 'informer-trace-checkout-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A folder with this package.json (and src/ when `src`), and a folder below it. */
function project(name: string, pkg: unknown, src: boolean): { dir: string; below: string } {
  const dir = join(root, name);
  const below = join(dir, 'docs', 'design');
  mkdirSync(below, { recursive: true });
  writeFileSync(join(dir, 'package.json'), typeof pkg === 'string' ? pkg : JSON.stringify(pkg));
  if (src) mkdirSync(join(dir, 'src'));
  return { dir, below };
}

const manifest = { name: PACKAGE_NAME, scripts: { 'cluster:up': 'node build/tools/cluster/cli.js up' } };

describe('inCheckoutWith', () => {
  it("is true in the checkout and in its subfolders, where npm runs the checkout's scripts", () => {
    const { dir, below } = project('checkout', manifest, true);
    expect(inCheckoutWith('cluster:up', dir)).toBe(true);
    expect(inCheckoutWith('cluster:up', below)).toBe(true);
    expect(inCheckoutWith('cluster:down', dir)).toBe(false);
  });

  it('is false in the installed package (no src/), another project, a broken package.json, or nowhere near one', () => {
    expect(inCheckoutWith('cluster:up', project('installed', manifest, false).dir)).toBe(false);
    expect(inCheckoutWith('cluster:up', project('other', { ...manifest, name: 'other' }, true).below)).toBe(false);
    expect(inCheckoutWith('cluster:up', project('broken', '{', true).dir)).toBe(false);
    expect(inCheckoutWith('cluster:up', resolve('/'))).toBe(false);
  });

  it('stops at the nearest folder npm would take for the project: a node_modules without package.json counts', () => {
    const { dir } = project('outer', manifest, true);
    const inner = join(dir, 'work');
    mkdirSync(join(inner, 'node_modules'), { recursive: true });
    expect(inCheckoutWith('cluster:up', inner)).toBe(false);
  });

  it('holds for this repository, where the unit tests run', () => {
    expect(inCheckoutWith('cluster:up', resolve(import.meta.dirname, '..', 'kube'))).toBe(true);
  });
});
