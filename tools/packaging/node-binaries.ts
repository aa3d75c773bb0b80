/**
 * Node.js binaries for the standalone executables, from the npm registry's node-<os>-<arch>
 * packages through the ordinary client (`npm pack`, which checks the registry's integrity hash),
 * cached outside the repository: <cache>/node-binaries/<version>/<os>-<arch>/{node,LICENSE}, the
 * cache being $INFORMER_TRACE_CACHE or ~/.cache/informer-trace as for the control plane.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { extract } from 'tar';

const run = promisify(execFile);

export function cacheRoot(): string {
  return process.env.INFORMER_TRACE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'informer-trace');
}

export interface NodeBinary {
  node: string;
  license: string;
  version: string;
  package: string;
}

/** Thrown when the registry has no such package version (a "no", not a network failure). */
export class NotPublishedError extends Error {}

export async function nodeBinary(pkg: string, version: string, log: (line: string) => void): Promise<NodeBinary> {
  const platform = pkg.replace(/^node-/, '');
  const dir = join(cacheRoot(), 'node-binaries', version, platform);
  const node = join(dir, 'node');
  const license = join(dir, 'LICENSE');
  const done = join(dir, '.complete');
  if (existsSync(done) && existsSync(node) && existsSync(license)) return { node, license, version, package: pkg };
  mkdirSync(join(cacheRoot(), 'node-binaries'), { recursive: true });
  const tmp = mkdtempSync(join(cacheRoot(), 'node-binaries', '.download-'));
  try {
    log(`downloading ${pkg}@${version} from the npm registry (npm pack)…`);
    let packed: { filename: string; integrity: string }[];
    try {
      const { stdout } = await run('npm', ['pack', `${pkg}@${version}`, '--pack-destination', tmp, '--json', '--silent'], {
        maxBuffer: 64 * 1024 * 1024,
        cwd: tmp,
      });
      packed = JSON.parse(stdout) as { filename: string; integrity: string }[];
    } catch (err) {
      const text = `${(err as { stderr?: string }).stderr ?? ''}${(err as Error).message}`;
      if (/E404|No match found|404 Not Found/.test(text)) throw new NotPublishedError(`${pkg}@${version} is not on the npm registry`);
      throw new Error(`npm pack ${pkg}@${version} failed: ${text.trim().split('\n').slice(-3).join(' ')}`);
    }
    const tgz = join(tmp, packed[0]!.filename);
    const out = join(tmp, 'x');
    mkdirSync(out);
    await extract({ file: tgz, cwd: out, filter: (p) => p === 'package/bin/node' || p === 'package/LICENSE' });
    if (!existsSync(join(out, 'package', 'bin', 'node'))) throw new Error(`${pkg}@${version} has no bin/node`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    renameSync(join(out, 'package', 'bin', 'node'), node);
    renameSync(join(out, 'package', 'LICENSE'), license);
    chmodSync(node, 0o755);
    writeFileSync(done, `${pkg}@${version} ${packed[0]!.integrity}\n`);
    return { node, license, version, package: pkg };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
