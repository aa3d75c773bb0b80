/**
 * The repository's root folder, for the tooling: the nearest folder up from this module that holds
 * scripts/with-node.sh. The same whether the module runs from its source (tools/) or compiled
 * (build/tools/).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'scripts', 'with-node.sh'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no repository root above ${from}`);
  }
}

export const repoRoot: string = findRoot(dirname(fileURLToPath(import.meta.url)));
