/**
 * Whether the user is in this repository's checkout, where its npm scripts (`npm run cluster:up`)
 * exist. The one module here the program itself loads: a hint names an npm script only where it
 * runs, and something a plugin user can do anywhere else.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The package's name in package.json. */
export const PACKAGE_NAME = 'kubectl-informer-trace';

/**
 * True when `npm run SCRIPT` from `cwd` runs this repository's script: the folder npm runs scripts
 * in (the nearest one up from `cwd` holding a package.json or a node_modules) is a checkout (its
 * package.json is this package's and has SCRIPT, and src/ is there: the installed package has no
 * src/).
 */
export function inCheckoutWith(script: string, cwd: string = process.cwd()): boolean {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown; scripts?: Record<string, unknown> };
        return pkg.name === PACKAGE_NAME && typeof pkg.scripts?.[script] === 'string' && existsSync(join(dir, 'src'));
      } catch {
        return false;
      }
    }
    if (existsSync(join(dir, 'node_modules')) || dirname(dir) === dir) return false;
  }
}
