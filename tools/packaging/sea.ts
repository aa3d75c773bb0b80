/**
 * Node single executable applications (Node 24: a prepared blob injected into a copy of `node`).
 *
 * Node 24's SEA runs a CommonJS main script whose require() reaches only built-ins, and the bundle
 * is ESM (see bundle.ts). So the main script registers an in-thread module hook that serves the
 * bundle, embedded as a SEA asset, under a file: URL of its own, and imports it: stack traces then
 * name file:///informer-trace/app.mjs rather than a data: URL of megabytes.
 *
 * The blob is made by a node of exactly the target's version (Node requires it); with neither code
 * cache nor snapshot it does not depend on the platform that made it. Mach-O binaries lose Node's
 * signature before injection (it would no longer match) and stay unsigned.
 */
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { unsign } from 'macho-unsign';
import { PLUGIN_NODE_FLAGS } from './node-flags.js';

const run = promisify(execFile);

export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
export const APP_URL = 'file:///informer-trace/app.mjs';

export const SEA_MAIN = `'use strict';
// The single executable's main script: serve the embedded ESM bundle to the module loader, run it.
const { getAsset } = require('node:sea');
const { registerHooks, enableCompileCache } = require('node:module');
// V8 keeps the bundle's compiled code in the system's temporary folder for the next run.
enableCompileCache?.();
const APP = ${JSON.stringify(APP_URL)};
registerHooks({
  resolve(specifier, context, next) {
    return specifier === APP ? { url: APP, format: 'module', shortCircuit: true } : next(specifier, context);
  },
  load(url, context, next) {
    return url === APP ? { format: 'module', source: getAsset('app.mjs', 'utf8'), shortCircuit: true } : next(url, context);
  },
});
import(APP).catch((err) => {
  process.stderr.write('error: cannot start: ' + (err && err.message ? err.message : String(err)) + '\\n');
  process.exit(1);
});
`;

/** Prepares the blob with `generator` (a node of the target's exact version that runs here). */
export async function prepareBlob(generator: string, workDir: string, app: string): Promise<string> {
  const main = join(workDir, 'sea-main.cjs');
  const blob = join(workDir, 'sea.blob');
  writeFileSync(main, SEA_MAIN);
  writeFileSync(
    join(workDir, 'sea-config.json'),
    JSON.stringify(
      {
        main,
        output: blob,
        disableExperimentalSEAWarning: true,
        useSnapshot: false,
        useCodeCache: false,
        execArgv: [...PLUGIN_NODE_FLAGS],
        assets: { 'app.mjs': app },
      },
      null,
      2,
    ),
  );
  await run(generator, ['--experimental-sea-config', join(workDir, 'sea-config.json')], { cwd: workDir });
  return blob;
}

interface Postject {
  inject(file: string, resource: string, data: Buffer, options: { sentinelFuse: string; machoSegmentName?: string; overwrite?: boolean }): Promise<void>;
}

/** A copy of `node` with the blob injected, at `out`. */
export async function makeExecutable(node: string, blob: string, out: string, os: 'linux' | 'darwin'): Promise<void> {
  copyFileSync(node, out);
  chmodSync(out, 0o755);
  if (os === 'darwin') {
    const unsigned = unsign(readFileSync(out));
    if (unsigned) writeFileSync(out, Buffer.from(unsigned));
  }
  const postject = createRequire(import.meta.url)('postject') as Postject;
  await quietLief(() =>
    postject.inject(out, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE, ...(os === 'darwin' ? { machoSegmentName: 'NODE_SEA' } : {}) }),
  );
  chmodSync(out, 0o755);
}

/** LIEF (inside postject) warns about every ELF note section it cannot name; that is expected of Node's binary. */
async function quietLief<T>(fn: () => Promise<T>): Promise<T> {
  const noise = /^warning: Can't find string offset for section name/;
  const saved = { log: console.log, warn: console.warn, error: console.error };
  const filter =
    (write: (...args: unknown[]) => void) =>
    (...args: unknown[]): void => {
      if (!(typeof args[0] === 'string' && noise.test(args[0]))) write(...args);
    };
  console.log = filter(saved.log);
  console.warn = filter(saved.warn);
  console.error = filter(saved.error);
  try {
    return await fn();
  } finally {
    Object.assign(console, saved);
  }
}
