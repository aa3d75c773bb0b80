// scripts/with-node.sh, the launcher the npm scripts and .ci/run start their commands through: it
// must pick the machine's Node.js when it is >= 22.19 and otherwise install Node.js 24 into the
// cache once and run the command under it. Stand-in `node` and `npm` scripts play both parts, so
// nothing is downloaded.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { executable, tempRoot } from '../testing/stand-ins.js';

const run = promisify(execFile);
const LAUNCHER = join(import.meta.dirname, '../../scripts/with-node.sh');
/** A bin folder whose `node` says it is `version`, and a cache folder, maybe with Node 24 in it. */
function machine(version: string, cached: boolean): { bin: string; cache: string; npmLog: string } {
  const root = tempRoot('informer-trace-with-node-');
  const bin = join(root, 'bin');
  const cache = join(root, 'cache');
  const npmLog = join(root, 'npm.log');
  mkdirSync(bin);
  executable(join(bin, 'node'), `echo ${version}`);
  // The stand-in npm logs its arguments and installs a `node` 24 where --prefix says.
  executable(
    join(bin, 'npm'),
    [
      `echo "$*" >> '${npmLog}'`,
      'while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix=$2; shift; done',
      'mkdir -p "$prefix/node_modules/.bin"',
      `printf '#!/bin/sh\\necho v24.21.0\\n' > "$prefix/node_modules/.bin/node"`,
      'chmod +x "$prefix/node_modules/.bin/node"',
    ].join('\n'),
  );
  if (cached) {
    mkdirSync(join(cache, 'node/node_modules/.bin'), { recursive: true });
    executable(join(cache, 'node/node_modules/.bin/node'), 'echo v24.21.0');
  }
  return { bin, cache, npmLog };
}

async function launch(m: { bin: string; cache: string }): Promise<{ stdout: string; stderr: string }> {
  // The command reports which node it finds; sh and the coreutils come from the system folders.
  return run('/bin/sh', [LAUNCHER, 'sh', '-c', 'node --version'], {
    env: { PATH: `${m.bin}:/usr/bin:/bin`, HOME: '/nonexistent', INFORMER_TRACE_CACHE: m.cache },
  });
}

describe('scripts/with-node.sh', () => {
  it.each(['v22.19.0', 'v22.20.1', 'v24.0.0', 'v26.1.0'])('runs the command under the machine node %s, unchanged and silent', async (version) => {
    const m = machine(version, false);
    const r = await launch(m);
    expect(r.stdout.trim()).toBe(version);
    expect(r.stderr).toBe('');
    expect(existsSync(m.npmLog)).toBe(false);
  });

  it.each(['v20.20.2', 'v22.18.0', 'v18.0.0'])('runs the command under the cached Node 24 when the machine has %s', async (version) => {
    const m = machine(version, true);
    const r = await launch(m);
    expect(r.stdout.trim()).toBe('v24.21.0');
    expect(r.stderr.trim()).toBe(`node: ${version} is older than 22.19; running under v24.21.0 from ${m.cache}/node`);
    expect(existsSync(m.npmLog)).toBe(false);
  });

  it('installs Node 24 from the npm registry into the cache the first time, then reuses it', async () => {
    const m = machine('v20.20.2', false);
    const first = await launch(m);
    expect(first.stdout.trim()).toBe('v24.21.0');
    expect(first.stderr).toContain(`installing Node.js 24 from the npm registry into ${m.cache}/node`);
    expect(readFileSync(m.npmLog, 'utf8')).toBe(`install --no-audit --no-fund --prefix ${m.cache}/node node@24\n`);
    expect(JSON.parse(readFileSync(join(m.cache, 'node/package.json'), 'utf8'))).toEqual({ allowScripts: { node: true } });

    const second = await launch(m);
    expect(second.stdout.trim()).toBe('v24.21.0');
    expect(second.stderr).not.toContain('installing');
    expect(readFileSync(m.npmLog, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('says in one line that no usable Node.js was found when the cached one is too old too', async () => {
    const m = machine('v20.20.2', false);
    mkdirSync(join(m.cache, 'node/node_modules/.bin'), { recursive: true });
    executable(join(m.cache, 'node/node_modules/.bin/node'), 'echo v21.0.0');
    const r = await launch(m).then(
      () => undefined,
      (err: { code: number; stderr: string; stdout: string }) => err,
    );
    expect(r?.code).toBe(1);
    expect(r?.stdout).toBe('');
    expect(r?.stderr.trim().split('\n')).toEqual([`error: Node.js >= 22.19 is needed (found: v20.20.2; ${m.cache}/node does not hold a working one)`]);
  });
});
