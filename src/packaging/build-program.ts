/**
 * The second step of `npm run build`, after tsc: dist/main.js bundled into the single file bin/
 * runs (bundle.ts, PROGRAM_BUNDLE).
 *
 *   node dist/packaging/build-program.js
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleProgram } from './bundle.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

bundleProgram(root).then(
  (r) => process.stderr.write(`build: ${r.file.slice(root.length + 1)} (${(r.bytes / 1024 / 1024).toFixed(1)} MiB)\n`),
  (err: unknown) => {
    process.stderr.write(`build: error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
